"""AppTest of the Example 1 tour: one click from Home, the verdict above the fold, Next / Previous, NPFS on D_uni."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT


def _start():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.button(key="home.tour").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_home_button_opens_step_one_with_both_measures_and_the_verdict():
    at = _start()
    assert at.caption[0].value == "Example 1 tour · step 1 of 4"
    assert [m.value for m in at.metric] == ["0.25", "0.30", "0.08 bit", "0.17 bit"]
    assert [m.label for m in at.metric] == ["er*(X1)", "er*(X2)", "I(X1; Y)", "I(X2; Y)"]
    assert "they disagree" in at.success[0].value and "**X2**" in at.success[0].value
    assert at.session_state["fslab.distribution_name"] == "Bayes paper, Example 1"
    assert at.button(key="tour.prev").disabled


def test_next_and_previous_walk_the_lattice_theorem1_and_npfs():
    at = _start()
    at.button(key="tour.next").click().run()
    assert at.caption[0].value == "Example 1 tour · step 2 of 4"
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(charts) == 2 and "0-1 error" in charts[0]["layout"]["title"]["text"]
    # every node's value with one precision (0.22 sat next to 0.08189 before), on chips drawn over the paths
    for chart, expected in zip(charts, (["0.220", "0.250", "0.300", "0.300"], ["0.000", "0.082", "0.172", "0.235"]),
                               strict=True):
        values = [a for a in chart["layout"]["annotations"] if a.get("name") == "value"]
        assert sorted(a["text"] for a in values) == expected
        assert all(a["yshift"] < 0 and a["bgcolor"] for a in values)
    at.button(key="tour.next").click().run()
    assert at.caption[0].value == "Example 1 tour · step 3 of 4"
    assert at.session_state["fslab.distribution_name"] == "Greedy made bad (Theorem 1)"
    assert len(at.get("plotly_chart")) == 1 and len(at.table) == 1  # the gap table, static (issue 34.5)
    at.button(key="tour.prev").click().run()
    assert at.caption[0].value == "Example 1 tour · step 2 of 4"
    assert at.session_state["fslab.distribution_name"] == "Bayes paper, Example 1"  # the lattice is Example 1's
    at.button(key="tour.next").click().run()
    at.button(key="tour.next").click().run()
    assert at.caption[0].value == "Example 1 tour · step 4 of 4"
    assert at.button(key="tour.next").disabled
    at.button(key="tour.npfs").click().run()
    assert not at.exception
    assert at.session_state["fslab.current_data"].name.startswith("D_uni") or "uniform" in at.session_state[
        "fslab.current_data"].name.lower()


def test_page_style_keeps_formulas_whole():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    body = next(h.proto.body for h in at.get("html") if h.proto.body.startswith("<style>"))  # app.py's style
    assert "katex-display" in body and "overflow-x: auto" in body  # formulas scroll instead of being clipped
    assert "font-size: 19px" not in body and not at.toggle(key="fslab.present").value  # presentation mode is off
