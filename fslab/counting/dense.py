"""Fast batched counting for samples: the joint tables of J + {j} for every candidate j in one pass.

Two ideas (the design note in bench/README.md gives the timings):

1. **Count by group, not by row.** The rows of J's cells, split by class, form groups g = (cell, class).
   For every feature value v >= 1, n(g, X_j = v) for ALL features j is one product of the group
   indicator with the value indicators (a sparse matrix times a float32 0/1 matrix, or, with few
   groups, popcounts of packed bit sets: bitwise AND then ``np.bitwise_count``). The count for v = 0
   is the group size minus the others. No per-candidate pass over the rows. The float32 indicators
   are built per block of the counted rows only, never for the whole sample: no temporary outgrows
   the packed codes or ``BLOCK_BYTES`` (issue 13.3), and the counts are exact integers either way.
2. **Pure cells never come back.** A cell whose rows all have one class stays pure under every
   refinement, and cells with the same conditional law P(Y|x) can be merged without changing any
   Bayes criterion (each is a functional of the law of P(Y|X_J): 0-1, cost-sensitive, balanced,
   log-loss/MI, squared, F-beta and AUC all are). So the rows of pure cells of class l are folded into
   one "pure-l" cell whose counts are the class marginals minus the mixed cells' counts, and only the
   rows of mixed cells are ever counted again. Deep in a greedy run most rows are pure.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Sequence

import numpy as np
import scipy.sparse as sp

from ..tables import recall_prefix

_STATE_CACHE = 256  # subset states kept, their arrays within 4 block budgets and BLOCK_BYTES (but always 2): without
# the BLOCK_BYTES cap, JMI at 1,000,000 x 500 held 256 MiB of single-feature states it never reused (issue 35.4); with
# 1 budget alone, Gisette-shaped BayesGreedy took 1.2x longer (0.28 -> 0.34 s)
_BLOCK_ENTRIES = 1 << 21  # counts per block of cells (16 MiB of float64)
_BITS_COST = 4.0  # one 64-row word AND + popcount vs one sparse multiply-add (measured: ~1 ns vs ~0.22 ns)
# Row blocks of the float32 value indicators: at most the packed codes' size and BLOCK_BYTES (a floor of
# MIN_BLOCK_BYTES for tiny data), so no transient matrix outgrows the data. Counts of one block are float32 sums
# of 0/1 products over at most 2^24 rows (exact); blocks add up in float64 (exact): the same counts as one product.
BLOCK_BYTES = 64 << 20
MIN_BLOCK_BYTES = 4 << 20
_EXACT_ROWS = 1 << 24
_TILE_ROWS, _TILE_COLS = 2048, 512  # value-bit packing tiles (rows a multiple of 8: whole bytes per tile)
# Many values (issue 35.1): one np.bincount over keys (j A + X[r, j]) G + g[r] counts every (feature, value, group)
# in one pass over the codes, where the indicator product pays a float32 column per value. Keys are made per block
# of columns of at most _KEY_BLOCK keys (512 KiB of int64: the block and the histogram of one column stay in cache).
# The keys pay from _KEY_MIN_VALUES values on (measured in bench/README.md, issue 35).
_KEY_BLOCK = 1 << 16
_KEY_MIN_VALUES = 4
_KEY_MIN_CLASSES = 16  # or beyond 16 classes (30 classes, 20,000 x 200 binary, MIGreedy: 4.06 -> 2.35 s; on 2 classes
# the keys lose on binary columns: Adult MIGreedy 0.16 vs 0.23 s)
_KEY_COST = 2.0
# beyond _KEY_BLOCK counted rows the 2-byte keys go a block at a time (short_bincount) and the popcounts' temporaries
# leave the cache: keys pay from fewer groups (interleaved, load 12-16, 2.0 -> 0.45: 1,000,000 x 64 at 8 levels mRMR
# 730 -> 411 ms, CMIM 693 -> 448, JMI 1,433 -> 1,213; 200,000 x 60 at 6 levels mRMR 107 -> 63, JMI 418 -> 212;
# 300,000 x 100 at 4 levels JMI 851 -> 621, CMIM and mRMR equal; at 0.3 that CMIM took 165 ms)
_KEY_COST_MANY = 0.45
# pair counts by 2-byte keys, one bincount a pair, from this many rows on (was _KEY_BLOCK; interleaved, load 10: 20
# classes x 5 levels 8,000 x 300 CMIM 29.2 -> 22.8 ms, digits-in-noise mRMR 283 -> 224 ms, optdigits CMIM 33 -> 29 ms,
# 1,000 x 64 equal). The per-column group counts keep _KEY_BLOCK (digits-in-noise JMI 466 vs 494 ms at 512 rows)
_SHORT_ROWS = 512
# below this many rows, pairs in blocks of one bincount (_pair_key_blocks; per pair, load 2.8: 1,000 rows 6.0 -> 2.8 us,
# 2,000 rows 8.2 -> 4.9, 4,000 rows at 2,890 cells 10.1 -> 8.6; 5,620 rows equal, 8,000 rows slower)
_PAIR_BLOCK_ROWS = 4096
# and below this many rows for 64+ pairs of one first feature (JMI's steps; load 4-5: digits-in-noise JMI 278 -> 261 ms,
# 20 classes x 5 levels 124 -> 114; lazy CMIM and mRMR rounds, with several first parts to gather, 10 % slower)
_ONE_HEAD_BLOCK_ROWS, _ONE_HEAD_PAIRS = 16384, 64
# popcount pairs by class-sliced bits (_pair_sliced_counts) where (A - 1)(L - 1) reaches this: a pair's (u, v) takes one
# AND where the class planes take L, but each column is packed again in class order (+60 % a column), so the saving
# needs pairs enough a column and classes enough a pair. Interleaved, load 1.3-2, CMIM 20,000 x 200 at 2 levels: 30
# classes k = 20 21.3 -> 16.8 ms, k = 10 13.6 -> 14.8; 40 classes k = 10 14.0 -> 13.7; 20 classes k = 20 17.2 -> 16.1,
# k = 10 11.3 -> 13.8; 24 classes k = 10 11.9 -> 13.2; 8,000 x 300 at 3 levels, 20 classes, k = 10: 10.0 -> 7.7; held
# out k = 10, 30 fold-classes at 3 levels 18.2 -> 12.7, 20 at 2 levels 13.9 -> 17.7; Adult CMIM 11.6 -> 26.7 ms
_SLICED_ROWS = 27
# popcount pairs: a first feature's planes kept and broadcast against its candidates from this many words of planes per
# first feature on, else made for every pair (load 2.4: 30 classes x 2 levels CMIM 29.2 -> 20.9 ms; always broadcast,
# Gisette-shaped mRMR and 2,000 x 5,000 mRMR were 13-18 % slower: a loop per first feature of few pairs)
_PLANE_WORDS = 4096
# many rows, few groups and values: several columns a 2-byte key, while the rows are at least _PACK_ROWS a cell (the
# joint's cells are summed out per column): 1,000,000 x 64 at 8 levels, 5 classes, four columns a group key (class
# counts 112 -> 53 ms) and three pairs a pair key (CMIM 418 -> 299 ms, JMI 1,168 -> 708); at 2 rows a cell 20 classes x
# 5 levels JMI lost (121 -> 175 ms)
_PACK_ROWS = 8
_SUMS_MIN_FEATURES = 256  # the class marginals by byte sums (_class_value_sums) from this many features on
_COLUMN_CACHE = BLOCK_BYTES // 2  # transposed columns kept for lazy pair counts on codes over BLOCK_BYTES


_WORD_TRANSPOSE_BYTES = 8 << 20  # codes transposed by 8 x 8 byte blocks (byte_transpose) from this size on
_WORD_ROWS = 4096  # rows of one byte_transpose chunk (a multiple of 8)
_BYTE_SWAPS = tuple((np.uint64(s), np.uint64(mask), d) for s, mask, d in
                    ((32, 0x00000000FFFFFFFF, 4), (16, 0x0000FFFF0000FFFF, 2), (8, 0x00FF00FF00FF00FF, 1)))


def byte_transpose(X: np.ndarray) -> np.ndarray:
    """``X.T`` of one-byte codes (m, n) copied, each row contiguous, by 8 x 8 byte blocks held in 8 words: the
    words are transposed as uint64 (8 columns a word), then each block's bytes by three rounds of masked swaps (4, 2,
    1 bytes apart) on whole arrays of words. numpy copies a strided byte view one element at a time; this moves 8:
    1,000,000 x 64 275 -> 70 ms, 100,000 x 100 29 -> 13 ms of CPU (load 13; 8,000 x 300 1.5 vs 2.5 ms: small codes
    copy plainly)."""
    m, n = X.shape
    n8 = -(-n // 8) * 8
    out = np.empty((n8, -(-m // 8) * 8), dtype=np.uint8)
    pad = np.zeros((_WORD_ROWS, n8), dtype=np.uint8)
    for r0 in range(0, m, _WORD_ROWS):
        r1 = min(m, r0 + _WORD_ROWS)
        size = -(-(r1 - r0) // 8) * 8
        if n8 == n and size == r1 - r0 and X.flags.c_contiguous:
            chunk = X[r0:r1]
        else:
            chunk = pad[:size]
            chunk[:r1 - r0, :n] = X[r0:r1]
            chunk[r1 - r0:] = 0
        w = n8 // 8
        words = np.ascontiguousarray(chunk.view(np.uint64).T).reshape(w, size // 8, 8)  # [b, q, r]: row 8q + r
        v = [words[:, :, r].copy() for r in range(8)]  # byte c of word r: column 8b + c of row 8q + r
        for shift, mask, d in _BYTE_SWAPS:
            for r in range(8):
                if not r & d:
                    t = ((v[r] >> shift) ^ v[r + d]) & mask
                    v[r + d] ^= t
                    v[r] ^= t << shift
        out[:, r0:r0 + size] = np.stack(v, axis=1).reshape(n8, size // 8).view(np.uint8)  # byte r of word c
    return out[:n, :m] if (n8, out.shape[1]) != (n, m) else out


def short_bincount(keys: np.ndarray, minlength: int) -> np.ndarray:
    """``np.bincount(keys, minlength=minlength)`` of 2-byte keys, _KEY_BLOCK keys at a time beyond that many (bincount
    widens its input to 8 bytes first: a million keys' copy leaves the cache; 1,000,000 keys 2.46 -> 1.89 ms)."""
    if keys.size <= _KEY_BLOCK:
        return np.bincount(keys, minlength=minlength)
    out = np.bincount(keys[:_KEY_BLOCK], minlength=minlength)
    for r in range(_KEY_BLOCK, keys.size, _KEY_BLOCK):
        out += np.bincount(keys[r:r + _KEY_BLOCK], minlength=minlength)
    return out


def nlogn_table(m: int) -> np.ndarray:
    """k ln k for k = 0 .. m (0 for k = 0): the entropy sums' look-up table for whole counts."""
    k = np.arange(m + 1, dtype=np.float64)
    return k * np.log(np.maximum(k, 1.0))


class _State:
    """Rows of the mixed cells of a subset: ``rows`` (active row indices), ``cell`` (their mixed-cell id)."""

    __slots__ = ("cell", "class_counts", "groups", "keys", "n_cells", "nbytes", "rows")

    def __init__(self, rows: np.ndarray, cell: np.ndarray, n_cells: int, class_counts: np.ndarray):
        self.rows, self.cell, self.n_cells, self.class_counts = rows, cell, n_cells, class_counts
        self.groups: tuple | None = None  # the counted groups and their packed bits (FastCounter._groups), on use
        self.keys: tuple | None = None  # the counted rows and groups of the key path (FastCounter._key_groups)
        self.nbytes = rows.nbytes + cell.nbytes


class FastCounter:
    """Counting engine over a sample (class index per row) with small feature arities.

    ``merge_pure``: fold pure cells as described in the module docstring (only for criteria that
    depend on the table through the law of P(Y|X_J)).
    """

    def __init__(self, source, merge_pure: bool = True):
        self.X = source.X
        self.y = source.y
        self.labels = source.labels
        self.L = len(source.labels)
        self.arities = source.arities
        self.A = int(source.arities.max()) if source.n_features else 1
        self.merge_pure = merge_pure
        self.m, self.n = self.X.shape
        self._bits: np.ndarray | None = None
        self._packed = np.zeros(0, dtype=bool)  # the features whose value bits are packed (_value_bits)
        self._columns: np.ndarray | None = None
        self._store: np.ndarray | None = None  # cached transposed columns of large codes (_column_rows)
        self._slot = self._owner = self._stamp = np.empty(0, dtype=np.int64)
        self._tick = 0
        self._class_bits: np.ndarray | None = None
        self._uniform = source.n_features == 0 or int(source.arities.min()) == self.A  # every feature A values
        self._states: OrderedDict[tuple[int, ...], _State] = OrderedDict()
        self._heads: OrderedDict[tuple[int, int], np.ndarray] = OrderedDict()  # pair keys' first parts
        self._heads_held = 0  # their bytes
        self._planes: OrderedDict[tuple[int, int, bool], np.ndarray] = OrderedDict()  # popcount pairs' first parts
        self._planes_held = 0
        self._sliced: np.ndarray | None = None  # value bits with the rows in class order (_sliced_bits)
        self._sliced_packed = np.zeros(0, dtype=bool)
        self._layout: tuple | None = None
        self._marginal: np.ndarray | None = None
        self._nlogn: np.ndarray | None = None
        self._class_sizes: np.ndarray | None = None

    @property
    def nlogn(self) -> np.ndarray:
        """k ln k for every count k = 0..m (a lookup table: counts of a sample are whole numbers)."""
        if self._nlogn is None:
            self._nlogn = nlogn_table(self.m)
        return self._nlogn

    @property
    def class_sizes(self) -> np.ndarray:
        """Rows of each class (L,) as floats, counted once (a lazy search asks for them every round)."""
        if self._class_sizes is None:
            self._class_sizes = np.bincount(self.y, minlength=self.L).astype(np.float64)
        return self._class_sizes

    @property
    def marginal(self) -> np.ndarray:
        """Counts n(Y = l, X_j = v): (L, n, A), from the same group counts (groups = classes)."""
        if self._marginal is None and self._keys_pay(self.L, self.m):
            counts = self._value_group_counts(None, self.y, self.L)  # (n, L, A)
            self._marginal_by_value = counts.transpose(1, 2, 0).astype(np.float64)
            self._marginal = counts.transpose(1, 0, 2).astype(np.float64)
        if self._marginal is None and self._bits is None and self.n >= _SUMS_MIN_FEATURES:
            full = self._class_value_sums()
            self._marginal_by_value = full
            self._marginal = full.transpose(0, 2, 1).copy()
        if self._marginal is None:
            rows = np.arange(self.m)
            upper = self._group_value_counts(rows, self.y, self.L).reshape(self.L, self.A - 1, self.n)
            sizes = np.bincount(self.y, minlength=self.L).astype(np.float64)
            full = np.empty((self.L, self.A, self.n))
            full[:, 1:] = upper
            full[:, 0] = sizes[:, None] - upper.sum(axis=1)
            self._marginal_by_value = full
            self._marginal = full.transpose(0, 2, 1).copy()
        return self._marginal

    def _class_value_sums(self) -> np.ndarray:
        """n(Y = l, X_j = v) as (L, A, n) floats without the value bits: the rows of each class, 255 at a time (in
        class order, gathered), compared with each value and summed down the columns in uint8 (byte adds along
        contiguous rows); v = 0 is the class size minus the others. Wide data: 2,000 x 5,000 at 4 levels 34 -> 6 ms,
        4,200 x 2,000 at 3 levels 9.3 -> 3.0 ms (load 14-17); a few columns pay the loop (1,000 x 64: 0.5 vs 0.7)."""
        L, A, n = self.L, self.A, self.n
        order = np.argsort(self.y, kind="stable")
        sizes = np.bincount(self.y, minlength=L)
        bounds = np.concatenate([[0], np.cumsum(sizes)])
        out = np.zeros((L, A, n), dtype=np.int64)
        block = np.empty((255, n), dtype=self.X.dtype)
        equal = np.empty((255, n), dtype=bool)
        part = np.empty(n, dtype=np.uint8)
        for l in range(L):
            for r in range(int(bounds[l]), int(bounds[l + 1]), 255):
                size = min(int(bounds[l + 1]) - r, 255)
                codes, hit = block[:size], equal[:size]
                np.take(self.X, order[r:r + size], axis=0, out=codes)
                for v in range(1, A):
                    np.equal(codes, v, out=hit)
                    np.add.reduce(hit.view(np.uint8), axis=0, out=part)  # <= 255: exact in a byte
                    out[l, v] += part
        out[:, 0] = sizes[:, None] - out[:, 1:].sum(axis=1)
        return out.astype(np.float64)

    # --- value indicators, built once and only in the form that is used ---------------------------------
    def _value_bits(self, features: np.ndarray | None = None) -> np.ndarray:
        """(n * (A-1), words) uint64: bit r of row (v-1)*n + j is set iff X[r, j] == v, packed for every feature or
        only for ``features`` (the others' rows are packed when first asked for: lazy CMIM and mRMR pair a few hundred
        of 5,000 columns). Packed by tiles of _TILE_ROWS x _TILE_COLS codes, each transposed into a contiguous copy
        first (1 MiB, cache-resident), so every comparison and packbits runs along contiguous rows (issue 27.4:
        2.3-3.7x faster than packing a strided transposed view, the same bits; bench/README.md)."""
        n = self.n
        if self._bits is None:  # zeroed pages: the memory of the rows packed
            self._bits = np.zeros((n * (self.A - 1), -(-self.m // 64)), dtype=np.uint64)
            self._packed = np.zeros(n, dtype=bool)
        if features is None:
            todo = ~self._packed
        else:
            todo = np.zeros(n, dtype=bool)
            todo[features] = True
            todo &= ~self._packed
        if not todo.any():
            return self._bits
        out = self._bits.view(np.uint8)
        need = np.flatnonzero(todo)
        whole = need.size == n
        if not whole and need.size * self.m <= _TILE_ROWS * _TILE_COLS:  # a few columns: one tile of every row
            tile = np.ascontiguousarray(self.X[:, need].T)
            for v in range(1, self.A):
                packed = np.packbits(tile == v, axis=1)
                out[(v - 1) * n + need, :packed.shape[1]] = packed
            self._packed[need] = True
            return self._bits
        for c in range(0, need.size, _TILE_COLS):
            cols = need[c:c + _TILE_COLS]
            for r in range(0, self.m, _TILE_ROWS):
                rows = self.X[r:r + _TILE_ROWS]
                tile = np.ascontiguousarray((rows[:, c:c + _TILE_COLS] if whole else rows.take(cols, axis=1)).T)
                for v in range(1, self.A):
                    packed = np.packbits(tile == v, axis=1)
                    out[(v - 1) * n + cols, r // 8:r // 8 + packed.shape[1]] = packed
        self._packed[need] = True
        return self._bits

    def _budget(self) -> int:
        return max(min(int(self.X.nbytes), BLOCK_BYTES), MIN_BLOCK_BYTES)

    def block_rows(self) -> int:
        """Rows per block of float32 value indicators (see BLOCK_BYTES)."""
        return int(min(_EXACT_ROWS, max(1, self._budget() // max(4 * self.n * (self.A - 1), 1))))

    def _bits_pay(self, n_groups: int, n_rows: int) -> bool:
        """Popcounts of packed group bits beat the float product for few groups of many rows."""
        return n_groups * -(-self.m // 64) * _BITS_COST < n_rows

    def _keys_pay(self, n_groups: int, n_rows: int) -> bool:
        """One bincount over (feature, value, group) keys (about _KEY_COST word operations a row) beats a float32
        indicator column per value from _KEY_MIN_VALUES values (or beyond _KEY_MIN_CLASSES classes) on, and
        popcounts (one word operation per 64 rows, group and value >= 1) unless the groups are few, or while the value
        bits are not made and would take more than BLOCK_BYTES (A - 1 bits a cell: 1,000,000 x 500 with 8 values,
        437 MB for the first step's class counts; issue 35.4)."""
        words = -(-self.m // 64)
        cost = _KEY_COST_MANY if n_rows > _KEY_BLOCK else _KEY_COST
        return ((self.A >= _KEY_MIN_VALUES or self.L > _KEY_MIN_CLASSES)
                and (n_groups * (self.A - 1) * words >= cost * n_rows
                     or (self._bits is None and self.n * (self.A - 1) * words * 8 > BLOCK_BYTES)))

    def _value_group_counts(self, rows: np.ndarray | None, group: np.ndarray, n_groups: int,
                            features: np.ndarray | None = None) -> np.ndarray:
        """n(group g, X_j = v) for every feature (or only ``features``) and every value v = 0 .. A-1, counted over
        ``rows`` (None: every row) with ``group`` their group ids: (width, n_groups, A) int64.

        One ``np.bincount`` per block of columns over the keys (b G + g[r]) A + X[r, j_b] (b: the column's place in
        the block): the part before the code is the same for every block, so each key is one addition, and one
        column's keys come one after another, so its histogram (G x A counts) stays in cache."""
        A, G = self.A, n_groups
        width = self.n if features is None else features.size
        size = self.m if rows is None else rows.size
        out = np.empty((width, G, A), dtype=np.int64)
        if width == 0:
            return out
        step = min(width, max(1, _KEY_BLOCK // max(size, 1)))
        if size >= _KEY_BLOCK and G * A <= 1 << 16:  # many rows, a column a block: 2-byte keys g A + X[r, j]
            return self._short_group_counts(rows, group, G, features, out)
        base = (np.arange(step, dtype=np.int64)[:, None] * G + group.astype(np.int64)) * A  # (step, size)
        keys = np.empty((step, size), dtype=np.int64)
        span = max(step, self._span(size))
        for g0 in range(0, width, span):
            g1 = min(width, g0 + span)
            columns = self._column_block(slice(g0, g1) if features is None else features[g0:g1], rows)
            for c0 in range(g0, g1, step):
                c1 = min(g1, c0 + step)
                block = keys[:c1 - c0]
                np.add(base[:c1 - c0], columns[c0 - g0:c1 - g0], out=block)
                out[c0:c1] = np.bincount(block.ravel(), minlength=(c1 - c0) * G * A).reshape(c1 - c0, G, A)
        return out

    def _short_group_counts(self, rows: np.ndarray | None, group: np.ndarray, G: int, features: np.ndarray | None,
                            out: np.ndarray) -> np.ndarray:
        """:meth:`_value_group_counts` over many rows: 2-byte keys g[r] A + X[r, j], one addition and one bincount a
        column (8-byte keys of a million rows leave the cache between their passes)."""
        A, width = self.A, out.shape[0]
        head = group.astype(np.uint16) * np.uint16(A)
        keys = np.empty(head.size, dtype=np.uint16)
        b = 1  # columns a key: ((g A + X_1) A + X_2) A + ... while the G A^b cells stay few beside the rows
        while b < width and G * A ** (b + 1) <= min(1 << 16, head.size // _PACK_ROWS):
            b += 1
        span = max(b, self._span(head.size) // b * b)
        for g0 in range(0, width, span):
            g1 = min(width, g0 + span)
            columns = self._column_block(slice(g0, g1) if features is None else features[g0:g1], rows)
            for c in range(g0, g1, b):
                np.add(head, columns[c - g0], out=keys, casting="unsafe")  # < G A^b <= 2^16
                for i in range(1, min(b, g1 - c)):
                    keys *= np.uint16(A)
                    np.add(keys, columns[c - g0 + i], out=keys, casting="unsafe")
                width_c = min(b, g1 - c)
                joint = short_bincount(keys, G * A ** width_c).reshape((G,) + (A,) * width_c)
                for i in range(width_c):  # each column's (G, A) counts: the others' values summed out
                    out[c + i] = joint.sum(axis=tuple(1 + t for t in range(width_c) if t != i))
        return out

    @property
    def columns(self) -> np.ndarray:
        """The codes column by column (n, m), made on first use (one byte a cell) while the codes take at most
        BLOCK_BYTES: a few columns are then rows read in one piece, where the row-major codes give a byte of every row
        per column. Larger codes are transposed a group of columns at a time (:meth:`_column_block`)."""
        if self._columns is None:
            big = self.X.dtype.itemsize == 1 and self.X.nbytes >= _WORD_TRANSPOSE_BYTES
            self._columns = byte_transpose(self.X) if big else np.ascontiguousarray(self.X.T)
        return self._columns

    def _span(self, size: int) -> int:
        """Columns transposed together for the key path: all while the codes are small (one cached copy), else a
        quarter block budget of ``size`` rows each (1,000,000 x 500: 16 columns, 16 MB; issue 35.4)."""
        return self.n if self.X.nbytes <= BLOCK_BYTES else max(1, self._budget() // (4 * max(size, 1)))

    def _column_block(self, features: slice | np.ndarray, rows: np.ndarray | None) -> np.ndarray:
        """The codes of ``features`` over ``rows`` (None: every row), column by column: (width, rows) uint8; from
        :attr:`columns` while the codes are small, else from the row-major codes of these columns only."""
        if self.X.nbytes <= BLOCK_BYTES:
            block = self.columns[features]
            return block if rows is None else np.take(block, rows, axis=1)
        size = self.m if rows is None else rows.size
        width = len(range(self.n)[features]) if isinstance(features, slice) else features.size
        out = np.empty((width, size), dtype=self.X.dtype)
        for r in range(0, size, _TILE_ROWS):  # tile by tile: 3.4x faster than transposing the strided view at once
            if rows is None:
                tile = self.X[r:r + _TILE_ROWS, features]
            elif isinstance(features, slice):  # (np.take of the strided view would copy all its rows per call)
                tile = self.X[rows[r:r + _TILE_ROWS], features]
            else:
                tile = self.X[np.ix_(rows[r:r + _TILE_ROWS], features)]
            out[:, r:r + _TILE_ROWS] = tile.T
        return out

    def _column_rows(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(store, index): column ``features[i]`` (distinct) over every row is ``store[index[i]]``; from
        :attr:`columns` while the codes are small, else from a cache of _COLUMN_CACHE bytes of transposed columns,
        least recently used out first (lazy pair counts ask for the same few columns round after round: mRMR on
        300,000 x 400 with 8 levels transposed 1,121 columns for 100 distinct ones)."""
        if self.X.nbytes <= BLOCK_BYTES:
            return self.columns, features
        slots = min(self.n, _COLUMN_CACHE // max(self.m, 1))
        if features.size > slots:  # more than the cache holds: transposed for this call only
            return self._column_block(features, None), np.arange(features.size)
        if self._store is None:
            self._store = np.empty((slots, self.m), dtype=self.X.dtype)
            self._slot = np.full(self.n, -1, dtype=np.int64)  # each feature's slot (-1: not held)
            self._owner = np.full(slots, -1, dtype=np.int64)  # each slot's feature
            self._stamp = np.zeros(slots, dtype=np.int64)  # each slot's last use
        self._tick += 1
        slot = self._slot[features]
        self._stamp[slot[slot >= 0]] = self._tick
        missing = features[slot < 0]
        if missing.size:  # the oldest slots (never this call's hits: they carry the newest stamp)
            free = np.argsort(self._stamp, kind="stable")[:missing.size]
            old = self._owner[free]
            self._slot[old[old >= 0]] = -1
            self._store[free] = self._column_block(missing, None)
            self._owner[free], self._slot[missing], self._stamp[free] = missing, free, self._tick
            slot = self._slot[features]
        return self._store, slot

    def _pair_columns(self, firsts: np.ndarray, seconds: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(store, fi, si): the columns of pair p are store[fi[p]] and store[si[p]] over every row (small codes: the
        column-major copy as it is, no ``np.unique``; else :meth:`_column_rows` of the distinct features)."""
        if self.X.nbytes <= BLOCK_BYTES:
            return self.columns, firsts, seconds
        used, where = np.unique(np.concatenate([firsts, seconds]), return_inverse=True)
        columns, index = self._column_rows(used)
        return columns, index[where[:firsts.size]], index[where[firsts.size:]]

    def pair_key_counts(self, firsts: np.ndarray, seconds: np.ndarray, classes: bool = True) -> np.ndarray:
        """n(X_f = u, Y = l, X_j = v) for each pair (f, j) = (firsts[p], seconds[p]) over every row: (P, a, L, A)
        int64 with a the widest first feature (without ``classes``: n(X_f = u, X_j = v), (P, a, A)). One bincount
        per block of pairs over the keys ((p a + X_f) L + y) A + X_j: any pairs at once, so a lazy search counts the
        few pairs it needs in one pass (issue 35.1)."""
        firsts, seconds = np.asarray(firsts, dtype=np.int64), np.asarray(seconds, dtype=np.int64)
        P, A = firsts.size, self.A
        a = (A if self._uniform else int(self.arities[firsts].max())) if P else 1
        L = self.L if classes else 1
        if P and a > 1 and A > 1 and not self._keys_pay((a - 1) * L, self.m):
            return self._pair_bit_counts(firsts, seconds, a, classes)
        out = np.empty((P, a * L, A), dtype=np.int64)
        step = min(P, max(1, _KEY_BLOCK // max(self.m, 1)))
        if self.m >= _SHORT_ROWS and a * L * A <= 1 << 16:
            return self._pair_short_keys(firsts, seconds, a, L, out).reshape((P, a, L, A) if classes else (P, a, A))
        # (p a L + y) A, the same for every block: each key is then two operations on the pair's columns
        base = np.arange(step, dtype=np.int64)[:, None] * (a * L * A) + (self.y.astype(np.int64) * A if classes
                                                                          else np.zeros(self.m, dtype=np.int64))
        keys = np.empty((step, self.m), dtype=np.int64)  # C order: one pair's keys after another
        span = max(step, self._span(self.m) // 2)  # pairs whose columns are transposed together (two per pair)
        for q0 in range(0, P, span):
            q1 = min(P, q0 + span)
            columns, fi, si = self._pair_columns(firsts[q0:q1], seconds[q0:q1])
            for p0 in range(q0, q1, step):
                p1 = min(q1, p0 + step)
                block = keys[:p1 - p0]
                np.multiply(columns[fi[p0 - q0:p1 - q0]], L * A, out=block, dtype=np.int64)
                block += base[:p1 - p0]
                np.add(block, columns[si[p0 - q0:p1 - q0]], out=block)
                out[p0:p1] = np.bincount(block.ravel(), minlength=(p1 - p0) * a * L * A).reshape(p1 - p0, a * L, A)
        return out.reshape((P, a, L, A) if classes else (P, a, A))

    def pair_counting(self, classes: bool = True) -> str:
        """How :meth:`pair_key_counts` counts pairs of the widest columns: "bits" (popcounts: few values and classes),
        "short" (2-byte keys, a bincount a pair: from _SHORT_ROWS rows, at most 2^16 cells) or "keys" (8-byte keys)."""
        A, L = self.A, self.L if classes else 1
        if A > 1 and not self._keys_pay((A - 1) * L, self.m):
            return "bits"
        return "short" if self.m >= _SHORT_ROWS and A * L * A <= 1 << 16 else "keys"

    def pair_class_rows(self) -> int:
        """Popcount rows a pair's (u, v) takes for the classes: 1 on class-sliced bits (:meth:`sliced_pays`), else one
        per class."""
        return 1 if self.sliced_pays(self.L) else self.L

    def sliced_pays(self, L: int) -> bool:
        """Whether popcount pairs over L classes go by class-sliced bits: (A - 1)(L - 1) >= _SLICED_ROWS."""
        return L > 1 and (self.A - 1) * (L - 1) >= _SLICED_ROWS

    def pairs_by_popcount(self) -> bool:
        """Whether :meth:`pair_key_counts` counts pairs of the widest columns by popcounts (few values and classes)."""
        return self.pair_counting() == "bits"

    def _pair_short_keys(self, firsts: np.ndarray, seconds: np.ndarray, a: int, L: int, out: np.ndarray) -> np.ndarray:
        """:meth:`pair_key_counts` over many rows (a pair a block): 2-byte keys (X_f L + y) A + X_j, the part before
        X_j made once per first feature (:meth:`_pair_head`, kept across calls), then one addition and one bincount a
        pair (the 8-byte keys of a million rows leave the cache between their passes). Counting only the rows outside
        the first feature's largest cell of each class (a gather per pair) was slower: digits-in-noise CMIM 69 -> 83
        ms."""
        A = self.A
        keys = np.empty(self.m, dtype=np.uint16)
        # pairs whose columns are transposed together (two a pair); small codes are transposed whole already
        span = max(1, firsts.size if self.X.nbytes <= BLOCK_BYTES else self._span(self.m) // 2)
        for q0 in range(0, firsts.size, span):
            q1 = min(firsts.size, q0 + span)
            columns, fi, si = self._pair_columns(firsts[q0:q1], seconds[q0:q1])
            heads: dict[int, np.ndarray] = {}
            for f, p in zip(firsts[q0:q1].tolist(), fi.tolist(), strict=True):
                if f not in heads:
                    heads[f] = self._pair_head(f, columns[p], L)
            heads = {f: heads[f] for f in sorted(heads)}  # _pair_key_blocks reads them in increasing order
            rows = _ONE_HEAD_BLOCK_ROWS if len(heads) == 1 and q1 - q0 >= _ONE_HEAD_PAIRS else _PAIR_BLOCK_ROWS
            if self.m < rows and min(_KEY_BLOCK // (a * L * A), _KEY_BLOCK // self.m) > 1:
                self._pair_key_blocks(firsts[q0:q1], si, columns, heads, a * L * A, out[q0:q1])
                continue
            size, flat = a * L * A, out.reshape(out.shape[0], -1)
            count = np.bincount if self.m <= _KEY_BLOCK else short_bincount
            b = 1  # pairs of one first feature a key, ((X_f L + y) A + X_j1) A + X_j2 ..., while the rows outnumber
            while b < q1 - q0 and size * A ** b <= min(1 << 16, self.m // _PACK_ROWS):  # the cells (see _PACK_ROWS)
                b += 1
            if b == 1:
                for p, f, j in zip(range(q0, q1), firsts[q0:q1].tolist(), si.tolist(), strict=True):
                    np.add(heads[f], columns[j], out=keys, casting="unsafe")  # < a L A <= 2^16
                    flat[p] = count(keys, minlength=size)
                continue
            by_first: dict[int, list[int]] = {}
            for p, f in enumerate(firsts[q0:q1].tolist()):
                by_first.setdefault(f, []).append(p)
            for f, places in by_first.items():
                for c in range(0, len(places), b):
                    part = places[c:c + b]
                    np.add(heads[f], columns[si[part[0]]], out=keys, casting="unsafe")
                    for p in part[1:]:
                        keys *= np.uint16(A)
                        np.add(keys, columns[si[p]], out=keys, casting="unsafe")  # < a L A^b <= 2^16
                    joint = count(keys, minlength=size * A ** (len(part) - 1)).reshape(
                        (size,) + (A,) * (len(part) - 1))  # (a L A, A, ...): the first pair's cells, the others' v
                    for i, p in enumerate(part):
                        others = tuple(t for t in range(1, len(part)) if t != i)
                        pair = joint.sum(axis=others) if others else joint
                        flat[q0 + p] = pair if i == 0 else pair.reshape(a * L, A, A).sum(axis=1).ravel()
        return out

    def _pair_key_blocks(self, firsts: np.ndarray, si: np.ndarray, columns: np.ndarray, heads: dict, size: int,
                         out: np.ndarray) -> None:
        """:meth:`_pair_short_keys` on few rows: B pairs in one bincount over 2-byte keys b size + head_f + X_j (B size
        cells and B m keys within _KEY_BLOCK: a bincount's own cost, about 1.5 us, is 1,000 keys' worth)."""
        B = min(firsts.size, _KEY_BLOCK // size, _KEY_BLOCK // self.m)
        offsets = (np.arange(B, dtype=np.uint16) * np.uint16(size))[:, None]
        keys = np.empty((B, self.m), dtype=np.uint16)
        if len(heads) == 1:  # a pick's pairs with every candidate (mRMR and JMI): one head with its offsets, made once
            ahead = offsets + next(iter(heads.values()))
        else:  # heads' keys are the distinct firsts in increasing order
            stacked = np.stack(list(heads.values()))
            where = np.searchsorted(np.fromiter(heads, dtype=np.int64, count=len(heads)), firsts)
        for p0 in range(0, firsts.size, B):
            p1 = min(firsts.size, p0 + B)
            block = keys[:p1 - p0]
            if len(heads) == 1:
                np.add(ahead[:p1 - p0], columns[si[p0:p1]], out=block, casting="unsafe")  # < B size <= 2^16
            else:
                np.add(stacked[where[p0:p1]], offsets[:p1 - p0], out=block)
                np.add(block, columns[si[p0:p1]], out=block, casting="unsafe")
            out[p0:p1] = np.bincount(block.ravel(), minlength=(p1 - p0) * size).reshape(p1 - p0, *out.shape[1:])

    def _pair_head(self, f: int, column: np.ndarray, L: int) -> np.ndarray:
        """(X_f L + y) A as uint16 (``column`` = X_f; y = 0 when L = 1): the first part of :meth:`_pair_short_keys`'s
        keys, kept across calls (lazy rounds pair the same few picks again: digits-in-noise CMIM made 2,459 of them
        for 64 picks), least recently used out first beyond _COLUMN_CACHE bytes."""
        key = (f, L)
        head = self._heads.get(key)
        if head is not None:
            self._heads.move_to_end(key)
            return head
        head = column.astype(np.uint16) * np.uint16(L * self.A)
        if L > 1:
            head += (self.y * self.A).astype(np.uint16)
        self._heads[key] = head
        self._heads_held += head.nbytes
        while self._heads_held > _COLUMN_CACHE and len(self._heads) > 1:
            self._heads_held -= self._heads.popitem(last=False)[1].nbytes
        return head

    def _pair_bit_counts(self, firsts: np.ndarray, seconds: np.ndarray, a: int, classes: bool) -> np.ndarray:
        """:meth:`pair_key_counts` by popcounts of the packed value bits (few values and classes): n(u, l, v) for
        u, v >= 1 is the popcount of bits(X_f = u, Y = l) & bits(X_j = v), the first part made once per first feature
        (:meth:`_first_planes`, kept across calls); u = 0 and v = 0 follow from the margins n(X_f = u, Y = l) and
        n(Y = l, X_j = v)."""
        bits, n, A = self._value_bits(np.concatenate([firsts, seconds])), self.n, self.A
        L = self.L if classes else 1
        words = bits.shape[1]
        margin = self.marginal[:, seconds, :].transpose(1, 0, 2)  # (P, L, A): n(Y = l, X_j = v)
        first = self.marginal[:, firsts, :a].transpose(1, 2, 0)  # (P, a, L): n(X_f = u, Y = l)
        if not classes:
            margin, first = margin.sum(axis=1, keepdims=True), first.sum(axis=2, keepdims=True)
        P = firsts.size
        out = np.empty((P, a, L, A), dtype=np.int64)
        step = max(1, self._budget() // (8 * words * max((a - 1) * L * (A - 1), 1)))
        values = np.arange(A - 1)[None, :] * n
        distinct = np.unique(firsts)
        if classes and self.sliced_pays(L):
            self._pair_sliced_counts(firsts, seconds, a, out)
        elif P * (a - 1) * L * words >= _PLANE_WORDS * distinct.size:  # the first parts kept, each paired by broadcast
            for f in distinct:
                fl = self._first_planes(int(f), a, classes, bits)[None, :, :, None, :]  # (1, a-1, L, 1, words)
                mine = np.flatnonzero(firsts == f) if distinct.size > 1 else np.arange(P)
                for p0 in range(0, mine.size, step):
                    rows = mine[p0:p0 + step]
                    jv = bits[values + seconds[rows, None]][:, None, None]  # (B, 1, 1, A-1, words)
                    out[rows, 1:, :, 1:] = np.bitwise_count(fl & jv).sum(axis=-1)
        else:  # small first parts: made for each pair, every pair of a block at once
            for p0 in range(0, P, step):
                f, j = firsts[p0:p0 + step], seconds[p0:p0 + step]
                fl = bits[values[:, :a - 1] + f[:, None]]  # (B, a-1, words)
                if classes:
                    fl = fl[:, :, None, :] & self._classes_bits()[None, None]
                else:
                    fl = fl[:, :, None, :]
                jv = bits[values + j[:, None]]  # (B, A-1, words)
                out[p0:p0 + step, 1:, :, 1:] = np.bitwise_count(fl[:, :, :, None, :] & jv[:, None, None]).sum(axis=-1)
        out[:, 1:, :, 0] = first[:, 1:] - out[:, 1:, :, 1:].sum(axis=-1)
        out[:, 0] = margin - out[:, 1:].sum(axis=1)
        return out if classes else out[:, :, 0]

    def _class_layout(self) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
        """The class-sliced row layout: each row's bit position (its class's rows in order, each class from a word of
        its own), the first word of each class with rows, and the words in all."""
        if self._layout is None:
            sizes = np.bincount(self.y, minlength=self.L)
            words = -(-sizes // 64)
            starts = np.cumsum(words) - words
            ahead = np.cumsum(sizes) - sizes  # rows of the classes before
            rank = np.empty(self.m, dtype=np.int64)
            rank[np.argsort(self.y, kind="stable")] = np.arange(self.m)
            self._layout = (starts[self.y] * 64 + rank - ahead[self.y], starts[sizes > 0], int(words.sum()),
                            np.flatnonzero(sizes > 0))
        return self._layout

    def _sliced_bits(self, features: np.ndarray) -> np.ndarray:
        """bits(X_j = v) as :meth:`_value_bits` with the rows in class order, each class from a word of its own (the
        layout of :meth:`_class_layout`): (n * (A-1), words) uint64, packed for ``features`` when first asked for."""
        pos, _, words, _ = self._class_layout()
        n = self.n
        if self._sliced is None:
            self._sliced = np.zeros((n * (self.A - 1), words), dtype=np.uint64)
            self._sliced_packed = np.zeros(n, dtype=bool)
        need = np.unique(features)
        need = need[~self._sliced_packed[need]]
        out = self._sliced.view(np.uint8)
        chunk = max(1, (_TILE_ROWS * _TILE_COLS) // max(words * 64, 1))
        for c in range(0, need.size, chunk):
            cols = need[c:c + chunk]
            tile = np.ascontiguousarray(self.X[:, cols].T)
            spread = np.zeros((cols.size, words * 64), dtype=bool)  # the class gaps stay 0
            for v in range(1, self.A):
                spread[:, pos] = tile == v
                out[(v - 1) * n + cols] = np.packbits(spread, axis=1)
        self._sliced_packed[need] = True
        return self._sliced

    def _pair_sliced_counts(self, firsts: np.ndarray, seconds: np.ndarray, a: int, out: np.ndarray) -> None:
        """n(X_f = u, Y = l, X_j = v) for u, v >= 1 into ``out[:, 1:, :, 1:]``: one AND and popcount of the class-sliced
        bits (:meth:`_sliced_bits`) per (u, v), summed over each class's words (``np.add.reduceat``), where the
        class planes take an AND per (u, l, v): L times fewer word operations."""
        bits = self._sliced_bits(np.concatenate([firsts, seconds]))
        _, starts, words, present = self._class_layout()
        n, A, P = self.n, self.A, firsts.size
        if present.size < self.L:
            out[:, 1:, :, 1:] = 0
        step = max(1, self._budget() // (8 * words * max((a - 1) * (A - 1), 1)))
        for p0 in range(0, P, step):
            f, j = firsts[p0:p0 + step], seconds[p0:p0 + step]
            fu = bits[(np.arange(a - 1) * n)[None, :] + f[:, None]]  # (B, a-1, words)
            jv = bits[(np.arange(A - 1) * n)[None, :] + j[:, None]]  # (B, A-1, words)
            ones = np.bitwise_count(fu[:, :, None, :] & jv[:, None, :, :])  # (B, a-1, A-1, words) uint8
            by_class = np.add.reduceat(ones, starts, axis=-1, dtype=np.int64)  # (B, a-1, A-1, classes with rows)
            out[p0:p0 + step, 1:, present, 1:] = by_class.transpose(0, 1, 3, 2)

    def _classes_bits(self) -> np.ndarray:
        """bits(Y = l) packed as the value bits are, (L, words) uint64, made once."""
        if self._class_bits is None:
            member = np.zeros((self.L, -(-self.m // 64) * 64), dtype=bool)
            member[self.y, np.arange(self.m)] = True
            self._class_bits = np.packbits(member, axis=1).view(np.uint64)
        return self._class_bits

    def _first_planes(self, f: int, a: int, classes: bool, bits: np.ndarray) -> np.ndarray:
        """bits(X_f = u) & bits(Y = l) for u = 1 .. a-1 (without ``classes``: bits(X_f = u)), (a-1, L, words): the
        first part of :meth:`_pair_bit_counts`, kept across calls (lazy rounds pair the same few picks again), least
        recently used out first beyond _COLUMN_CACHE bytes."""
        key = (f, a, classes)
        held = self._planes.get(key)
        if held is not None:
            self._planes.move_to_end(key)
            return held
        rows = bits[np.arange(a - 1) * self.n + f]  # (a-1, words)
        if classes:
            planes = rows[:, None, :] & self._classes_bits()[None]
        else:
            planes = rows[:, None, :]
        self._planes[key] = planes
        self._planes_held += planes.nbytes
        while self._planes_held > _COLUMN_CACHE and len(self._planes) > 1:
            self._planes_held -= self._planes.popitem(last=False)[1].nbytes
        return planes

    def _key_groups(self, rows: np.ndarray, cell: np.ndarray, C: int, class_counts: np.ndarray, whole: bool,
                    cache: _State | None) -> tuple:
        """The key path's rows to count, their groups (cell, class) = cell * L + y and, when every row is here, the
        group of each class's largest cell (counted as the class's marginal minus the other cells: never read)."""
        if cache is not None and cache.keys is not None:
            return cache.keys
        L = self.L
        group = cell * L + self.y[rows]
        skip = None
        if C > 1 and whole:
            skip = class_counts.argmax(axis=0) * L + np.arange(L)
            keep = np.ones(C * L, dtype=bool)
            keep[skip] = False
            read = keep[group]
            rows, group = rows[read], group[read]
        out = (rows, group, skip)
        if cache is not None:
            cache.keys = out
            cache.nbytes += rows.nbytes + group.nbytes
        return out

    def _key_counts(self, rows: np.ndarray, cell: np.ndarray, C: int, class_counts: np.ndarray, whole: bool,
                    features: np.ndarray | None, cache: _State | None) -> np.ndarray:
        """:meth:`_counts` by the key path: a (C, L, A, width) view of (width, C, L, A) int64 counts."""
        L = self.L
        rows, group, skip = self._key_groups(rows, cell, C, class_counts, whole, cache)
        counts = self._value_group_counts(None if rows.size == self.m else rows, group, C * L, features)
        by_class = counts.reshape(counts.shape[0], C, L, self.A)
        if skip is not None:  # the skipped groups' bins are 0: each is its class's marginal minus the other cells
            rest = np.einsum("wcla->wla", by_class)
            margin = self.marginal.transpose(1, 0, 2)  # (n, L, A)
            by_class[:, skip // L, np.arange(L)] = (margin if features is None else margin[features]) - rest
        return by_class.transpose(1, 2, 3, 0)

    def _group_bits(self, rows: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
        member = np.zeros((n_groups, -(-self.m // 64) * 64), dtype=bool)
        member[group, rows] = True
        return np.packbits(member, axis=1).view(np.uint64)

    def _group_value_counts(self, rows: np.ndarray, group: np.ndarray, n_groups: int,
                            features: np.ndarray | None = None, gbits: np.ndarray | None = None) -> np.ndarray:
        """n(group g, X_j = v) for v >= 1 and every feature (or only ``features``, B of them): (n_groups,
        n * (A-1)) floats, column (v-1) * n + j (or (v-1) * B + b)."""
        width = self.n if features is None else features.size
        cols = width * (self.A - 1)
        if cols == 0 or rows.size == 0:
            return np.zeros((n_groups, cols))
        words = -(-self.m // 64)
        if self._bits_pay(n_groups, rows.size):
            bits = self._value_bits(features)
            if features is not None:  # the bit rows of the chosen features only
                bits = bits[(np.arange(1, self.A)[:, None] - 1) * self.n + features[None, :]].reshape(cols, -1)
            if gbits is None:
                gbits = self._group_bits(rows, group, n_groups)
            out = np.empty((n_groups, cols))
            step = max(1, self._budget() // (32 * words))  # bit rows per AND: the temporary within a quarter budget
            for g in range(n_groups):
                for c in range(0, cols, step):
                    out[g, c:c + step] = np.bitwise_count(bits[c:c + step] & gbits[g]).sum(axis=1)
            return out
        # per block of rows: float32 indicators of X[r, j] == v (v = 1..A-1) of those rows only, times the
        # group indicator (CSR built directly: rows sorted by group, no COO round trip); float64 sums of blocks
        out = np.zeros((n_groups, cols))
        size = self.block_rows()
        dense = np.empty((min(size, rows.size), cols), dtype=np.float32)
        X = self.X if features is None else None
        small = np.int16 if n_groups < 2**15 else np.int64
        for start in range(0, rows.size, size):
            r, gr = rows[start:start + size], group[start:start + size]
            codes = X[r] if X is not None else self.X[r][:, features]
            block = dense[:r.size]
            for v in range(1, self.A):
                np.equal(codes, v, out=block[:, (v - 1) * width:v * width], casting="unsafe")
            order = np.argsort(gr.astype(small), kind="stable")  # radix sort
            indptr = np.zeros(n_groups + 1, dtype=np.int64)
            np.cumsum(np.bincount(gr, minlength=n_groups), out=indptr[1:])
            S = sp.csr_matrix((np.ones(r.size, dtype=np.float32), order, indptr), shape=(n_groups, r.size))
            out += S @ block
        return out

    # --- subset states -----------------------------------------------------------------------------------
    def _state(self, subset: tuple[int, ...]) -> _State:
        hit, start = recall_prefix(self._states, subset)  # a hit, or the longest cached prefix to extend
        if hit is not None:
            return hit
        if start == 0 and () not in self._states:  # one cell of every row: its class counts are the class sizes
            whole = self.class_sizes[None].copy()
            self._states[()] = (_State(np.arange(self.m), np.zeros(self.m, dtype=np.int64), 1, whole)
                                if not self.merge_pure or np.count_nonzero(whole) > 1 else
                                _State(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), 0, whole[:0]))
        state = self._states[subset[:start]]
        for i in range(start, len(subset)):
            f = subset[i]
            a_f = int(self.arities[f])
            state = self._refine(state.rows, state.cell * a_f + self.X[state.rows, f], state.n_cells * a_f)
            self._states[subset[:i + 1]] = state
        held, limit = sum(st.nbytes for st in self._states.values()), min(4 * self._budget(), BLOCK_BYTES)
        while len(self._states) > _STATE_CACHE or (held > limit and len(self._states) > 2):
            _, old = self._states.popitem(last=False)  # least recently used first; the newest two stay
            held -= old.nbytes
        return state

    def _refine(self, rows: np.ndarray, codes: np.ndarray, n_codes: int) -> _State:
        if n_codes <= 4 * max(rows.size, 1):  # small code range: compress by counting, no sort
            present = np.bincount(codes, minlength=n_codes) > 0
            relabel = np.cumsum(present) - 1
            cell, n_cells = relabel[codes], int(present.sum())
        else:
            uniques, cell = np.unique(codes, return_inverse=True)
            n_cells = uniques.size
        counts = np.bincount(cell * self.L + self.y[rows], minlength=n_cells * self.L).reshape(-1, self.L)
        if self.merge_pure:
            mixed = np.count_nonzero(counts, axis=1) > 1
            if not mixed.all():
                keep = mixed[cell]
                relabel = np.cumsum(mixed) - 1
                return _State(rows[keep], relabel[cell[keep]], int(mixed.sum()), counts[mixed].astype(np.float64))
        return _State(rows, cell.astype(np.int64), n_cells, counts.astype(np.float64))

    # --- tables ------------------------------------------------------------------------------------------
    def mixed_count_blocks(self, subset: Sequence[int], features: np.ndarray | None = None) -> Iterator[np.ndarray]:
        """n(mixed cell c, Y = l, X_j = v) for every feature j (or only ``features``, B of them: a lazy
        evaluation's few candidates), in blocks of cells: arrays (C_b, L, A, n or B).

        Blocks hold at most about ``_BLOCK_ENTRIES`` numbers, so memory stays bounded however many
        cells the subset has; pure rows are left out.
        """
        state = self._state(tuple(int(j) for j in subset))
        features = None if features is None else np.asarray(features, dtype=np.int64)
        A, L, C = self.A, self.L, state.n_cells
        n = self.n if features is None else features.size
        if not C:
            return
        block = max(1, _BLOCK_ENTRIES // (L * A * n))
        if C <= block:
            yield self._counts(state.rows, state.cell, C, state.class_counts, whole=state.rows.size == self.m,
                               features=features, cache=state)
            return
        order = np.argsort(state.cell, kind="stable")
        rows, cells = state.rows[order], state.cell[order]
        for start in range(0, C, block):
            stop = min(C, start + block)
            lo, hi = np.searchsorted(cells, [start, stop])
            yield self._counts(rows[lo:hi], cells[lo:hi] - start, stop - start, state.class_counts[start:stop],
                               whole=False, features=features)

    def _groups(self, rows: np.ndarray, cell: np.ndarray, C: int, class_counts: np.ndarray, whole: bool,
                cache: _State | None) -> tuple:
        """The groups (cell, class) to count: their rows, group ids, number, the groups left to subtraction (or
        None) and their packed bits when popcounts pay; kept on the subset's state (``cache``) for its next use."""
        if cache is not None and cache.groups is not None:
            return cache.groups
        L = self.L
        group = cell * L + self.y[rows]
        if C > 1 and whole:
            # every row is here: per class, the largest cell is the class marginal minus the other cells
            skip = class_counts.argmax(axis=0) * L + np.arange(L)  # group id (c*_l, l)
            keep_group = np.ones(C * L, dtype=bool)
            keep_group[skip] = False
            keep_row = keep_group[group]
            rows, group, n_groups = rows[keep_row], (np.cumsum(keep_group) - 1)[group[keep_row]], C * L - L
        else:
            skip = keep_group = None
            n_groups = C * L
        gbits = self._group_bits(rows, group, n_groups) if self._bits_pay(n_groups, rows.size) else None
        out = (rows, group, n_groups, skip, keep_group, gbits)
        if cache is not None:
            cache.groups = out
            cache.nbytes += sum(a.nbytes for a in out if isinstance(a, np.ndarray))
        return out

    def _counts(self, rows: np.ndarray, cell: np.ndarray, C: int, class_counts: np.ndarray,
                whole: bool, features: np.ndarray | None = None, cache: _State | None = None) -> np.ndarray:
        A, L = self.A, self.L
        n = self.n if features is None else features.size
        if C == 1 and whole:  # one cell of every row (J empty): the class marginals n(Y = l, X_j = v), counted once
            _ = self.marginal
            return (self._marginal_by_value if features is None else self._marginal_by_value[:, :, features])[None]
        if self._keys_pay(C * L, rows.size):
            _ = self.marginal
            return self._key_counts(rows, cell, C, class_counts, whole, features, cache)
        g_rows, group, n_groups, skip, keep_group, gbits = self._groups(rows, cell, C, class_counts, whole, cache)
        upper = np.empty((C, L, A - 1, n))
        if skip is not None:
            _ = self.marginal
            part = self._group_value_counts(g_rows, group, n_groups, features, gbits)
            upper.reshape(C * L, -1)[keep_group] = part
            for l, g in enumerate(skip):
                c = g // L
                mask = np.ones(C, dtype=bool)
                mask[c] = False
                margin = self._marginal_by_value[l, 1:]
                upper[c, l] = (margin if features is None else margin[:, features]) - upper[mask, l].sum(axis=0)
        else:
            upper[:] = self._group_value_counts(g_rows, group, n_groups, features, gbits).reshape(C, L, A - 1, n)
        counts = np.empty((C, L, A, n))
        counts[:, :, 1:, :] = upper
        counts[:, :, 0, :] = class_counts[:, :, None] - upper.sum(axis=2)
        return counts

    def cell_sums(self, subset: Sequence[int], reducer, params, features: np.ndarray | None = None) -> np.ndarray:
        """Per feature j (every feature, or only ``features``), the reducer's sum over the mixed cells (c, v) of
        J + {j} (see MixedCellReducer)."""
        sums = np.zeros(self.n if features is None else len(features))
        for block in self.mixed_count_blocks(subset, features):
            sums += reducer.cell_sums(block, params, self.nlogn)
        return sums

    def mixed_counts(self, subset: Sequence[int]) -> np.ndarray:
        """All blocks of :meth:`mixed_count_blocks` in one array (C, L, A, n)."""
        blocks = list(self.mixed_count_blocks(subset))
        return np.concatenate(blocks) if blocks else np.empty((0, self.L, self.A, self.n))

    def extension_counts(self, subset: Sequence[int], candidates: np.ndarray) -> np.ndarray:
        """Counts of (X_{subset + [j]}, Y) for every candidate j: (B, (mixed cells + L) * A, L).

        The first cells are (mixed cell, value of X_j); the last L * A cells hold the pure-l rows
        split by X_j (all in column l). Padded cells (values >= the arity of X_j) are empty.
        """
        return np.concatenate(list(self.extension_count_batches(subset, candidates)))

    def extension_count_batches(self, subset: Sequence[int], candidates: np.ndarray,
                                batch_bytes: int | None = None) -> Iterator[np.ndarray]:
        """:meth:`extension_counts` in batches of candidates of at most ``batch_bytes`` each (one when None), in
        order; the subset's counts are made once."""
        counts = self.mixed_counts(subset)
        C, L, A = counts.shape[0], self.L, self.A
        pure = self.marginal - counts.sum(axis=0).transpose(0, 2, 1)  # (L, n, A): rows in pure cells, by class
        cand = np.asarray(candidates, dtype=np.int64)
        step = cand.size if batch_bytes is None else max(1, batch_bytes // (8 * (C + L) * A * L))
        for start in range(0, cand.size, max(step, 1)):
            part = cand[start:start + step]
            out = np.zeros((part.size, C + L, A, L))
            out[:, :C] = counts[..., part].transpose(3, 0, 2, 1)
            for l in range(L):
                out[:, C + l, :, l] = pure[l][part]
            yield out.reshape(part.size, (C + L) * A, L)

    def pair_counts(self, f: int, candidates: np.ndarray) -> np.ndarray:
        """n(X_j = v, X_f = u) for every candidate j: (B, A, a_f) (the feature-feature tables of mRMR)."""
        a_f = int(self.arities[f])
        cand = np.asarray(candidates, dtype=np.int64)
        if self._keys_pay(a_f, self.m):
            return self._value_group_counts(None, self.X[:, f], a_f, cand).transpose(0, 2, 1)
        rows = np.arange(self.m)
        group = self.X[:, f]
        upper = self._group_value_counts(rows, group, a_f).reshape(a_f, self.A - 1, self.n)
        sizes = np.bincount(group, minlength=a_f).astype(np.float64)
        counts = np.empty((a_f, self.A, self.n))
        counts[:, 1:, :] = upper
        counts[:, 0, :] = sizes[:, None] - upper.sum(axis=1)
        return counts[..., cand].transpose(2, 1, 0)
