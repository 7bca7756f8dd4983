"""The compiled counting kernels (fslab/counting/kernels.py, issue 35.1): the same integers as the numpy path.

The kernels' plain Python functions are checked against hand-worked counts and np.bincount on every run; the compiled
ones (numba, installed with the app and in CI) against the engine's numpy path, bit for bit, on random shapes with
2-30 classes and 2-17 levels, and the selectors' picks and values with the kernels on and off.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import fslab
from fslab.counting import kernels
from fslab.counting.dense import FastCounter
from fslab.tables import CodedSource


def test_plain_value_group_counts_by_hand():
    # rows 0..3: groups 0, 1, 1, 0; column 0 = 0, 1, 1, 2; column 1 = 1, 1, 0, 1 (A = 3)
    X = np.array([[0, 1], [1, 1], [1, 0], [2, 1]], dtype=np.uint8)
    group = np.array([0, 1, 1, 0])
    out = kernels._value_group_counts(X, np.array([-1]), group, 2, 3, np.array([0, 1]), 1)
    assert out[0].tolist() == [[1, 0, 1], [0, 2, 0]]  # column 0: group 0 has values 0 and 2; group 1 has 1, 1
    assert out[1].tolist() == [[0, 2, 0], [1, 1, 0]]  # column 1: group 0 has 1, 1; group 1 has 1, 0
    # rows 1 and 3 only (their groups 1 and 0), column 1 then column 0
    part = kernels._value_group_counts(X, np.array([1, 3]), np.array([1, 0]), 2, 3, np.array([1, 0]), 2)
    assert part[0].tolist() == [[0, 1, 0], [0, 1, 0]]
    assert part[1].tolist() == [[0, 0, 1], [0, 1, 0]]


def test_plain_pair_counts_by_hand():
    X = np.array([[0, 1], [1, 1], [1, 0], [2, 1]], dtype=np.uint8)
    y = np.array([0, 1, 1, 0])
    out = kernels._pair_counts(X, np.array([0]), np.array([1]), y, 2, 3, 2, 1)  # (X_0, Y) x X_1
    # (u, l) -> v counts: (0,0): v=1; (1,1): v=1 and v=0; (2,0): v=1
    assert out[0].tolist() == [[0, 1], [0, 0], [0, 0], [1, 1], [0, 1], [0, 0]]


@pytest.mark.parametrize("seed", range(6))
def test_plain_kernels_equal_bincount(seed):
    rng = np.random.default_rng(seed)
    L, A, m, n = int(rng.integers(2, 31)), int(rng.integers(2, 18)), int(rng.integers(20, 120)), int(rng.integers(2, 9))
    X = rng.integers(0, A, (m, n)).astype(np.uint8)
    y = rng.integers(0, L, m)
    rows = np.sort(rng.choice(m, m // 2, replace=False))
    group = rng.integers(0, 5, rows.size)
    feats = rng.permutation(n)[:max(1, n // 2)]
    want = np.stack([np.bincount(group * A + X[rows, j], minlength=5 * A).reshape(5, A) for j in feats])
    got = kernels._value_group_counts(X, rows, group, 5, A, feats, 2)
    assert np.array_equal(got, want)
    f, j = rng.integers(0, n, 4), rng.integers(0, n, 4)
    wide = X.astype(np.int64)
    want = np.stack([np.bincount((wide[:, p] * L + y) * A + wide[:, q], minlength=A * L * A).reshape(A * L, A)
                     for p, q in zip(f, j, strict=True)])
    assert np.array_equal(kernels._pair_counts(X, f, j, y, L, A, A, 3), want)


def test_switched_off_by_the_environment(monkeypatch):
    monkeypatch.setenv("FSLAB_KERNELS", "0")
    assert not kernels.wanted(1 << 40)


def _counter(rng, L, A, m, n):
    y = rng.integers(0, L, m)
    y[:L] = np.arange(L)
    X = rng.integers(0, A, (m, n)).astype(np.uint8)
    X[:A] = np.arange(A)[:, None]
    return FastCounter(CodedSource(X, np.full(n, A), np.arange(L), y=y))


@pytest.mark.parametrize("seed", range(8))
def test_compiled_kernels_give_the_numpy_counts(seed, monkeypatch):
    pytest.importorskip("numba")
    monkeypatch.setattr(kernels, "MIN_KEYS", 0)
    rng = np.random.default_rng(100 + seed)
    L, A = int(rng.integers(2, 31)), int(rng.integers(2, 18))
    c = _counter(rng, L, A, int(rng.integers(60, 800)), int(rng.integers(2, 30)))
    rows = np.sort(rng.choice(c.m, c.m // 2, replace=False))
    group = rng.integers(0, 7, rows.size)
    feats = rng.permutation(c.n)[:max(1, c.n // 2)]
    f, j = rng.integers(0, c.n, 9), rng.integers(0, c.n, 9)

    def everything():
        return (c._value_group_counts(rows, group, 7, feats), c._value_group_counts(None, c.y, L),
                c.pair_key_counts(f, j), c.pair_key_counts(f, j, classes=False))

    monkeypatch.setenv("FSLAB_KERNELS", "0")
    before = everything()
    monkeypatch.setenv("FSLAB_KERNELS", "1")
    assert c._kernels(1)
    after = everything()
    for b, a in zip(before, after, strict=True):
        assert b.dtype == a.dtype and b.shape == a.shape and np.array_equal(b, a)


@pytest.mark.slow
@pytest.mark.parametrize(("L", "A"), [(20, 5), (2, 17), (10, 17)])
def test_picks_and_values_equal_with_the_kernels_on_and_off(L, A, monkeypatch):
    pytest.importorskip("numba")
    monkeypatch.setattr(kernels, "MIN_KEYS", 0)
    rng = np.random.default_rng(L * A)
    y = rng.integers(0, L, 600)
    X = rng.integers(0, A, (600, 24))
    X[:, ::3] = np.where(rng.random((600, 8)) < 0.4, (y[:, None] * 3 + np.arange(8)) % A, X[:, ::3])
    d = fslab.Dataset.from_arrays(X.astype(np.uint8), y).discretize()
    for sel in ("jmi", "mrmr", "cmim", "mi-greedy"):
        monkeypatch.setenv("FSLAB_KERNELS", "0")
        off = fslab.select(d, 6, selector=sel)
        monkeypatch.setenv("FSLAB_KERNELS", "1")
        on = fslab.select(d, 6, selector=sel)
        assert list(on.features) == list(off.features), sel
        assert np.array_equal(on.scores, off.scores), sel


@pytest.mark.slow
def test_small_calls_never_import_numba_and_large_ones_do():
    pytest.importorskip("numba")
    code = ("import sys, numpy as np, fslab\n"
            "rng = np.random.default_rng(0)\n"
            "small = fslab.Dataset.from_arrays(rng.integers(0, 17, (500, 20)).astype(np.uint8),"
            " rng.integers(0, 10, 500)).discretize()\n"
            "fslab.select(small, 5, selector='jmi')\n"
            "assert 'numba' not in sys.modules, 'a small call imported numba'\n"
            "y = rng.integers(0, 10, 20000)\n"
            "big = fslab.Dataset.from_arrays(rng.integers(0, 17, (20000, 64)).astype(np.uint8), y)"
            ".discretize()\n"
            "fslab.select(big, 3, selector='jmi')\n"
            "assert 'numba' in sys.modules, 'a large count kept numpy'\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300)
