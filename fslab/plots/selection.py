"""Figures of the Select page: criterion curves of the greedy trace and the step x candidate heatmap."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ._text import plain

_MAX_TIE_MARKS = 300
_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e")


def trace_curves_figure(curves: Mapping[str, pd.DataFrame], y_title: str, x_title: str = "number of features t",
                        title: str = "Criterion after each step") -> go.Figure:
    """One line per selection: ``curves[label]`` has columns t, value and feature (the feature added at t).

    The first curve is the run being inspected (thick); the others are overlays for comparison.
    """
    fig = go.Figure()
    # the inspected run first (thick, underneath), the dotted overlays on top: where curves coincide every one
    # stays visible instead of hiding behind the thick line
    for i, (label, frame) in enumerate(curves.items()):
        fig.add_trace(go.Scatter(
            x=frame["t"], y=frame["value"], mode="lines+markers", name=plain(label),
            line={"width": 3 if i == 0 else 1.5, "dash": "solid" if i == 0 else "dot",
                  "color": _COLORS[i % len(_COLORS)]},
            marker={"size": 9 if i == 0 else 6},
            customdata=frame[["feature"]].map(plain).to_numpy(),
            hovertemplate="t=%{x}<br>%{customdata[0]}<br>value=%{y:.5g}<extra>" + plain(label) + "</extra>",
        ))
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title, height=380,
                      legend={"orientation": "h", "y": -0.22},
                      margin={"l": 10, "r": 10, "t": 50, "b": 10})
    fig.update_xaxes(dtick=1 if max((len(f) for f in curves.values()), default=0) <= 25 else None)
    return fig


def _column_labels(names: list[str], limit: int = 40) -> list[str]:
    """Tick labels of at most ``limit`` characters (cut before escaping, so no entity is cut in half), distinct even
    when two long names share their first characters."""
    labels: list[str] = []
    for i, name in enumerate(names):
        label = name if len(name) <= limit else name[: limit - 1] + "…"
        labels.append(label if label not in labels else f"{name[: limit - 8]}… #{i + 1}")
    return [plain(label) for label in labels]


def trace_heatmap_figure(trace: pd.DataFrame, max_columns: int = 60, title: str = "Every candidate at every step",
                         value_title: str = "value", lower_is_better: bool = False,
                         tick_font: int | None = None) -> go.Figure:
    """Heatmap of steps (rows) x candidate features (columns); the chosen cell is starred, ties are circled.

    ``value`` is what the hover shows: the measure's own value (``lower_is_better`` for an error) or a gain; the
    colour always places a candidate between its step's worst (0) and best (1).

    With more than ``max_columns`` candidates, the columns kept are the chosen features and the
    candidates with the highest best value over the steps (the title says how many are shown); when
    more features were chosen than fit (backward elimination), the last ones chosen.

    The column labels are vertical, ``tick_font`` px (10 above 30 columns, else 12), and thinned by the browser:
    plotly labels every column while each gets 1.2 x ``tick_font`` px of width and every 2nd, 3rd, ... column on a
    narrower screen (a 1024 px window), so the labels never overprint; the hover names every cell's feature in full.
    """
    trace = trace[trace["candidate"] >= 0]
    shown = trace["value"]
    trace = trace.assign(value=-shown if lower_is_better else shown)  # higher = better from here on
    best_per_feature = trace.groupby("candidate")["value"].max()
    chosen = trace.loc[trace["chosen"], "candidate"].tolist()
    columns = list(dict.fromkeys(chosen))
    never = best_per_feature.drop(index=columns, errors="ignore").sort_values(ascending=False, kind="stable")
    if len(columns) > max_columns:  # a long backward run: the last eliminations, then the survivors
        keep = max_columns - min(len(never), max_columns // 2)
        columns = columns[-keep:] if keep else []
    if best_per_feature.size > max_columns:
        columns += never.index[: max(0, max_columns - len(columns))].tolist()
        title = f"{title} ({len(columns)} of {best_per_feature.size} candidates: chosen + best)"
    else:
        columns += sorted(set(best_per_feature.index) - set(columns))
    names = trace.drop_duplicates("candidate").set_index("candidate")["name"].astype(str)
    # colour = position between the step's worst (0) and best (1) candidate, so the contenders of every step
    # stand out even when early steps span a much wider range of values than late ones
    by_step = trace.groupby("step")["value"]
    low, high = by_step.transform("min"), by_step.transform("max")
    span = (high - low).where(high > low, 1.0)
    relative = ((trace["value"] - low) / span).where(high > low, 1.0)
    grid = trace.assign(rel=relative).pivot(index="step", columns="candidate", values="rel").reindex(columns=columns)
    raw = trace.assign(value=shown).pivot(index="step", columns="candidate", values="value").reindex(columns=columns)
    steps = grid.index.to_numpy()
    labels = _column_labels([names[c] for c in columns])
    label_of = dict(zip(columns, labels, strict=True))
    full = np.tile(np.array([plain(names[c]) for c in columns], dtype=object), (len(grid.index), 1))
    fig = go.Figure(go.Heatmap(
        z=grid.to_numpy(), x=labels, y=steps, customdata=raw.to_numpy(), text=full, colorscale="Viridis",
        zmin=0.0, zmax=1.0,
        colorbar={"title": {"text": "within<br>step"}, "len": 1.0, "thickness": 12, "y": 0.5,
                  "yanchor": "middle", "tickvals": [0, 0.5, 1], "ticktext": ["0 worst", "0.5", "1 best"]},
        hovertemplate="step %{y}<br>%{text}<br>" + value_title + "=%{customdata:.5g}<br>relative=%{z:.3f}"
                      "<extra></extra>", xgap=1, ygap=1,
    ))
    # the plot area's height grows with the steps so neither the labels nor the colour bar squeeze the rows; the
    # bottom margin holds the longest (vertical) label
    font = tick_font or (10 if len(columns) > 30 else 12)
    longest = max((len(label) for label in labels), default=1)
    label_px = int(min(longest, 40) * 0.5 * font) + 36  # ~0.4-0.5 em per rotated character, plus the tick gap
    rows_px = int(np.clip(28 * len(steps), 200, 1400))
    ticks = steps if len(steps) <= 30 else steps[(steps % 5 == 0) | (steps == steps.min())]
    # markers no larger than a cell (~900 px of plot width on a wide page), so long runs stay readable
    cell_px = min(rows_px / max(len(steps), 1), 900 / max(len(columns), 1))
    size = float(np.clip(0.9 * cell_px, 5, 14))
    # ties: candidates within the tolerance of the step's best (the chosen one is the lowest index)
    tied = trace[trace["tied"] & ~trace["chosen"] & trace["candidate"].isin(columns)]  # the loop's own tie rule
    if len(tied) > _MAX_TIE_MARKS:  # circling hundreds of cells hides the colours; say how many instead
        title = f"{title}<br><sup>{len(tied):,} cells tied with the chosen one (not circled; see the trace)</sup>"
    elif len(tied):
        fig.add_trace(go.Scatter(
            x=[label_of[c] for c in tied["candidate"]], y=tied["step"], mode="markers", name="tied with the best",
            marker={"symbol": "circle-open", "size": size, "color": "#ff7f0e", "line": {"width": 2}},
            hovertemplate="step %{y}<br>%{x}: tied with the chosen feature<extra></extra>",
        ))
    picked = trace[trace["chosen"] & trace["candidate"].isin(columns)]
    fig.add_trace(go.Scatter(
        x=[label_of[c] for c in picked["candidate"]], y=picked["step"], mode="markers", name="chosen",
        marker={"symbol": "star", "size": size + 1, "color": "white", "line": {"width": 1.5, "color": "black"}},
        hovertemplate="step %{y}: chose %{x}<extra></extra>",
    ))
    fig.update_layout(
        title=title, height=70 + rows_px + label_px,
        xaxis={"type": "category", "categoryorder": "array", "categoryarray": labels, "tickmode": "auto",
               "tickangle": -90 if len(columns) > 12 else -45, "tickfont": {"size": font}, "automargin": False},
        yaxis={"title": "step", "tickmode": "array", "tickvals": ticks,
               "range": [float(steps.max()) + 0.5, float(steps.min()) - 0.5] if len(steps) else None},
        legend={"orientation": "h", "y": 1.0, "x": 1, "xanchor": "right", "yanchor": "bottom"},
        margin={"l": 44, "r": 4, "t": 70, "b": label_px})
    return fig
