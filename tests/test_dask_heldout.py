"""Held-out (cross-fitted) estimates on partitioned data, on Dask's synchronous scheduler (the inner loop): the
folds are fslab.row_hash.folds of the rows in partition order, computed on the workers from per-partition class
counts plus a running sum, so the (fold, class, cell) tables, the held-out values and the selections equal the
in-memory ones for the same rows, whatever the partitioning. On a LocalCluster: tests/test_dask_plan_cluster.py."""

from __future__ import annotations

import numpy as np
import pytest

import fslab
from fslab import row_hash
from fslab.data.encoded import EncodedDataset

dask = pytest.importorskip("dask")
pytest.importorskip("distributed")

from fslab.data.distributed import to_dask_source  # noqa: E402


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def mixed(m: int = 1500, seed: int = 0) -> EncodedDataset:
    """A 400-level column (an ID-like code: in-sample it wins), binary, 5- and 17-valued columns; 3 classes."""
    rng = np.random.default_rng(seed)
    X = np.c_[rng.integers(0, 400, m), rng.integers(0, 2, (m, 3)), rng.integers(0, 5, (m, 2)), rng.integers(0, 17, m)]
    y = (X[:, 1] + (X[:, 6] > 8) + rng.integers(0, 2, m)) % 3
    return EncodedDataset(X, y, labels=[0, 1, 2], arities=X.max(axis=0) + 1)


@pytest.mark.parametrize("parts", [1, 3, 7])
def test_folds_are_the_row_hash_folds_of_the_rows_in_order(parts):
    """Row i's class index in the folded view is fold_i * L + y_i with fold = row_hash.folds(y, F, seed): the rank
    of a row within its class runs on across partitions (7 partitions of 214-215 rows: the ranks of class 0 in
    partition 2 start at its count in partitions 0 and 1)."""
    enc = mixed()
    view = to_dask_source(enc, npartitions=parts).folded(4, 11)
    got = view.to_encoded().y
    np.testing.assert_array_equal(got, row_hash.folds(enc.y, 4, 11) * 3 + enc.y)
    assert view.labels.tolist() == [0, 1, 2] * 4
    # every fold holds floor or ceil(n_c / 4) rows of class c
    table = view.table([]).counts.reshape(4, 3)
    n_c = np.bincount(enc.y)
    assert (table >= n_c // 4).all() and (table <= -(-n_c // 4)).all() and table.sum() == enc.n_rows


@pytest.mark.parametrize("parts", [2, 5])
def test_held_out_values_and_picks_equal_in_memory(parts):
    enc = mixed(seed=1)
    binary = EncodedDataset(enc.X, (enc.y == 1).astype(int), labels=[0, 1], arities=enc.arities)   # 1/3 positive
    src = to_dask_source(enc, npartitions=parts)
    for data, measure, selector in [(enc, "zero-one", "bayes-greedy"), (binary, "balanced", "bayes-greedy"),
                                    (enc, "log-loss", "bayes-greedy"), (enc, "mi", "jmi"), (binary, "mi", "mi-greedy")]:
        dist = src if data is enc else to_dask_source(binary, npartitions=parts)
        got = fslab.select(dist, 3, selector, measure=measure, estimate="cross-fitted", folds=5, seed=3)
        want = fslab.select(data, 3, selector, measure=measure, estimate="cross-fitted", folds=5, seed=3)
        assert got.features == want.features and got.estimate == want.estimate == "cross-fitted"
        np.testing.assert_allclose(got.scores, want.scores, rtol=0, atol=1e-12)   # sums in another order: ulps
    # the 400-level column: first in-sample (0-1 error), not held out
    assert fslab.select(src, 1, "bayes-greedy").features == (0,)
    assert fslab.select(src, 1, "bayes-greedy", estimate="cross-fitted").features != (0,)
    ev = fslab.measure("zero-one").on(src, estimate="cross-fitted", folds=3, seed=0)
    mem = fslab.measure("zero-one").on(enc, estimate="cross-fitted", folds=3, seed=0)
    for subset in [(), (1,), (0, 6), (1, 2, 3)]:
        assert ev.value(subset) == mem.value(subset)


def test_a_bootstrap_view_keeps_its_weights_when_folded():
    """folded() of a Poisson bootstrap view counts weighted (fold, class) rows: the fold of each row is still its
    unweighted rank's, as the SQL engine's window over the rows."""
    enc = mixed(m=600, seed=2)
    src = to_dask_source(enc, npartitions=3)
    boot = src.bootstrap(5).folded(2, 0)
    w = row_hash.poisson_weights(np.arange(enc.n_rows), 5)
    want = np.bincount(row_hash.folds(enc.y, 2, 0) * 3 + enc.y, weights=w, minlength=6)
    np.testing.assert_array_equal(boot.table([]).counts[0], want)
