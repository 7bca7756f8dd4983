"""Figure of the By-measure page: every measure's choice evaluated under every measure."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ._text import plain


def cross_figure(values: pd.DataFrame, regret: pd.DataFrame, best: pd.DataFrame, step: int) -> go.Figure:
    """Heatmap: rows = the first ``step`` features chosen by a measure, columns = the measure judging them.

    Colour = the row's shortfall in its column, scaled to the column's worst row (0 = the best of the rows,
    1 = the worst); the text is the value itself in the column measure's own terms, starred when best.
    """
    rows = [_wrapped(r) for r in values.index]
    cols = [plain(c) for c in values.columns]
    reg = regret.to_numpy(dtype=float)
    worst = np.nanmax(reg, axis=0, keepdims=True)
    rel = np.divide(reg, worst, out=np.zeros_like(reg), where=worst > 0)
    text = [[("★<br>" if bool(best.iat[i, j]) else "") + f"{values.iat[i, j]:.3g}" for j in range(len(cols))]
            for i in range(len(rows))]
    fig = go.Figure(go.Heatmap(
        z=rel, x=cols, y=rows, text=text, texttemplate="%{text}", textfont={"size": 11, "color": "black"},
        colorscale=[[0, "#e8f4ea"], [1, "#d6604d"]],
        zmin=0, zmax=1, xgap=2, ygap=2, showscale=True,
        colorbar={"title": {"text": "shortfall"}, "tickvals": [0, 1], "ticktext": ["0 best", "1 worst"],
                  "thickness": 12},
        hovertemplate="chosen by %{y}<br>judged by %{x}: %{text}<extra></extra>",
    ))
    fig.update_layout(
        title=f"The first {step} feature(s) each measure chose, judged by every measure",
        height=90 + 34 * len(rows) + 150, margin={"l": 10, "r": 10, "t": 50, "b": 10},
        xaxis={"title": "judged by (its Bayes value)", "side": "bottom", "tickangle": -30, "automargin": True},
        yaxis={"title": "chosen by", "autorange": "reversed", "automargin": True})
    return fig


def _wrapped(label) -> str:
    """A row label with its parameters on a second line ('cost-sensitive error<br>(c=0.25)'), so that on a
    1024 px screen the labels leave the cells room for their values (the star, too, sits above the value)."""
    return plain(label).replace(" (", "<br>(")
