"""AppTest for the Toy distribution and Orderings pages: defaults, presets, editors, JSON, sampling,
Theorem 1 constructor, BS/OS and FBS/FOS."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from fslab.pena_nilsson.toy import PRESETS, pena_nilsson_example1, xor_distribution
from ui.state import CurrentData

APP = str(Path(__file__).resolve().parents[1] / "app.py")
DIST_NAME = "fslab.distribution_name"


def _page(path: str, **state) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90).run()
    for key, value in state.items():
        at.session_state[key] = value
    at.switch_page(path).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _tab(at, label: str) -> AppTest:
    """Open a tab of the Orderings page (only the open tab runs: st.tabs(on_change="rerun"))."""
    at.session_state["orderings.tab"] = label
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _builder(at, label: str) -> AppTest:
    """Open a tab of the Toy page's builder (only the open tab runs)."""
    at.session_state["toy.builder"] = label
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _metric(at, label: str) -> str:
    return {m.label: m.value for m in at.metric}[label]


def _texts(at) -> str:
    return " ".join(str(m.value) for m in at.markdown)


CONV_OPEN = {"toy.conv_open": True, "toy.chart_open": True}  # the convergence study runs only in its opened expander


@pytest.fixture(scope="module")
def toy() -> AppTest:
    return _page("pages/toy.py", **CONV_OPEN)


def test_toy_convergence_study_runs_only_when_opened():
    """Closed by default (issue 16: the page's first paint); opening it draws its chart; the choices made in it
    (and a preset's k) are kept while it is closed."""
    at = _page("pages/toy.py", **{"toy.chart_open": True})  # the joint law's chart, folded too (issue 34.5)
    assert len(at.get("plotly_chart")) == 1 and not at.multiselect  # the joint law only
    at.session_state["toy.conv_open"] = True
    at.run()
    assert len(at.get("plotly_chart")) == 2
    at.selectbox(key="toy.conv_measure").set_value("mi").run()
    at.session_state["toy.conv_open"] = False
    at.run()
    assert len(at.get("plotly_chart")) == 1
    at.selectbox(key="toy.preset").set_value("xor").run()
    at.button(key="toy.load_preset").click().run()
    at.session_state["toy.conv_open"] = True
    at.run()
    assert at.selectbox(key="toy.conv_measure").value == "mi" and at.number_input(key="toy.conv_k").value == 2
    assert not at.exception


def test_toy_page_defaults_show_example1_criteria_disagree(toy):
    assert not toy.error
    assert "0-1 error's best 1-subset is **X1**" in _texts(toy) and "picks **X2**" in _texts(toy)
    assert "**different** features" in _texts(toy)
    assert len(toy.get("plotly_chart")) == 2  # joint law and convergence
    assert _metric(toy, "Features") == "2"
    spec = json.loads(toy.get("plotly_chart")[1].proto.spec)
    assert "exact optimum" in spec["layout"]["title"]["text"]


def test_toy_picks_table_says_which_way_each_value_is_better(toy):
    """Errors (positive) read 'lower is better', scores 'higher is better'; Example 1: 0-1 error 0.25 for X1."""
    table = next(d.value for d in toy.table if "its Bayes value" in d.value.columns).set_index("measure")
    assert table.at["0-1 error", "better"] == "lower is better"
    assert table.at["0-1 error", "its Bayes value"] == pytest.approx(0.25)
    assert table.at["AUC", "better"] == table.at["mutual information", "better"] == "higher is better"
    assert any("lower is better" in c.value for c in toy.caption)


def test_load_preset_and_generator():
    at = _page("pages/toy.py", **CONV_OPEN)
    at.selectbox(key="toy.preset").set_value("xor").run()
    assert PRESETS["xor"].teaches[:30] in " ".join(i.value for i in at.info)
    at.button(key="toy.load_preset").click().run()
    assert at.session_state[DIST_NAME] == PRESETS["xor"].label
    assert _metric(at, "Features") == "3"
    # the preset sets its instructive k (the XOR pair) and the texts follow it
    assert at.number_input(key="toy.pick_k").value == 2 and at.number_input(key="toy.conv_k").value == 2
    assert any(PRESETS["xor"].teaches[:30] in m.value for m in at.markdown)
    assert "best 2-subset is **X1, X2**" in " ".join(m.value for m in at.markdown)
    _builder(at, "Generators")
    at.radio(key="toy.generator").set_value("random Dirichlet").run()
    at.button(key="toy.generate").click().run()
    assert at.session_state[DIST_NAME].startswith("random Dirichlet (n=3")
    assert not at.exception


def test_joint_table_editor_messages_and_normalisation():
    at = _builder(_page("pages/toy.py"), "Full joint table")
    key = f"toy.joint_editor_{at.session_state['toy.version'] if 'toy.version' in at.session_state else 0}"
    at.session_state[key] = {"edited_rows": {2: {"P(Y=1)": -0.1}}, "added_rows": [], "deleted_rows": []}
    at.run()
    assert any("cannot be negative" in e.value for e in at.error)
    at.session_state[key] = {"edited_rows": {0: {"P(Y=0)": 0.478}}, "added_rows": [], "deleted_rows": []}
    at.run()
    assert not at.error and _metric(at, "Sum of all entries") == "1.1000"
    assert any("divided by 1.1000" in c.value for c in at.caption)
    at.checkbox(key="toy.normalise").uncheck().run()
    assert any("sum to 1.1, not 1" in e.value for e in at.error)
    at.checkbox(key="toy.normalise").check().run()
    at.button(key="toy.use_joint").click().run()
    assert at.session_state[DIST_NAME] == "joint table (edited)"
    assert at.session_state["fslab.distribution"].probs[0, 0] == pytest.approx(0.478 / 1.1)


def test_naive_bayes_editor_rejects_a_column_not_summing_to_one():
    at = _builder(_page("pages/toy.py"), "Class-conditional tables")
    at.session_state["toy.nb_editor"] = {"edited_rows": {0: {"P(x|Y=1)": 0.7}}, "added_rows": [], "deleted_rows": []}
    at.run()
    assert any("sums to 1.1" in e.value for e in at.error)


def test_json_import_and_sampling():
    at = _builder(_page("pages/toy.py"), "JSON import/export")
    at.file_uploader(key="toy.json_upload").set_value(
        ("xor.json", xor_distribution(4, 3, 0.05).to_json().encode(), "application/json")).run()
    at.button(key="toy.use_json").click().run()
    assert at.session_state[DIST_NAME] == "xor.json" and _metric(at, "Features") == "4"
    at.file_uploader(key="toy.json_upload").set_value(("bad.json", b"{\"states\": 1}", "application/json")).run()
    assert any("not a valid fslab distribution" in e.value for e in at.error)
    at.number_input(key="toy.sample_m").set_value(500).run()
    at.button(key="toy.sample").click().run()
    assert "500 sampled rows" in at.session_state["fslab.current_data"].name
    assert at.session_state["fslab.current_data"].encoded.n_rows == 500
    assert any("Current dataset is now" in s.value for s in at.success)


def test_orderings_page_defaults_on_example1():
    at = _page("pages/orderings.py")
    assert not at.error
    assert any("Monotone" in s.value for s in at.success)
    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]
    assert any(t.startswith("Subset lattice") for t in titles)
    hasse = json.loads(at.get("plotly_chart")[0].proto.spec)
    names = [t.get("name") for t in hasse["data"]]
    assert "greedy path, 0-1 error" in names and "MIGreedy path" in names  # Example 1: they part at step 1
    mi_path = next(t for t in hasse["data"] if t.get("name") == "MIGreedy path")
    greedy = next(t for t in hasse["data"] if t.get("name") == "greedy path, 0-1 error")
    assert mi_path["x"][1] > 0 > greedy["x"][1]  # {X2} is drawn right of {X1}
    assert not at.metric  # the other tabs do not run until opened
    _tab(at, "Minimal S* (BS, OS)")
    values = {m.label: m.value for m in at.metric}
    assert values["BS"] == values["OS"] == values["S* (exhaustive)"] == "{X1, X2}"
    _tab(at, "Theorem 1")
    assert any("Verified: the Bayes risks increase strictly" in s.value for s in at.success)


def test_orderings_page_shows_pena_nilsson_example1():
    at = _tab(_page("pages/orderings.py", **{"fslab.distribution": pena_nilsson_example1(), DIST_NAME: "PN1"}),
              "Minimal S* (BS, OS)")
    values = {m.label: m.value for m in at.metric}
    assert values["BS"] == values["OS"] == values["S* (exhaustive)"] == "∅"
    assert values["Strongly relevant"] == values["Markov boundary"] == "{X}"


def test_theorem1_constructor_refuses_invalid_and_builds_random():
    at = _tab(_page("pages/orderings.py"), "Theorem 1")
    at.text_area(key="orderings.t1_text").set_value("X1 X2 X3\nX1\nX1 X2\nX1 X3\nX2 X3\nX2\nX3\n∅").run()
    assert any("{X1} (position 2) comes before its superset {X1, X2} (position 3)" in e.value for e in at.error)
    at.number_input(key="orderings.t1_n").set_value(4).run()
    at.button(key="orderings.t1_random").click().run()
    assert any("all 16 subsets" in s.value for s in at.success)
    at.button(key="orderings.t1_use").click().run()
    assert at.session_state[DIST_NAME] == "Theorem 1 construction (n=4)"


def test_orderings_restricts_a_wide_dataset_to_chosen_features_and_runs_fbs():
    at = _tab(_page("pages/orderings.py"), "Sample (FBS, FOS)")
    # FBS/FOS ran once on the tab's first visit (default: 20,000 rows of Example 1, decision tree, hold-out)
    assert "FBS: keeps {X1, X2}" in [s.value for s in at.subheader]
    at.radio(key="orderings.source").set_value("dataset").run()
    # Mushroom has 116 features: one explanation (not one error per tab) and a multiselect pre-filled with 6
    assert not at.error and not at.exception
    info = [i.value for i in at.info if "too many to enumerate" in i.value]
    assert len(info) == 1 and "switch to the toy distribution" in info[0]
    (chosen,) = [w for w in at.multiselect if w.key.startswith("orderings.features")]
    assert len(chosen.value) == 6 and "odor=none" in chosen.value
    _tab(at, "Minimal S* (BS, OS)")
    assert len({m.label: m.value for m in at.metric}) == 5  # BS, OS, S*, strongly relevant, Markov boundary
    _tab(at, "Hasse diagram")
    (chosen,) = [w for w in at.multiselect if w.key.startswith("orderings.features")]
    chosen.set_value(["odor=none", "odor=foul"]).run()
    assert at.table[0].value["best k-subset"].iloc[-1] == "{odor=foul, odor=none}"  # the gap table (static)
    chosen.set_value([]).run()
    assert any("Choose at least one feature" in w.value for w in at.warning)
    at.radio(key="orderings.source").set_value("distribution").run()
    _tab(at, "Sample (FBS, FOS)")
    at.number_input(key="orderings.fin_m").set_value(5000).run()
    at.button(key="orderings.fin_run").click().run()
    heads = [s.value for s in at.subheader]
    assert "FBS: keeps {X1, X2}" in heads and "FOS: keeps {X1, X2}" in heads
    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]
    assert "FBS with decision tree, hold-out, τ = 0.02" in titles
    # short option labels; the details are in the help text and the caption
    inducer = at.selectbox(key="orderings.fin_inducer")
    assert inducer.value == "tree" and "decision tree" in inducer.options and "lookup table" in inducer.help
    assert any("lookup table of the cells" in c.value for c in at.caption)


def test_theorem1_new_n_regenerates_the_ordering_and_names_missing_subsets():
    at = _tab(_page("pages/orderings.py"), "Theorem 1")
    at.number_input(key="orderings.t1_n").set_value(4).run()
    # QA: the 3-feature text used to give "need one arity >= 2 per feature for 3 features"
    assert not at.error and any("n is now 4" in i.value for i in at.info)
    assert any("all 16 subsets" in s.value for s in at.success)
    at.number_input(key="orderings.t1_n").set_value(2).run()
    at.text_area(key="orderings.t1_text").set_value("X1 X2\nX1").run()
    assert any("all 2^2 = 4 subsets" in e.value and "misses ∅, {X2}" in e.value for e in at.error)


def test_orderings_gap_table_has_readable_headers():
    at = _page("pages/orderings.py")
    cols = list(at.table[0].value.columns)  # a static table (issue 34.5)
    assert cols == ["size k", "greedy's subset", "greedy's value", "best k-subset", "best value",
                    "tied best subsets", "which tie", "gap (greedy's loss)"]


def _regression_dataset():
    """200 distinct real prices driven by x1: a real-valued target (task "regression")."""
    import numpy as np
    import pandas as pd

    from fslab.data import Dataset
    rng = np.random.default_rng(0)
    x1 = rng.normal(size=200)
    frame = pd.DataFrame({"x1": x1, "x2": rng.normal(size=200), "price": 3 * x1 + rng.normal(size=200)})
    encoded = Dataset.from_frame(frame, target="price").discretize()
    assert encoded.task == "regression"
    return encoded


def test_measures_offered_fit_the_target():
    import numpy as np

    from fslab.data.distributions import Distribution
    # a real-valued target: only the squared error, even if another measure was chosen before
    at = _page("pages/orderings.py", **{"fslab.current_data": CurrentData(_regression_dataset(), "reg"),
                                        "orderings.measure": "mi"})
    at.radio(key="orderings.source").set_value("dataset").run()
    assert at.selectbox(key="orderings.measure").options == ["squared error"] and not at.error
    # three text classes: 0-1, balanced, log-loss and MI only; a stale binary-only choice falls back to the first
    three = Distribution(np.array([[0], [1]]), np.array([[0.2, 0.1, 0.1], [0.1, 0.2, 0.3]]), labels=["a", "b", "c"])
    at = _page("pages/toy.py", **{"fslab.distribution": three, DIST_NAME: "three", "toy.conv_measure": "auc"},
               **CONV_OPEN)
    assert at.selectbox(key="toy.conv_measure").options == ["0-1 error", "balanced error", "log-loss",
                                                            "mutual information"]
    assert at.selectbox(key="toy.conv_measure").value == "zero-one" and not at.exception


def test_toy_selectors_show_labels_and_xor_order_is_bounded(toy):
    sel = toy.multiselect(key="toy.conv_selectors")
    assert "BayesGreedy" in sel.options and "bayes-greedy" not in sel.options
    legend = [t["name"] for t in json.loads(toy.get("plotly_chart")[1].proto.spec)["data"]]
    assert legend == ["BayesGreedy", "MIGreedy", "Exhaustive (best k-subset)"]
    at = _builder(_page("pages/toy.py"), "Generators")
    at.radio(key="toy.generator").set_value("XOR interaction").run()
    at.number_input(key="toy.xor_n").set_value(5).run()
    at.number_input(key="toy.xor_order").set_value(5).run()
    at.number_input(key="toy.xor_n").set_value(3).run()  # the order follows n down instead of failing
    assert at.number_input(key="toy.xor_order").value == 3 and at.number_input(key="toy.xor_order").max == 3
    at.button(key="toy.generate").click().run()
    assert at.session_state[DIST_NAME] == "XOR (n=3, order=3, noise=0)" and not at.error
