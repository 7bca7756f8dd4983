"""One backward-elimination step in one pass: C(J \\ {j}) for every j in J (Ahmed et al., Section 3.2).

Rebuilding the cells of each J \\ {j} from scratch costs |J| re-codings per candidate (|J|^2 per step;
on Mushroom, 116 features, that was ~90% of a 23-77 s run). Here the cells of J \\ {j_i} are the pairs
(cell of the prefix j_1..j_{i-1}, cell of the suffix j_{i+1}..j_K): the suffix cells are built once per
step from the right, the prefix cells incrementally from the left, so a step costs O(|J|) re-codings.
Dense cell ids come from a lookup array (no sort) while the code range is small, else ``np.unique``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from ..tables import JointTable

_LOOKUP_FACTOR = 8  # dense ids via a lookup array while the code range is at most 8 x rows (+ slack)
_CHUNK_ENTRIES = 1 << 22  # bound on rows x candidates (codes) and cells x classes (counts) per chunk


def dense_ids(codes: np.ndarray, n_codes: int) -> tuple[np.ndarray, int]:
    """Relabel codes in 0..n_codes-1 to 0..n_used-1 (order preserved); returns (ids, n_used)."""
    if n_codes <= _LOOKUP_FACTOR * codes.size + 4096:
        used = np.zeros(n_codes, dtype=bool)
        used[codes] = True
        ids = np.cumsum(used) - 1
        return ids[codes], int(ids[-1]) + 1
    uniques, inverse = np.unique(codes, return_inverse=True)
    return inverse.reshape(-1), len(uniques)


def _suffix_codes(X: np.ndarray, arities: np.ndarray, kept: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dense cell ids of kept[i+1:] for every i: (K, rows) int32/int64 ids and (K,) cell counts."""
    K, m = kept.size, X.shape[0]
    dtype = np.int32 if m < 2**31 else np.int64
    out = np.zeros((K, m), dtype=dtype)
    sizes = np.ones(K, dtype=np.int64)
    codes, n_cells = np.zeros(m, dtype=np.int64), 1
    for i in range(K - 1, 0, -1):  # suffix of position i-1 = feature kept[i] + suffix of position i
        j = kept[i]
        codes, n_cells = dense_ids(codes * arities[j] + X[:, j], n_cells * int(arities[j]))
        out[i - 1], sizes[i - 1] = codes, n_cells
    return out, sizes


def removal_cells(X: np.ndarray, arities: np.ndarray, kept: np.ndarray) -> Iterator[tuple[int, np.ndarray, int]]:
    """(position i, dense cell ids of kept without kept[i], number of cells) for i = 0..K-1."""
    suffix, sizes = _suffix_codes(X, arities, kept)
    prefix, n_prefix = np.zeros(X.shape[0], dtype=np.int64), 1
    for i, j in enumerate(kept):
        n_suffix = int(sizes[i])
        ids, n_cells = dense_ids(prefix * n_suffix + suffix[i], n_prefix * n_suffix)
        yield i, ids, n_cells
        prefix, n_prefix = dense_ids(prefix * arities[j] + X[:, j], n_prefix * int(arities[j]))


def _counts(source, ids: np.ndarray, width: int) -> np.ndarray:
    """Batched counts (B, width, L) of (cell, class) for cell ids of shape (B, rows): the source's own
    counting over the cell index (rows, B), table b's cells offset by b * width."""
    B = ids.shape[0]
    index = ids.T + np.arange(B, dtype=np.int64) * width
    return source._count(index, B * width).reshape(B, width, source.labels.shape[0])


def removal_table_criteria(source, kept: np.ndarray, table_fn: Callable[[JointTable], np.ndarray]) -> np.ndarray:
    """table_fn(table of kept \\ {kept[i]}) for every position i, batched in bounded chunks."""
    kept = np.asarray(kept, dtype=np.int64)
    m, n_labels = source.n_rows, source.labels.shape[0]
    out = np.empty(kept.size)
    pending: list[tuple[int, np.ndarray, int]] = []

    def flush() -> None:
        width = max(n for _, _, n in pending)
        ids = np.stack([cells for _, cells, _ in pending])
        values = np.atleast_1d(table_fn(JointTable(_counts(source, ids, width), source.labels)))
        out[[i for i, _, _ in pending]] = values
        pending.clear()

    for item in removal_cells(source.X, source.arities, kept):
        pending.append(item)
        width = max(n for _, _, n in pending)
        if len(pending) * max(m, width * n_labels) >= _CHUNK_ENTRIES:
            flush()
    if pending:
        flush()
    return out


__all__ = ["dense_ids", "removal_cells", "removal_table_criteria"]
