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


def test_every_shown_column_is_a_category_the_browser_labels_without_overprinting():
    """80 candidates, 5 steps: 60 columns, 60 distinct categories in their order; the ticks are plotly's 'auto' for
    a category axis, which labels every column while each gets 1.2 x 10 px and every 2nd, 3rd, ... on a narrower plot
    (a 1024 px window), so labels never overprint; the hover names each cell's feature. Steps 1..5 over 0.5..5.5."""
    fig = trace_heatmap_figure(_trace(80, 5))
    heat, axis = fig.data[0], fig.layout.xaxis
    assert len(heat.x) == 60 == len(set(heat.x)) and list(axis.categoryarray) == list(heat.x)
    assert axis.type == "category" and axis.tickmode == "auto" and axis.nticks is None and axis.tickfont.size == 10
    assert "%{text}" in heat.hovertemplate and [row[0] for row in heat.text] == [heat.x[0]] * 5
    assert list(fig.layout.yaxis.tickvals) == [1, 2, 3, 4, 5]
    assert sorted(fig.layout.yaxis.range) == [0.5, 5.5]
    assert fig.layout.coloraxis.colorbar.len is None and heat.colorbar.len == 1.0
    big = trace_heatmap_figure(_trace(80, 5), max_columns=30, tick_font=13)  # the page's presentation mode
    assert len(big.data[0].x) == 30 and big.layout.xaxis.tickfont.size == 13


def test_long_names_are_cut_to_distinct_labels_and_named_in_full_in_the_hover():
    """Two 50-character names that share their first 45 characters, with '&' in them: the labels are at most 40
    characters, distinct, cut before escaping (no half '&amp;'), and the hover text keeps each whole name."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, (300, 3))
    stem = "a&b" * 15
    ds = EncodedDataset(X, X[:, 0], feature_names=[stem + "-left", stem + "-right", "short"])
    fig = trace_heatmap_figure(select(ds, 2, "bayes-greedy").trace)
    labels = list(fig.data[0].x)
    assert len(set(labels)) == 3 and "short" in labels
    assert all(len(label.replace("&amp;", "&")) <= 40 for label in labels)
    assert not any("&" in label.replace("&amp;", "") for label in labels)  # every '&' escaped whole
    assert {stem.replace("&", "&amp;") + "-left", stem.replace("&", "&amp;") + "-right"} <= set(fig.data[0].text[0])
    assert set(fig.data[-1].x) <= set(labels)  # the stars sit on the shown columns


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
