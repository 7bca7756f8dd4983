"""NPFS decision rule: "strict" (equation (3) of Ditzler et al.: z > zeta) vs "at-least" (the authors' released
MATLAB code: z >= zeta), at the boundary z == zeta and on the paper's Fig. 1(d) setting."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from fslab.data.synthetic import uniform_dataset
from fslab.errors import ParameterError
from fslab.npfs import npfs, npfs_threshold
from fslab.npfs.result import NPFSResult, relevant_path


def _matrix(counts, n):
    """A K x n selection matrix whose row i is selected in the first counts[i] bootstraps."""
    m = np.zeros((len(counts), n), dtype=bool)
    for i, c in enumerate(counts):
        m[i, :c] = True
    return m


def test_hand_built_counts_at_the_critical_value():
    """n=10, p0=1/2, alpha=0.05: zeta = 8 (P(Z<=7) = 968/1024 < 0.95 <= P(Z<=8) = 1013/1024).
    Counts 7, 8, 9: strict keeps only 9; at-least keeps 8 and 9."""
    matrix = _matrix([7, 8, 9], 10)
    strict = NPFSResult.from_matrix(matrix, p0=0.5, alpha=0.05)
    at_least = NPFSResult.from_matrix(matrix, p0=0.5, alpha=0.05, rule="at-least")
    assert strict.threshold == at_least.threshold == 8
    assert strict.rule == "strict" and at_least.rule == "at-least"
    assert strict.relevant.tolist() == [2]
    assert at_least.relevant.tolist() == [1, 2]
    assert at_least.summary().set_index("feature")["relevant"].to_dict() == {0: False, 1: True, 2: True}
    assert at_least.to_dict()["rule"] == "at-least" and strict.to_dict()["rule"] == "strict"
    assert strict.rule_text == "z > zeta" and at_least.rule_text == "z >= zeta"
    switched = strict.with_rule("at-least")
    assert switched.relevant.tolist() == [1, 2] and switched.relevant_path.tolist() == at_least.relevant_path.tolist()
    assert switched.with_rule("strict").relevant.tolist() == [2] and strict.with_rule("strict") is strict


def test_paper_figure_1d_critical_value_is_n():
    """alpha = 0.01, n = 100, K = 25, k = 24: p0 = 0.96 and P(Z = 100) = 0.96^100 = 0.0169 > alpha, so zeta = 100.
    Strict: no count can exceed 100, nothing is relevant. At-least: exactly the features chosen every time."""
    assert 0.96**100 == pytest.approx(0.01687, abs=1e-5)
    assert npfs_threshold(100, 24 / 25, 0.01) == 100
    counts = [100, 100, 99, 96, 0]
    matrix = _matrix(counts, 100)
    assert NPFSResult.from_matrix(matrix, p0=0.96, alpha=0.01).k_star == 0
    assert NPFSResult.from_matrix(matrix, p0=0.96, alpha=0.01, rule="at-least").relevant.tolist() == [0, 1]


def test_relevant_path_follows_the_rule():
    """The path redoes the test after each l with Binomial(l, p0); its last value is k*, under either rule."""
    rng = np.random.default_rng(3)
    matrix = rng.random((12, 60)) < np.linspace(0.2, 0.95, 12)[:, None]
    for rule in ("strict", "at-least"):
        r = NPFSResult.from_matrix(matrix, p0=0.5, alpha=0.05, rule=rule)
        assert r.relevant_path[-1] == r.k_star
        running = np.cumsum(matrix, axis=1)
        zetas = np.array([npfs_threshold(l, 0.5, 0.05) for l in range(1, 61)])
        expected = (running >= zetas) if rule == "at-least" else (running > zetas)
        assert r.relevant_path.tolist() == expected.sum(axis=0).tolist()
        assert relevant_path(matrix, 0.5, 0.05, rule).tolist() == r.relevant_path.tolist()


def test_at_least_has_a_size_above_alpha_exactly_when_zeta_is_hit():
    """The at-least rule's false-positive rate is P(Z >= zeta | H0), which exceeds alpha (by definition of zeta as
    the smallest z with P(Z > z) <= alpha, P(Z > zeta - 1) > alpha); the strict rule's is <= alpha."""
    for n, p0, alpha in [(100, 0.4, 0.01), (100, 0.96, 0.01), (500, 0.1, 0.05)]:
        zeta = npfs_threshold(n, p0, alpha)
        assert binom.sf(zeta, n, p0) <= alpha < binom.sf(zeta - 1, n, p0)


def test_unknown_rule_is_refused():
    with pytest.raises(ParameterError, match="strict.*at-least"):
        NPFSResult.from_matrix(_matrix([1, 2], 4), p0=0.5, alpha=0.05, rule="loose")
    data = uniform_dataset(m=200, n_features=6, k_star=2, seed=0).discretize(method="uniform", bins=3)
    with pytest.raises(ParameterError, match="rule"):
        npfs(data, "jmi", k=2, n_bootstraps=3, seed=0, rule=">=")


def test_paper_figure_1d_on_d_uni():
    """The paper's Fig. 1(d) run: D_uni (M = 1000, K = 25, k* = 5), JMI with k = 24, n = 100, alpha = 0.01.
    zeta = 100: the strict test of equation (3) declares nothing; the released code's rule declares the features
    JMI chose in all 100 bootstraps, among them the five relevant ones (as the figure shows)."""
    data = uniform_dataset(m=1000, n_features=25, k_star=5, seed=0).discretize(method="uniform", bins=3)
    strict = npfs(data, "jmi", k=24, n_bootstraps=100, alpha=0.01, seed=0)
    at_least = npfs(data, "jmi", k=24, n_bootstraps=100, alpha=0.01, seed=0, rule="at-least")
    assert strict.threshold == at_least.threshold == 100
    assert strict.k_star == 0
    np.testing.assert_array_equal(strict.matrix, at_least.matrix)  # the rule changes the decision, not the runs
    assert at_least.relevant.tolist() == np.flatnonzero(at_least.counts == 100).tolist()
    assert {0, 1, 2, 3, 4} <= set(at_least.relevant.tolist())
