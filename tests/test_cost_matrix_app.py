"""The cost-sensitive error's K x K cost matrix in the app (issue 33.5): on a 3-class target the NPFS page offers
the cost-sensitive error and asks for C[y, k] in a grid (0 on the diagonal, 1 off it by default), a link carries the
matrix and restores it, and the run uses it (the same counts as the library with that c)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fslab.data.samples import load_sample
from fslab.measures import MEASURES, supported_measures
from fslab.npfs import npfs
from fslab.recipe import ALL_CLASSES, load_table
from tests.test_share_app import open_page, rerun  # noqa: F401  (the fixture and the helper)
from ui.cost_matrix import check_matrix, class_label, default_matrix, offered_measures, takes_matrix

WAVEFORM_3 = {"data": "waveform", "positive": "(all classes)", "selector": "bayes-greedy",
              "measure": "cost-sensitive", "k": "3", "n": "5"}
MATRIX = [[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [4.0, 1.0, 0.0]]


def test_the_default_matrix_is_the_zero_one_loss_and_bad_cells_are_named():
    assert default_matrix(3) == [[0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]]
    frame = pd.DataFrame(MATRIX, index=["a", "b", "c"], columns=["a", "b", "c"])
    assert check_matrix(frame, 3) == (MATRIX, None)
    frame.iloc[2, 0], frame.iloc[0, 1] = np.nan, -1.0
    matrix, problem = check_matrix(frame, 3)
    assert matrix is None and "true a / predicted b" in problem and "true c / predicted a" in problem
    assert check_matrix(pd.DataFrame(MATRIX).iloc[:2, :2], 3)[1].startswith("The cost matrix must be 3 x 3")
    assert takes_matrix("c", ["a", "b", "c"]) and not takes_matrix("c", [0, 1]) and not takes_matrix("beta", "abc")


def test_many_classes_offer_the_cost_sensitive_error_binary_targets_are_unchanged():
    binary = load_sample("waveform").discretize("mean-std", 3)   # one-vs-rest on class 2 by default
    assert len(binary.labels) == 2 and offered_measures(binary) == supported_measures(binary)
    three = load_table({"sample": "waveform", "positive": ALL_CLASSES}).discretize("mean-std", 3)
    assert len(three.labels) == 3 and "cost-sensitive" not in supported_measures(three)
    assert offered_measures(three) == [m for m in MEASURES if m in supported_measures(three) or m == "cost-sensitive"]


def test_classes_read_as_numbers_are_named_as_they_read_and_other_labels_are_unchanged():
    assert [class_label(c) for c in np.array([0.0, 1.0, 2.0])] == ["0", "1", "2"]
    assert [class_label(c) for c in [3, -1.0, 2.5, np.int64(7)]] == ["3", "-1", "2.5", "7"]
    assert [class_label(c) for c in np.array(["1.0", "cat"])] == ["1.0", "cat"]   # text stays as written
    assert class_label(True) == "True"


@pytest.mark.slow  # an AppTest session: about 1 s
def test_a_link_carries_the_matrix_and_the_run_uses_it(open_page):  # noqa: F811
    at = open_page("pages/npfs.py", WAVEFORM_3 | {"c": "0,1,2;1,0,1;4,1,0"})
    assert at.session_state["npfs.c"] == MATRIX
    assert dict(at.query_params)["c"] == "0.0,1.0,2.0;1.0,0.0,1.0;4.0,1.0,0.0"   # the link is written back
    grid, data = at.dataframe[0].value, at.session_state["fslab.current_data"].encoded
    assert grid.to_numpy().tolist() == MATRIX and data.labels.tolist() == [0.0, 1.0, 2.0]
    assert list(grid.columns) == list(grid.index) == ["0", "1", "2"]   # the classes as they read, not "0.0"
    at.button(key="npfs.run").click()
    rerun(at)
    assert not at.exception, [e.value for e in at.exception]
    memo, key = at.session_state["fslab.npfs.results"], at.session_state["fslab.npfs.last"]
    shown = memo[key]
    ref = npfs(data, "bayes-greedy", 3, n_bootstraps=5, alpha=0.01, seed=0, measure="cost-sensitive", c=MATRIX)
    assert shown.counts.tolist() == ref.counts.tolist()
    zero_one = npfs(data, "bayes-greedy", 3, n_bootstraps=5, alpha=0.01, seed=0, measure="zero-one")
    assert ref.matrix.tolist() != zero_one.matrix.tolist()   # the matrix changed the picks: it was used


@pytest.mark.slow  # an AppTest session: about 1 s
def test_the_grid_starts_at_zero_one_and_a_wrong_sized_link_matrix_is_said(open_page):  # noqa: F811
    at = open_page("pages/npfs.py", WAVEFORM_3)
    assert at.session_state["npfs.c"] == default_matrix(3)
    assert any("0 on the diagonal and 1 elsewhere is the 0-1 error" in c.value for c in at.caption)
    at = open_page("pages/npfs.py", WAVEFORM_3 | {"c": "0,1;1,0"})
    assert any("given is 2 x 2, but this target has 3 classes" in i.value for i in at.info)
    assert at.session_state["npfs.c"] == default_matrix(3)


@pytest.mark.slow  # an AppTest session: about 2 s
def test_select_and_compare_take_the_matrix_from_a_link_and_select_with_it(open_page):  # noqa: F811
    import fslab

    link = {"data": "waveform", "positive": "(all classes)", "measure": "cost-sensitive", "k": "2",
            "c": "0,1,2;1,0,1;4,1,0"}
    at = open_page("pages/selection.py", link | {"selector": "bayes-greedy", "estimate": "plug-in"})
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["select.c"] == MATRIX
    data = at.session_state["fslab.current_data"].encoded
    want = fslab.select(data, 2, selector="bayes-greedy", measure="cost-sensitive", c=MATRIX)
    shown = " ".join([*(m.value for m in at.markdown), *(m.value for m in at.caption),
                      *(str(v) for d in [*at.dataframe, *at.table] for v in d.value.to_numpy().ravel())])
    zero_one = fslab.select(data, 2, selector="bayes-greedy", measure="zero-one")
    assert list(want.names) != list(zero_one.names)   # the matrix changes the pick, so the page must have used it
    assert all(name in shown for name in want.names), (want.names, shown[:500])
    assert not all(name in shown for name in zero_one.names), (zero_one.names, shown[:500])
    at = open_page("pages/compare.py", link | {"estimate": "plug-in"})
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="compare.measure").value == "cost-sensitive" and at.session_state["compare.c"] == MATRIX


@pytest.mark.slow  # an AppTest session: about 2 s
def test_by_measure_asks_for_the_matrix_and_runs_with_it(open_page):  # noqa: F811
    from fslab.by_measure import by_measure

    at = open_page("pages/by_measure.py", {"data": "waveform", "positive": "(all classes)", "k": "2",
                                           "measures": "zero-one,cost-sensitive", "c": "0,1,2;1,0,1;4,1,0",
                                           "estimate": "plug-in"})
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["bym.c"] == MATRIX and set(at.multiselect(key="bym.measures").value) == {
        "zero-one", "cost-sensitive"}
    data = at.session_state["fslab.current_data"].encoded
    want = by_measure(data, 2, [("zero-one", {}), ("cost-sensitive", {"c": MATRIX})], "bayes-greedy")
    assert want.picks.shape == (2, 2) and not want.skipped   # the matrix makes the measure fit 3 classes
    picks = {str(column): list(want.picks[column]) for column in want.picks.columns}
    assert len({tuple(p) for p in picks.values()}) == 2, picks   # the matrix changes the picks
    table = next(d.value for d in [*at.dataframe, *at.table] if "measure" in d.value.columns)   # measure x step
    shown = {row["measure"]: [row[f"step {t}"] for t in (1, 2)] for _, row in table.iterrows()}
    assert all(shown.get(label) == p for label, p in picks.items()), (picks, shown)
