"""Issue 34.3: a Select link made with a selector that does not use the measure (MIGreedy) still carries the
measure Select judges its picks by, and opens on it."""

from __future__ import annotations

import pytest

from tests.test_share_app import open_page, rerun  # noqa: F401  (open_page: a fixture)

pytestmark = pytest.mark.slow


def test_a_select_link_with_mi_greedy_carries_its_measure(open_page):  # noqa: F811
    at = open_page("pages/selection.py", {"data": "mushroom", "selector": "mi-greedy", "measure": "balanced",
                                          "k": "3"})
    assert at.session_state["select.selector"] == "mi-greedy" and at.session_state["select.measure"] == "balanced"
    assert at.query_params["measure"] == "balanced"  # written back: the receiver's curves are the balanced error's
    at.selectbox(key="select.measure").set_value("cost-sensitive")
    rerun(at)
    assert at.query_params["measure"] == "cost-sensitive" and at.query_params["selector"] == "mi-greedy"


def test_a_tour_step_is_linkable_and_the_tour_says_what_it_left_loaded(open_page):  # noqa: F811
    at = open_page("pages/tour.py", {"step": "3"})
    assert "step 3 of 4" in at.caption[0].value and at.query_params["step"] == "3"
    assert at.session_state["fslab.distribution_name"] == "Greedy made bad (Theorem 1)"
    at.button(key="tour.next").click()
    rerun(at)
    assert "step 4 of 4" in at.caption[0].value and at.query_params["step"] == "4"
    # opened cold on step 3, the tour replaced the default Example 1 only by its own example: it says what stays
    assert any("The tour left **Greedy made bad (Theorem 1)** loaded" in c.value for c in at.caption)
    bad = open_page("pages/tour.py", {"step": "9"})
    assert any("the tour has steps 1 to 4" in w.value for w in bad.warning)
    assert "step 1 of 4" in bad.caption[0].value and bad.query_params["step"] == "1"


def test_a_scores_link_opens_its_measures_and_ticked_features(open_page):  # noqa: F811
    query = {"data": "mushroom", "measures": "balanced,mi", "ticked": "odor=none,spore-print-color=green"}
    at = open_page("pages/scores.py", query)
    assert not at.warning, [w.value for w in at.warning]
    assert at.multiselect(key="scores.measures").value == ["balanced", "mi"]
    assert at.session_state["scores.ticked"] == ["odor=none", "spore-print-color=green"]
    assert query.items() <= dict(at.query_params).items()  # the address bar writes the same view back


def test_select_says_the_ties_behind_its_pick(open_page):  # noqa: F811
    """The XOR preset (Y = X1 xor X2, X3 noise): every single feature has Bayes 0-1 error 0.5, so BayesGreedy's
    first pick X1 is one of three tied candidates, and the page says so."""
    at = open_page("pages/selection.py", {"dist": "xor", "source": "distribution", "selector": "bayes-greedy",
                                          "measure": "zero-one", "k": "1"})
    assert any(c.value == "Ties: step 1: X1, X2, X3 tie (within 1e-12 x max(1, |best|) of the best; the lowest "
               "index was taken)." for c in at.caption), [c.value for c in at.caption]


def test_by_measure_says_in_one_line_when_greedy_beats_a_measure_under_its_own_measure(open_page):  # noqa: F811
    """Mushroom, k = 5, BayesGreedy: AUC's five features are best under every measure (issue 34), so the 0-1
    error's own row is not its column's best, and the page says why greedy cannot promise it."""
    at = open_page("pages/by_measure.py", {"data": "mushroom", "selector": "bayes-greedy", "k": "5",
                                           "measures": "zero-one,auc"})
    line = next(m.value for m in at.markdown if "cannot promise the best t-subset" in m.value)
    assert line.startswith("**0-1 error**: its own first 5 feature(s)"), line
