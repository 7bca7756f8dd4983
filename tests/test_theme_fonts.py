"""Issue 34.1: in presentation mode every chart text (ticks, axis titles, legends, annotations, heatmap cells,
matrix labels, colour bars) is at least 14 px, for the figures that fixed their own small sizes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import streamlit as st

import fslab
from fslab.plots.by_measure import cross_figure
from fslab.plots.data import bins_figure, class_balance_figure
from fslab.plots.npfs import counts_figure, selection_matrix_figure
from ui import theme


def _font_sizes(node, inside_font: bool = False) -> list[float]:
    """Every explicit font size in a figure's JSON (keys named *font, at any depth)."""
    out: list[float] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "size" and inside_font and isinstance(value, int | float):
                out.append(value)
            else:
                out += _font_sizes(value, inside_font=key.endswith("font"))
    elif isinstance(node, list | tuple):
        for item in node:
            out += _font_sizes(item, inside_font)
    return out


@pytest.fixture
def presenting():
    st.session_state[theme.CHOSEN] = True
    yield
    st.session_state[theme.CHOSEN] = False


def _figures():
    result = fslab.npfs(fslab.load_sample("uniform"), "jmi", k=5, n_bootstraps=20, seed=0)
    labels = ["0-1 error", "balanced error", "AUC"]
    values = pd.DataFrame(np.arange(9.0).reshape(3, 3) / 10, index=labels, columns=labels)
    balance = pd.DataFrame({"class": ["0", "1"], "count": [70, 30], "fraction": [0.7, 0.3], "positive": [False, True]})
    return {"npfs matrix": selection_matrix_figure(result), "npfs counts": counts_figure(result),
            "by measure": cross_figure(values, values - values.min(), values == values.min(), step=1),
            "class balance": class_balance_figure(balance, "y"),
            "bins": bins_figure(np.linspace(0, 1, 50), np.array([0.3, 0.6]), "x", "mean-std")}


def test_small_fixed_fonts_exist_without_presentation_mode():
    # the check below can fail: these figures do fix sizes under 14 px for a laptop screen
    assert any(min(_font_sizes(fig.to_plotly_json()) or [99]) < 14 for fig in _figures().values())


def test_presentation_mode_lifts_every_chart_text_to_14_px(presenting):
    for name, fig in _figures().items():
        sizes = _font_sizes(theme.chart(fig).to_plotly_json())
        assert sizes and min(sizes) >= theme.MIN_FONT, (name, sorted(sizes)[:3])
        assert fig.layout.font.size == theme.CHART_FONT


def test_a_histogram_sends_counts_not_values():
    """The Data page's histograms are counted in Python (at most 60 bars): a 200,000-row column sends 60 counts to
    the browser, whose sum is the non-missing rows, at the column's range (issue 32: a chart sent every value)."""
    from fslab.plots.data import target_histogram

    x = np.r_[np.arange(200_000, dtype=float), np.nan]
    for fig in (bins_figure(x, np.array([1e5]), "x", "quantile"), target_histogram(x, "t")):
        bars = fig.data[0]
        assert bars.type == "bar" and len(bars.y) == 60 and int(np.sum(bars.y)) == 200_000
        assert bars.x[0] - bars.width[0] / 2 == 0 and np.isclose(bars.x[-1] + bars.width[-1] / 2, 199_999)
    assert len(target_histogram(np.array([np.nan]), "t").data[0].y) == 0


def test_static_tables_never_show_a_negative_zero():
    """A gap of -1e-17 (in-sample minus held out, equal up to rounding) reads 0.0000, not -0.0000; real signs stay."""
    from ui.theme import fixed

    text = fixed(4)
    assert [text(v) for v in (-1e-17, -0.0, 0.0, -0.00004, -0.00005001, 0.12345, -0.5)] == [
        "0.0000", "0.0000", "0.0000", "0.0000", "-0.0001", "0.1235", "-0.5000"]
    assert fixed(2)(float("nan")) == "nan"
