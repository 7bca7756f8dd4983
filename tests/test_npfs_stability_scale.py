"""Kuncheva's index over many runs without an M x M matrix: closed-form mean and pair counts per overlap."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fslab.npfs.stability import kuncheva_consistency, kuncheva_index, overlap_counts


def _runs(seed, M, d, k, repeat=0):
    rng = np.random.default_rng(seed)
    Z = np.zeros((M, d), dtype=bool)
    Z[np.arange(M)[:, None], np.argsort(rng.random((M, d)), axis=1)[:, :k]] = True
    if repeat:
        Z[:repeat] = Z[0]  # identical runs: grouped before the product
    return Z


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 30), st.integers(2, 9), st.integers(0, 5))
def test_overlap_counts_and_mean_equal_the_pairwise_definition(seed, M, d, repeat):
    k = 1 + seed % (d - 1)
    Z = _runs(seed, M, d, k, min(repeat, M))
    pairs = [(a & b).sum() for a, b in itertools.combinations(Z, 2)]
    assert overlap_counts(Z).tolist() == np.bincount(pairs, minlength=d + 1).tolist()
    by_pair = np.mean([kuncheva_index(np.flatnonzero(a), np.flatnonzero(b), d)
                       for a, b in itertools.combinations(Z, 2)])
    assert kuncheva_consistency(Z) == pytest.approx(by_pair, abs=1e-12)


def test_hand_example():
    """Runs {0,1}, {0,1}, {0,2} of d = 4: overlaps 2, 1, 1; I_C = (r 4 - 4) / (2 * 2) -> 1, 0, 0; mean 1/3."""
    Z = np.array([[1, 1, 0, 0], [1, 1, 0, 0], [1, 0, 1, 0]])
    assert overlap_counts(Z).tolist() == [0, 2, 1, 0, 0]
    assert kuncheva_consistency(Z) == pytest.approx(1 / 3)


@pytest.mark.slow  # 10,000 runs
def test_ten_thousand_runs_stay_small_in_memory():
    """10,000 runs (50 M pairs): the pair counts come in blocks; no 10,000 x 10,000 matrix is kept."""
    Z = _runs(1, 10_000, 30, 8)
    counts = overlap_counts(Z)
    assert counts.sum() == 10_000 * 9_999 // 2
    assert counts[9:].sum() == 0
