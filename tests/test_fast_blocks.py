"""The fast engine counts in row blocks (issue 13.3): any block size gives exactly the same counts, selections,
scores and traces as one block over all rows (the counts are whole numbers, summed exactly)."""

from __future__ import annotations

import numpy as np
import pytest

from fslab.counting import dense as _fast
from fslab.counting.dense import FastCounter
from fslab.data.encoded import EncodedDataset
from fslab.selectors import select


def _tied_sample(seed: int, m: int = 600, n: int = 12) -> EncodedDataset:
    """3-level codes with duplicated columns (exact ties) and a label that depends on two features."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(m, n), dtype=np.uint8)
    X[:, 5] = X[:, 2]
    X[:, 9] = X[:, 2]
    X[:, 7] = X[:, 1]
    y = ((X[:, 1] + X[:, 2] + rng.integers(0, 2, m)) > 2).astype(np.int64)
    return EncodedDataset(X, y, labels=[0, 1])


def _trace(sel):
    return sel.trace.to_dict("list")


def _runs(ds):
    out = {}
    for name, kw in [("jmi", {}), ("mrmr", {}), ("cmim", {}), ("bayes-greedy", {"s": 2}), ("bayes-greedy", {})]:
        sel = select(ds, 6, name, **kw)
        out[name, tuple(kw.items())] = (list(map(int, sel.features)), np.asarray(sel.scores).tolist(), _trace(sel))
    return out


@pytest.mark.slow  # 0.42 s measured (inner loop: unit and not slow)
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("sparse", [True, False])
def test_tiny_row_blocks_give_the_same_selections_as_one_block(monkeypatch, seed, sparse):
    ds = _tied_sample(seed)
    if sparse:  # force the indicator-product path (the popcount path has no row blocks)
        monkeypatch.setattr(_fast, "_BITS_COST", 1e9)
    monkeypatch.setattr(_fast, "MIN_BLOCK_BYTES", 1 << 40)  # one block over all rows
    whole = _runs(ds)
    monkeypatch.setattr(_fast, "MIN_BLOCK_BYTES", 1)
    monkeypatch.setattr(_fast, "BLOCK_BYTES", 7 * 4 * ds.n_features * 2)  # 7 rows per block
    assert FastCounter(ds).block_rows() == 7
    assert _runs(ds) == whole


def test_block_counts_equal_a_direct_count(monkeypatch):
    ds = _tied_sample(3)
    monkeypatch.setattr(_fast, "_BITS_COST", 1e9)
    monkeypatch.setattr(_fast, "MIN_BLOCK_BYTES", 1)
    monkeypatch.setattr(_fast, "BLOCK_BYTES", 5 * 4 * ds.n_features * 2)
    counter = FastCounter(ds)
    rows = np.arange(ds.n_rows)[::3]
    group = ds.X[rows, 4].astype(np.int64) * 2 + ds.y[rows]
    got = counter._group_value_counts(rows, group, 6)
    want = np.array([[np.sum((group == g) & (ds.X[rows, j] == v)) for v in (1, 2) for j in range(ds.n_features)]
                     for g in range(6)], dtype=np.float64)
    assert np.array_equal(got, want)


def test_the_transient_indicators_stay_within_the_packed_codes():
    ds = EncodedDataset(np.zeros((100_000, 500), dtype=np.uint8), np.zeros(100_000, dtype=np.int64), labels=[0, 1])
    counter = FastCounter(ds)
    assert counter.block_rows() * 4 * 500 * (counter.A - 1) <= max(ds.X.nbytes, _fast.MIN_BLOCK_BYTES)
