"""Figures of the NPFS page: what each encodes, checked on a hand-made selection matrix."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fslab.npfs.result import NPFSResult
from fslab.plots.npfs import (
    counts_figure,
    feature_order,
    k_test_figure,
    matrix_label_note,
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
    values, counts = result.kuncheva_pairs  # the same distribution, one bar per overlap, not one value per pair
    assert values.tolist() == [0.0, 1.0] and counts.tolist() == [9, 36]
    fig = stability_figure(result)
    assert fig.data[0].type == "bar" and list(fig.data[0].y) == [9, 36] and len(fig.layout.shapes) == 3


@pytest.mark.slow  # 0.37 s measured (inner loop: unit and not slow)
def test_stability_figure_size_is_bounded():
    """Issue 18: n = 5,000 bootstraps (12.5 M pairs) gave a 154 MB figure; bars per overlap keep it small."""
    rng = np.random.default_rng(0)
    K, k, n = 40, 10, 5000
    matrix = np.zeros((K, n), dtype=bool)
    picks = np.argsort(rng.random((n, K)), axis=1)[:, :k]
    matrix[picks, np.arange(n)[:, None]] = True
    result = NPFSResult.from_matrix(matrix, p0=k / K, alpha=0.01, k=k)
    values, counts = result.kuncheva_pairs
    assert counts.sum() == n * (n - 1) // 2 and len(values) <= k + 1
    mean = float((values * counts).sum() / counts.sum())
    assert mean == pytest.approx(result.stability()["kuncheva"])
    assert len(stability_figure(result).to_json()) < 1_000_000
    matrix_fig = selection_matrix_figure(result)  # the first 1,000 bootstraps as int8 codes, no per-cell hover data
    assert np.asarray(matrix_fig.data[0].z).shape == (K, 1000) and matrix_fig.data[0].customdata is None
    assert "the first 1,000 of 5,000 bootstraps" in matrix_fig.layout.title.text
    assert len(matrix_fig.to_json()) < 1_000_000


def test_k_test_figure_skips_untested_steps():
    steps = pd.DataFrame({"step": [1, 2, 3], "name": ["x", "y", "z"], "improvement": [0.2, 0.01, np.nan],
                          "null_q95": [0.05, 0.03, np.nan], "p_value": [0.01, 0.4, np.nan]})
    fig = k_test_figure(steps, 0.05)
    assert list(fig.data[0].x) == [1, 2]
    assert list(fig.data[0].marker.color) == ["#ff8c1a", "#7f7f7f"]


def _ranked(n_features: int, n_relevant: int, n: int = 20) -> NPFSResult:
    """Feature i < n_relevant selected in every bootstrap, the rest never: with p0 = n_relevant / K and
    alpha = 0.01, zeta < n (P(Z = n) = p0^n is tiny), so exactly the first n_relevant features are relevant."""
    m = np.zeros((n_features, n), dtype=bool)
    m[:n_relevant] = True
    return NPFSResult.from_matrix(m, p0=n_relevant / n_features, alpha=0.01, k=n_relevant,
                                  feature_names=[f"f{i}" for i in range(n_features)])


def test_selection_matrix_labels_every_row_of_mushroom_size():
    """116 rows (Mushroom): every row has its own tick label, in row order, and the figure grows with K."""
    result = _ranked(116, 10)
    fig = selection_matrix_figure(result)
    assert list(fig.layout.yaxis.tickvals) == list(fig.data[0].y)
    assert list(fig.layout.yaxis.tickvals)[:11] == [f"f{i} (20)" for i in range(10)] + ["f10 (0)"]
    assert fig.layout.height == 13 * 116 + 110
    assert matrix_label_note(result) == "Every row is labelled."
    assert selection_matrix_figure(_ranked(20, 3)).layout.height == 13 * 20 + 110


def test_selection_matrix_labels_only_relevant_rows_of_256_pixels():
    """256 rows at the 2000 px cap get 1890/256 = 7.4 px each: below the 13 px a label needs, so only relevant rows
    are labelled, one in ceil(13 / 7.4) = 2 since adjacent ones would overlap; hover still covers all 256 rows."""
    result = _ranked(256, 40)
    fig = selection_matrix_figure(result)
    assert fig.layout.height == 2000 and len(fig.data[0].y) == 256
    assert list(fig.layout.yaxis.tickvals) == [f"f{i} (20)" for i in range(0, 40, 2)]
    assert "only one relevant row in 2" in matrix_label_note(result)
    assert np.asarray(fig.data[0].z).shape == (256, 20)  # hover names every row from its y label


def test_selection_matrix_keeps_rows_with_equal_names_apart():
    m = np.zeros((2, 4), dtype=bool)
    m[:, :2] = True
    result = NPFSResult.from_matrix(m, p0=0.5, alpha=0.05, k=1, feature_names=["x", "x"])
    assert list(selection_matrix_figure(result).data[0].y) == ["#1 x (2)", "#2 x (2)"]


def test_stability_band_stays_inside_the_index_range(result):
    """Nogueira's index is at most 1; a normal-approximation interval that spills past it is drawn clipped."""
    nog = result.stability(0.05)["nogueira"]
    band = next(s for s in stability_figure(result).layout.shapes if s.type == "rect")
    assert -1.0 <= band.x0 <= band.x1 <= 1.0
    assert band.x1 == min(nog.upper, 1.0)


def test_k_test_figure_ticks_one_per_decade():
    """Log-axis ticks at powers of ten only (plotly's default labels read '5, 2, 0.1, 5, 2')."""
    steps = pd.DataFrame({"step": [1, 2], "name": ["x", "y"], "improvement": [0.2, 0.01],
                          "null_q95": [0.05, 0.03], "p_value": [0.001, 0.4]})
    assert k_test_figure(steps, 0.05).layout.yaxis.dtick == 1
