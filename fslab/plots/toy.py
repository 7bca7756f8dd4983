"""Figures for toy distributions: the joint law p(x, y) and the convergence of plug-in selection."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..data.distributions import PROB_PREFIX, Distribution, joint_frame
from ._text import plain, plain_all

_GRID_STATES = 4096  # up to this many states, zero-mass states get a (zero) bar too


def joint_figure(dist: Distribution, max_states: int = 64) -> go.Figure:
    """Stacked bars of p(x, y) for every state x (one colour per class); the height is p(x)."""
    if math.prod(int(a) for a in dist.arities) > _GRID_STATES:  # a wide import: only the states with mass
        frame = pd.DataFrame(dist.states, columns=list(dist.feature_names))
        for j, label in enumerate(dist.labels.tolist()):
            frame[f"{PROB_PREFIX}{label})"] = dist.probs[:, j]
    else:
        frame = joint_frame(dist)
    prob_cols = list(frame.columns[dist.n_features:])
    if len(frame) > max_states:  # keep the heaviest states readable
        frame = frame.loc[frame[prob_cols].sum(axis=1).nlargest(max_states).index]
    frame.columns = plain_all(frame.columns)
    feats, prob_cols = list(frame.columns[:dist.n_features]), list(frame.columns[dist.n_features:])
    labels = ["".join(str(v) for v in row) if all(dist.arities < 10) else ",".join(str(v) for v in row)
              for row in frame[feats].to_numpy()]
    fig = go.Figure()
    for col in prob_cols:
        fig.add_trace(go.Bar(x=labels, y=frame[col], name=col.replace("P(", "p(x, ")))
    fig.update_layout(barmode="stack", title=f"Joint law p(x, y) over states x = ({', '.join(feats)})",
                      xaxis={"title": "state x (values of " + ", ".join(feats) + ")", "type": "category"},
                      yaxis_title="probability", height=360, margin={"t": 50},
                      legend={"orientation": "h", "y": -0.3})
    return fig


def convergence_figure(rates: pd.DataFrame, labels: dict[str, str] | None = None) -> go.Figure:
    """Fraction of samples on which each selector picks the exact optimum, against the sample size m.

    ``labels`` maps selector keys to the names shown in the legend (default: the keys)."""
    fig = go.Figure()
    dashes, symbols = ["solid", "dash", "dot", "dashdot"], ["circle", "square", "diamond", "triangle-up"]
    for i, (key, group) in enumerate(rates.groupby("selector", sort=False)):
        selector = plain((labels or {}).get(key, key))
        err = np.sqrt(group["rate"] * (1 - group["rate"]) / group["repeats"])  # binomial standard error
        shift = 1 + 0.06 * (i - 1)  # a small offset on the log axis so identical curves stay visible
        fig.add_trace(go.Scatter(x=group["m"] * shift, y=group["rate"], mode="lines+markers", name=str(selector),
                                 line={"dash": dashes[i % 4]}, marker={"symbol": symbols[i % 4], "size": 8},
                                 error_y={"type": "data", "array": err, "visible": True},
                                 customdata=np.column_stack([group["m"], group["exact_pick"].map(plain)]),
                                 hovertemplate="m=%{customdata[0]}: %{y:.0%}<br>on the exact law picks %{customdata[1]}"
                                               "<extra>" + str(selector) + "</extra>"))
    optima = rates.attrs.get("optima") or [rates.attrs.get("target", "")]
    target = "} or {".join(plain(names) for names in optima)  # every exactly optimal subset counts as found
    sizes = sorted(int(m) for m in rates["m"].unique())  # ticks at the sizes run, not plotly's "5, 2, 0.1, 5, 2"
    fig.update_layout(title=f"How often plug-in selection finds the exact optimum {{{target}}}",
                      xaxis={"title": "sample size m", "type": "log", "tickmode": "array", "tickvals": sizes,
                             "ticktext": [f"{m:,}" for m in sizes], "minor": {"showgrid": False}},
                      yaxis={"title": "fraction of samples", "range": [-0.05, 1.05], "tickformat": ".0%"},
                      height=400, margin={"t": 50})
    return fig
