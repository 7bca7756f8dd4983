"""The fast engine on many classes and many levels (issue 35.1): one bincount over (feature, group, value) keys.

The key path must give the counts of counting each (row, feature) by hand, and every criterion the values of the
plain engine (tables counted from scratch), plug-in and held out, on shapes with 3-30 classes and 4-17 levels.
"""

from __future__ import annotations

import numpy as np
import pytest

from fslab import select
from fslab.counting import dense as _fast
from fslab.counting.dense import FastCounter
from fslab.data.encoded import EncodedDataset
from fslab.measures import measure


@pytest.fixture
def keys(monkeypatch):
    """The key path wherever a feature has 4 values or more (popcounts otherwise win on few groups)."""
    monkeypatch.setattr(_fast, "_KEY_COST", 0.0)


def data(seed: int, m: int, n: int, A: int, L: int) -> EncodedDataset:
    """Columns that copy a noisy function of y (so some cells turn pure and some stay mixed) and noise columns."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, L, m)
    X = rng.integers(0, A, (m, n))
    for j in range(0, n, 2):
        X[:, j] = np.where(rng.random(m) < 0.6, (y * (j + 1)) % A, X[:, j])
    return EncodedDataset(X.astype(np.uint8), y, arities=np.full(n, A))


def test_value_group_counts_worked_by_hand():
    """3 rows, 2 features of 4 values, groups (0, 1, 0): n(g, X_j = v) counted by hand."""
    X = np.array([[3, 0], [1, 0], [3, 2]], dtype=np.uint8)
    counter = FastCounter(EncodedDataset(X, np.array([0, 1, 0]), arities=np.full(2, 4)))
    counts = counter._value_group_counts(None, np.array([0, 1, 0]), 2)     # (features, groups, values)
    np.testing.assert_array_equal(counts[0], [[0, 0, 0, 2], [0, 1, 0, 0]])
    np.testing.assert_array_equal(counts[1], [[1, 0, 1, 0], [1, 0, 0, 0]])
    only = counter._value_group_counts(np.array([0, 2]), np.array([1, 0]), 2, features=np.array([1]))
    np.testing.assert_array_equal(only[0], [[0, 0, 1, 0], [1, 0, 0, 0]])   # row 0 in group 1, row 2 in group 0


@pytest.mark.parametrize("m, n, A, L", [(700, 9, 5, 3), (500, 7, 17, 10), (900, 6, 4, 12), (400, 5, 9, 30)])
def test_key_path_counts_equal_brute_force(m, n, A, L, keys):
    ds = data(m, m, n, A, L)
    counter = FastCounter(ds)
    X, y = ds.X, ds.y
    assert counter._keys_pay(L, m)
    brute = np.zeros((L, n, A))
    np.add.at(brute, (y[:, None], np.arange(n)[None, :], X), 1)
    np.testing.assert_array_equal(counter.marginal, brute)
    pairs = counter.pair_counts(1, np.array([0, 2, 4]))
    for b, j in enumerate([0, 2, 4]):
        np.testing.assert_array_equal(pairs[b], np.histogram2d(X[:, j], X[:, 1], bins=(np.arange(A + 1),
                                                                                      np.arange(A + 1)))[0])


@pytest.mark.parametrize("m, n, A, L", [(700, 9, 5, 3), (500, 7, 17, 10), (900, 6, 4, 12), (400, 5, 9, 30),
                                        (600, 6, 2, 30)])
@pytest.mark.parametrize("name", ["mi", "zero-one", "balanced", "log-loss"])
def test_extensions_equal_the_plain_engine(m, n, A, L, name, keys):
    """Every subset size (the empty set, one feature with the largest cells subtracted, two and three features with
    pure rows merged away) and a few candidates only (lazy CMIM's counts)."""
    ds = data(m + 1, m, n, A, L)
    fast, plain = measure(name).on(ds), measure(name).on(ds, engine="plain")
    assert fast.counter is not None and fast.counter._keys_pay(L, m)
    everyone = np.arange(n)
    for subset in ([], [0], [2, 1], [4, 0, 3]):
        others = np.setdiff1d(everyone, subset)
        np.testing.assert_allclose(fast.extensions(subset, others), plain.extensions(subset, others),
                                   rtol=1e-12, atol=1e-12, err_msg=str(subset))


@pytest.mark.parametrize("name", ["mi", "zero-one", "balanced"])
def test_held_out_equals_the_plain_engine(name, keys):
    """10 classes x 5 folds = 50 class indices: the fast engine (cross-fitted) against the plain tables."""
    ds = data(7, 800, 6, 6, 10)
    fast = measure(name).on(ds, estimate="cross-fitted", folds=5)
    plain = measure(name).on(ds, engine="plain", estimate="cross-fitted", folds=5)
    assert fast.counter is not None
    for subset in ([], [0], [2, 1]):
        others = np.setdiff1d(np.arange(6), subset)
        np.testing.assert_allclose(fast.extensions(subset, others), plain.extensions(subset, others),
                                   rtol=1e-11, atol=1e-12, err_msg=str(subset))


@pytest.mark.parametrize("selector", ["jmi", "mrmr", "cmim", "mi-greedy"])
def test_picks_equal_with_and_without_the_key_path(selector, monkeypatch):
    """The same picks as the indicator product (the engine before issue 35) on 12 classes x 6 levels."""
    ds = data(3, 1200, 40, 6, 12)
    new = list(select(ds, 8, selector=selector).features)
    monkeypatch.setattr(_fast, "_KEY_MIN_VALUES", 10**9)
    assert list(select(ds, 8, selector=selector).features) == new


@pytest.mark.parametrize("A, L, m", [(2, 2, 1000), (3, 5, 500), (2, 20, 300), (6, 4, 700), (17, 10, 400)])
def test_pair_counts_equal_brute_force(A, L, m):
    """pair_key_counts (popcounts on few values, one bincount on many) for 30 random pairs, with and without Y."""
    rng = np.random.default_rng(A * L)
    X, y = rng.integers(0, A, (m, 12)).astype(np.uint8), rng.integers(0, L, m)
    counter = FastCounter(EncodedDataset(X, y, arities=np.full(12, A)))
    f, j = rng.integers(0, 12, 30), rng.integers(0, 12, 30)
    for classes in (True, False):
        counts = counter.pair_key_counts(f, j, classes)
        brute = np.zeros(counts.shape, dtype=np.int64)
        for p in range(30):
            np.add.at(brute[p], (X[:, f[p]], y, X[:, j[p]]) if classes else (X[:, f[p]], X[:, j[p]]), 1)
        np.testing.assert_array_equal(counts, brute)
