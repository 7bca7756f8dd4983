"""The By-measure cross chart keeps its cell values legible on a 1024 px screen: row labels wrap before their
parameters, the best-of-column star sits above its value, and an uploaded name stays plain text."""

from __future__ import annotations

import numpy as np
import pandas as pd

from fslab.plots.by_measure import cross_figure


def test_cross_figure_wraps_labels_and_stars_above_values():
    labels = ["0-1 error", "cost-sensitive error (c=0.25)", "<b>x</b>"]
    values = pd.DataFrame([[0.1, 0.2, 0.9], [0.05, 0.1, 0.8], [0.3, 0.3, 0.7]], index=labels, columns=labels)
    best = values == values.min()
    regret = values - values.min()
    trace = cross_figure(values, regret, best, step=2).data[0]
    assert list(trace.y) == ["0-1 error", "cost-sensitive error<br>(c=0.25)", "&lt;b&gt;x&lt;/b&gt;"]
    assert list(trace.x)[1] == "cost-sensitive error (c=0.25)"
    assert trace.text[1][0] == "★<br>0.05" and trace.text[0][0] == "0.1"
    # colour = shortfall over the column's worst shortfall: 0 for the best row, 1 for the worst
    assert np.allclose(np.asarray(trace.z), [[0.2, 0.5, 1.0], [0.0, 0.0, 0.5], [1.0, 1.0, 0.0]])
