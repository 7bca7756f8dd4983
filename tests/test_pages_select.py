"""AppTest of the Select page: default run, other selectors, the toy distribution, errors and exports."""

from __future__ import annotations

import base64
import json

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT


@pytest.fixture
def at():
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    app.run()
    app.switch_page("pages/selection.py").run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def _selected(app) -> str:
    return app.success[0].value


def _selected_table(app) -> pd.DataFrame:
    """The "Selected features" table (the robustness table follows it on a dataset)."""
    return next(d.value for d in app.table if "rank" in d.value.columns)  # static tables (issue 34.5)


def test_default_run_selects_five_mushroom_features(at):
    assert "odor=none" in _selected(at)
    assert _selected(at).count("**") == 10  # five bold names
    assert len(at.get("plotly_chart")) == 2
    at.session_state["select.how"] = True  # the formulas are folded, drawn when opened (issue 34.5)
    at.run()
    assert len(at.latex) >= 2
    assert len(at.get("download_button")) == 5  # selection, trace (CSV, JSON) and the data's selected columns
    table = _selected_table(at)
    assert len(table) == 5 and table["rank"].tolist() == [1, 2, 3, 4, 5]


def test_toy_distribution_reproduces_example1(at):
    """Example 1: BayesGreedy (0-1) picks X1 first, MIGreedy picks X2."""
    at.radio(key="select.source").set_value("distribution").run()
    at.number_input(key="select.k").set_value(1).run()
    assert _selected(at) == "Selected: **X1**"
    at.selectbox(key="select.selector").set_value("mi-greedy").run()
    assert _selected(at) == "Selected: **X2**"


def test_other_selectors_render(at):
    """Each other selector in turn in one session (Mushroom; backward on Example 1 with k = 1), one run each."""
    for selector in ["mrmr", "jmi", "fisher", "bayes-score", "precision-greedy", "backward"]:
        if selector == "backward":
            at.radio(key="select.source").set_value("distribution").run()
            at.number_input(key="select.k").set_value(1)
        at.selectbox(key="select.selector").set_value(selector).run()
        assert not at.exception, (selector, [e.value for e in at.exception])
        assert not at.error, (selector, [e.value for e in at.error])
        assert at.selectbox(key="select.selector").value == selector
        assert _selected(at).startswith("Selected:"), selector


def test_measure_parameters_and_s_variate(at):
    at.selectbox(key="select.measure").set_value("cost-sensitive").run()
    at.slider(key="select.c").set_value(0.1).run()
    at.session_state["select.how"] = True  # the formulas: drawn when opened (issue 34.5)
    at.checkbox(key="select.use_s").check().run()
    assert not at.exception and not at.error
    assert any(r"\binom" in x.value for x in at.latex)
    assert _selected(at).count("**") == 10


def test_exhaustive_too_large_is_a_clear_error(at):
    """Mushroom, 116 features: C(116, 5) = 160,389,488 > 200,000; C(116, 2) = 6,670 is the largest that fits."""
    at.selectbox(key="select.selector").set_value("exhaustive").run()
    assert not at.exception
    message = at.error[0].value
    assert "160,389,488" in message and "k <= 2 fits" in message and "6,670" in message


def test_backward_on_example1_with_k_equal_to_n_renders(at):
    """Example 1 has 2 features, so the default k is 2 = n: nothing to eliminate. The page shows the full set,
    a note, the curve (one point: the full set's 0-1 error .22) and no heatmap."""
    at.radio(key="select.source").set_value("distribution").run()
    at.selectbox(key="select.selector").set_value("backward").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert _selected(at) == "Selected: **X1**, **X2**"
    assert any("removes nothing" in i.value for i in at.info)
    assert len(at.get("plotly_chart")) == 1
    assert any("No step to show" in c.value for c in at.caption)


def test_backward_says_how_much_work_before_running(at):
    """Example 1, k = 1: one step over 2 candidates (the info line is computed before the run)."""
    at.radio(key="select.source").set_value("distribution").run()
    at.number_input(key="select.k").set_value(1).run()
    at.selectbox(key="select.selector").set_value("backward").run()
    assert any("1 steps" in i.value and "2 subset tables" in i.value for i in at.info)
    assert _selected(at) == "Selected: **X1**"


def test_regression_target_offers_only_the_squared_error(at):
    """A real-valued target (200 distinct prices): only 'squared' fits, class-counting selectors are hidden, and
    the MIGreedy overlay is left out with a caption."""
    from fslab.data import Dataset
    from ui import state

    rng = np.random.default_rng(0)  # like QA's regression.csv: price = x1 + noise, 200 distinct values
    frame = pd.DataFrame({"x1": rng.normal(size=200), "x2": rng.normal(size=200), "x3": rng.integers(0, 2, 200)})
    frame["price"] = frame["x1"] + 0.1 * rng.normal(size=200)
    raw = Dataset.from_frame(frame, "price")
    state.install(at.session_state, state.CurrentData(raw.discretize(), "regression.csv", raw))
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert at.selectbox(key="select.measure").options == ["squared error"]
    assert at.selectbox(key="select.measure").value == "squared"
    selectors = at.selectbox(key="select.selector").options
    assert "MIGreedy" not in selectors and "Fisher score" not in selectors and "BayesGreedy" in selectors
    assert "x1" in _selected(at)
    assert any("MIGreedy is not drawn" in c.value for c in at.caption)


def test_exhaustive_small_k_lists_best_subsets(at):
    at.number_input(key="select.k").set_value(1).run()
    at.selectbox(key="select.selector").set_value("exhaustive").run()
    assert not at.error
    best = at.dataframe[0].value
    assert best["chosen"].iloc[0]


def test_exports_escape_formula_cells():
    from fslab.data.distributions import Distribution
    from fslab.selectors import select
    from ui.selection import safe_csv, selection_json, trace_json

    law = Distribution.naive_bayes([0.5, 0.5], [[[0.9, 0.1], [0.2, 0.8]], [[0.6, 0.4], [0.3, 0.7]]],
                                   feature_names=["=HYPERLINK(1)", "@x"])
    result = select(law, 2, "bayes-greedy")
    csv = safe_csv(result.summary()).decode()
    assert "'=HYPERLINK(1)" in csv and "'@x" in csv
    trace = pd.read_csv(__import__("io").StringIO(safe_csv(result.trace).decode()))
    assert set(trace["name"]) == {"'=HYPERLINK(1)", "'@x"}
    assert json.loads(selection_json(result))["names"] == ["'=HYPERLINK(1)", "'@x"]
    assert {r["name"] for r in json.loads(trace_json(result))} == {"'=HYPERLINK(1)", "'@x"}


def test_ties_are_reported_on_the_page(at):
    """Two identically distributed features A, B (same conditionals): BayesGreedy's step 1 ties them (n_tied = 2),
    A has the lower index and wins, and the page says so."""
    from fslab.data.distributions import Distribution
    from ui import state

    twin = Distribution.naive_bayes([0.5, 0.5], [[[0.8, 0.2], [0.3, 0.7]]] * 2, feature_names=["A", "B"])
    at.session_state[state.DISTRIBUTION] = twin
    at.session_state[state.DISTRIBUTION_NAME] = "twins"
    at.radio(key="select.source").set_value("distribution").run()
    at.number_input(key="select.k").set_value(1).run()
    assert _selected(at) == "Selected: **A**"
    said = next(c.value for c in at.caption if c.value.startswith("Ties:"))
    assert "step 1: A, B tie" in said and "lowest index was taken" in said  # said once, by the pick


def test_select_page_suggests_k_on_the_default_dataset(at):
    """The "Which k?" panel runs from the Select page (Mushroom, BayesGreedy 0-1, k=5, small settings)."""
    at.session_state["select.which_k"] = True  # folded, drawn when opened (issue 34.5)
    at.run()
    at.number_input(key="select.kperm").set_value(9)
    at.number_input(key="select.kboot").set_value(10).run()
    at.button(key="select.ksuggest").click().run()
    assert not at.exception, [e.value for e in at.exception]
    metrics = {m.label: m.value for m in at.metric}
    assert 0 <= int(metrics["permutation test: significant steps"]) <= 5
    assert int(metrics["NPFS k* (relevant features)"]) >= 1   # odor alone separates the classes well


def test_errors_are_shown_positive_with_their_direction(at):
    """Example 1, 0-1 error: the chart, the table and the exports show er*({X1}) = 0.25, not the criterion -0.25;
    a score (AUC) keeps its sign."""
    at.radio(key="select.source").set_value("distribution").run()
    at.number_input(key="select.k").set_value(2).run()
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    own = next(t for t in spec["data"] if "this run" in t["name"])
    y = own["y"]  # plotly encodes numeric arrays as {"dtype", "bdata"} (base64)
    y = np.frombuffer(base64.b64decode(y["bdata"]), dtype=y["dtype"]) if isinstance(y, dict) else np.asarray(y)
    assert y.tolist() == pytest.approx([0.25, 0.22])
    assert "lower is better" in spec["layout"]["yaxis"]["title"]["text"]
    table = _selected_table(at)
    column = next(c for c in table.columns if c.startswith("first t features"))
    assert table[column].tolist() == pytest.approx([0.25, 0.22])
    from fslab import example1, select
    from ui.selection import own_summary, own_trace, selection_json
    result = select(example1(), 2, "bayes-greedy", measure="zero-one")
    assert own_summary(result)["score"].tolist() == pytest.approx([0.25, 0.22])
    assert (own_trace(result)["value"] >= 0).all()
    record = json.loads(selection_json(result))
    assert record["scores"] == pytest.approx([0.25, 0.22]) and "lower is better" in record["scores_are"]
    auc = select(example1(), 1, "bayes-greedy", measure="auc")
    assert own_summary(auc)["score"].iloc[0] == pytest.approx(auc.scores[0]) and auc.scores[0] > 0


def test_paper_text_follows_the_selector_and_in_sample_note(at):
    says = lambda: next(e.label for e in at.expander if e.label.startswith("What the paper says"))  # noqa: E731
    assert says().startswith("What the paper says: Algorithm 1, BayesGreedy")
    at.session_state["select.how"] = True  # the estimate's note is in "How this is computed" (drawn when opened)
    at.run()
    assert any("in-sample plug-in estimate" in c.value for c in at.caption)
    at.selectbox(key="select.selector").set_value("jmi").run()
    assert says() == "What the paper says: JMI (Yang & Moody 1999)"
    at.radio(key="select.source").set_value("distribution").run()
    assert not any("in-sample plug-in estimate" in c.value for c in at.caption)  # exact values: no such note


def test_exports_carry_provenance_and_informative_names(at):
    """Mushroom, BayesGreedy, balanced error, k = 3: a data download with the selected columns and the target; the
    selection JSON carries its provenance; file names say data, selector, measure and k."""
    from ui.selection import selected_data, selection_json

    at.selectbox(key="select.measure").set_value("balanced").run()
    at.number_input(key="select.k").set_value(3).run()
    assert not at.exception
    buttons = {b.label: b.proto for b in at.get("download_button")}
    assert "Data, selected columns (CSV)" in buttons
    source = at.session_state["fslab.current_data"].encoded
    result = next(r for r in at.session_state["fslab.select.results"].values() if r.measure == "balanced")
    frame = selected_data(source, result)
    assert list(frame.columns) == [*result.names, "class"] and len(frame) == 8124
    assert set(frame["class"]) == {"edible", "poisonous"}
    record = json.loads(selection_json(result, {"data": "mushroom (sample)", "target": "class"}))
    assert record["provenance"]["target"] == "class" and record["scores_are"].startswith("balanced error")


class _Recorder:
    """A stand-in container that records the widgets drawn (a page test without a browser)."""

    def __init__(self):
        self.calls = []

    def slider(self, label, low, high, value, step, **kwargs):
        self.calls.append(("slider", low, high, value, step, kwargs["key"]))
        return value

    def radio(self, label, options, index=0, **kwargs):
        self.calls.append(("radio", tuple(options), index, kwargs["key"]))
        return options[index]


def test_measure_parameter_widgets_come_from_the_measure_records(monkeypatch):
    """Ranges, steps and defaults are read from each measure's Param (change the record, the widget follows)."""
    import dataclasses
    from types import MappingProxyType

    from fslab.measures import MEASURES, Param
    from ui import selection

    moved = dataclasses.replace(MEASURES["cost-sensitive"],
                                parameters={"c": Param(0.3, "cost", low=0.1, high=0.9, step=0.1)})
    monkeypatch.setattr(selection, "MEASURES", MappingProxyType({**MEASURES, "cost-sensitive": moved}))
    box = _Recorder()
    assert selection.measure_params(box, "cost-sensitive", "k") == {"c": 0.3}
    assert selection.measure_params(box, "f-beta", "k") == {"beta": MEASURES["f-beta"].parameters["beta"].default}
    assert selection.measure_params(box, "precision", "k") == {"approach": 1}
    assert selection.measure_params(box, "zero-one", "k") == {}
    beta = MEASURES["f-beta"].parameters["beta"]
    assert box.calls == [("slider", 0.1, 0.9, 0.3, 0.1, "k.c"),
                         ("slider", beta.low, beta.high, beta.default, beta.step, "k.beta"),
                         ("radio", (1, 2), 0, "k.approach")]


def test_class_counting_selectors_are_not_offered_for_a_real_valued_target():
    """ui.selection.selector_options reads the registry's counts_classes declaration."""
    import fslab
    from ui.selection import selector_options

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=80), "b": rng.integers(0, 3, 80), "y": rng.normal(size=80)})
    data = fslab.Dataset.from_frame(frame, "y").discretize()
    offered = selector_options(data)
    assert offered and all(not fslab.SELECTORS[name].counts_classes for name in offered)
    assert "bayes-greedy" in offered and "mi-greedy" not in offered


def test_wide_sample_pcmac_runs_and_matches_the_library():
    """PCMAC (3,289 features), JMI then BayesGreedy at k = 3 in one session: the page's selection is fslab.select's
    on the same sample (the selector and k are set before one run: no JMI at the default k on the way)."""
    import fslab

    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    app.selectbox(key="home_sample").set_value("pcmac").run()
    app.switch_page("pages/selection.py").run()
    data = app.session_state["fslab.current_data"].encoded
    for selector in ("jmi", "bayes-greedy"):
        app.selectbox(key="select.selector").set_value(selector)
        app.number_input(key="select.k").set_value(3).run()
        assert not app.exception and not app.error, [e.value for e in app.error]
        assert app.selectbox(key="select.selector").value == selector and app.number_input(key="select.k").value == 3
        expected = fslab.select(data, k=3, selector=selector, measure="zero-one")
        names = [data.feature_names[j] for j in expected.features]
        assert _selected(app) == "Selected: " + ", ".join(f"**{n}**" for n in names)


def test_use_k_star_sets_k_in_place(at):
    """After "Suggest k", the "use k = k*" button sets the Select page's k to NPFS's k* and selects again."""
    # k = 8 on Mushroom: the 0-1 error reaches 0 within a few steps, so the later steps tie and (issue 33.2) a
    # tie-break alone makes no feature relevant: k* < 8, and the button is offered
    at.number_input(key="select.k").set_value(8)
    at.session_state["select.which_k"] = True  # folded, drawn when opened (issue 34.5)
    at.run()
    at.number_input(key="select.kperm").set_value(9)
    at.number_input(key="select.kboot").set_value(10).run()
    at.button(key="select.ksuggest").click().run()
    k_star = int({m.label: m.value for m in at.metric}["NPFS k* (relevant features)"])
    assert k_star != 8
    at.button(key="select.use_kstar").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.number_input(key="select.k").value == k_star
    assert _selected(at).count("**") == 2 * k_star


def test_robustness_section_matches_the_library(at):
    """Mushroom, BayesGreedy 0-1, k = 5: predicted under a second, so the section runs by itself; its table is
    fslab.robustness.pick_robustness's (NPFS n = 50, seed 0; seven binnings of the raw sample)."""
    import fslab
    from fslab.robustness import holdout_check, pick_robustness

    assert any(h.value == "Does this pick hold up?" for h in at.subheader)
    shown = next(d.value for d in at.table if "NPFS frequency" in d.value.columns)
    names = _selected_table(at)["name"].tolist()
    assert shown["feature"].tolist() == names
    encoded = at.session_state["fslab.current_data"].encoded
    expected = pick_robustness(encoded, names, "bayes-greedy", 5, raw=fslab.load_sample("mushroom"))
    pd.testing.assert_frame_equal(shown.drop(columns="picked on training folds").reset_index(drop=True), expected,
                                  check_dtype=False)
    check = holdout_check(encoded, fslab.select(encoded, 5))
    assert shown["picked on training folds"].tolist() == check.frequency.tolist()
    caption = next(c.value for c in at.caption if "NPFS frequency z/n" in c.value)
    assert "equation (3)" in caption and "alpha = 0.01" in caption
    verdict = " ".join(v.value for v in [*at.success, *at.warning, *at.error] if "hold" in v.value.lower())
    assert "binning cannot change the pick" in verdict  # Mushroom: all categorical


def test_robustness_waits_for_a_click_when_predicted_slow(at, monkeypatch):
    """Above ui.robustness.AUTO_SECONDS the section shows its estimate and a button; nothing runs before the click."""
    import ui.robustness as robust

    calls = []
    monkeypatch.setattr(robust, "AUTO_SECONDS", 0.0)
    monkeypatch.setattr(robust, "npfs_result", lambda *a, **k: calls.append(a) or _fake_npfs(a[1]))
    at.number_input(key="select.k").set_value(3).run()
    assert not calls and not [d for d in at.table if "NPFS frequency" in d.value.columns]
    assert any("Check the pick" in c.value for c in at.caption)
    at.button(key="select.robust.run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(calls) == 1 and calls[0][2] == "bayes-greedy" and calls[0][5] == 3
    assert [d for d in at.table if "NPFS frequency" in d.value.columns]


def _fake_npfs(source):
    from fslab.npfs.result import NPFSResult

    K = source.n_features
    return NPFSResult.from_matrix(np.zeros((K, 4), bool), p0=3 / K, alpha=0.01, feature_names=source.feature_names)


def test_robustness_on_a_distribution_says_why_not(at):
    at.radio(key="select.source").set_value("distribution").run()
    assert any(h.value == "Does this pick hold up?" for h in at.subheader)
    assert any("no sampling noise" in c.value for c in at.caption)


def test_robustness_names_the_features_that_depend_on_the_binning():
    """Waveform (21 real-valued columns), BayesGreedy 0-1, k = 5: some picks change with the binning, and the
    section says which (the table's counts below 7 of 7)."""
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    app.selectbox(key="home_sample").set_value("waveform").run()
    app.switch_page("pages/selection.py").run()
    assert not app.exception and not app.error, [e.value for e in app.error]
    table = next(d.value for d in app.table if "NPFS frequency" in d.value.columns)
    moved = [f for f, p in zip(table["feature"], table["picked under binnings"], strict=True) if p != "7 of 7"]
    assert moved
    verdict = next(m.value for m in [*app.warning, *app.error] if "Depends on the binning" in m.value)
    assert all(name in verdict for name in moved)


def test_a_second_session_finds_the_selection_instead_of_running_it(monkeypatch):
    """Two sessions, the same data and settings (Mushroom, JMI, k = 4): fslab.select runs once on the server, the
    second session takes the first's result from the shared store (keyed by content, like NPFS's), and both pages
    show the same pick; another k is a new run."""
    from ui import selection
    from ui.cache import SharedResults

    store, runs, real = SharedResults(), [], selection.select
    monkeypatch.setattr(selection, "shared_results", lambda: store)
    monkeypatch.setattr(selection, "select", lambda source, k, name, **kw: runs.append((name, k)) or
                        real(source, k, name, **kw))
    shown = []
    for k in (4, 4, 3):
        app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
        app.switch_page("pages/selection.py").run()
        app.selectbox(key="select.selector").set_value("jmi")
        app.number_input(key="select.k").set_value(k).run()
        assert not app.exception and not app.error
        shown.append(_selected(app))
    assert runs.count(("jmi", 4)) == 1 and runs.count(("jmi", 3)) == 1
    assert shown[0] == shown[1] != shown[2]


def test_presentation_mode_draws_fewer_larger_heatmap_columns(at):
    """Mushroom, 116 candidates: 60 heatmap columns at 10 px labels on a screen; in presentation mode (a 1024 x 768
    projector) 25 columns whose labels ui.theme.chart lifts to its 14 px floor (all keep their labels in the ~420 px
    plot a 1024 px window leaves), and every chart's text at theme.CHART_FONT (16 px)."""
    from ui import theme

    def heatmap():
        return next(json.loads(c.proto.spec) for c in at.get("plotly_chart")
                    if json.loads(c.proto.spec)["layout"]["title"]["text"].startswith("Every candidate"))

    assert len(heatmap()["data"][0]["x"]) == 60 and heatmap()["layout"]["xaxis"]["tickfont"]["size"] == 10
    at.session_state[theme.CHOSEN] = at.session_state[theme.PRESENT] = True
    at.run()
    assert not at.exception
    assert len(heatmap()["data"][0]["x"]) == 25 and heatmap()["layout"]["xaxis"]["tickfont"]["size"] == 14
    assert all(json.loads(c.proto.spec)["layout"]["font"]["size"] == theme.CHART_FONT for c in at.get("plotly_chart"))
