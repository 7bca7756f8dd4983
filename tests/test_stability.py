"""Kuncheva's consistency index (Ditzler et al., Definition 2.1) and Nogueira et al.'s stability with its CI."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fslab.errors import ParameterError
from fslab.npfs.stability import kuncheva_consistency, kuncheva_index, nogueira_stability


def test_kuncheva_index_by_hand():
    """K=10, A={0,1,2}, B={0,1,3}: r=2, k=3 -> (2*10 - 9) / (3*7) = 11/21. Identical -> 1; K=6 disjoint
    halves -> (0 - 9) / (3*3) = -1."""
    assert kuncheva_index([0, 1, 2], [0, 1, 3], 10) == pytest.approx(11 / 21)
    assert kuncheva_index([4, 5], [5, 4], 9) == 1.0
    assert kuncheva_index([0, 1, 2], [3, 4, 5], 6) == -1.0
    with pytest.raises(ParameterError, match="equal size"):
        kuncheva_index([0, 1], [0], 5)
    with pytest.raises(ParameterError, match="0 < k < K"):
        kuncheva_index([0, 1], [0, 1], 2)


def test_kuncheva_consistency_averages_the_pairs():
    """Runs {0,1}, {0,2}, {0,1} of K=4, k=2: pairs give r = 1, 2, 1 -> (4r - 4)/4 = 0, 1, 0; mean 1/3."""
    Z = np.array([[1, 1, 0, 0], [1, 0, 1, 0], [1, 1, 0, 0]])
    assert kuncheva_consistency(Z) == pytest.approx(1 / 3)
    with pytest.raises(ParameterError, match="same number"):
        kuncheva_consistency(np.array([[1, 1, 0, 0], [1, 0, 0, 0]]))


def test_nogueira_by_hand():
    """Z = [[1,1,0,0],[1,0,1,0]]: p_f = (1, .5, .5, 0); s_f^2 = M/(M-1) p(1-p) = (0, .5, .5, 0), mean .25;
    kbar = 2, kbar/d (1 - kbar/d) = .25 -> phi = 1 - .25/.25 = 0 (Kuncheva's index of the pair is 0 too)."""
    est = nogueira_stability(np.array([[1, 1, 0, 0], [1, 0, 1, 0]]))
    assert est.value == pytest.approx(0.0)
    same = nogueira_stability(np.array([[1, 0, 1, 0]] * 5))
    assert same.value == pytest.approx(1.0) and same.variance == pytest.approx(0.0)
    assert same.lower == pytest.approx(1.0) and "95% CI" in str(same)


def _variance_other_form(Z):
    """The variance as Nogueira et al.'s MATLAB code writes it (agreement terms pa_i, pe_i): an independent form."""
    M, d = Z.shape
    K = Z.sum(axis=1)
    kbar = K.mean()
    p = Z.mean(axis=0)
    pi1 = kbar / d
    pe = 1 - 2 * pi1 * (1 - pi1)
    pa = 1 - (2 / d) * (M / (M - 1)) * np.sum(p * (1 - p))
    phi = (pa - pe) / (1 - pe)
    pai = 1 - K / d - pi1 + (2 / d) * (Z @ p)
    pei = (1 - phi) * (pi1 * K / d + (1 - pi1) * (1 - K / d))
    g = (pai - pei) / (1 - pe)
    return phi, 4 / M**2 * np.sum((g - g.mean()) ** 2)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 12), st.integers(3, 15), st.integers(0, 10**6))
def test_nogueira_matches_the_agreement_form(M, d, seed):
    Z = (np.random.default_rng(seed).random((M, d)) < 0.4).astype(int)
    Z[:, 0], Z[:, 1] = 1, 0  # kbar strictly between 0 and d
    est = nogueira_stability(Z, alpha=0.1)
    phi, var = _variance_other_form(Z)
    assert est.value == pytest.approx(phi) and est.variance == pytest.approx(var, abs=1e-12)
    assert est.lower <= est.value <= est.upper


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 8), st.integers(4, 12), st.data())
def test_equal_sizes_nogueira_equals_mean_kuncheva(M, d, data):
    """With every run of the same size k, phi_hat is the average pairwise Kuncheva index (Nogueira et al.)."""
    k = data.draw(st.integers(1, d - 1))
    sets = [data.draw(st.lists(st.integers(0, d - 1), min_size=k, max_size=k, unique=True)) for _ in range(M)]
    Z = np.zeros((M, d), dtype=int)
    for i, s in enumerate(sets):
        Z[i, s] = 1
    pairs = [kuncheva_index(a, b, d) for a, b in itertools.combinations(sets, 2)]
    assert kuncheva_consistency(Z) == pytest.approx(np.mean(pairs))
    assert nogueira_stability(Z).value == pytest.approx(np.mean(pairs))


def test_bad_matrices():
    with pytest.raises(ParameterError, match="0/1"):
        nogueira_stability(np.array([[0, 2], [1, 0]]))
    with pytest.raises(ParameterError, match="at least 2 runs"):
        nogueira_stability(np.array([[0, 1, 1]]))
    with pytest.raises(ParameterError, match="undefined"):
        nogueira_stability(np.zeros((3, 4)))
    with pytest.raises(ParameterError, match="alpha"):
        nogueira_stability(np.eye(3), alpha=0)
