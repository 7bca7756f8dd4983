"""Per-column statistics of the numeric columns of a table, computed a block of rows at a time.

One pass gives every column's minimum, maximum, missing count and whether all its values are integers;
a second pass counts the distinct values of integer columns with a small range by one ``np.bincount`` over
the whole block (a presence vector per column), and columns with a wide range or real values are sorted a
block of columns at a time. Rows are the contiguous axis of a row-major array (``Dataset.from_arrays``) and
blocks of rows keep numpy's inner loops long, so a 1,000,000 x 500 array scans in about a second per pass
and never needs more than :data:`BLOCK_CELLS` cells of scratch memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

BLOCK_CELLS = 1 << 22      # cells of one block (32 MiB as int64 or float64)
SMALL_RANGE = 1 << 16      # integer columns spanning fewer values are counted with a presence vector
KEEP_UNIQUES = 128         # distinct values kept for sorted (wide-range) columns with at most this many
GROUP_SLOTS = 1 << 16      # count slots of one run of columns counted together (512 KiB of int64: in L2)
HEAD_ROWS = 1024           # rows that tell most real columns from whole numbers before a whole block is checked
_EXACT = 2.0 ** 53         # integers beyond this are not exact as floats


def numeric_dtype(dtype) -> np.dtype | None:
    """The numpy dtype a numeric column is read in (its own for numpy numbers, float64 for nullable ones)."""
    if pd.api.types.is_complex_dtype(dtype):
        return None
    if isinstance(dtype, np.dtype):
        return dtype if dtype.kind in "biuf" else None
    if pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype):
        return np.dtype(np.float64)   # nullable Int64 / boolean / Float64: NaN stands for <NA>
    return None


@dataclass(eq=False)
class NumericSource:
    """The numeric feature columns (``positions`` among all features) of a frame or a 2-d numeric array."""

    positions: np.ndarray
    n_rows: int
    dtype: np.dtype
    frame: pd.DataFrame | None = None
    array: np.ndarray | None = None

    @classmethod
    def of(cls, frame: pd.DataFrame | None, array: np.ndarray | None = None) -> NumericSource:
        if array is not None:
            return cls(np.arange(array.shape[1]), array.shape[0], array.dtype, array=array)
        assert frame is not None  # a frame or an array
        given = list(frame.dtypes)   # (frame.dtypes.iloc[j] costs ~60 us a column: 0.3 s for 5,000)
        dtypes = [numeric_dtype(t) for t in given]
        positions = np.array([j for j, t in enumerate(dtypes) if t is not None], dtype=np.int64)
        kinds = {dtypes[j] for j in positions}
        natives = all(isinstance(given[j], np.dtype) for j in positions)
        dtype = kinds.pop() if len(kinds) == 1 and natives else np.dtype(np.float64)
        return cls(positions, frame.shape[0], dtype, frame=frame)

    @property
    def n_columns(self) -> int:
        return int(self.positions.size)

    def integer_typed(self) -> np.ndarray:
        """Which columns hold integers by their type (numpy, nullable or boolean integers of a frame, or an integer
        array): whole numbers without looking at a value."""
        if self.array is not None or self.frame is None:
            return np.full(self.n_columns, self.dtype.kind in "biu")
        dtypes = self.frame.dtypes
        return np.array([pd.api.types.is_integer_dtype(dtypes.iloc[j]) or pd.api.types.is_bool_dtype(dtypes.iloc[j])
                         for j in self.positions], dtype=bool)

    def _read(self, rows: slice, cols) -> np.ndarray:
        if self.array is not None:
            return self.array[rows, cols]
        positions = self.positions[cols]
        frame = self.frame
        assert frame is not None  # a frame or an array
        if positions.size > 1 and frame.dtypes.iloc[positions].nunique() == 1:   # one dtype: pandas copies its block
            part = frame.iloc[rows, positions]
            return part.to_numpy(dtype=self.dtype, na_value=np.nan) if self.dtype.kind == "f" \
                else part.to_numpy(dtype=self.dtype)
        # mixed dtypes (nullable integers, ints and floats): column by column into one block, which is faster
        # than pandas' interleaving through its extension arrays; column-major, as the block is reduced by column
        out = np.empty((len(range(*rows.indices(self.n_rows))), positions.size), dtype=self.dtype, order="F")
        every = rows.indices(self.n_rows) == (0, self.n_rows, 1)
        for k, j in enumerate(positions):
            column = frame.iloc[:, j] if every else frame.iloc[rows, j]   # a row slice costs pandas ~50 us a column
            out[:, k] = column.to_numpy(dtype=self.dtype, na_value=np.nan) if self.dtype.kind == "f" \
                else column.to_numpy(dtype=self.dtype)
        return out

    def row_blocks(self, cells: int = BLOCK_CELLS, cols: np.ndarray | None = None):
        """(row slice, block of every numeric column, or of columns ``cols`` only) with at most ``cells`` cells per
        block. The blocks cover the same rows whichever columns are read, so sums over blocks do not depend on it."""
        step = max(1, cells // max(self.n_columns, 1))
        for start in range(0, self.n_rows, step):
            rows = slice(start, min(start + step, self.n_rows))
            yield rows, self._read(rows, slice(None) if cols is None else cols)

    def column_blocks(self, cols: np.ndarray, cells: int = BLOCK_CELLS):
        """(indices into ``cols``, block of those whole columns), a bounded number of columns at a time."""
        step = max(1, cells // max(self.n_rows, 1))
        for start in range(0, cols.size, step):
            part = cols[start:start + step]
            yield np.arange(start, start + part.size), self._read(slice(None), part)


def missing_mask(block: np.ndarray) -> np.ndarray | None:
    return np.isnan(block) if block.dtype.kind == "f" else None


@dataclass(eq=False)
class ColumnStats:
    """Statistics of every numeric column: range, missing count, integer-ness, distinct count.

    Small-range integer columns (``small``) also have their presence vector: column i's values lo_i .. hi_i
    occupy ``present[starts[i]:starts[i + 1]]``. Other columns with few distinct values keep them in
    ``uniques``.
    """

    lo: np.ndarray
    hi: np.ndarray
    n_missing: np.ndarray
    integral: np.ndarray
    n_distinct: np.ndarray
    small: np.ndarray
    starts: np.ndarray
    present: np.ndarray
    uniques: dict[int, np.ndarray] = field(default_factory=dict)
    sums: np.ndarray | None = None      # exact sum of x and of x^2 of every counted integer column (16-bit
    squares: np.ndarray | None = None   # integers or less, no missing values), for exact mean-std moments
    mean_std: dict[int, tuple[float, float]] = field(default_factory=dict)   # (mu - sigma, mu + sigma) of the
    # columns whose mean-std edges were computed (the profile's outlier check and discretize share them)

    def small_values(self, i: int) -> np.ndarray:
        """Sorted distinct values of small-range column i (an index into the small columns)."""
        k = int(np.searchsorted(np.flatnonzero(self.small), i))
        return np.flatnonzero(self.present[self.starts[k]:self.starts[k + 1]]) + self.lo[i]


def _first_infinite(source: NumericSource, block: np.ndarray, rows: slice, on_infinite) -> None:
    bad = np.isinf(block).any(axis=0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        column = next(source.column_blocks(np.array([i])))[1][:, 0]
        on_infinite(i, column)


def _whole_numbers(block: np.ndarray, miss: np.ndarray, integral: np.ndarray, typed: np.ndarray) -> None:
    """integral &= every value of the column in ``block`` is a whole number (or missing); columns already known
    (integer types, or found real in an earlier block) are skipped, and the first rows decide most real ones."""
    cols = np.flatnonzero(integral & ~typed)
    with np.errstate(invalid="ignore"):
        for rows in (slice(0, HEAD_ROWS), slice(None)):
            if not cols.size:
                return
            part, gone = block[rows, cols], miss[rows, cols]
            ok = np.all((part == np.floor(part)) | gone, axis=0)
            integral[cols[~ok]] = False
            cols = cols[ok]


def _slot_groups(first: np.ndarray, end: np.ndarray) -> list[tuple[int, int]]:
    """Runs [a, b) of consecutive counted columns whose count slots (``first[i]`` .. ``end[i]``) span at most
    :data:`GROUP_SLOTS`: each run's counts fit in cache while a block's values are added to them."""
    groups, a = [], 0
    for b in range(1, first.size + 1):
        if b == first.size or end[b] - first[a] > GROUP_SLOTS:
            groups.append((a, b))
            a = b
    return groups


def _count_in_groups(counts: np.ndarray, part: np.ndarray, shift: np.ndarray, groups, first: np.ndarray) -> None:
    """counts[part + shift] += 1 for every cell of ``part`` (rows x counted columns; ``shift``: each column's first
    slot minus its minimum), a run of columns at a time: each run's slot numbers are made in one pass into a small
    int64 array and counted into its slots, which stay in cache (one ``np.bincount`` over a table of millions of
    slots, or a widened copy of the whole block, misses it on nearly every value)."""
    for a, b in groups:
        lo = int(first[a])
        hi = int(first[b]) if b < first.size else counts.size
        index = np.add(part[:, a:b], shift[:, a:b] - lo, dtype=np.int64)
        counts[lo:hi] += np.bincount(index.ravel(), minlength=hi - lo)


def _moments_from_counts(counts, starts, cols, lo, counted, sums, squares) -> None:
    """Exact sums of x and x^2 of the ``counted`` small-range columns from their count table (a value times its
    count, in int64), a run of columns at a time: no pass over the cells. ``counts`` holds a mark (1) at every
    column's first and last slot besides the counts, taken off here."""
    for a, b in _slot_groups(starts[:-1], starts[1:]):
        if not counted[a:b].any():
            continue
        s0, s1 = int(starts[a]), int(starts[b])
        c = counts[s0:s1].copy()
        c[starts[a:b] - s0] -= 1
        c[starts[a + 1:b + 1] - 1 - s0] -= 1
        value = np.arange(s1 - s0, dtype=np.int64) - np.repeat(starts[a:b] - s0 - lo[cols[a:b]].astype(np.int64),
                                                              np.diff(starts[a:b + 1]))
        c *= value
        at = starts[a:b] - s0
        keep = cols[a:b][counted[a:b]]
        sums[keep] = np.add.reduceat(c, at)[counted[a:b]]
        squares[keep] = np.add.reduceat(c * value, at)[counted[a:b]]


def scan(source: NumericSource, on_infinite=None) -> ColumnStats:
    """Statistics of every column of ``source`` (see :class:`ColumnStats`).

    ``on_infinite(i, column)`` is called for the first column holding +-inf (it should raise).
    """
    n = source.n_columns
    lo, hi = np.full(n, np.inf), np.full(n, -np.inf)
    n_missing = np.zeros(n, dtype=np.int64)
    integral = np.ones(n, dtype=bool)
    floating = source.dtype.kind == "f"
    typed = source.integer_typed() if floating else np.ones(n, dtype=bool)   # integers by type: nothing to check
    kept = None   # a source that is one block is read once for all three passes
    for rows, block in source.row_blocks():
        if rows.start == 0 and rows.stop == source.n_rows:
            kept = block
        if floating:
            if on_infinite is not None:
                _first_infinite(source, block, rows, on_infinite)
            miss = np.isnan(block)
            n_missing += miss.sum(axis=0)
            _whole_numbers(block, miss, integral, typed)
            np.fmin(lo, np.fmin.reduce(block, axis=0), out=lo)
            np.fmax(hi, np.fmax.reduce(block, axis=0), out=hi)
        elif block.shape[0]:
            np.fmin(lo, block.min(axis=0), out=lo)
            np.fmax(hi, block.max(axis=0), out=hi)
    has = n_missing < source.n_rows
    lo[~has], hi[~has] = np.nan, np.nan
    with np.errstate(invalid="ignore", over="ignore"):
        small = has & integral & (hi - lo < SMALL_RANGE) & (np.abs(lo) < _EXACT) & (np.abs(hi) < _EXACT)
    widths = (hi[small] - lo[small] + 1).astype(np.int64)
    starts = np.zeros(widths.size + 1, dtype=np.int64)
    np.cumsum(widths, out=starts[1:])
    counts = np.zeros(int(starts[-1]), dtype=np.int64)
    cols = np.flatnonzero(small)
    counts[starts[:-1]] = 1    # a column's minimum and maximum are present: two-valued columns need no count
    counts[starts[1:] - 1] = 1
    inner = np.flatnonzero(hi[cols] - lo[cols] >= 2)   # columns with values between their minimum and maximum
    moments = source.dtype.kind in "biu" and source.dtype.itemsize <= 2   # x^2 sums stay exact in int64
    sums = np.zeros(n, dtype=np.int64) if moments else None
    squares = np.zeros(n, dtype=np.int64) if moments else None
    if inner.size:
        counted = cols[inner]
        shift = (starts[inner] - lo[counted].astype(np.int64))[None, :]
        groups = _slot_groups(starts[inner], starts[inner + 1])
        blocks = [(None, kept)] if kept is not None else source.row_blocks()
        for _, block in blocks:
            part = block[:, counted] if counted.size < n else block
            miss = missing_mask(part)
            if miss is None:
                _count_in_groups(counts, part, shift, groups, starts[inner])
            else:
                index = np.where(miss, lo[counted][None, :], part).astype(np.int64) + shift
                counts += np.bincount(index[~miss], minlength=counts.size)
        if moments:   # integer columns have no missing value: their counts are all their values
            counted_mask = np.zeros(cols.size, dtype=bool)
            counted_mask[inner] = True
            _moments_from_counts(counts, starts, cols, lo, counted_mask, sums, squares)
    present = counts > 0
    n_distinct = np.zeros(n, dtype=np.int64)
    if cols.size:
        n_distinct[cols] = np.add.reduceat(present.astype(np.int64), starts[:-1]) if present.size else 0
    uniques: dict[int, np.ndarray] = {}
    wide = np.flatnonzero(has & ~small)
    blocks = [(np.arange(wide.size), kept[:, wide])] if kept is not None and wide.size else \
        source.column_blocks(wide)
    for idx, block in blocks:
        S = block if kept is not None else np.sort(block, axis=0)   # NaN sorts last
        if kept is not None:
            S.sort(axis=0)   # kept[:, wide] is already a copy: sorted in place
        valid = ~np.isnan(S) if S.dtype.kind == "f" else np.ones(S.shape, dtype=bool)
        change = (S[1:] != S[:-1]) & valid[1:]
        n_distinct[wide[idx]] = valid[0] + change.sum(axis=0)
        for k in np.flatnonzero(n_distinct[wide[idx]] <= KEEP_UNIQUES):
            column = S[:, k][valid[:, k]]
            uniques[int(wide[idx][k])] = column[np.r_[True, column[1:] != column[:-1]]].astype(np.float64)
    return ColumnStats(lo, hi, n_missing, integral, n_distinct, small, starts, present, uniques, sums, squares)
