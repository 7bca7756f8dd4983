"""AppTest of the Compare page: default render, distribution optimum, learning curves, binning, errors."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from fslab.samples import load_sample
from tests.conftest import ROOT
from ui import state


@pytest.fixture
def at():
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    app.switch_page("pages/compare.py").run()
    assert not app.exception
    return app


def _titles(app) -> list[str]:
    return [json.loads(c.proto.spec)["layout"].get("title", {}).get("text", "") for c in app.get("plotly_chart")]


def test_default_view_shows_the_side_by_side_panel(at):
    assert not at.error
    assert any("7 selectors, k = 5, 0-1 error" in m.value for m in at.markdown)
    titles = _titles(at)
    assert "Step at which each selector picked each feature" in titles
    assert "Jaccard overlap of the selected sets" in titles
    assert len(at.get("download_button")) >= 4
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
    at.session_state[state.DATASET] = load_sample("waveform").discretize()
    at.session_state[state.DATASET_NAME] = "waveform (sample)"
    at.session_state[state.DATASET_RAW] = None
    at.run()
    at.button(key="compare.run_bins").click().run()
    assert not at.exception and not at.error
    assert any("real-valued column(s) change with the binning" in m.value for m in at.markdown)
    assert "Step at which each binning's selection picked each feature" in _titles(at)


def test_errors_are_messages(at):
    at.multiselect(key="compare.selectors").set_value([]).run()
    assert "at least one selector" in at.error[0].value
    at.multiselect(key="compare.selectors").set_value(["exhaustive"]).run()
    assert not at.exception and "subsets" in at.error[0].value  # too many subsets: a TooLargeError message


def test_full_protocol_is_one_click_and_warns_before_a_long_svm_run(at):
    at.toggle(key="compare.full").set_value(True).run()
    assert not at.exception
    assert at.slider(key="compare.splits").disabled and at.number_input(key="compare.subsample").disabled
    assert any("expect a long run" in w.value for w in at.warning)  # 8,124 x 0.7 rows with an RBF SVM


def test_learning_curves_on_a_sampled_distribution(at):
    at.radio(key="compare.source").set_value("distribution").run()
    at.number_input(key="compare.curve_rows").set_value(1000).run()
    at.selectbox(key="compare.learner.zero-one").set_value("tree").run()
    at.button(key="compare.run_curves").click().run()
    assert not at.exception and not at.error
    assert any(t.startswith("Test 0-1 error with decision tree") for t in _titles(at))
