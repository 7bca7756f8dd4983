"""Compiled counting kernels (numba, optional): one pass over row-major uint8 codes, no key array and no column copy.

The dense engine's key path counts n(feature j, group g, value v) with one ``np.bincount`` over int64 keys
(b G + g) A + X[r, j]: building and reading 8 bytes a key costs 4-7 ns a (row, feature) on this machine, and it needs
the codes column by column (a copy of one byte a cell). These kernels add 1 to the same bins straight from the row-
major codes, a block of columns at a time so the block's histograms stay in the core's cache (1.1-1.8 ns a (row,
feature); bench/README.md, "Compiled counting"). They return exactly the counts of the numpy path (the same integers;
tests/test_kernels.py), so a caller never needs to know which ran.

numba is optional: :func:`wanted` says whether a call should take the kernels (numba installed, ``FSLAB_KERNELS`` not
``0``, and large work, :data:`MIN_KEYS` keys, or numba already imported); ``import fslab`` and small calls never import
numba. X must be C-contiguous uint8 (the engine's codes); the engine checks it. Compiled code is cached on disk
(``cache=True``): next to this module, in the user's cache directory when that is read-only, or in ``NUMBA_CACHE_DIR``.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
from types import SimpleNamespace

import numpy as np

MIN_KEYS = 1 << 20  # a call counting fewer (row, feature) keys keeps numpy unless numba is already imported
_BLOCK_BYTES = 192 << 10  # one block of columns' histograms (int64): about half the 2 MiB L2 of a core here


def wanted(keys: int) -> bool:
    """Whether a call counting ``keys`` (row, feature) keys should take the compiled kernels: numba is installed and
    not switched off (``FSLAB_KERNELS=0``), and the call is large (at least :data:`MIN_KEYS`) or numba is loaded."""
    if os.environ.get("FSLAB_KERNELS", "1") == "0":
        return False
    if "numba" in sys.modules:
        return _compiled() is not None
    return keys >= MIN_KEYS and importlib.util.find_spec("numba") is not None and _compiled() is not None


def _value_group_counts(X, rows, group, G, A, features, step):  # compiled by _compiled()
    """out[b, g, v] = #{i: group[i] = g, X[rows[i], features[b]] = v} (rows[0] < 0: every row), a block of ``step``
    columns at a time (their histograms stay in cache while the rows stream by)."""
    W = features.size
    out = np.zeros((W, G, A), dtype=np.int64)
    flat = out.reshape(-1)
    stride = G * A
    every = rows.size > 0 and rows[0] < 0
    size = X.shape[0] if every else rows.size
    for b0 in range(0, W, step):
        b1 = min(W, b0 + step)
        for i in range(size):
            r = i if every else rows[i]
            base = int(group[i]) * A + b0 * stride
            for b in range(b1 - b0):
                flat[base + b * stride + int(X[r, features[b0 + b]])] += 1
    return out


def _pair_counts(X, firsts, seconds, y, L, a, A, step):  # compiled by _compiled()
    """out[p, u L + l, v] = #{r: X[r, firsts[p]] = u, y[r] = l, X[r, seconds[p]] = v}, a block of ``step`` pairs at a
    time."""
    P = firsts.size
    out = np.zeros((P, a * L, A), dtype=np.int64)
    flat = out.reshape(-1)
    stride = a * L * A
    for p0 in range(0, P, step):
        p1 = min(P, p0 + step)
        for r in range(X.shape[0]):
            yl = int(y[r]) * A + p0 * stride
            for p in range(p1 - p0):
                flat[yl + p * stride + int(X[r, firsts[p0 + p]]) * (L * A) + int(X[r, seconds[p0 + p]])] += 1
    return out


@functools.cache
def _compiled():
    """The compiled kernels, or None when numba cannot be imported (the plain functions above run as Python too:
    tests check their arithmetic on tiny data without numba)."""
    try:
        import numba
    except ImportError:
        return None
    try:
        jit = numba.njit(cache=True, nogil=True)
        return SimpleNamespace(value_group_counts=jit(_value_group_counts), pair_counts=jit(_pair_counts))
    except RuntimeError:  # no writable cache directory at all ("no locator available"): compile in each process
        jit = numba.njit(nogil=True)
        return SimpleNamespace(value_group_counts=jit(_value_group_counts), pair_counts=jit(_pair_counts))


def value_group_counts(X: np.ndarray, rows: np.ndarray | None, group: np.ndarray, G: int, A: int,
                       features: np.ndarray | None = None) -> np.ndarray:
    """n(group g, X_j = v) for every feature j (or ``features``): (width, G, A) int64, over ``rows`` (None: all) with
    ``group`` their group ids. X must be row-major uint8 codes below A; group ids below G."""
    width = X.shape[1] if features is None else features.size
    feats = np.arange(X.shape[1], dtype=np.int64) if features is None else np.asarray(features, dtype=np.int64)
    r = np.full(1, -1, dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
    step = max(1, min(width, _BLOCK_BYTES // (8 * G * A)))
    return _compiled().value_group_counts(X, r, np.asarray(group, dtype=np.int64), G, A, feats, step)


def pair_counts(X: np.ndarray, firsts: np.ndarray, seconds: np.ndarray, y: np.ndarray | None, L: int, a: int,
                A: int) -> np.ndarray:
    """n(X_f = u, Y = l, X_j = v) for each pair (firsts[p], seconds[p]): (P, a * L, A) int64 (L = 1 and y None:
    without the class). X must be row-major uint8 codes, those of firsts below a, the others below A."""
    yy = np.zeros(X.shape[0], dtype=np.int64) if y is None else np.asarray(y, dtype=np.int64)
    step = max(1, min(firsts.size, _BLOCK_BYTES // (8 * a * L * A)))
    return _compiled().pair_counts(X, np.asarray(firsts, dtype=np.int64), np.asarray(seconds, dtype=np.int64), yy,
                                   L, a, A, step)


__all__ = ["MIN_KEYS", "pair_counts", "value_group_counts", "wanted"]
