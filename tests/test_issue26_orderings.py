"""Issue 26, item 6: Orderings' answers are never cut or printed as rounding noise, and FBS/FOS warn when the
tolerance is not below the distribution's eta (Theorem 8)."""

from __future__ import annotations

import pandas as pd
import pytest

from fslab.pena_nilsson.finite import tolerance_note
from tests.test_share_app import open_page  # noqa: F401  (the fixture)
from ui.orderings import steps_table


def test_tolerance_note_only_outside_theorem_8():
    assert tolerance_note(0.002, 0.0036) is None and tolerance_note(0.02, None) is None
    note = tolerance_note(0.02, 0.0036)
    assert "τ = 0.02 is not below η = 0.0036" in note and "Use τ < 0.0036" in note


def test_rounding_noise_prints_as_zero():
    steps = pd.DataFrame({"subset": ["{X1}"], "risk_with": [1e-16], "risk_without": [-2e-17], "removed": [True]})
    out = steps_table(steps)
    assert out["risk_with"].iloc[0] == 0 and str(out["risk_without"].iloc[0]) == "0.0"


@pytest.mark.slow  # 0.30 s measured (inner loop: unit and not slow)
def test_fbs_warns_when_tau_exceeds_eta(open_page):  # noqa: F811
    # greedy-bad: S* = {X1, X2, X3}, eta = 0.0077 < the default tau 0.02
    at = open_page("pages/orderings.py", {"dist": "greedy-bad", "tab": "Sample (FBS, FOS)"})
    warnings = [w.value for w in at.warning]
    assert any("is not below η = 0.007692" in w for w in warnings), warnings
    at.number_input(key="orderings.fin_tau").set_value(0.005).run()
    assert not any("is not below η" in w.value for w in at.warning)


@pytest.mark.slow  # 0.46 s measured (inner loop: unit and not slow)
def test_minimal_tiles_are_as_wide_as_their_answer(open_page):  # noqa: F811
    at = open_page("pages/orderings.py", {"dist": "greedy-bad", "tab": "Minimal S* (BS, OS)"})
    values = {m.label: m.value for m in at.metric}
    assert values["S* (exhaustive)"] == "{X1, X2, X3}"
    # (that a tile shows its whole answer is a layout question: tests/e2e/test_issue26_orderings_e2e.py)


def test_presentation_mode_scales_chart_text(monkeypatch):
    import plotly.graph_objects as go

    from ui import theme
    fig = go.Figure(go.Scatter(x=[0], y=[0], text=["a"], mode="text", textfont={"size": 12}))
    fig.add_annotation(text="0.250", font={"size": 10})
    monkeypatch.setattr(theme, "presenting", lambda: False)
    assert theme.chart(fig).layout.font.size is None
    monkeypatch.setattr(theme, "presenting", lambda: True)
    out = theme.chart(fig)
    assert out.layout.font.size == theme.CHART_FONT and out.data[0].textfont.size == 16
    assert out.layout.annotations[0].font.size == theme.MIN_FONT   # 10 px x 16/12 = 13, floored at 14 (issue 34)
