"""fslab.target_guess: the target column and the ID-like columns of a new table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fslab.data.target_guess import guess_target, id_like_columns


def test_conventional_name_wins_over_position():
    frame = pd.DataFrame({"id": range(30), "diagnosis": ["M", "B"] * 15, "radius": np.linspace(1, 2, 30)})
    guess = guess_target(frame)
    assert guess.column == "diagnosis" and "named like a target" in guess.reason


def test_a_binary_target_name_wins_over_a_multi_level_one():
    frame = pd.DataFrame({"Label": [0, 1] * 10, "CLASS": [1, 2, 3, 4] * 5, "x": range(20)})
    guess = guess_target(frame)   # Label: name 3 + binary 1 = 4; CLASS: 3; x: 20 values, no name
    assert guess.column == "Label" and guess.sure


def test_a_column_named_exactly_like_a_target_may_be_numeric():
    frame = pd.DataFrame({"y": np.linspace(0, 1, 50), "grp": ["a", "b", "c"] * 16 + ["a", "b"], "z": range(50)})
    guess = guess_target(frame)   # a real-valued target named y (50 values) beats an unnamed 3-level column
    assert guess.column == "y" and guess.sure and "50 distinct values" in guess.reason


def test_without_a_candidate_the_user_is_asked():
    frame = pd.DataFrame({"a": np.linspace(0, 1, 30), "b": np.linspace(1, 2, 30)})
    guess = guess_target(frame)
    assert guess.column == "b" and not guess.sure and "choose the column to predict" in guess.reason
    with pytest.raises(ValueError):
        guess_target(pd.DataFrame())


def test_an_unnamed_binary_column_is_offered_but_not_taken():
    frame = pd.DataFrame({"x": np.linspace(0, 1, 40), "flagged": [0, 1] * 20, "grp": ["a", "b", "c", "d"] * 10})
    guess = guess_target(frame)
    assert guess.column == "flagged" and not guess.sure and guess.reason.startswith("not sure")


@pytest.mark.parametrize("columns, target", [
    # issue 33's misses: a passenger class, free-text comments, a year, a payment method, a job code, a date
    ({"passengerClass": ["1st", "2nd", "3rd"] * 20, "survived": ["yes", "no"] * 30, "sex": ["f", "m", "m"] * 20},
     "survived"),
    ({"Species": ["Adelie Penguin (Pygoscelis adeliae)", "Gentoo penguin (Pygoscelis papua)"] * 30,
      "Comments": ["Not enough blood for isotopes."] * 5 + [None] * 55, "Region": ["Anvers"] * 60}, "Species"),
    ({"species": ["Adelie", "Gentoo", "Chinstrap"] * 20, "island": ["a", "b"] * 30, "year": [2007, 2008, 2009] * 20},
     "species"),
    ({"tenure": range(60), "Churn": ["Yes", "No", "No"] * 20, "payment_method": ["card", "cash", "check"] * 20},
     "Churn"),
    ({"Age": range(60), "Job": [0, 1, 2, 3] * 15, "Risk": ["good", "bad", "good"] * 20}, "Risk"),
    ({"name": [f"p{i}" for i in range(60)], "Boarded": ["1912-04-10", "1912-04-11"] * 30,
      "status": ["saved", "lost", "lost"] * 20}, "status"),
])
def test_the_misses_of_the_old_rule(columns, target):
    guess = guess_target(pd.DataFrame(columns))
    assert guess.column == target and guess.sure, guess


def test_never_a_date_a_year_free_text_or_a_mostly_missing_column():
    frame = pd.DataFrame({"signup": ["04-Mar-2021", "05-Mar-2021"] * 20, "year": [2020, 2021] * 20,
                          "note": ["The customer called twice about the bill, then left."] * 40,
                          "sparse": [1, 0] + [None] * 38, "x": np.linspace(0, 1, 40)})
    guess = guess_target(frame)
    assert guess.column == "x" and not guess.sure and "no column looks like a target" in guess.reason


def test_id_like_columns_are_integers_or_text_all_distinct():
    m = 20
    frame = pd.DataFrame({"row": range(m), "code": [f"P{i:03d}" for i in range(m)], "height": np.linspace(1, 2, m),
                          "whole_floats": np.arange(m, dtype=float), "y": [0, 1] * 10, "dup": [1] * m})
    assert id_like_columns(frame, "y") == ["row", "code", "whole_floats"]
    assert id_like_columns(frame, "row") == ["code", "whole_floats"]  # never the target
    assert id_like_columns(frame.head(5)) == []  # too few rows to mean anything
