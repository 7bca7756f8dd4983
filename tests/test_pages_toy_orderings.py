"""AppTest for the Toy distribution and Orderings pages: defaults, presets, editors, JSON, sampling,
Theorem 1 constructor, BS/OS and FBS/FOS."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from fslab.toy import PRESETS, pena_nilsson_example1, xor_distribution

APP = str(Path(__file__).resolve().parents[1] / "app.py")
DIST_NAME = "fslab.distribution_name"


def _page(path: str, **state) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90).run()
    for key, value in state.items():
        at.session_state[key] = value
    at.switch_page(path).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _metric(at, label: str) -> str:
    return {m.label: m.value for m in at.metric}[label]


def _texts(at) -> str:
    return " ".join(str(m.value) for m in at.markdown)


@pytest.fixture(scope="module")
def toy() -> AppTest:
    return _page("pages/toy.py")


def test_toy_page_defaults_show_example1_criteria_disagree(toy):
    assert not toy.error
    assert "0-1 error's best 1-subset is **X1**" in _texts(toy) and "picks **X2**" in _texts(toy)
    assert "**different** features" in _texts(toy)
    assert len(toy.get("plotly_chart")) == 2  # joint law and convergence
    assert _metric(toy, "Features") == "2"
    spec = json.loads(toy.get("plotly_chart")[1].proto.spec)
    assert "exact optimum" in spec["layout"]["title"]["text"]


def test_load_preset_and_generator():
    at = _page("pages/toy.py")
    at.selectbox(key="toy.preset").set_value("xor").run()
    assert PRESETS["xor"].teaches[:30] in " ".join(i.value for i in at.info)
    at.button(key="toy.load_preset").click().run()
    assert at.session_state[DIST_NAME] == PRESETS["xor"].label
    assert _metric(at, "Features") == "3"
    at.radio(key="toy.generator").set_value("random Dirichlet").run()
    at.button(key="toy.generate").click().run()
    assert at.session_state[DIST_NAME].startswith("random Dirichlet (n=3")
    assert not at.exception


def test_joint_table_editor_messages_and_normalisation():
    at = _page("pages/toy.py")
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
    at = _page("pages/toy.py")
    at.session_state["toy.nb_editor"] = {"edited_rows": {0: {"P(x|Y=1)": 0.7}}, "added_rows": [], "deleted_rows": []}
    at.run()
    assert any("sums to 1.1" in e.value for e in at.error)


def test_json_import_and_sampling():
    at = _page("pages/toy.py")
    at.file_uploader(key="toy.json_upload").set_value(
        ("xor.json", xor_distribution(4, 3, 0.05).to_json().encode(), "application/json")).run()
    at.button(key="toy.use_json").click().run()
    assert at.session_state[DIST_NAME] == "xor.json" and _metric(at, "Features") == "4"
    at.file_uploader(key="toy.json_upload").set_value(("bad.json", b"{\"states\": 1}", "application/json")).run()
    assert any("not a valid fslab distribution" in e.value for e in at.error)
    at.number_input(key="toy.sample_m").set_value(500).run()
    at.button(key="toy.sample").click().run()
    assert "500 sampled rows" in at.session_state["fslab.dataset_name"]
    assert at.session_state["fslab.dataset"].n_rows == 500
    assert any("Current dataset is now" in s.value for s in at.success)


def test_orderings_page_defaults_on_example1():
    at = _page("pages/orderings.py")
    assert not at.error
    values = {m.label: m.value for m in at.metric}
    assert values["BS"] == values["OS"] == values["S* (exhaustive)"] == "{X1, X2}"
    assert any("Monotone" in s.value for s in at.success)
    assert any("Verified: the Bayes risks increase strictly" in s.value for s in at.success)
    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]
    assert any(t.startswith("Subset lattice") for t in titles)


def test_orderings_page_shows_pena_nilsson_example1():
    at = _page("pages/orderings.py", **{"fslab.distribution": pena_nilsson_example1(), DIST_NAME: "PN1"})
    values = {m.label: m.value for m in at.metric}
    assert values["BS"] == values["OS"] == values["S* (exhaustive)"] == "∅"
    assert values["Strongly relevant"] == values["Markov boundary"] == "{X}"


def test_theorem1_constructor_refuses_invalid_and_builds_random():
    at = _page("pages/orderings.py")
    at.text_area(key="orderings.t1_text").set_value("X1 X2 X3\nX1\nX1 X2\nX1 X3\nX2 X3\nX2\nX3\n∅").run()
    assert any("{X1} (position 2) comes before its superset {X1, X2} (position 3)" in e.value for e in at.error)
    at.number_input(key="orderings.t1_n").set_value(4).run()
    at.button(key="orderings.t1_random").click().run()
    assert any("all 16 subsets" in s.value for s in at.success)
    at.button(key="orderings.t1_use").click().run()
    assert at.session_state[DIST_NAME] == "Theorem 1 construction (n=4)"


def test_orderings_refuses_a_wide_dataset_and_runs_fbs():
    at = _page("pages/orderings.py")
    at.radio(key="orderings.source").set_value("dataset").run()
    assert any("subsets; enumerating them is limited to 12 features" in e.value for e in at.error)
    at.radio(key="orderings.source").set_value("distribution").run()
    at.number_input(key="orderings.fin_m").set_value(5000).run()
    at.button(key="orderings.fin_run").click().run()
    heads = [s.value for s in at.subheader]
    assert "FBS: keeps {X1, X2}" in heads and "FOS: keeps {X1, X2}" in heads
