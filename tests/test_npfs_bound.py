"""NPFS's binomial bound in the library (issue 36.2): the critical count of equation (3) and the fewest bootstraps
with which the strict test can declare anything, worked by hand; ``NPFSResult``'s derived arrays are properties of
the selection matrix."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from math import comb

import numpy as np
import pytest

from fslab.errors import ParameterError
from fslab.npfs import min_bootstraps, npfs_threshold
from fslab.npfs.result import NPFSResult


def _tail(n: int, p0: Fraction, z: int) -> Fraction:
    """P(Z >= z) for Z ~ Binomial(n, p0), exactly."""
    return sum((comb(n, j) * p0**j * (1 - p0) ** (n - j) for j in range(z, n + 1)), Fraction(0))


def test_critical_count_n100_k10_of_50_alpha_001_by_hand():
    """n = 100, p0 = k/K = 10/50 = 1/5, alpha = 0.01 (mean 20, sd 4): P(Z >= 31) = 0.00606 <= 0.01 < P(Z >= 30) =
    0.01125, so the smallest z with P(Z >= z) <= alpha is 31 and zeta = 30: relevant iff z > 30."""
    p0 = Fraction(1, 5)
    assert float(_tail(100, p0, 31)) == pytest.approx(0.0060593, abs=1e-7)
    assert float(_tail(100, p0, 30)) == pytest.approx(0.0112490, abs=1e-7)
    assert npfs_threshold(100, 10 / 50, 0.01) == 30
    counts = np.array([29, 30, 31, 100])
    matrix = np.arange(100)[None, :] < counts[:, None]
    result = NPFSResult.from_matrix(np.vstack([matrix, np.zeros((46, 100), bool)]), p0=10 / 50, alpha=0.01)
    assert result.threshold == 30 and result.relevant.tolist() == [2, 3]
    assert result.p_values[:3] == pytest.approx([float(_tail(100, p0, z)) for z in (29, 30, 31)], rel=1e-9)


@pytest.mark.parametrize(("p0", "alpha", "need"), [
    (10 / 50, 0.01, 3),    # 0.2^2 = 0.04 > 0.01 >= 0.2^3 = 0.008
    (24 / 25, 0.01, 113),  # ln 0.01 / ln 0.96 = 112.8: the paper's Fig. 1(d) with n = 100 can declare nothing
    (0.5, 0.05, 5),        # 1/16 = 0.0625 > 0.05 >= 1/32
    (0.01, 0.05, 1),       # one bootstrap already: 0.01 <= 0.05
    (0.1, 0.01, 3),        # 0.1^2 rounds to 0.010000000000000002 > 0.01 in floats, as the threshold sees it
])
def test_fewest_bootstraps_for_the_strict_test(p0, alpha, need):
    assert min_bootstraps(p0, alpha) == need
    # the same decision as the critical count: with `need` bootstraps a feature picked every time is relevant
    # (zeta < n); with one fewer, zeta is the number of bootstraps and no count can exceed it
    assert npfs_threshold(need, p0, alpha) < need
    if need > 1:
        assert npfs_threshold(need - 1, p0, alpha) == need - 1


@pytest.mark.parametrize(("p0", "alpha"), [(0.0, 0.01), (1.0, 0.01), (0.5, 0.0), (0.5, 1.0)])
def test_fewest_bootstraps_refuses_a_degenerate_test(p0, alpha):
    with pytest.raises(ParameterError, match="0 < p0"):
        min_bootstraps(p0, alpha)


def test_derived_arrays_are_properties_of_the_matrix():
    """Only what the matrix cannot give is stored; counts, zeta, relevant, p-values, the Hoeffding bound and the
    path follow the matrix and the rule (a rule switch recomputes relevant and the path, nothing else is kept)."""
    stored = {f.name for f in dataclasses.fields(NPFSResult)}
    assert stored.isdisjoint({"counts", "threshold", "relevant", "p_values", "hoeffding", "relevant_path"})
    matrix = np.zeros((3, 10), bool)
    matrix[0, :7], matrix[1, :8], matrix[2, :9] = True, True, True   # n = 10, p0 = 1/2, alpha = .05: zeta = 8
    strict = NPFSResult.from_matrix(matrix, p0=0.5, alpha=0.05, epsilon=0.5)
    assert strict.counts.tolist() == [7, 8, 9] and strict.threshold == 8 and strict.relevant.tolist() == [2]
    assert strict.hoeffding == pytest.approx(0.013476, abs=1e-6)   # 2 exp(-2 * 10 * 0.5^2) = 2 exp(-5)
    at_least = strict.with_rule("at-least")
    assert at_least.relevant.tolist() == [1, 2] and at_least.relevant_path[-1] == 2 and strict.relevant_path[-1] == 1
