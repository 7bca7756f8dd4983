"""Figures of the NPFS page (Ditzler et al. 2015): selection matrix (Fig. 1), counts against the critical value,
relevant count as bootstraps accumulate (Fig. 2), relevant pixels (Fig. 4), stability, and the k-suggestion test."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ._text import plain, plain_all

ORANGE, DARK_ORANGE, WHITE, BLACK = "#ff8c1a", "#5c2e00", "#f2f2f2", "#1a1a1a"
_MARGIN = {"l": 10, "r": 10, "t": 50, "b": 10}
_ROW_PX, _FRAME_PX, _MAX_HEIGHT = 13, 110, 2000  # px per labelled matrix row (10 px font), title + axis, cap


def feature_order(result, order: str = "count") -> np.ndarray:
    """Row order: "count" (most selected first, lowest index on ties) or "index" (the data's column order)."""
    if order == "index":
        return np.arange(result.n_features)
    return np.lexsort((np.arange(result.n_features), -result.counts))


def matrix_layout(relevant: np.ndarray) -> tuple[int, np.ndarray, int]:
    """(height in px, positions of the rows that get a label, step) for a matrix whose rows are flagged ``relevant``.

    The figure grows by ``_ROW_PX`` per row up to ``_MAX_HEIGHT``; while every row gets that much room, every row is
    labelled. Beyond that (e.g. 256 pixels) only the relevant rows are labelled, every ``step``-th of them when even
    those would overlap; hover still names every row.
    """
    n_rows = len(relevant)
    height = int(min(_MAX_HEIGHT, max(320, _ROW_PX * n_rows + _FRAME_PX)))
    if _ROW_PX * n_rows + _FRAME_PX <= _MAX_HEIGHT:
        return height, np.arange(n_rows), 1
    per_row = (height - _FRAME_PX) / n_rows
    step = math.ceil(_ROW_PX / per_row)  # relevant rows may be adjacent (count order puts them on top)
    return height, np.flatnonzero(relevant)[::step], step


def matrix_label_note(result, max_rows: int = 300) -> str:
    """A sentence for the caption saying which rows of ``selection_matrix_figure`` carry a label."""
    rows = min(result.n_features, max_rows)
    if _ROW_PX * rows + _FRAME_PX <= _MAX_HEIGHT:
        return "Every row is labelled."
    _, _, step = matrix_layout(np.zeros(rows, dtype=bool))  # the step depends on the number of rows only
    which = "the relevant rows" if step == 1 else f"one relevant row in {step} (adjacent labels would overlap)"
    return f"With {rows} rows only {which} are labelled; hover over any row for its name and count."


def selection_matrix_figure(result, order: str = "count", max_rows: int = 300,
                            max_columns: int = 1000) -> go.Figure:
    """The K x n matrix X as the paper's Fig. 1: black = not selected, white = selected; in relevant rows dark
    brown = not selected, orange = selected.

    Cells take four codes (irrelevant/relevant row x not selected/selected) on a discrete colour scale. Tick labels
    are set explicitly (plotly would otherwise drop every other one on a tall category axis): see matrix_layout.
    Size budget: at most ``max_columns`` bootstraps are drawn (the first ones; the title says so) as int8 codes,
    with no per-cell hover data (n = 5,000 bootstraps of 123 features made a 10 MB figure).
    """
    rows = feature_order(result, order)[:max_rows]
    relevant = result.relevant_mask[rows]
    n_shown = min(result.n_bootstraps, int(max_columns))
    z = (result.matrix[rows, :n_shown] + 2 * relevant[:, None]).astype(np.int8)
    scale = [[0.0, BLACK], [0.25, BLACK], [0.25, WHITE], [0.5, WHITE], [0.5, DARK_ORANGE], [0.75, DARK_ORANGE],
             [0.75, ORANGE], [1.0, ORANGE]]
    names = [f"{plain(result.feature_names[i])} ({result.counts[i]})" for i in rows]
    if len(set(names)) < len(names):  # a category axis merges equal labels: keep one row per feature
        names = [f"#{i + 1} {name}" for i, name in zip(rows, names, strict=True)]
    height, labelled, _ = matrix_layout(relevant)
    fig = go.Figure(go.Heatmap(
        z=z, x=np.arange(1, n_shown + 1), y=names, zmin=-0.5, zmax=3.5, colorscale=scale,
        showscale=False, xgap=0, ygap=1 if len(rows) <= 60 else 0,
        hovertemplate="%{y}<br>bootstrap %{x}<br>orange rows: relevant<extra></extra>",
    ))
    shown = "" if len(rows) == result.n_features else f" (top {len(rows)} of {result.n_features})"
    if n_shown < result.n_bootstraps:
        shown += f"; the first {n_shown:,} of {result.n_bootstraps:,} bootstraps drawn"
    ticks = [names[i] for i in labelled]
    fig.update_layout(
        title=f"Selection matrix: {result.n_features} features x {result.n_bootstraps} bootstraps{shown}",
        xaxis_title="bootstrap l",
        yaxis={"autorange": "reversed", "title": "feature (count)", "type": "category", "tickmode": "array",
               "tickvals": ticks, "ticktext": ticks, "tickfont": {"size": 10}},
        height=height, margin=_MARGIN,
    )
    return fig


def counts_figure(result, order: str = "count", max_bars: int = 300) -> go.Figure:
    """Bars of z_i (times selected out of n) with the critical value zeta as a line; hover shows each p-value."""
    rows = feature_order(result, order)[:max_bars]
    relevant = result.relevant_mask[rows]
    names = [plain(result.feature_names[i]) for i in rows]
    fig = go.Figure(go.Bar(
        x=names, y=result.counts[rows], marker_color=np.where(relevant, ORANGE, "#7f7f7f"),
        customdata=np.column_stack([result.p_values[rows], np.where(relevant, "relevant", "not relevant")]),
        hovertemplate="%{x}: z = %{y}<br>p = P(Z >= z | H0) = %{customdata[0]:.3g}<br>%{customdata[1]}"
                      "<extra></extra>",
    ))
    fig.add_hline(y=result.threshold, line_dash="dash", line_color="#d62728",
                  annotation_text=f"critical value zeta = {result.threshold}: relevant iff {result.rule_text}",
                  annotation_position="top right")
    fig.add_hline(y=result.p0 * result.n_bootstraps, line_dash="dot", line_color="#1f77b4",
                  annotation_text=f"chance n p0 = {result.p0 * result.n_bootstraps:.1f}",
                  annotation_position="bottom right")
    fig.update_layout(title="How often each feature was selected",
                      yaxis_title=f"count z (of n = {result.n_bootstraps})",
                      xaxis={"type": "category", "tickangle": -60 if len(rows) > 20 else 0}, height=400,
                      margin=_MARGIN, yaxis_range=[0, result.n_bootstraps * 1.08])
    return fig


def relevant_path_figure(result) -> go.Figure:
    """Number of relevant features after l bootstraps (critical value recomputed for each l): Fig. 2 for one k."""
    l = np.arange(1, result.n_bootstraps + 1)
    fig = go.Figure(go.Scatter(x=l, y=result.relevant_path, mode="lines", name="relevant after l bootstraps",
                               line={"color": ORANGE, "width": 3},
                               hovertemplate="l = %{x}: %{y} relevant<extra></extra>"))
    fig.add_hline(y=result.k, line_dash="dot", line_color="#1f77b4", annotation_text=f"k = {result.k} (input)")
    fig.update_layout(title="Relevant features as bootstraps accumulate", xaxis_title="bootstraps l",
                      yaxis_title="number relevant", height=340, margin=_MARGIN,
                      yaxis_range=[0, max(result.k, int(result.relevant_path.max(initial=0))) + 1])
    return fig


def relevant_image_figure(result, shape: tuple[int, int]) -> go.Figure:
    """Relevant pixels as an image (Fig. 4): selection frequency on relevant pixels, irrelevant pixels black."""
    freq = result.counts / result.n_bootstraps
    shown = np.where(result.relevant_mask, freq, np.nan).reshape(shape)
    names = np.asarray(plain_all(result.feature_names), dtype=object).reshape(shape)
    fig = go.Figure(go.Heatmap(
        z=shown, x=np.arange(1, shape[1] + 1), y=np.arange(1, shape[0] + 1),
        customdata=np.dstack([names, freq.reshape(shape)]), colorscale="YlOrRd_r", zmin=0, zmax=1,
        colorbar={"title": "z / n"}, xgap=1, ygap=1,
        hovertemplate="%{customdata[0]}<br>selected in %{customdata[1]:.0%} of bootstraps<extra></extra>",
    ))
    fig.update_layout(title=f"Relevant pixels ({result.k_star} of {result.n_features}); black = not relevant",
                      plot_bgcolor=BLACK, height=460, margin=_MARGIN,
                      xaxis={"showgrid": False, "zeroline": False, "constrain": "domain", "title": "column"},
                      yaxis={"autorange": "reversed", "showgrid": False, "zeroline": False, "scaleanchor": "x",
                             "title": "row"})
    return fig


def pairwise_kuncheva(result) -> np.ndarray:
    """Kuncheva's index of every pair of bootstraps (all sets have size k): (r K - k^2) / (k (K - k)).

    One value per pair, n (n - 1) / 2 of them: for checks on small runs. Figures use ``result.kuncheva_pairs``.
    """
    runs = result.matrix.T.astype(np.int32)
    K, k = result.n_features, runs[0].sum()
    r = (runs @ runs.T)[np.triu_indices(runs.shape[0], 1)]
    return (r * K - k * k) / (k * (K - k))


def stability_figure(result, alpha: float = 0.05) -> go.Figure:
    """Histogram of pairwise Kuncheva indices, their mean, and Nogueira et al.'s estimate with its CI band.

    One bar per overlap r = |S_a & S_b| that occurs (at most k + 1 bars), its height the number of pairs of
    bootstraps: the figure's size does not grow with n (issue 18's budget: never one point per pair).
    """
    stab = result.stability(alpha)
    fig = go.Figure()
    pairs = result.kuncheva_pairs if stab["kuncheva"] is not None else None
    if pairs is not None:
        values, counts = pairs
        K, k = result.n_features, int(result.matrix[:, 0].sum())
        width = 0.9 * K / (k * (K - k)) if 0 < k < K else None  # one overlap step on the index scale
        fig.add_trace(go.Bar(x=values, y=counts, width=width, marker_color="#7f7f7f", name="pairs of bootstraps",
                             hovertemplate="I_C %{x:.3f}: %{y} pairs<extra></extra>"))
        fig.update_yaxes(range=[0, 1.5 * max(1, int(np.max(counts)))])  # the two labels above the tallest bar
        fig.add_vline(x=stab["kuncheva"], line_color="#1f77b4", line_dash="dash",
                      annotation_text=f"mean Kuncheva {stab['kuncheva']:.3f}", annotation_position="top left")
    nog = stab["nogueira"]
    if nog is not None:
        # the index lies in [-1, 1]; a normal-approximation interval can spill past 1, which would mislead
        fig.add_vrect(x0=max(nog.lower, -1.0), x1=min(nog.upper, 1.0), fillcolor=ORANGE, opacity=0.25, line_width=0)
        fig.add_vline(x=nog.value, line_color=ORANGE, annotation_text=f"Nogueira {nog}",
                      annotation_position="top left", annotation_yshift=-24)  # a line below Kuncheva's label (16 px)
    fig.update_layout(title="Stability of the selected sets across bootstraps",
                      xaxis_title="index (1 = identical sets)",
                      yaxis_title="pairs of bootstraps", height=340, margin=_MARGIN, showlegend=False,
                      xaxis_range=[-1.02, 1.02])
    return fig


def k_test_figure(steps: pd.DataFrame, alpha: float) -> go.Figure:
    """p-value of each greedy step of the permutation test (log scale) with the alpha line; untested steps left out."""
    tested = steps.dropna(subset=["p_value"]).assign(name=lambda f: f["name"].map(plain))
    colors = np.where(tested["p_value"] <= alpha, ORANGE, "#7f7f7f")
    fig = go.Figure(go.Bar(
        x=tested["step"], y=tested["p_value"], marker_color=colors,
        text=[f"{n}" for n in tested["name"]], textposition="outside",
        customdata=tested[["name", "improvement", "null_q95"]].to_numpy(),
        hovertemplate="step %{x}: add %{customdata[0]}<br>improvement %{customdata[1]:.4g}"
                      "<br>95% of permutations below %{customdata[2]:.4g}<br>p = %{y:.3g}<extra></extra>",
    ))
    fig.add_hline(y=alpha, line_dash="dash", line_color="#d62728", annotation_text=f"alpha = {alpha}")
    fig.update_layout(title="Is each greedy step better than chance? (conditional permutation test)",
                      xaxis_title="step t (feature added)", height=340, margin=_MARGIN,
                      yaxis={"type": "log", "title": "p-value", "dtick": 1})  # one tick per decade
    fig.update_xaxes(dtick=1)
    return fig
