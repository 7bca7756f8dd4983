"""Figures of the Compare page: step grids, overlaps, disagreements, learning curves (plotly, no Streamlit)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import sample_colorscale
from plotly.subplots import make_subplots

from ..selectors import SELECTORS
from ._text import plain, plain_all

_PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f")


def selector_label(name: str) -> str:
    """Display name of a selector ('bayes-greedy' -> 'BayesGreedy'); other names pass through."""
    spec = SELECTORS.get(name)
    return spec.label if spec is not None else name


def step_colorscale(steps: int) -> list[list]:
    """A discrete plotly colorscale for z in [0.5, steps + 0.5]: one flat band per step 1..steps.

    Colours are Viridis sampled from 0 (dark, step 1) to 0.85, so even the last step stays clearly coloured
    against a blank (not picked) cell, which a continuous scale ending in white did not.
    """
    colours = sample_colorscale("Viridis", list(np.linspace(0.0, 0.85, steps)) if steps > 1 else [0.0])
    scale = []
    for i, colour in enumerate(colours):
        scale += [[i / steps, colour], [(i + 1) / steps, colour]]
    return scale


def step_grid_figure(grid: pd.DataFrame, title: str = "Step at which each selector picked each feature",
                     column_labels: Mapping[str, str] | None = None) -> go.Figure:
    """Heatmap of features (rows) x selectors or binnings (columns); the cell is the pick's step, blank if none.

    Steps are categories, not a continuum: one colour per step and an integer legend (1, 2, ..., last step).
    """
    labels = [plain((column_labels or {}).get(c, selector_label(c))) for c in grid.columns]
    z = grid.to_numpy(dtype=float)
    text = np.where(np.isnan(z), "", np.nan_to_num(z).astype(int).astype(str))
    steps = int(np.nanmax(z)) if np.isfinite(z).any() else 1
    ticks = list(range(1, steps + 1, max(1, -(-steps // 15))))  # at most ~15 labels on a long legend
    fig = go.Figure(go.Heatmap(
        z=z, x=labels, y=plain_all(grid.index), text=text, texttemplate="%{text}",
        colorscale=step_colorscale(steps), zmin=0.5, zmax=steps + 0.5,
        colorbar={"title": "step", "tickvals": ticks, "ticktext": [str(t) for t in ticks],
                  "len": min(1.0, 0.25 + 0.08 * steps)},
        xgap=2, ygap=2, hovertemplate="%{y}<br>%{x}: step %{text}<extra></extra>",
    ))
    # the column labels sit on top, turned 45 degrees, in a top margin sized for them (about 5 px of height per
    # character at 12 px, about 7 at 16 px: presentation mode, since ui.theme.chart grows it) under the title: plotly no
    # longer widens the margin itself and centres the title over the labels
    label_height = 7 * max((len(label) for label in labels), default=0)
    fig.update_layout(title=title,
                      height=max(220, 28 * len(grid.index) + 100) + label_height,
                      yaxis={"autorange": "reversed"}, margin={"l": 10, "r": 10, "t": 60 + label_height, "b": 10},
                      xaxis={"side": "top", "tickangle": -45})
    return fig


def overlap_figure(matrix: pd.DataFrame, metric: str = "jaccard") -> go.Figure:
    """Square heatmap of pairwise overlap (Jaccard in [0, 1] or rank correlation in [-1, 1])."""
    labels = [plain(selector_label(c)) for c in matrix.columns]
    z = matrix.to_numpy(dtype=float)
    fig = go.Figure(go.Heatmap(
        z=z, x=labels, y=labels, text=np.where(np.isnan(z), "", np.round(z, 2).astype(str)),
        texttemplate="%{text}", colorscale="RdBu", zmin=-1 if metric == "rank_correlation" else 0, zmax=1,
        colorbar={"title": "Jaccard" if metric == "jaccard" else "tau"},
        hovertemplate="%{y} vs %{x}: %{z:.3f}<extra></extra>",
    ))
    title = "Jaccard overlap of the selected sets" if metric == "jaccard" else "Rank correlation (Kendall tau-b)"
    fig.update_layout(title=title, height=120 + 40 * len(labels), yaxis={"autorange": "reversed"},
                      margin={"l": 10, "r": 10, "t": 60, "b": 10})
    return fig


def disagreement_figure(features: pd.DataFrame, measure_label: str) -> go.Figure:
    """Side-by-side bars per disputed feature: its single-feature Bayes value and its MI (bits)."""
    names = plain_all(features["name"])
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.04,
                        subplot_titles=(f"Bayes value: {measure_label}", "mutual information I(X_j; Y) (bits)"))
    fig.add_trace(go.Bar(x=features["bayes_value"], y=names, orientation="h", marker_color=_PALETTE[0],
                         name=measure_label, customdata=features["picked_by"].map(plain),
                         hovertemplate="%{y}: %{x:.4f}<br>picked by %{customdata}<extra></extra>"), row=1, col=1)
    fig.add_trace(go.Bar(x=features["mi_bits"], y=names, orientation="h", marker_color=_PALETTE[1], name="MI",
                         customdata=features["picked_by"].map(plain),
                         hovertemplate="%{y}: %{x:.4f} bit<br>picked by %{customdata}<extra></extra>"), row=1, col=2)
    fig.update_layout(height=max(260, 30 * len(names) + 120), showlegend=False, yaxis={"autorange": "reversed"},
                      margin={"l": 10, "r": 10, "t": 60, "b": 10})
    return fig


def learning_curve_figure(summary: pd.DataFrame, measure_label: str, learner_label: str,
                          greater_is_better: bool) -> go.Figure:
    """Test measure (mean over splits, bars = one standard deviation) against k, one line per selector."""
    fig = go.Figure()
    for i, (name, part) in enumerate(summary.groupby("selector", sort=False)):
        part = part.sort_values("k")
        fig.add_trace(go.Scatter(
            x=part["k"], y=part["mean"], mode="lines+markers", name=selector_label(name),
            line={"color": _PALETTE[i % len(_PALETTE)]},
            error_y={"type": "data", "array": part["std"], "visible": True, "thickness": 1},
            customdata=np.c_[part["std"], part["splits"]],
            hovertemplate="k = %{x}: %{y:.4f} +- %{customdata[0]:.4f} (%{customdata[1]} splits)<extra>"
                          + selector_label(name) + "</extra>",
        ))
    better = "higher" if greater_is_better else "lower"
    fig.update_layout(title=f"Test {measure_label} with {learner_label} ({better} is better)",
                      xaxis_title="number of selected features k", yaxis_title=f"test {measure_label}",
                      xaxis={"dtick": 1}, height=460, legend={"orientation": "h", "y": -0.2},
                      margin={"l": 10, "r": 10, "t": 60, "b": 10})
    return fig
