"""NPFS (Ditzler, Polikar, Rosen 2015): critical value, strict rule, p-values, reproducibility, cancellation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fslab.data.encoded import EncodedDataset
from fslab.errors import FslabError, ParameterError, UnsupportedTargetError
from fslab.npfs import NPFSCancelled, hoeffding_bound, hoeffding_n, npfs, npfs_p_values, npfs_threshold
from fslab.npfs.result import NPFSResult


def _threshold_by_summation(n: int, p0: float, alpha: float) -> int:
    """Smallest z with sum_{i<=z} C(n,i) p0^i (1-p0)^(n-i) >= 1 - alpha (equation (3)), summed term by term."""
    cdf = 0.0
    for z in range(n + 1):
        cdf += math.comb(n, z) * p0**z * (1 - p0) ** (n - z)
        if cdf >= 1 - alpha - 1e-12:
            return z
    return n


def test_threshold_hand_example():
    """n=10, p0=1/2, alpha=0.05: P(Z<=7) = 968/1024 = 0.945 < 0.95 and P(Z<=8) = 1013/1024 >= 0.95, so zeta=8;
    a feature is relevant only with 9 or 10 selections, P(Z>=9) = 11/1024 = 0.0107 <= alpha."""
    assert npfs_threshold(10, 0.5, 0.05) == 8
    assert npfs_p_values([9, 8], 10, 0.5) == pytest.approx([11 / 1024, 56 / 1024])


@pytest.mark.parametrize("n", [1, 5, 20, 100, 333])
@pytest.mark.parametrize("p0", [0.04, 0.12, 0.4, 0.5, 0.96])
@pytest.mark.parametrize("alpha", [0.001, 0.01, 0.05, 0.2])
def test_threshold_equals_binomial_summation(n, p0, alpha):
    assert npfs_threshold(n, p0, alpha) == _threshold_by_summation(n, p0, alpha)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 400), st.floats(0.01, 0.99), st.floats(0.001, 0.3))
def test_threshold_controls_size(n, p0, alpha):
    """Rejecting when z > zeta has size P(Z > zeta) <= alpha, and zeta is the smallest such value."""
    z = npfs_threshold(n, p0, alpha)
    size = 1 - _cdf(z, n, p0)
    assert size <= alpha + 1e-9
    if z > 0:
        assert 1 - _cdf(z - 1, n, p0) > alpha - 1e-9


def _cdf(z, n, p):
    from scipy.stats import binom

    return binom.cdf(z, n, p)


def test_strict_rule_at_the_boundary():
    """n=100, p0=10/25=0.4, alpha=0.01: a count equal to zeta is NOT relevant, zeta + 1 is."""
    n, zeta = 100, npfs_threshold(100, 0.4, 0.01)
    counts = [zeta, zeta + 1, 0, n]
    matrix = np.zeros((4, n), dtype=bool)
    for i, c in enumerate(counts):
        matrix[i, :c] = True
    result = NPFSResult.from_matrix(matrix, p0=0.4, alpha=0.01)
    assert result.threshold == zeta
    assert result.relevant.tolist() == [1, 3]
    assert result.k_star == 2
    assert result.summary()["relevant"].tolist() == [True, True, False, False]


def test_hoeffding_bound_equation_5():
    """2 exp(-2 n eps^2): n=100, eps=0.1 gives 2 e^-2 = 0.2707; small n caps at 1; n for delta=0.05, eps=0.1 is
    ln(40)/0.02 = 184.4 -> 185."""
    assert hoeffding_bound(100, 0.1) == pytest.approx(2 * math.exp(-2))
    assert hoeffding_bound(1, 0.1) == 1.0
    assert hoeffding_n(0.1, 0.05) == 185


def _toy(seed=0, m=300, K=8):
    """Feature 0 equals y with 10% noise, feature 1 with 25%, the rest are independent noise."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, m)
    X = rng.integers(0, 3, (m, K))
    X[:, 0] = np.where(rng.random(m) < 0.9, y, 1 - y)
    X[:, 1] = np.where(rng.random(m) < 0.75, y, 1 - y)
    return EncodedDataset(X, y, labels=[0, 1])


def _top_mi(boot, k):
    """A tiny selector for tests: the k features with the highest plug-in I(X_j; Y) (lowest index on ties)."""
    from fslab.information import mutual_information

    mi = mutual_information(boot.extension_tables([], range(boot.n_features)))
    return np.lexsort((np.arange(mi.size), -np.round(mi, 12)))[:k]


def test_callable_selector_and_result_views():
    result = npfs(_toy(), _top_mi, k=2, n_bootstraps=40, alpha=0.01, seed=3)
    assert result.matrix.shape == (8, 40) and result.matrix.sum(axis=0).tolist() == [2] * 40
    assert result.counts[0] == 40 and result.p0 == 2 / 8
    assert set(result.relevant.tolist()) == {0, 1}
    assert result.relevant_path.shape == (40,) and result.relevant_path[-1] == result.k_star
    summary = result.summary()
    assert summary.loc[0, "name"] == "X1" and summary.loc[0, "p_value"] == pytest.approx(0.25**40)
    stab = result.stability()
    assert stab["kuncheva"] == pytest.approx(stab["nogueira"].value)  # equal set sizes: the two coincide
    assert '"k_star": 2' in result.to_json()
    assert result.matrix_frame().shape == (8, 40)


def test_same_seed_same_matrix_whatever_n_jobs():
    """SeedSequence(seed).spawn(n)[l] drives bootstrap l, so batching and workers cannot change the matrix."""
    data = _toy()
    one = npfs(data, "jmi", k=3, n_bootstraps=12, seed=7, n_jobs=1)
    two = npfs(data, "jmi", k=3, n_bootstraps=12, seed=7, n_jobs=2, prefer="threads", batch_size=5)
    assert np.array_equal(one.matrix, two.matrix)
    other = npfs(data, "jmi", k=3, n_bootstraps=12, seed=8, n_jobs=1)
    assert not np.array_equal(one.matrix, other.matrix)


@pytest.mark.slow  # a process pool: 10 s wall under load
def test_processes_give_the_same_matrix():
    data = _toy(m=120, K=5)
    seq = npfs(data, _top_mi, k=2, n_bootstraps=6, seed=1)
    proc = npfs(data, _top_mi, k=2, n_bootstraps=6, seed=1, n_jobs=2, prefer="processes")
    assert np.array_equal(seq.matrix, proc.matrix)


def test_progress_and_cancellation():
    calls = []
    result = npfs(_toy(), _top_mi, k=2, n_bootstraps=20, seed=0,
                  progress=lambda done, total: calls.append((done, total)) or done < 5)
    assert calls == [(d, 20) for d in range(0, 6)]
    assert result.cancelled and result.n_bootstraps == 5 and result.n_requested == 20
    full = npfs(_toy(), _top_mi, k=2, n_bootstraps=20, seed=0)
    assert np.array_equal(result.matrix, full.matrix[:, :5])  # a cancelled run is a prefix of the full one
    with pytest.raises(NPFSCancelled):
        npfs(_toy(), _top_mi, k=2, n_bootstraps=20, seed=0, progress=lambda d, t: False)

    class Stop(Exception):
        pass

    def boom(done, total):
        raise Stop

    with pytest.raises(Stop):
        npfs(_toy(), _top_mi, k=2, n_bootstraps=4, seed=0, progress=boom)


def test_sample_fraction_draws_fewer_rows():
    seen = []

    def spy(boot, k):
        seen.append(boot.n_rows)
        return [0]

    npfs(_toy(m=200), spy, k=1, n_bootstraps=3, seed=0, sample_fraction=0.25)
    assert seen == [50, 50, 50]


def test_errors_name_the_parameter():
    data = _toy()
    for kwargs, word in [({"k": 0}, "k must"), ({"k": 8}, "k must"), ({"n_bootstraps": 0}, "n_bootstraps"),
                         ({"alpha": 1.5}, "alpha"), ({"sample_fraction": 0}, "sample_fraction"),
                         ({"p0": 1.0}, "p0")]:
        args = {"k": 2, **kwargs}
        with pytest.raises(ParameterError, match=word):
            npfs(data, _top_mi, n_bootstraps=args.pop("n_bootstraps", 3), **args)
    with pytest.raises(ParameterError, match="p0"):
        npfs(data, lambda boot, k: [0, 1, 2][: 1 + boot.y[0]], k=2, n_bootstraps=5, seed=0)
    from fslab.data.distributions import example1

    with pytest.raises(FslabError, match="sample"):
        npfs(example1(), "jmi", k=1, n_bootstraps=3)
    with pytest.raises(ParameterError, match="unknown selector"):
        npfs(data, "nope", k=2, n_bootstraps=2)


def _regression_source() -> EncodedDataset:
    """y = x1 + small noise (200 distinct real values); x2 is pure noise with 50 levels, so MI treating the 200 values
    as classes sees x2 'explain' y (about 4 rows per cell) better than the 4-level x1."""
    rng = np.random.default_rng(1)
    x1 = rng.integers(0, 4, 200)
    x2 = rng.integers(0, 50, 200)
    values = x1 + rng.normal(0, 0.1, 200)
    labels, y = np.unique(values, return_inverse=True)
    return EncodedDataset(np.column_stack([x1, x2]), y, labels=labels, feature_names=["x1", "x2"],
                          arities=[4, 50], task="regression", target="price")


@pytest.mark.parametrize("selector", ["jmi", "mrmr", "cmim", "mi-greedy", "mi-score", "fisher"])
def test_class_selectors_refuse_a_real_valued_target(selector):
    with pytest.raises(UnsupportedTargetError, match=r"200 distinct values of the real-valued target 'price'.*"
                                                     r"squared error"):
        npfs(_regression_source(), selector, 1, n_bootstraps=5, seed=0)


def test_bayes_greedy_squared_error_finds_the_real_predictor():
    """With the squared error the Bayes criterion uses the values: E[y | x1] explains almost all variance, x2 none,
    so x1 wins every bootstrap (n=20, p0=1/2, zeta=15 at alpha=0.01 -> x1 relevant, x2 not)."""
    result = npfs(_regression_source(), "bayes-greedy", 1, n_bootstraps=20, alpha=0.01, seed=0, measure="squared")
    assert result.counts.tolist() == [20, 0] and list(result.relevant_names) == ["x1"]
