"""The counting engine of a sparse sample (``fslab.data.sparse.SparseDataset``): work and memory follow the
non-zeros, never rows x features.

Same two ideas as the dense engine (:mod:`fslab.counting.dense`), counted from the non-zeros:

1. **Group by (cell, class); the zero value is the remainder.** For the rows of a group g, n(g, X_j = v) for
   v >= 1 is a bincount over the non-zeros of those rows (read from a CSR copy of the codes); n(g, X_j = 0) is
   the group size minus the others. For each class the largest group (in sparse data the cell of the rows that
   are zero on J) is never read: its counts are the class's marginal minus the pure rows minus the other groups.
   So a step reads only the non-zeros of the rows outside the largest cells.
2. **Pure cells never come back** (criteria that are functionals of the law of P(Y|X_J)): rows of pure cells are
   folded into one pure cell per class whose counts, kept per subset state, grow by the non-zeros of the rows that
   became pure (each row's non-zeros are read once per run for that).

Counts of the cells other than the largest ones are kept as touched (cell, feature) pairs only: a feature with no
non-zero in a cell leaves that cell whole at value 0, so a measure's sum over cells is the subset's own sum plus,
per touched pair, the change it makes (``cell_sums``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Sequence

import numpy as np

from ..tables import recall_prefix
from .dense import nlogn_table

_STATE_CACHE = 64
_BLOCK_ENTRIES = 1 << 22  # non-zeros per block of the marginal counts
_STATE_BYTES = 64 << 20  # the subset states held (rows, cells, pure counts); the newest two always stay


def _ranges(starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    offsets = np.repeat(starts - (np.cumsum(lens) - lens), lens)
    return offsets + np.arange(int(lens.sum()), dtype=np.int64)


class _State:
    """Rows of the mixed cells of a subset (``rows``, their ``cell``), the cells' class counts, and the counts of
    the rows of pure cells by (class, feature, value >= 1) with their number per class."""

    __slots__ = ("cell", "class_counts", "n_cells", "pure", "pure_sizes", "rows")

    def __init__(self, rows, cell, n_cells, class_counts, pure, pure_sizes):
        self.rows, self.cell, self.n_cells, self.class_counts = rows, cell, n_cells, class_counts
        self.pure, self.pure_sizes = pure, pure_sizes

    @property
    def nbytes(self) -> int:
        return self.rows.nbytes + self.cell.nbytes + self.pure.nbytes


class SparseCounter:
    """Counting engine over a sparse sample; the interface of ``_fast.FastCounter`` that evaluators and
    selectors use (``cell_sums``, ``extension_counts``, ``pair_counts``, ``marginal``, ``nlogn``)."""

    def __init__(self, source, merge_pure: bool = True):
        self.source = source
        csr = source.by_rows()
        self.indptr = csr.indptr.astype(np.int64)
        self.cols = csr.indices
        self.vals = csr.data
        self.y = np.asarray(source.y)
        self.labels = source.labels
        self.L = len(source.labels)
        self.arities = source.arities
        self.A = int(source.arities.max()) if source.n_features else 1
        self.m, self.n = source.shape
        self.merge_pure = merge_pure
        self._states: OrderedDict[tuple[int, ...], _State] = OrderedDict()
        self._marginal: np.ndarray | None = None
        self._nlogn: np.ndarray | None = None

    @property
    def nlogn(self) -> np.ndarray:
        if self._nlogn is None:
            self._nlogn = nlogn_table(self.m)
        return self._nlogn

    def _upper(self, klass: np.ndarray, cols: np.ndarray, vals: np.ndarray, n_groups: int) -> np.ndarray:
        """Counts by (group, feature, value) of non-zeros (group, col, val): (n_groups, n, A); value 0 left 0."""
        key = (klass.astype(np.int64) * self.n + cols) * self.A + vals
        return np.bincount(key, minlength=n_groups * self.n * self.A).astype(np.float64).reshape(
            n_groups, self.n, self.A)

    def _entries(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The non-zeros of ``rows``: (position in ``rows``, column, value)."""
        starts = self.indptr[rows]
        lens = self.indptr[rows + 1] - starts
        idx = _ranges(starts, lens)
        return np.repeat(np.arange(rows.size), lens), self.cols[idx], self.vals[idx]

    @property
    def marginal(self) -> np.ndarray:
        """Counts n(Y = l, X_j = v): (L, n, A)."""
        if self._marginal is None:
            full = np.zeros((self.L, self.n, self.A))
            r0 = 0
            while r0 < self.m:  # blocks of rows of about _BLOCK_ENTRIES non-zeros: small index temporaries
                r1 = max(r0 + 1, int(np.searchsorted(self.indptr, self.indptr[r0] + _BLOCK_ENTRIES, "right")) - 1)
                r1 = min(r1, self.m)
                lo, hi = self.indptr[r0], self.indptr[r1]
                owner = np.repeat(self.y[r0:r1].astype(np.int8 if self.L < 128 else np.int64),
                                  np.diff(self.indptr[r0:r1 + 1]))
                full += self._upper(owner, self.cols[lo:hi], self.vals[lo:hi], self.L)
                r0 = r1
            full[..., 0] = np.bincount(self.y, minlength=self.L)[:, None] - full.sum(axis=-1)
            self._marginal = full
        return self._marginal

    # --- subset states -----------------------------------------------------------------------------------
    def _state(self, subset: tuple[int, ...]) -> _State:
        hit, start = recall_prefix(self._states, subset)
        if hit is not None:
            return hit
        if start == 0 and () not in self._states:
            empty = _State(np.arange(self.m), np.zeros(self.m, dtype=np.int64), 1, None,
                           np.zeros((self.L, self.n, self.A)), np.zeros(self.L))
            self._states[()] = self._refine(empty, np.zeros(self.m, dtype=np.int64), 1)
        state = self._states[subset[:start]]
        for i in range(start, len(subset)):
            f = subset[i]
            a_f = int(self.arities[f])
            codes = state.cell * a_f + self.source.column(f)[state.rows]
            state = self._refine(state, codes, state.n_cells * a_f)
            self._states[subset[:i + 1]] = state
        held = sum(st.nbytes for st in self._states.values())
        while len(self._states) > 2 and (len(self._states) > _STATE_CACHE or held > _STATE_BYTES):
            _, old = self._states.popitem(last=False)
            held -= old.nbytes
        return state

    def _refine(self, parent: _State, codes: np.ndarray, n_codes: int) -> _State:
        rows = parent.rows
        if n_codes <= 4 * max(rows.size, 1):
            present = np.bincount(codes, minlength=n_codes) > 0
            cell, n_cells = (np.cumsum(present) - 1)[codes], int(present.sum())
        else:
            uniques, cell = np.unique(codes, return_inverse=True)
            n_cells = uniques.size
        counts = np.bincount(cell * self.L + self.y[rows], minlength=n_cells * self.L).reshape(-1, self.L)
        pure, pure_sizes = parent.pure, parent.pure_sizes
        if self.merge_pure:
            mixed = np.count_nonzero(counts, axis=1) > 1
            if not mixed.all():
                keep = mixed[cell]
                gone = rows[~keep]
                _, cols, vals = self._entries(gone)
                owner = np.repeat(self.y[gone], self.indptr[gone + 1] - self.indptr[gone])
                pure = pure + self._upper(owner, cols, vals, self.L)
                pure_sizes = pure_sizes + np.bincount(self.y[gone], minlength=self.L)
                return _State(rows[keep], (np.cumsum(mixed) - 1)[cell[keep]], int(mixed.sum()),
                              counts[mixed].astype(np.float64), pure, pure_sizes)
        return _State(rows, cell.astype(np.int64), n_cells, counts.astype(np.float64), pure, pure_sizes)

    # --- counts of a state -------------------------------------------------------------------------------
    def _split(self, st: _State):
        """The mixed cells' counts: ``big`` {cell: (L, n, A) counts} for each class's largest cell, and the touched
        (cell, feature) pairs of the other cells: ``pair_cell``, ``pair_col`` and their counts (L, A, T)."""
        L, n, A = self.L, self.n, self.A
        skip = st.class_counts.argmax(axis=0)  # per class, the largest cell: never read
        klass = self.y[st.rows]
        read = st.cell != skip[klass]
        rows = st.rows[read]
        starts = self.indptr[rows]
        lens = self.indptr[rows + 1] - starts
        idx = _ranges(starts, lens)
        cols, vals = self.cols[idx], self.vals[idx]
        del idx
        small = np.int32 if st.n_cells < 2**31 else np.int64
        cell = np.repeat(st.cell[read].astype(small), lens)
        klass = np.repeat(klass[read].astype(np.int8 if L < 128 else np.int64), lens)
        totals = self._upper(klass, cols, vals, L)
        big = {}
        marginal = self.marginal
        for c in np.unique(skip):
            mine = cell == c
            counts = self._upper(klass[mine], cols[mine], vals[mine], L)
            for l in np.flatnonzero(skip == c):
                counts[l] = marginal[l] - st.pure[l] - totals[l]
            counts[..., 0] = st.class_counts[c][:, None] - counts[..., 1:].sum(axis=-1)
            big[int(c)] = counts
        rest = ~np.isin(cell, skip)
        if not rest.all():
            cell, cols, vals, klass = cell[rest], cols[rest], vals[rest], klass[rest]
        pair = cell.astype(np.int32 if st.n_cells * n < 2**31 else np.int64) * n + cols  # int32 sorts faster
        uniques, inverse = np.unique(pair, return_inverse=True)
        del pair
        uniques = uniques.astype(np.int64)
        T = uniques.size
        key = (klass.astype(np.int64) * A + vals) * T + inverse
        del inverse, cell, cols, vals, klass
        pair_counts = np.bincount(key, minlength=L * A * T).astype(np.float64).reshape(L, A, T)
        pair_cell = uniques // n
        pair_counts[:, 0] = st.class_counts[pair_cell].T - pair_counts[:, 1:].sum(axis=1)
        return big, pair_cell, uniques % n, pair_counts

    def cell_sums(self, subset: Sequence[int], reducer, params) -> np.ndarray:
        """Per feature j, the reducer's sum over the mixed cells (c, v) of J + {j} (see MixedCellReducer)."""
        st = self._state(tuple(int(j) for j in subset))
        sums = np.zeros(self.n)
        if not st.n_cells:
            return sums
        big, pair_cell, pair_col, pair_counts = self._split(st)
        for counts in big.values():
            sums += reducer.cell_sums(np.ascontiguousarray(counts.transpose(0, 2, 1))[None], params, self.nlogn)
        small = np.ones(st.n_cells, dtype=bool)
        small[list(big)] = False
        if small.any():
            whole = np.zeros(st.n_cells)  # each small cell with every row at value 0
            whole[small] = reducer.cell_sums(st.class_counts[small].T[None, :, None, :], params, self.nlogn)
            sums += whole.sum()
            if pair_cell.size:
                change = reducer.cell_sums(pair_counts[None], params, self.nlogn) - whole[pair_cell]
                sums += np.bincount(pair_col, weights=change, minlength=self.n)
        return sums

    def extension_counts(self, subset: Sequence[int], candidates: np.ndarray) -> np.ndarray:
        """Counts of (X_{subset + [j]}, Y) per candidate: (B, (mixed cells + L) * A, L), laid out as
        ``FastCounter.extension_counts`` (mixed cells by value of X_j, then the pure-l rows by value)."""
        return np.concatenate(list(self.extension_count_batches(subset, candidates)))

    def extension_count_batches(self, subset: Sequence[int], candidates: np.ndarray,
                                batch_bytes: int | None = None) -> Iterator[np.ndarray]:
        """:meth:`extension_counts` in batches of candidates of at most ``batch_bytes`` each (one when None), in
        order; the subset's counts are made once."""
        st = self._state(tuple(int(j) for j in subset))
        cand = np.asarray(candidates, dtype=np.int64)
        C, L, A = st.n_cells, self.L, self.A
        big, pair_cell, pair_col, pair_counts = self._split(st) if C else ({}, None, None, None)
        pure = st.pure.copy()
        pure[..., 0] = st.pure_sizes[:, None] - pure[..., 1:].sum(axis=-1)
        step = cand.size if batch_bytes is None else max(1, batch_bytes // (8 * (C + L) * A * L))
        for start in range(0, cand.size, max(step, 1)):
            part = cand[start:start + step]
            out = np.zeros((part.size, C + L, A, L))
            if C:
                out[:, :C, 0, :] = st.class_counts
                for c, counts in big.items():
                    out[:, c] = counts[:, part].transpose(1, 2, 0)
                where = np.full(self.n, -1)
                where[part] = np.arange(part.size)
                hit = where[pair_col] >= 0
                out[where[pair_col[hit]], pair_cell[hit]] = pair_counts[:, :, hit].transpose(2, 1, 0)
            for l in range(L):
                out[:, C + l, :, l] = pure[l][part]
            yield out.reshape(part.size, (C + L) * A, L)

    def pair_counts(self, f: int, candidates: np.ndarray) -> np.ndarray:
        """n(X_j = u, X_f = v) for every candidate j: (B, A, a_f) (mRMR's feature-pair tables): the rows where
        X_f != 0 are read, the rows where X_f = 0 are the column totals minus them."""
        a_f = int(self.arities[f])
        x_f = self.source.column(f)
        rows = np.flatnonzero(x_f)
        pos, cols, vals = self._entries(rows)
        counts = self._upper(x_f[rows][pos], cols, vals, a_f)  # (v of X_f, j, u)
        sizes = np.bincount(x_f, minlength=a_f).astype(np.float64)
        counts[1:, :, 0] = sizes[1:, None] - counts[1:, :, 1:].sum(axis=-1)
        counts[0] = self.marginal.sum(axis=0) - counts[1:].sum(axis=0)
        cand = np.asarray(candidates, dtype=np.int64)
        return counts[:, cand, :].transpose(1, 2, 0)
