"""Per-partition counting kernels of :class:`fslab.data.distributed.DaskSource` (run on the workers; numpy only).

A partition is a pair (X codes, uint8/uint16 C-ordered; y class indices). A subset's cell codes per partition
(``codes``, int64, None for the empty subset) are made once by :func:`extend` (and :func:`relabel` once cells
outnumber rows, by the rank in the global set of occupied codes) and stay on the workers between steps.

Every count is one ``np.bincount`` over combined codes, one pass whatever the arities:

- :func:`extensions`: the tables of subset + {j} for all candidates j, unpadded and concatenated: candidate j's
  block (offset ``off_j``) is laid out value-major, cell (c, v, l) at ``off_j + (v * n_base + c) * L + l``, so
  the index of a row is ``x_j * n_base * L + (c * L + l) + off_j``; the client pads and transposes them to
  CodedSource's layout. Only count tables leave the workers (at most the size of the padded batch).
- :func:`occupied`, :func:`merge_occupied`, :func:`pad_occupied`: when the padded tables would have more than
  twice as many cells as rows, the occupied (cell, class) keys and their counts are merged up the reduction
  tree ON the workers and the root pads them per candidate (CodedSource's occupied layout): the client gets
  the (B, widest, L) counts only, never code lists.

A bootstrap view counts with Poisson row weights (:func:`poisson_weights`, :mod:`fslab.row_hash`'s portable
definition): a function of (key, global row index) alone, so the weights, hence the counts, do not depend on the
partitioning or the number of workers, and a SQL engine computes the same ones.
"""

from __future__ import annotations

import numpy as np

from .. import row_hash
from ..counting.dense import FastCounter
from ..tables import CodedSource

_CHUNK = 1 << 22  # row x candidate entries per bincount (32 MiB of int64 indices)


def poisson_weights(n: int, offset: int, key: int, mean: float) -> np.ndarray:
    """Poisson(mean) weights of global rows ``offset .. offset + n - 1`` for bootstrap ``key``:
    :func:`fslab.row_hash.poisson_weights` (#{k : hash(key, row) >= T_k}), the integers the SQL engines compute."""
    return row_hash.poisson_weights(np.arange(offset, offset + n, dtype=np.int64), key, mean)


def class_counts(part, n_labels: int) -> np.ndarray:
    """Rows of each class in one partition: (L,) int64."""
    return np.bincount(part[1].astype(np.int64), minlength=n_labels)


def with_folds(part, before: np.ndarray, n_folds: int, seed: int, n_labels: int):
    """The partition with class index ``fold * L + y``: a row's rank j within its class is the rows of its class in
    earlier partitions (``before``, (L,)) plus its rank here, and its fold is :func:`fslab.row_hash.folds_from_ranks`
    (j mod F + hash(seed, y, j div F)) mod F, the in-memory folds of the same rows in the same order. The codes are
    shared, not copied."""
    X, y = part
    y = y.astype(np.int64)
    if not y.size:   # an empty partition (row_hash.class_ranks needs a row)
        return X, y.astype(np.int8 if n_folds * n_labels <= 127 else np.int64)
    ranks = row_hash.class_ranks(y) + np.asarray(before, dtype=np.int64)[y]
    fold = row_hash.folds_from_ranks(ranks, y, n_folds, seed)
    out = fold * n_labels + y
    return X, out.astype(np.int8 if n_folds * n_labels <= 127 else np.int64)


def _weights(part, boot) -> np.ndarray | None:
    return None if boot is None else poisson_weights(part[0].shape[0], *boot)


def _count(index: np.ndarray, size: int, weights: np.ndarray | None) -> np.ndarray:
    """bincount of ``index`` (rows x lanes, row-major) with each row's weight (None: unweighted, int64)."""
    if weights is not None and index.ndim == 2:
        weights = np.repeat(weights, index.shape[1])
    return np.bincount(index.ravel(), weights=weights, minlength=size)


def n_rows(part) -> int:
    return int(part[0].shape[0])


def extend(part, codes: np.ndarray | None, j: int, arity: int) -> np.ndarray:
    """Cell codes of subset + [j] from the subset's: codes * a_j + x_j (mixed radix)."""
    x = part[0][:, j].astype(np.int64)
    return x if codes is None else codes * arity + x


def uniques(codes: np.ndarray) -> np.ndarray:
    return np.unique(codes)


def union(*arrays) -> np.ndarray:
    return np.unique(np.concatenate(arrays))


def size(array: np.ndarray) -> int:
    return int(array.size)


def relabel(codes: np.ndarray, occupied: np.ndarray) -> np.ndarray:
    """Each code's rank among the globally occupied codes (CodedSource's np.unique relabelling)."""
    return np.searchsorted(occupied, codes)


def sum_arrays(*arrays) -> np.ndarray:
    out = arrays[0].copy()
    for a in arrays[1:]:
        out += a
    return out


def table(part, codes: np.ndarray | None, n_cells: int, n_labels: int, boot) -> np.ndarray:
    """Counts (n_cells, L) of (cell, class) in one partition."""
    y = part[1].astype(np.int64)
    flat = y if codes is None else codes * n_labels + y
    return _count(flat, n_cells * n_labels, _weights(part, boot)).reshape(n_cells, n_labels)


def _chunks(rows: int, n_cand: int):
    step = max(1, _CHUNK // max(rows, 1))
    return range(0, n_cand, step), step


def extensions(part, codes: np.ndarray | None, n_base: int, candidates: np.ndarray, arities: np.ndarray,
               n_labels: int, boot) -> np.ndarray:
    """Counts of subset + {j} for every candidate j, concatenated (see the module docstring for the layout)."""
    X, y = part
    L = n_labels
    group = y.astype(np.int64) if codes is None else codes * L + y   # c * L + l
    weights = _weights(part, boot)
    blocks = n_base * L * arities
    starts, step = _chunks(X.shape[0], candidates.size)
    out = []
    for start in starts:
        cand, blk = candidates[start:start + step], blocks[start:start + step]
        off = np.concatenate([[0], np.cumsum(blk)[:-1]])
        index = X[:, cand].astype(np.int64)
        index *= n_base * L
        index += group[:, None]
        index += off
        out.append(_count(index, int(blk.sum()), weights))
    return np.concatenate(out)


class PartitionCounter(FastCounter):
    """The in-memory fast engine over one partition, with popcounts chosen up to ``BITS_COST`` word operations per
    row of the float product (measured on 100,000 and 1,000,000 binary rows x 93 candidates, load ~6: popcounts
    win up to about 2.5 words x groups per row, e.g. 14 groups of 1M rows 0.041 s vs 0.29 s; FastCounter's
    _BITS_COST = 4 switches to products there)."""

    BITS_COST = 0.5

    def _bits_pay(self, n_groups: int, n_rows: int) -> bool:
        return n_groups * -(-self.m // 64) * self.BITS_COST < n_rows

    def __sizeof__(self) -> int:
        """Its arrays' bytes: ``dask.sizeof`` falls back to this, and the scheduler then keeps each partition's
        tasks on the worker holding its counter instead of moving a counter it takes for a few bytes."""
        arrays = (self.X, self.y, self._bits, self._marginal, getattr(self, "_marginal_by_value", None))
        return object.__sizeof__(self) + sum(int(a.nbytes) for a in arrays if isinstance(a, np.ndarray))


def fast_counter(part, arities: np.ndarray, labels: np.ndarray) -> FastCounter:
    """The fast engine over one partition, its packed value bits and class marginals n(Y = l, X_j = v) made once
    (it stays on the worker; later tasks only read it)."""
    counter = PartitionCounter(CodedSource(part[0], arities, labels, y=part[1]), merge_pure=False)
    if counter.A > 1:
        counter._value_bits()
        _ = counter.marginal
    return counter


def fast_extensions(counter: FastCounter, codes: np.ndarray | None, n_base: int, candidates: np.ndarray,
                    width: int) -> np.ndarray:
    """The fast engine's group counts on one partition: n(cell c, class l) then n(c, l, X_j = v) for v = 1 ..
    width-1 and every candidate j, flattened: (G,) then (G, width-1, B), G = n_base * L groups g = c * L + l.

    Counted for all groups but the largest of each class (popcounts of the packed bits for few groups, float
    products otherwise); that one is the class marginal minus the others, as the in-memory engine does."""
    L, A, B = counter.L, counter.A, candidates.size
    group = counter.y if codes is None else codes * L + counter.y
    G = n_base * L
    sizes = np.bincount(group, minlength=G)
    skip = sizes.reshape(n_base, L).argmax(axis=0) * L + np.arange(L)
    keep = np.ones(G, dtype=bool)
    keep[skip] = False
    rows = np.flatnonzero(keep[group])
    upper = np.empty((G, (A - 1) * B))
    upper[keep] = counter._group_value_counts(rows, (np.cumsum(keep) - 1)[group[rows]], G - L, features=candidates)
    margin = counter._marginal_by_value[:, 1:][:, :, candidates].reshape(L, -1)
    of_class = np.arange(G) % L
    for l, g in enumerate(skip):
        upper[g] = margin[l] - upper[keep & (of_class == l)].sum(axis=0)
    upper = upper.reshape(G, A - 1, B)[:, :width - 1]
    return np.concatenate([sizes.astype(np.float64), upper.ravel()])


def occupied(part, codes: np.ndarray | None, n_base: int, candidates: np.ndarray, arities: np.ndarray,
             n_labels: int, boot) -> tuple[np.ndarray, np.ndarray]:
    """Occupied keys ((lane_j + c * a_j + x_j) * L + l, sorted) of every candidate j, lane_j = j * n_base * max a,
    and their counts, in one partition."""
    X, y = part
    L = n_labels
    base = np.zeros(X.shape[0], dtype=np.int64) if codes is None else codes
    weights = _weights(part, boot)
    stride = n_base * int(arities.max())
    starts, step = _chunks(X.shape[0], candidates.size)
    keys, counts = [], []
    for start in starts:
        cand, a = candidates[start:start + step], arities[start:start + step]
        lanes = np.arange(start, start + cand.size, dtype=np.int64) * stride
        index = base[:, None] * a + X[:, cand] + lanes
        index *= L
        index += y[:, None]
        k, inverse = np.unique(index.ravel(), return_inverse=True)
        keys.append(k)
        counts.append(_count(inverse.reshape(index.shape), k.size, weights))
    return np.concatenate(keys), np.concatenate(counts).astype(np.float64)


def merge_occupied(*pairs) -> tuple[np.ndarray, np.ndarray]:
    keys, inverse = np.unique(np.concatenate([p[0] for p in pairs]), return_inverse=True)
    return keys, np.bincount(inverse, weights=np.concatenate([p[1] for p in pairs]), minlength=keys.size)


def pad_occupied(pair, n_candidates: int, stride: int, n_labels: int) -> np.ndarray:
    """(B, widest, L) counts over each candidate's occupied cells in code order, zero-padded (the root's task)."""
    keys, counts = pair
    cells, cell_of_key = np.unique(keys // n_labels, return_inverse=True)
    lane = cells // stride
    begins = np.searchsorted(cells, np.arange(n_candidates, dtype=np.int64) * stride)
    widest = int(np.diff(np.append(begins, cells.size)).max())
    position = np.arange(cells.size) - begins[lane]
    out = np.zeros((n_candidates, widest, n_labels))
    out[lane[cell_of_key], position[cell_of_key], keys % n_labels] = counts
    return out
