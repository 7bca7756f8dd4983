"""AppTest of the By-measure page: Mushroom default, Example 1 (0-1 vs MI part at step 1), errors."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT


@pytest.fixture
def at():
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    app.run()
    app.switch_page("pages/by_measure.py").run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def test_default_mushroom_seven_measures_five_steps(at):
    picks = at.table[0].value.set_index("measure")
    assert list(picks.columns) == ["step 1", "step 2", "step 3", "step 4", "step 5"]
    assert {"0-1 error", "AUC", "mutual information", "all measures"} <= set(picks.index)
    assert picks.loc["all measures", "step 1"] == "same feature"  # odor=none first for every measure
    assert picks.loc["0-1 error", "step 1"] == "odor=none"
    assert any("**disagree**" in m.value for m in at.markdown)
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert spec["layout"]["yaxis"]["title"]["text"] == "chosen by"
    table = at.table[1].value
    assert "0-1 error (lower is better)" in table.columns and "AUC (higher is better)" in table.columns
    assert (table["0-1 error (lower is better)"] >= 0).all()
    assert not at.latex and at.get("download_button")  # the formula is folded, drawn when opened (issue 34.5)
    at.session_state["bym.how"] = True
    at.run()
    assert len(at.latex) >= 1


def test_example1_verdict_names_x1_and_x2(at):
    at.radio(key="bym.source").set_value("distribution").run()
    assert not at.exception
    assert at.number_input(key="bym.k").value == 2
    verdict = next(m.value for m in at.markdown if "**disagree**" in m.value)
    assert "0-1 error adds **X1**" in verdict and "**X2**" in verdict
    assert "same set, in different orders" in verdict
    at.select_slider(key="bym.step").set_value(1).run()
    table = at.table[1].value.set_index("chosen by")
    assert table.loc["0-1 error", "0-1 error (lower is better)"] == pytest.approx(0.25)
    assert table.loc["mutual information", "0-1 error (lower is better)"] == pytest.approx(0.30)


def test_cost_parameter_and_measure_subset(at):
    at.radio(key="bym.source").set_value("distribution").run()
    at.multiselect(key="bym.measures").set_value(["zero-one", "cost-sensitive"]).run()
    at.slider(key="bym.c").set_value(0.5).run()
    assert not at.exception
    picks = at.table[0].value.set_index("measure")
    assert list(picks.index) == ["0-1 error", "cost-sensitive error (c=0.5)", "all measures"]
    assert picks.loc["all measures"].tolist() == ["same feature", "same feature"]
    assert any("same feature at every step" in m.value for m in at.markdown)


def test_no_measure_asks_for_one(at):
    at.multiselect(key="bym.measures").set_value([]).run()
    assert not at.exception
    assert "at least one measure" in at.info[0].value


def test_the_export_is_named_as_every_other_export():
    """Issue 26: By measure's CSV took the display name raw ('wdbc.csv-diagnosis-malignant', cut mid-word)."""
    from types import SimpleNamespace

    from ui.by_measure import file_name

    view = SimpleNamespace(selector="jmi", k=5)
    assert file_name("wdbc.csv (diagnosis = malignant)", view) == "fslab_wdbc_by-measure_jmi_k5.csv"
    assert file_name("=HYPERLINK(\"x\") (sample)", view).startswith("fslab_")
    assert "(" not in file_name("=HYPERLINK(\"x\") (sample)", view)
