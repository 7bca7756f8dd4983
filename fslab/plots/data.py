"""Figures of the Data page: class balance, and how one numeric column is cut into bins."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ._text import plain

POSITIVE_COLOUR = "#d62728"
NEGATIVE_COLOUR = "#1f77b4"
OTHER_COLOUR = "#7f7f7f"


def class_balance_figure(balance: pd.DataFrame, target: str) -> go.Figure:
    """Bars of rows per class (``Dataset.class_balance()``), the positive class in red, with its share."""
    colours = [POSITIVE_COLOUR if pos else (NEGATIVE_COLOUR if balance["positive"].any() else OTHER_COLOUR)
               for pos in balance["positive"]]
    labels = [f"{plain(c)} (positive)" if pos else plain(c) for c, pos in zip(balance["class"], balance["positive"],
                                                                       strict=True)]
    fig = go.Figure(go.Bar(
        x=labels, y=balance["count"].tolist(), marker_color=colours,
        text=[f"{n:,} ({f:.1%})" for n, f in zip(balance["count"], balance["fraction"], strict=True)],
        textposition="auto", hovertemplate="%{x}: %{y:,} rows<extra></extra>",
    ))
    fig.update_layout(title=f"Class balance of {plain(repr(target))}", xaxis_title="class", yaxis_title="rows",
                      xaxis_type="category", margin={"t": 50, "b": 40, "l": 50, "r": 20}, height=330)
    return fig


def _histogram(x: np.ndarray, **style) -> go.Bar:
    """A histogram counted here (``np.histogram``, min(60, max(10, sqrt(n))) equal bins) and drawn as bars: the
    browser gets at most 60 counts, never every value of the column (a 200,000-row upload sent them all)."""
    if not x.size:
        return go.Bar(x=[], y=[], marker_color=OTHER_COLOUR, **style)
    counts, edges = np.histogram(x, bins=min(60, max(10, int(np.sqrt(x.size)))))
    return go.Bar(x=(edges[:-1] + edges[1:]) / 2, y=counts, width=np.diff(edges), marker_color=OTHER_COLOUR,
                  customdata=np.column_stack([edges[:-1], edges[1:]]),
                  hovertemplate="%{customdata[0]:.4g} to %{customdata[1]:.4g}: %{y} rows<extra></extra>", **style)


def bins_figure(values: np.ndarray, edges: np.ndarray, column: str, method: str) -> go.Figure:
    """Histogram of a numeric column with the bin edges as dashed lines and each bin's code on top.

    For ``mean-std`` the edges are mu - sigma and mu + sigma (Ahmed et al., footnote 6).
    """
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    column = plain(column)
    fig = go.Figure(_histogram(x, opacity=0.75, name=column))
    names = ["mu - sigma", "mu + sigma"] if method == "mean-std" and len(edges) == 2 else [None] * len(edges)
    for e, name in zip(edges, names, strict=True):
        fig.add_vline(x=float(e), line_dash="dash", line_color=POSITIVE_COLOUR)
        fig.add_annotation(x=float(e), y=0.55, yref="paper", textangle=-90, xanchor="right", showarrow=False,
                           text=f"{name} = {e:.3g}" if name else f"{e:.3g}", bgcolor="rgba(255,255,255,0.7)",
                           font={"color": POSITIVE_COLOUR, "size": 11})
    bounds = [float(x.min()) if x.size else 0.0, *map(float, edges), float(x.max()) if x.size else 1.0]
    for code in range(len(bounds) - 1):
        lo, hi = max(bounds[code], bounds[0]), min(bounds[code + 1], bounds[-1])
        fig.add_annotation(x=(lo + hi) / 2, y=1.0, yref="paper", yanchor="bottom", showarrow=False,
                           text=f"code {code}", font={"color": POSITIVE_COLOUR})
    fig.update_layout(title={"text": f"{column}: {method} bins", "y": 0.97}, xaxis_title=column,
                      yaxis_title="rows", showlegend=False,
                      margin={"t": 70, "b": 40, "l": 50, "r": 20}, height=330, bargap=0.02)
    return fig


def target_histogram(values: np.ndarray, target: str, cuts=()) -> go.Figure:
    """Histogram of a real-valued target (one bar per value would be hundreds of bars), with ``cuts`` (a split's
    threshold or quantile cut points) as dashed lines."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    name = plain(repr(target))
    fig = go.Figure(_histogram(x))
    for c in cuts:
        fig.add_vline(x=float(c), line_dash="dash", line_color=POSITIVE_COLOUR)
    fig.update_layout(title=f"Distribution of {name} (real-valued)", xaxis_title=plain(target), yaxis_title="rows",
                      showlegend=False, margin={"t": 50, "b": 40, "l": 50, "r": 20}, height=330, bargap=0.02)
    return fig
