"""Figures of the NPFS page: what each encodes, checked on a hand-made selection matrix."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fslab.npfs_result import NPFSResult
from fslab.plots.npfs import (
    counts_figure,
    feature_order,
    k_test_figure,
    pairwise_kuncheva,
    relevant_image_figure,
    relevant_path_figure,
    selection_matrix_figure,
    stability_figure,
)


@pytest.fixture
def result():
    """K=4, n=10, k=2 (p0=1/2), alpha=0.05 -> zeta=8 (hand example in test_npfs.py). Feature 2 ("c") is selected in
    all 10 bootstraps, feature 0 ("a") in 9 (both relevant: z > 8), feature 1 ("b") once, feature 3 ("d") never."""
    m = np.zeros((4, 10), dtype=bool)
    m[2, :] = True
    m[0, :9] = True
    m[1, 9] = True   # bootstrap 10 picks {1, 2}
    return NPFSResult.from_matrix(m, p0=0.5, alpha=0.05, k=2, feature_names=["a", "b", "c", "d"])


def test_result_fixture(result):
    assert result.threshold == 8 and result.relevant.tolist() == [0, 2]


def test_feature_order(result):
    assert feature_order(result).tolist() == [2, 0, 1, 3]  # by count, lowest index on ties
    assert feature_order(result, "index").tolist() == [0, 1, 2, 3]


def test_selection_matrix_codes(result):
    fig = selection_matrix_figure(result)
    z = np.asarray(fig.data[0].z)
    # rows c, a, b, d; code = selected + 2 * relevant
    assert z[0].tolist() == [3] * 10
    assert z[1].tolist() == [3] * 9 + [2]
    assert z[2].tolist() == [0] * 9 + [1]
    assert list(fig.data[0].y) == ["c (10)", "a (9)", "b (1)", "d (0)"]


def test_counts_figure(result):
    fig = counts_figure(result, order="index")
    assert list(fig.data[0].y) == [9, 1, 10, 0]
    assert fig.layout.shapes[0].y0 == 8  # the critical value line
    assert float(fig.data[0].customdata[0][0]) == pytest.approx(11 / 1024)  # P(Z >= 9), Binomial(10, 1/2)


def test_relevant_path_and_image(result):
    path = relevant_path_figure(result)
    assert list(path.data[0].y) == result.relevant_path.tolist()
    img = relevant_image_figure(result, (2, 2))
    z = np.asarray(img.data[0].z, dtype=float)
    assert z[0, 0] == pytest.approx(0.9) and z[1, 0] == pytest.approx(1.0) and np.isnan(z[0, 1])


def test_stability_figure(result):
    pairs = pairwise_kuncheva(result)
    # bootstraps 1..9 pick {0, 2}, the 10th {1, 2}: 36 identical pairs (index 1) and 9 with r=1: (4-4)/4 = 0
    assert sorted(pairs.tolist()) == [0.0] * 9 + [1.0] * 36
    fig = stability_figure(result)
    assert fig.data[0].type == "histogram" and len(fig.layout.shapes) == 3


def test_k_test_figure_skips_untested_steps():
    steps = pd.DataFrame({"step": [1, 2, 3], "name": ["x", "y", "z"], "improvement": [0.2, 0.01, np.nan],
                          "null_q95": [0.05, 0.03, np.nan], "p_value": [0.01, 0.4, np.nan]})
    fig = k_test_figure(steps, 0.05)
    assert list(fig.data[0].x) == [1, 2]
    assert list(fig.data[0].marker.color) == ["#ff8c1a", "#7f7f7f"]
