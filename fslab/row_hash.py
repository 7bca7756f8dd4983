"""Portable row hashes: the folds and bootstrap weights that every engine computes to the same integer.

A held-out estimate or a bootstrap on a SQL engine or a Dask cluster must assign each row the fold or the weight
that the in-memory path gives it, or the three paths answer differently. So these hashes use only ``+``, ``*`` and
``%`` on non-negative integers whose products stay below 2**63: numpy's int64, DuckDB, SQLite and PostgreSQL
(BIGINT) all compute them exactly, and their SQL needs no engine hash function (each
engine's own differs) and no XOR (SQLite has none).

With P = 2**31 - 1 (a Mersenne prime) and values v reduced mod P::

    absorb(x, v) = ((x + v mod P) * 48271) mod P         # < 2**32 * 2**16: exact in int64
    scramble(x)  = (x * x + 1013904223) mod P            # < 2**62 + 2**30: exact in int64
    hash(v1, ..., vn) = x_n,  x_0 = 20170601,  x_i = scramble(scramble(absorb(x_{i-1}, v_i)) * 69621 mod P)

**Folds** (:func:`folds`): rank the rows of each class by their position (row id) in the table, j = 0, 1, ...;
the rows j = bK .. bK + K - 1 of class c form block b, and row j goes to fold
``(j mod K + hash(seed, c, b)) mod K``. Each block's K rows land in K different folds (a seeded rotation), so
every fold holds floor or ceil(n_c / K) rows of class c: stratified, seeded, and computable as a window
``row_number() OVER (PARTITION BY y ORDER BY row_id)`` in SQL or as per-partition class counts plus a running
sum on Dask. The fold depends on the order of the rows and their classes only, never on absolute row ids.

**Poisson weights** (:func:`poisson_weights`): row i of bootstrap ``key`` gets u = hash(key_hi, key_lo, i) in
[0, P) and the weight ``#{k : u >= T_k}`` with integer thresholds T_k = floor(P * Pr(N <= k)), N ~ Poisson(mean)
(:func:`poisson_thresholds`; a ``CASE`` in SQL). i is the 0-based index of the row among the source's rows.
"""

from __future__ import annotations

import numpy as np

P = 2_147_483_647
START = 20_170_601
MULT, MULT2, ADD = 48_271, 69_621, 1_013_904_223


def _absorb(x: np.ndarray, v) -> np.ndarray:
    return ((x + np.asarray(v, dtype=np.int64) % P) * MULT) % P


def _scramble(x: np.ndarray) -> np.ndarray:
    return (x * x + ADD) % P


def row_hash(*values) -> np.ndarray:
    """hash(v1, ..., vn) of the module docstring, elementwise over broadcast non-negative integer arrays."""
    arrays = [np.asarray(v, dtype=np.int64) for v in values]
    if any((a < 0).any() for a in arrays):
        raise ValueError("row_hash takes non-negative integers")
    x = np.full(np.broadcast_shapes(*(a.shape for a in arrays)), START, dtype=np.int64)
    for a in arrays:
        x = _scramble((_scramble(_absorb(x, a)) * MULT2) % P)
    return x


def class_ranks(y: np.ndarray) -> np.ndarray:
    """0-based rank of each row among the rows of its class, in row order (a stable sort, no Python loop; a radix
    sort on 16-bit codes)."""
    y = np.asarray(y, dtype=np.int64)
    key = y.astype(np.uint16) if y.size and int(y.max()) < 1 << 16 else y
    order = np.argsort(key, kind="stable")
    sizes = np.bincount(y) if y.size else np.zeros(0, dtype=np.int64)
    starts = (np.cumsum(sizes) - sizes).astype(np.int64)
    out = np.empty(y.size, dtype=np.int64)
    out[order] = np.arange(y.size, dtype=np.int64) - np.repeat(starts, sizes)
    return out


def folds_from_ranks(ranks: np.ndarray, y: np.ndarray, n_folds: int, seed: int) -> np.ndarray:
    """Fold of each row from its class rank j and class c: (j mod K + hash(seed, c, j div K)) mod K, the hash taken
    once per (class, block) present (about rows / K of them) and gathered."""
    j = np.asarray(ranks, dtype=np.int64)
    y = np.asarray(y, dtype=np.int64)
    block = j // n_folds
    width = int(block.max()) + 1 if j.size else 1
    key = y * width + block
    if j.size and int(key.max()) < 8 * j.size + 4096:  # a table over the (class, block) codes
        used = np.flatnonzero(np.bincount(key))
        offset = np.zeros(int(key.max()) + 1, dtype=np.int64)
        offset[used] = row_hash(int(seed), used // width, used % width)
        return (j % n_folds + offset[key]) % n_folds
    uniq, inverse = np.unique(key, return_inverse=True)
    return (j % n_folds + row_hash(int(seed), uniq // width, uniq % width)[inverse.ravel()]) % n_folds


def folds(y: np.ndarray, n_folds: int, seed: int) -> np.ndarray:
    """Fold index (0 .. n_folds-1) of every row, stratified by class y (codes 0..L-1), rows in table order."""
    if int(n_folds) < 1:
        raise ValueError(f"n_folds must be at least 1; got {n_folds}")
    return folds_from_ranks(class_ranks(y), y, int(n_folds), int(seed))


def key_parts(key: int) -> tuple[int, int]:
    """A 64-bit bootstrap key as two values below 2**32, absorbed one after the other."""
    key = int(key) % (1 << 64)
    return key >> 32, key & 0xFFFFFFFF


def poisson_thresholds(mean: float) -> np.ndarray:
    """Integer thresholds T_k = floor(P * Pr(N <= k)), N ~ Poisson(mean), while below P (k = 0, 1, ...)."""
    if not mean > 0:
        raise ValueError(f"the Poisson mean must be positive; got {mean}")
    k = np.arange(64 + int(8 * mean))
    log_p = k * np.log(mean) - mean - np.cumsum(np.log(np.maximum(k, 1)))
    t = np.floor(np.cumsum(np.exp(log_p)) * P).astype(np.int64)
    return t[t < P]


def poisson_weights(rows: np.ndarray, key: int, mean: float = 1.0) -> np.ndarray:
    """Poisson(mean) weight of each row index in ``rows`` for bootstrap ``key``: #{k : hash(key, row) >= T_k}."""
    hi, lo = key_parts(key)
    u = row_hash(hi, lo, np.asarray(rows, dtype=np.int64))
    return np.searchsorted(poisson_thresholds(mean), u, side="right").astype(np.float64)


__all__ = ["P", "class_ranks", "folds", "folds_from_ranks", "key_parts", "poisson_thresholds", "poisson_weights",
           "row_hash"]
