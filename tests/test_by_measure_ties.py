"""Issue 34.2: By measure says its ties. ``ByMeasure.ties`` holds, per measure, the steps at which several
candidates were equally good (from each selection's trace), with their common value in the measure's own terms.

The toy law: X1, X2, X3 uniform bits, Y = X1 xor X2 (``xor_distribution(3, 2)``). By hand: every single feature
is independent of Y, so alone each errs 1/2 under the 0-1 error (p(x, y) = 1/4 per cell, min_y = 1/4, two cells),
carries I(Xj; Y) = 0 bit and has AUC 1/2: step 1 is a three-way tie under every measure, broken by the lowest
index (X1). With X1 in hand, X2 makes Y a function of (X1, X2): error 0, while X3 leaves 1/2: step 2 has no tie.
"""

from __future__ import annotations

import pytest

from fslab.by_measure import Tie, by_measure
from fslab.pena_nilsson.toy import xor_distribution


@pytest.fixture(scope="module")
def xor():
    return xor_distribution(3, 2)


def test_step_one_is_a_three_way_tie_under_every_measure(xor):
    view = by_measure(xor, 2, ["zero-one", "mi", "auc"])
    assert view.ties["0-1 error"] == (Tie(1, ("X1", "X2", "X3"), 0.5),)
    assert view.ties["AUC"] == (Tie(1, ("X1", "X2", "X3"), 0.5),)
    (mi,) = view.ties["mutual information"]
    assert mi.names == ("X1", "X2", "X3") and mi.value == pytest.approx(0.0, abs=1e-12)
    assert list(view.picks["0-1 error"]) == ["X1", "X2"]  # the lowest index wins, then X2 alone drops the error to 0
    # said once for every measure that met it, with each measure's value
    assert view.tie_words(1) == ("step 1: X1, X2 and X3 tie under 0-1 error at 0.5, mutual information at 0 and "
                                 "AUC at 0.5")
    assert view.tie_words(2) == ""


def test_ranking_ties_at_both_steps_and_exhaustive_ties_between_subsets(xor):
    ranked = by_measure(xor, 2, ["zero-one"], "bayes-score")  # every single feature errs 1/2: X2 and X3 tie again
    assert [t.names for t in ranked.ties["0-1 error"]] == [("X1", "X2", "X3"), ("X2", "X3")]
    assert ranked.tie_words() == ("step 1: X1, X2 and X3 tie under 0-1 error at 0.5; step 2: X2 and X3 tie under "
                                  "0-1 error at 0.5")
    exhaustive = by_measure(xor, 1, ["zero-one"], "exhaustive")  # the three 1-subsets all err 1/2
    (tie,) = exhaustive.ties["0-1 error"]
    assert tie == Tie(1, ("X1", "X2", "X3"), 0.5, "exhaustive")
    assert tie.words() == "the 1-subsets {X1}, {X2} and {X3} tie at 0.5"


def test_no_tie_on_example_1():
    import fslab

    view = by_measure(fslab.example1(), 2, ["zero-one", "mi"])  # 0.25 < 0.30 and 0.17 > 0.08 bit: no equals
    assert all(t == () for t in view.ties.values()) and view.tie_words() == ""


@pytest.mark.slow
def test_the_page_says_the_tie_where_it_names_the_picks():
    """By measure on the XOR toy law (k = 2): every measure adds X1 then X2, and says step 1 was a three-way tie."""
    from streamlit.testing.v1 import AppTest

    from tests.conftest import ROOT
    from ui import state

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.session_state[state.DISTRIBUTION] = xor_distribution(3, 2)
    at.session_state[state.DISTRIBUTION_NAME] = "XOR"
    at.switch_page("pages/by_measure.py").run()
    at.radio(key="bym.source").set_value("distribution").run()
    at.number_input(key="bym.k").set_value(2).run()
    assert not at.exception, [e.value for e in at.exception]
    verdict = next(m.value for m in at.markdown if "same feature at every step" in m.value)
    assert "Some of these picks were ties" in verdict
    said = next(c.value for c in at.caption if c.value.startswith("Ties:"))
    assert said.startswith("Ties: step 1: X1, X2 and X3 tie under 0-1 error at 0.5, ") and "lowest index" in said
