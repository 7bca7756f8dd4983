"""AppTest of the Compare page: default render, distribution optimum, learning curves, binning, errors."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from fslab.data import read_csv
from fslab.data.encoded import EncodedDataset
from fslab.data.samples import load_sample
from fslab.measures import MEASURES
from tests.conftest import ROOT
from ui import state, theme

# QA's small CSVs (/work/briefs), inline: one feature; three rows with class 'no' once; a real-valued target.
ONEFEAT = "x,y\n1,a\n2,b\n3,a\n"
TINY3 = "a,b,y\n1,2,yes\n3,4,no\n5,6,yes\n"


def _regression_csv(m: int = 200) -> str:
    """price = 2 x1 + noise with m distinct values (as QA's regression.csv)."""
    rng = np.random.default_rng(0)
    x1, x2 = rng.normal(size=m), rng.normal(size=m)
    price = 2 * x1 + 0.1 * rng.normal(size=m)
    return "x1,x2,price\n" + "".join(f"{a},{b},{c}\n" for a, b, c in zip(x1, x2, price, strict=True))


@pytest.fixture
def at():
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    app.switch_page("pages/compare.py").run()
    assert not app.exception
    return app


def _tab(app, label: str):
    """Open a tab of the Compare page (only the open tab runs: st.tabs(on_change="rerun"))."""
    app.session_state["compare.tab"] = label
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def _titles(app) -> list[str]:
    return [json.loads(c.proto.spec)["layout"].get("title", {}).get("text", "") for c in app.get("plotly_chart")]


def _open_overlaps(app):
    """Open the folded overlap charts (st.expander(on_change="rerun"): its content runs only when open)."""
    app.session_state["compare.overlaps_open"] = True
    app.run()
    assert not app.exception, [e.value for e in app.exception]


def test_default_view_shows_the_side_by_side_panel(at):
    assert not at.error
    assert any("7 selectors, k = 5, 0-1 error" in m.value for m in at.markdown)
    titles = _titles(at)
    assert "Step at which each selector picked each feature" in titles
    assert "Jaccard overlap of the selected sets" not in titles  # folded: drawn when its expander opens
    _open_overlaps(at)
    assert "Jaccard overlap of the selected sets" in _titles(at)
    assert len(at.get("download_button")) >= 4
    at.session_state["compare.how"] = True  # the formulas are folded, drawn when opened (issue 34.5)
    at.run()
    assert len(at.latex) >= 3


def test_distribution_marks_the_exact_optimum(at):
    at.radio(key="compare.source").set_value("distribution").run()
    at.slider(key="compare.k").set_value(1).run()
    assert not at.exception
    text = at.success[0].value
    assert "X1" in text and "BayesGreedy" in text and "MIGreedy" not in text


def test_cost_sensitive_measure_with_its_cost(at):
    at.selectbox(key="compare.measure").set_value("cost-sensitive").run()
    at.slider(key="compare.c").set_value(0.75).run()
    assert not at.exception and not at.error
    assert any("cost-sensitive error (c=0.75)" in m.value for m in at.markdown)


def test_learning_curves_run_on_click_and_stay(at):
    _tab(at, "Learning curves")
    at.multiselect(key="compare.curve_selectors").set_value(["bayes-greedy", "mi-greedy", "mrmr"]).run()
    at.slider(key="compare.k_max").set_value(3).run()
    at.selectbox(key="compare.learner.zero-one").set_value("naive-bayes").run()
    assert not any(t.startswith("Test 0-1 error") for t in _titles(at))
    at.button(key="compare.run_curves").click().run()
    assert not at.exception and not at.error
    assert any(t.startswith("Test 0-1 error with naive Bayes") for t in _titles(at))
    at.run()  # a rerun keeps the result (cached) without another click
    assert any(t.startswith("Test 0-1 error") for t in _titles(at))
    at.button(key="compare.stop_curves").click().run()
    assert not any(t.startswith("Test 0-1 error") for t in _titles(at))
    assert any("Stopped" in i.value for i in at.info)


def test_binning_on_real_valued_sample(at):
    state.install(at.session_state, state.CurrentData(load_sample("waveform").discretize(), "waveform (sample)"))
    _tab(at, "Binning sensitivity")
    at.button(key="compare.run_bins").click().run()
    assert not at.exception and not at.error
    assert any("real-valued column(s) change with the binning" in m.value for m in at.markdown)
    assert "Step at which each binning's selection picked each feature" in _titles(at)


def test_errors_are_messages(at):
    at.multiselect(key="compare.selectors").set_value([]).run()
    assert "at least one selector" in at.error[0].value
    at.multiselect(key="compare.selectors").set_value(["exhaustive"]).run()
    # refused before any work, as one message (never a traceback) naming the limit and what to change: the
    # exhaustive-subsets limit ("... subsets ... exceeds the limit max_subsets ... Lower k"), or, under other limits,
    # fslab.cost's work refusal ("about N subset tables ... over the work limit ... choose a smaller k")
    assert not at.exception and len(at.error) == 1
    message = at.error[0].value
    assert ("exceeds the limit max_subsets" in message and "Lower k" in message) or (
        "subset tables" in message and "over the work limit" in message and "smaller k" in message), message


def test_full_protocol_is_one_click_and_warns_before_a_long_svm_run(at):
    _tab(at, "Learning curves")
    at.toggle(key="compare.full").set_value(True).run()
    assert not at.exception
    assert at.slider(key="compare.splits").disabled and at.number_input(key="compare.subsample").disabled
    assert any("expect a long run" in w.value for w in at.warning)  # 8,124 x 0.7 rows with an RBF SVM


def test_learning_curves_on_a_sampled_distribution(at):
    at.radio(key="compare.source").set_value("distribution").run()
    _tab(at, "Learning curves")
    at.number_input(key="compare.curve_rows").set_value(1000).run()
    at.selectbox(key="compare.learner.zero-one").set_value("tree").run()
    at.button(key="compare.run_curves").click().run()
    assert not at.exception and not at.error
    assert any(t.startswith("Test 0-1 error with decision tree") for t in _titles(at))


def _use_csv(app, name: str, text: str, target: str):
    """Put a QA CSV (tests/data/qa) in session state as the Data page's *Use this data* does."""
    raw = read_csv(io.StringIO(text), target)
    state.install(app.session_state, state.CurrentData(raw.discretize(), name, raw))
    app.run()


def test_one_feature_dataset_renders_every_tab(at):
    """onefeat.csv (QA): a slider from 1 to 1 used to kill the page (StreamlitInvalidMinMaxError on k up to)."""
    _use_csv(at, "onefeat.csv", ONEFEAT, "y")
    assert not at.exception and not at.error
    assert not [s for s in at.slider if s.key in ("compare.k", "compare.k_max")]
    assert any("k = 1" in m.value for m in at.markdown)
    assert "Step at which each selector picked each feature" in _titles(at)
    _tab(at, "Learning curves").button(key="compare.run_curves").click().run()
    _tab(at, "Binning sensitivity").button(key="compare.run_bins").click().run()
    assert not at.exception
    assert "Step at which each binning's selection picked each feature" in _titles(at)


def test_too_few_rows_for_learning_curves_is_a_message(at):
    """tiny3.csv (QA): 3 rows, class 'no' once. 70/30 training parts need ceil(2 / 0.7) = 3 rows of each class."""
    _use_csv(at, "tiny3.csv", TINY3, "y")
    _tab(at, "Learning curves").button(key="compare.run_curves").click().run()
    assert not at.exception
    assert any("too few rows of class 'no'" in e.value and "at least 3" in e.value for e in at.error)


def test_toy_distribution_defaults_to_k_below_n_and_shows_example1(at):
    """Example 1 has n = 2 features: the default k = min(5, n - 1) = 1, where BayesGreedy picks X1 (0-1 error
    0.25 < 0.30) and MIGreedy picks X2 (0.17 > 0.08 bit), so the page shows the disagreement at first sight."""
    at.radio(key="compare.source").set_value("distribution").run()
    assert at.slider(key="compare.k").value == 1
    assert not any("no disagreement" in i.value for i in at.info)
    assert "Found by: BayesGreedy" in at.success[0].value
    sets = at.table[0].value.set_index("selector")["features"]  # a static table: feature lists wrap, never cut
    assert sets["BayesGreedy"] == "X1" and sets["MIGreedy"] == "X2"
    assert set(at.table[-1].value["name"]) == {"X1", "X2"}  # the disagreement table (static, issue 34.5)


def test_measure_options_fit_the_target(at):
    """supported_measures: binary -> every Compare measure; multiclass -> all but F-beta and AUC, which need a
    positive class (a stale f-beta choice falls back to the first; balanced and cost-sensitive, with its K x K cost
    matrix, take K classes since issue 33.5); real-valued target -> Compare refuses with a message, no widget."""
    names = ("zero-one", "cost-sensitive", "balanced", "log-loss", "f-beta", "auc")  # registry order
    assert at.selectbox(key="compare.measure").options == [MEASURES[n].label for n in names]
    at.selectbox(key="compare.measure").set_value("f-beta").run()
    multi = EncodedDataset(np.random.default_rng(0).integers(0, 3, (300, 4)), np.tile([0, 1, 2], 100))
    state.install(at.session_state, state.CurrentData(multi, "three classes"))
    at.run()
    assert not at.exception and not at.error
    box = at.selectbox(key="compare.measure")
    # many classes: balanced on K classes; cost-sensitive with a K x K matrix asked in a grid (ui.cost_matrix)
    assert [MEASURES[n].label for n in ("zero-one", "cost-sensitive", "balanced", "log-loss")] == box.options
    assert box.value == "zero-one"
    _use_csv(at, "regression.csv", _regression_csv(), "price")
    assert not at.exception and not at.selectbox
    assert "real-valued target" in at.warning[0].value and "split the target into classes" in at.warning[0].value


def _chart_keys(block) -> set[str]:
    return {json.loads(c.proto.spec)["layout"].get("title", {}).get("text", "") for c in block.get("plotly_chart")}


OVERLAP_TITLES = {"Jaccard overlap of the selected sets", "Rank correlation (Kendall tau-b)"}


def test_overlap_charts_share_a_row_only_where_both_fit(at):
    """The Jaccard and Kendall charts sit in a two-column st.grid that drops to one column below 400 px a cell
    (1024 px with the sidebar open), never in a fixed st.columns pair; presentation mode stacks them outright."""
    assert not at.grid  # folded and not drawn until opened
    _open_overlaps(at)
    grids = [g for g in at.grid if _chart_keys(g) >= OVERLAP_TITLES]
    assert len(grids) == 1 and grids[0].column_count == 2 and grids[0].wrap
    assert grids[0].min_column_width == 400
    assert not any(_chart_keys(c) & OVERLAP_TITLES for c in at.columns)
    rows = [c for c in at.container if len(c.get("download_button")) >= 4]
    assert rows and not any(c.get("download_button") for c in at.columns)  # a wrapping row, not cut-off columns
    at.session_state[theme.CHOSEN] = at.session_state[theme.PRESENT] = True  # the sidebar toggle (ui/theme.py)
    at.run()
    assert not at.exception
    assert not any(_chart_keys(g) & OVERLAP_TITLES for g in at.grid)
    assert not any(_chart_keys(c) & OVERLAP_TITLES for c in at.columns)
    assert OVERLAP_TITLES <= set(_titles(at))


def test_a_remembered_k_out_of_range_goes_back_to_the_default_without_a_warning(at, monkeypatch):
    """k persists across pages: 40, kept from a wide data set, is out of Example 1's range 1 .. 1. It goes back to
    the default by leaving Session State, not by a write there: Streamlit logs a warning for a widget given both a
    value and a Session State write (seen in the server log on Select -> Compare)."""
    from streamlit.elements.lib import policies

    warnings: list[tuple] = []
    monkeypatch.setattr(policies, "_shown_default_value_warning", False)
    monkeypatch.setattr(policies._LOGGER, "warning", lambda *args, **kwargs: warnings.append(args))
    monkeypatch.setattr(policies.runtime, "exists", lambda: True)  # AppTest runs without a Runtime
    at.session_state["compare.k"] = 40
    at.radio(key="compare.source").set_value("distribution").run()
    assert not at.exception
    assert at.slider(key="compare.k").value == 1
    assert warnings == []
