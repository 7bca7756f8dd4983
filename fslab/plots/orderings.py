"""Figures for Bayes-risk orderings: the Hasse diagram of the subset lattice, the ordering of all
subsets, the greedy-vs-optimal gap per k, and the risk checks of BS/OS/FBS/FOS (Pena and Nilsson)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ._text import plain, plain_all

_EDGE_LIMIT = 6  # draw every cover edge up to 6 features (192 edges); beyond, only the greedy path


def _positions(subsets: Sequence[tuple[int, ...]]) -> dict[tuple[int, ...], tuple[float, float]]:
    """Level k (subset size) at height k; the L subsets of a level in lexicographic order, each in the middle of its
    own 1/L-th of [-1, 1] (x = -1 + (2i + 1)/L), so the two singletons of 2 features stand a whole unit apart."""
    levels: dict[int, list[tuple[int, ...]]] = {}
    for s in subsets:
        levels.setdefault(len(s), []).append(s)
    pos = {}
    for k, level in levels.items():
        xs = -1 + (2 * np.arange(len(level)) + 1) / len(level)
        pos.update({s: (float(x), float(k)) for s, x in zip(sorted(level), xs, strict=True)})
    return pos


def value_decimals(values, least: int = 3, most: int = 6) -> int:
    """One number of decimals for every value of a figure: ``least`` (3 tells 0.185 from 0.190), more only when two
    different neighbouring values would otherwise print alike (at most ``most``). Values closer than 1e-9 (relative)
    count as equal: 0.1 + 0.2 and 0.3 need no more digits."""
    v = np.sort(np.asarray(values, dtype=float).ravel())
    v = v[np.isfinite(v)]
    apart = np.diff(v) > 1e-9 * np.maximum(1.0, np.abs(v[1:]))
    lo, hi = v[:-1][apart], v[1:][apart]
    for d in range(least, most):
        if not np.any(np.char.mod(f"%.{d}f", lo) == np.char.mod(f"%.{d}f", hi)):
            return d
    return most


def _fixed(value: float, digits: int) -> str:
    """``value`` with ``digits`` decimals; a rounding-error negative zero (-1e-17) prints as 0.000, not -0.000."""
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


# label chips: dark text on a light, nearly opaque box, drawn above the lines (plotly draws annotations over every
# trace), so a path through a label hides behind it instead of crossing its digits; legible on light and dark pages
_CHIP: dict[str, Any] = {"showarrow": False, "bgcolor": "rgba(255,255,255,0.9)", "borderpad": 1,
                         "font": {"color": "#1a1a1a"}}


def _chips(pos, subsets, texts, yshift: int, size: int, name: str) -> list[dict]:
    """One annotation per subset, ``yshift`` pixels above (+) or below (-) its node, so it clears the node and ring."""
    return [_CHIP | {"x": pos[s][0], "y": pos[s][1], "text": t, "yshift": yshift, "name": name,
                     "font": _CHIP["font"] | {"size": size}} for s, t in zip(subsets, texts, strict=True)]


def hasse_figure(risks: pd.DataFrame, greedy: Sequence[tuple[int, ...]] | None = None,
                 optimal: Sequence[tuple[int, ...]] | None = None, title: str | None = None,
                 other: Sequence[tuple[int, ...]] | None = None, other_label: str = "other criterion's path",
                 greedy_label: str = "greedy path") -> go.Figure:
    """Subset lattice: one node per subset (row = size), edges S -> S + j, colour = Bayes value.

    ``greedy`` (a path ∅, {a}, {a, b}, ...) is drawn as a thick orange line, ``other`` (another criterion's
    greedy path, e.g. MIGreedy's) as a dashed blue line beside it; ``optimal`` subsets (the k-optimal ones) get
    a red ring. Up to 4 features each node's name is printed above it and its value below it (colour alone cannot
    tell 0.185 from 0.19); with more, the values along the paths and at the rings. Every value has the same number
    of decimals (``value_decimals``), and the labels are annotations named "subset" and "value" on light chips
    over the lines. Hover shows the subset, value and rank.
    """
    subsets = list(risks["subset"])
    pos = _positions(subsets)
    n = int(risks["size"].max())
    fig = go.Figure()
    if n <= _EDGE_LIMIT:
        ex, ey = [], []
        for s in subsets:
            for j in range(n):
                if j not in s:
                    sup = tuple(sorted(s + (j,)))
                    ex += [pos[s][0], pos[sup][0], None]
                    ey += [pos[s][1], pos[sup][1], None]
        fig.add_trace(go.Scatter(x=ex, y=ey, mode="lines", line={"color": "rgba(140,140,140,0.45)", "width": 1},
                                 hoverinfo="skip", name="S ⊂ S + j", showlegend=True))
    if greedy:
        fig.add_trace(go.Scatter(x=[pos[s][0] for s in greedy], y=[pos[s][1] for s in greedy],
                                 mode="lines", line={"color": "#ff7f0e", "width": 5}, name=plain(greedy_label),
                                 hoverinfo="skip"))
    if other:  # shifted a little sideways so that a shared stretch shows both lines
        fig.add_trace(go.Scatter(x=[pos[s][0] + 0.035 for s in other], y=[pos[s][1] for s in other],
                                 mode="lines", line={"color": "#1f77b4", "width": 3, "dash": "dash"},
                                 name=plain(other_label), hoverinfo="skip"))
    greater = bool(risks.attrs.get("greater_is_better", False))
    measure = risks.attrs.get("measure", "value")
    value_of = dict(zip(subsets, risks["value"], strict=True))
    if n <= 4:  # name above the node, value below it, both clear of the k-optimal ring (radius 17 px)
        labelled, chips = subsets, _chips(pos, subsets, plain_all(risks["names"]), 28, 13, "subset")
    else:  # too many nodes to label all: the values along the paths and at the rings
        labelled, chips = list(dict.fromkeys([*(greedy or ()), *(other or ()), *(optimal or ())])), []
    digits = value_decimals([value_of[s] for s in labelled])  # the printed values decide; hover uses the same
    chips += _chips(pos, labelled, [_fixed(value_of[s], digits) for s in labelled], -28 if n <= 4 else -20,
                    12 if n <= 4 else 11, "value")
    fig.add_trace(go.Scatter(
        x=[pos[s][0] for s in subsets], y=[pos[s][1] for s in subsets], mode="markers",
        marker={"size": 22 if n <= 4 else max(6, 18 - 2 * n), "color": risks["value"],
                "colorscale": "Viridis" if greater else "Viridis_r", "showscale": True,
                "colorbar": {"title": {"text": measure, "side": "right"}, "thickness": 14},  # narrow: more lattice
                "line": {"color": "white", "width": 1}},
        customdata=np.column_stack([plain_all(risks["names"]), risks["rank"]]),
        hovertemplate=f"%{{customdata[0]}}<br>value %{{marker.color:.{digits}f}}<br>rank %{{customdata[1]}}"
                      "<extra></extra>",
        name="subset", showlegend=False,
    ))
    if optimal:
        fig.add_trace(go.Scatter(x=[pos[s][0] for s in optimal], y=[pos[s][1] for s in optimal], mode="markers",
                                 marker={"size": 34 if n <= 4 else 20, "color": "rgba(0,0,0,0)",
                                         "line": {"color": "#d62728", "width": 3}},
                                 name="k-optimal (exhaustive)", hoverinfo="skip"))
    fig.update_layout(
        title=title or f"Subset lattice coloured by {measure}", annotations=chips,
        xaxis={"visible": False, "range": [-1.15, 1.15]},
        yaxis={"title": "subset size k", "dtick": 1, "range": [-0.6, n + 0.6]},
        legend={"orientation": "h", "y": -0.08}, margin={"t": 50, "b": 40}, height=460 + 40 * min(n, 6),
    )
    return fig


def ordering_figure(risks: pd.DataFrame, order: Sequence[tuple[int, ...]] | None = None,
                    title: str | None = None) -> go.Figure:
    """Every subset's value, best first (or along a given ``order``), coloured by subset size."""
    by_subset = risks.set_index("subset")
    if order is None:
        frame = risks.sort_values(["criterion", "size"], ascending=[False, False], kind="stable")
    else:
        frame = by_subset.loc[[tuple(sorted(s)) for s in order]].reset_index()
    measure = risks.attrs.get("measure", "value")
    x = np.arange(1, len(frame) + 1)
    fig = go.Figure(go.Scatter(x=x, y=frame["value"], mode="lines", line={"color": "rgba(120,120,120,0.5)"},
                               hoverinfo="skip", showlegend=False))
    palette = ["#636efa", "#ef553b", "#00cc96", "#ab63fa", "#ffa15a", "#19d3f3", "#ff6692", "#b6e880"]
    sizes = frame["size"].to_numpy()
    for k in sorted(set(sizes)):  # one legend entry per subset size
        mask = sizes == k
        fig.add_trace(go.Scatter(x=x[mask], y=frame["value"].to_numpy()[mask], mode="markers", name=f"size {k}",
                                 marker={"size": 10, "color": palette[k % len(palette)]},
                                 text=np.asarray(plain_all(frame["names"]), dtype=object)[mask],
                                 hovertemplate="%{x}. %{text}<br>value %{y:.4f}<extra></extra>"))
    if len(frame) <= 32:
        fig.update_xaxes(tickmode="array", tickvals=np.arange(1, len(frame) + 1), ticktext=plain_all(frame["names"]),
                         tickangle=-45)
    fig.update_layout(title=title or f"All subsets ordered by {measure}", xaxis_title="position in the ordering",
                      yaxis_title=measure, margin={"t": 50}, height=420)
    return fig


def gap_figure(gaps: pd.DataFrame, measure: str = "value") -> go.Figure:
    """Per k: the value of greedy's subset and of the k-optimal subset (Theorem 1: the gap can be large)."""
    fig = go.Figure()
    value = f"%{{y:.{value_decimals(gaps[['greedy_value', 'optimal_value']])}f}}"  # one precision, as the lattice's
    # labels above the bars: a subset of value 0 (a perfect one) still shows its name and its 0
    fig.add_trace(go.Bar(x=gaps["k"], y=gaps["greedy_value"], name="greedy", marker_color="#ff7f0e",
                         text=gaps["greedy"], texttemplate="%{text}<br>" + value, textposition="outside",
                         cliponaxis=False, hovertemplate=f"k=%{{x}}: %{{text}}<br>{value}<extra>greedy</extra>"))
    fig.add_trace(go.Bar(x=gaps["k"], y=gaps["optimal_value"], name="k-optimal", marker_color="#1f77b4",
                         text=gaps["optimal"], texttemplate="%{text}<br>" + value, textposition="outside",
                         cliponaxis=False, hovertemplate=f"k=%{{x}}: %{{text}}<br>{value}<extra>optimal</extra>"))
    fig.update_layout(barmode="group", title="Greedy forward search vs the best subset of each size",
                      xaxis={"title": "k (subset size)", "dtick": 1}, yaxis_title=measure, height=380,
                      margin={"t": 50})
    return fig


def decisions_figure(steps: pd.DataFrame, tau: float | None = None, title: str = "Removal decisions") -> go.Figure:
    """One pair of bars per check: risk with the feature (blue) and without it (green if the feature was
    removed, red if kept). With ``tau`` (FBS/FOS) the threshold risk-with + tau is a dashed line per check."""
    labels = [f"{c}. −{plain(f)}" for c, f in zip(steps["check"], steps["feature"], strict=True)]
    removed = steps["removed"].to_numpy(dtype=bool)
    fig = go.Figure()
    fig.add_trace(go.Bar(x=labels, y=steps["risk_with"], name="risk with the feature", marker_color="#1f77b4",
                         offsetgroup="with", customdata=steps["S"],
                         hovertemplate="S = %{customdata}<br>%{y:.4f}<extra></extra>"))
    for mask, name, color in ((removed, "without it: removed", "#2ca02c"), (~removed, "without it: kept", "#d62728")):
        if mask.any():  # same offsetgroup: the two colours share the second slot of each check
            fig.add_trace(go.Bar(x=np.array(labels)[mask], y=steps["risk_without"][mask], name=name,
                                 marker_color=color, offsetgroup="without",
                                 hovertemplate="%{y:.4f}<extra></extra>"))
    if tau is not None and "threshold" in steps:
        for i, y in enumerate(steps["threshold"]):
            fig.add_shape(type="line", x0=i - 0.45, x1=i + 0.45, y0=y, y1=y, xref="x", yref="y",
                          line={"color": "black", "width": 2, "dash": "dash"})
        fig.add_trace(go.Scatter(x=[labels[0]], y=[None], mode="lines", name=f"threshold: risk with + τ ({tau:g})",
                                 line={"color": "black", "dash": "dash"}))
    fig.update_layout(barmode="group", title=title, yaxis_title="0-1 risk", height=380, margin={"t": 50},
                      xaxis={"type": "category"}, legend={"orientation": "h", "y": -0.25})
    return fig
