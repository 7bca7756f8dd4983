"""The step x candidate heatmap: every column labelled, integer step ticks only, height grows with the steps."""

from __future__ import annotations

import numpy as np

from fslab.data.encoded import EncodedDataset
from fslab.plots.selection import trace_heatmap_figure
from fslab.selectors import select


def _trace(n_features: int, k: int):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (400, n_features))
    ds = EncodedDataset(X, (X[:, 0] ^ (rng.random(400) < 0.2)).astype(int),
                        feature_names=[f"feature-number-{j}=value" for j in range(n_features)])
    return select(ds, k, "bayes-greedy").trace


def test_every_shown_column_has_its_label_and_steps_are_whole_numbers():
    """80 candidates, 5 steps: 60 columns shown, 60 tick labels; ticks 1..5 and the axis spans 0.5..5.5."""
    fig = trace_heatmap_figure(_trace(80, 5))
    heat = fig.data[0]
    assert len(heat.x) == 60 and list(fig.layout.xaxis.tickvals) == list(heat.x)
    assert list(fig.layout.yaxis.tickvals) == [1, 2, 3, 4, 5]
    assert sorted(fig.layout.yaxis.range) == [0.5, 5.5]
    assert fig.layout.coloraxis.colorbar.len is None and heat.colorbar.len == 1.0


def test_height_grows_with_the_steps_and_leaves_room_for_the_rows():
    """Rows get 28 px each (at least 200 px in all) on top of the label band and the title."""
    short, long = trace_heatmap_figure(_trace(30, 3)), trace_heatmap_figure(_trace(30, 15))
    assert long.layout.height - short.layout.height == 28 * 15 - 200
    plot_area = long.layout.height - long.layout.margin.t - long.layout.margin.b
    assert plot_area >= 28 * 15


def test_long_backward_run_shows_the_last_eliminations_and_the_survivors():
    """80 features, k = 3: 77 eliminations do not fit 60 columns; the 3 survivors and the last 57 eliminated
    are shown, every star sits in a shown column, and the many ties are counted in the title, not circled."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (200, 80))
    ds = EncodedDataset(X, (X[:, 0] ^ X[:, 1]).astype(int))
    sel = select(ds, 3, "backward")
    fig = trace_heatmap_figure(sel.trace)
    shown = list(fig.data[0].x)
    assert len(shown) == 60
    assert {f"X{j + 1}" for j in sel.features} <= set(shown)
    assert [f"X{j + 1}" for j in sel.eliminated[-57:]] == shown[:57]
    stars = fig.data[-1]
    assert stars.name == "chosen" and set(stars.x) <= set(shown) and len(stars.x) == 57
    assert all(trace.name != "tied with the best" for trace in fig.data)
    assert "tied with the chosen" in fig.layout.title.text


def test_curves_overlays_are_drawn_above_the_run():
    """Coinciding curves: the thick run underneath, dotted overlays on top, so none hides behind another."""
    import pandas as pd

    from fslab.plots.selection import trace_curves_figure

    same = pd.DataFrame({"t": [1, 2], "value": [0.3, 0.2], "feature": ["a", "b"]})
    fig = trace_curves_figure({"BayesGreedy (this run)": same, "BayesScore": same, "MIGreedy": same}, "0-1 error")
    assert [t.name for t in fig.data] == ["BayesGreedy (this run)", "BayesScore", "MIGreedy"]
    assert fig.data[0].line.width > fig.data[1].line.width and fig.data[1].line.dash == "dot"
