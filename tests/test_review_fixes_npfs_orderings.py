"""Edge cases found in review: NPFS at tiny alpha, undefined stability, wide samples, small classes, ties."""

import numpy as np
import pytest
from scipy.stats import binom

from fslab.data.distributions import Distribution
from fslab.data.encoded import EncodedDataset
from fslab.errors import ParameterError
from fslab.npfs import npfs
from fslab.npfs.result import NPFSResult, npfs_threshold
from fslab.pena_nilsson.finite import fbs
from fslab.pena_nilsson.minimal import check_assumptions
from fslab.pena_nilsson.orderings import subset_risks


def _direct_threshold(n, p0, alpha):
    """Smallest z with sum_{i > z} pmf(i) <= alpha, the upper tail summed term by term (no 1 - alpha rounding)."""
    pmf = binom.pmf(np.arange(n + 1), n, p0)
    tails = np.array([pmf[z + 1:].sum() for z in range(n + 1)])
    return int(np.argmax(tails <= alpha))


@pytest.mark.parametrize("alpha", [1e-18, 1e-16, 1e-9, 0.01])
def test_threshold_is_exact_for_tiny_alpha(alpha):
    # 1 - 1e-18 == 1.0 in floating point, so binom.ppf(1 - alpha, ...) would give n = 100 here; the exact value is 91.
    assert npfs_threshold(100, 0.5, alpha) == _direct_threshold(100, 0.5, alpha)
    assert npfs_threshold(100, 0.5, 1e-18) == 91


def test_relevant_iff_p_value_at_most_alpha_even_for_tiny_alpha():
    matrix = np.vstack([np.ones((1, 100), bool), np.zeros((3, 100), bool)])
    r = NPFSResult.from_matrix(matrix, p0=0.5, alpha=1e-18)
    assert list(r.relevant) == [0] and r.p_values[0] <= 1e-18
    assert r.relevant_path[-1] == 1


def test_stability_is_none_when_every_bootstrap_selects_nothing():
    X = np.random.default_rng(0).integers(0, 2, size=(40, 4))
    ds = EncodedDataset(X, X[:, 0])
    r = npfs(ds, lambda b, k: [], k=2, n_bootstraps=5, seed=1, p0=0.3)
    assert r.stability() == {"kuncheva": None, "nogueira": None}
    assert '"relevant": []' in r.to_json().replace(" ", "") or r.to_dict()["relevant"] == []


def test_npfs_accepts_a_generator_seed_reproducibly():
    X = np.random.default_rng(0).integers(0, 3, size=(60, 5))
    ds = EncodedDataset(X, (X[:, 0] > 0).astype(int))
    a = npfs(ds, "mi-score", k=2, n_bootstraps=6, seed=np.random.default_rng(7))
    b = npfs(ds, "mi-score", k=2, n_bootstraps=6, seed=np.random.default_rng(7))
    np.testing.assert_array_equal(a.matrix, b.matrix)


def test_assumptions_count_states_exactly_on_wide_data():
    X = np.random.default_rng(0).integers(0, 17, size=(30, 256))
    a = check_assumptions(EncodedDataset(X, np.arange(30) % 2, arities=np.full(256, 17)))
    assert a.n_states == 17**256 and a.n_zero_states == 17**256 - 30


def test_assumptions_with_one_class_report_no_ties():
    assert check_assumptions(Distribution([[0], [1]], [[0.5], [0.5]])).n_tied_states == 0


def test_fbs_refuses_a_class_too_small_to_split():
    X = np.random.default_rng(0).integers(0, 2, size=(20, 3))
    y = np.zeros(20, dtype=int)
    y[0] = 1
    with pytest.raises(ParameterError, match="smallest class has 1 row"):
        fbs(EncodedDataset(X, y))


def test_subset_ranks_use_the_relative_tie_rule():
    # Large real labels: {X1} and {X2} have equal exact squared error but differ in the last printed digits.
    c = [[.7, .2, .1], [.1, .3, .6]]
    cp = [[.1, .7, .2], [.6, .1, .3]]
    d = Distribution.naive_bayes([.37, .63], [c, cp, c], labels=[0, 12345.678])
    r = subset_risks(d, "squared").set_index("names")
    assert r.loc["{X1}", "rank"] == r.loc["{X2}", "rank"]
