"""The key path without a column-major copy of large codes (issue 35.4): codes over BLOCK_BYTES are transposed a group
of columns at a time, and class counts and pairs take the keys where the value bits would outgrow BLOCK_BYTES, with
the same counts as the cached copy and the bits, on random shapes with 2-30 classes and 2-17 levels."""

from __future__ import annotations

import numpy as np
import pytest

from fslab.counting import dense
from fslab.counting.dense import FastCounter
from fslab.tables import CodedSource


def _counts(src, rows, group, feats, f, j):
    c = FastCounter(src)
    out = (c._value_group_counts(rows, group, 7, feats), c._value_group_counts(None, src.y, len(src.labels)),
           c._value_group_counts(rows, group, 7), c.pair_key_counts(f, j), c.pair_key_counts(f, j, classes=False),
           c.marginal)
    return out, c._columns is None


@pytest.mark.parametrize("seed", range(6))
def test_column_groups_give_the_counts_of_the_whole_copy(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    L, A = int(rng.integers(2, 31)), int(rng.integers(2, 18))
    m, n = int(rng.integers(50, 1500)), int(rng.integers(2, 40))
    y = rng.integers(0, L, m)
    y[:L] = np.arange(L)
    X = rng.integers(0, A, (m, n)).astype(np.uint8)
    X[:A] = np.arange(A)[:, None]
    src = CodedSource(X, np.full(n, A), np.arange(L), y=y)
    rows = np.sort(rng.choice(m, m // 2, replace=False))
    group = rng.integers(0, 7, rows.size)
    feats = rng.permutation(n)[:max(1, n // 2)]
    f, j = rng.integers(0, n, 40), rng.integers(0, n, 40)
    whole, no_copy = _counts(src, rows, group, feats, f, j)
    assert not no_copy  # small codes: one cached column-major copy
    # "large" codes: a budget of 3 bytes a row gives groups of one column (pairs: a block of keys at a time)
    monkeypatch.setattr(dense, "BLOCK_BYTES", 1)
    monkeypatch.setattr(dense, "MIN_BLOCK_BYTES", 3 * m)
    monkeypatch.setattr(dense, "_TILE_ROWS", 16)  # transposed 16 rows at a time (a multiple of 8: the value bits' too)
    groups, no_copy = _counts(src, rows, group, feats, f, j)
    assert no_copy
    for a, b in zip(whole, groups, strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)


def test_column_block_by_hand(monkeypatch):
    X = np.array([[0, 1, 2], [1, 1, 0], [2, 0, 1], [1, 2, 2]], dtype=np.uint8)
    c = FastCounter(CodedSource(X, np.full(3, 3), np.arange(2), y=np.array([0, 1, 0, 1])))
    monkeypatch.setattr(dense, "BLOCK_BYTES", 1)
    monkeypatch.setattr(dense, "_TILE_ROWS", 1)
    assert c._column_block(slice(1, 3), None).tolist() == [[1, 1, 0, 2], [2, 0, 1, 2]]
    assert c._column_block(slice(0, 2), np.array([3, 0])).tolist() == [[1, 0], [2, 1]]
    assert c._column_block(np.array([2, 0]), np.array([1, 2])).tolist() == [[0, 1], [1, 2]]
    assert c._columns is None
