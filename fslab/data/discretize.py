"""Discretisation: every feature column becomes small integer codes plus the name of each code.

Numeric columns are binned by one of ``METHODS``:

* ``mean-std`` (Ahmed et al., footnote 6): three bins (-inf, mu-sigma), [mu-sigma, mu+sigma),
  [mu+sigma, inf) with the sample standard deviation (ddof=1, as MATLAB's ``std``);
* ``quantile``: ``bins`` bins holding about equal numbers of rows (edges at the empirical quantiles;
  tied edges merge, so a column with many ties may get fewer bins);
* ``uniform``: ``bins`` equal-width bins between the column's minimum and maximum;
* ``auto`` (robust bins, for a user's table): mean-std, except for a column whose outliers crowd at least
  ``ROBUST_SHARE`` (90 %) of its rows into one mean-std bin, which gets ``bins`` quantile bins when they crowd
  fewer rows into their largest bin (said in the notes: "income: quantile bins, because mean-std bins put 94 % of
  the rows in one bin (outliers)"). The papers' samples keep mean-std.

Every bin is left-closed, [a, b), so a value equal to an edge goes up: code(x) = #{edges e : e <= x}. A column
that is already discrete is kept as is (code = rank of the value): at most two distinct values, or integers
with at most ``max(bins, DISCRETE_MAX)`` distinct values. Text columns become category codes in sorted order.
A missing value becomes its own category ``"missing"``, the last code.

The work is vectorised over blocks of columns (:func:`encode_block`): statistics, edges and codes of every
column of a block come from whole-matrix numpy operations, and codes are stored in the smallest unsigned dtype
that holds them (:func:`code_dtype`: uint8 up to 256 levels).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

import numpy as np
import pandas as pd

from ..errors import DataError, ParameterError
from .column_stats import BLOCK_CELLS, ColumnStats, NumericSource, missing_mask, scan

METHODS = ("mean-std", "quantile", "uniform", "auto")   # every engine's (in memory, SQL, Dask)
MEMORY_METHODS = METHODS   # the former in-memory-only list (robust bins now run on every engine)
ROBUST_SHARE = 0.9   # auto: a column with at least this share of its rows in one mean-std bin gets quantile bins
DISCRETE_MAX = 17   # integer columns with at most this many distinct values are kept as they are (optdigits: 0..16)
MAX_BINS = 100
MISSING = "missing"


@dataclass(frozen=True, eq=False)
class ColumnCodes:
    """One encoded column: ``codes`` in 0 .. len(categories)-1 and how it was encoded."""

    codes: np.ndarray
    categories: tuple[str, ...]
    kind: str   # "binned", "discrete" (kept as is) or "categorical"


def check_method(method: str, bins: int) -> tuple[str, int]:
    """Validate a discretisation request; returns (method, bins)."""
    if method not in METHODS:
        raise ParameterError(f"unknown discretisation method {method!r}; choose one of {', '.join(METHODS)}")
    if isinstance(bins, bool) or not isinstance(bins, int | np.integer) or not 2 <= bins <= MAX_BINS:
        raise ParameterError(f"bins must be an integer from 2 to {MAX_BINS}; got {bins!r}")
    return method, int(bins)


def code_dtype(n_levels: int) -> np.dtype:
    """Smallest unsigned dtype holding codes 0 .. n_levels - 1 (uint8 up to 256 levels)."""
    for dtype in (np.uint8, np.uint16, np.uint32):
        if n_levels - 1 <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.uint64)


def _scaled_mean_std(F: np.ndarray, miss: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Mean and sample std (ddof=1) of each column of a whole float block, computed on x / max|x|."""
    scale = np.nanmax(np.abs(F), axis=0) if F.size else np.ones(F.shape[1])
    scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
    Z = F / scale
    n = F.shape[0] if miss is None else (~miss).sum(axis=0)
    if miss is not None:
        Z = np.where(miss, 0.0, Z)
    mean = Z.sum(axis=0) / np.maximum(n, 1)
    dev = Z - mean
    if miss is not None:
        dev[miss] = 0.0
    var = np.einsum("ij,ij->j", dev, dev) / np.maximum(n - 1, 1)
    return mean * scale, np.sqrt(var) * scale


def mean_std_edges(x: np.ndarray) -> np.ndarray:
    """Edges [mu - sigma, mu + sigma] of the paper's three bins (sample std, ddof=1; 0 for one value)."""
    with np.errstate(over="ignore", invalid="ignore"):
        mu, sigma = _scaled_mean_std(np.asarray(x, dtype=np.float64)[:, None], None)
        return np.array([mu[0] - sigma[0], mu[0] + sigma[0]])


def block_edges(F: np.ndarray, miss: np.ndarray | None, method: str, bins: int) -> np.ndarray:
    """Inner edges (columns x edges) of every column of the whole float block ``F``, sorted along each row.

    mean-std: mu -+ sigma; quantile: the empirical k/bins quantiles (numpy's linear rule); uniform:
    min + k (max - min) / bins, as ``np.linspace``. Missing values (NaN) are left out. Ties are kept
    (see :func:`mark_ties`); an edge that overflows is not finite.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        if method == "mean-std":
            mu, sigma = _scaled_mean_std(F, miss)
            E = np.stack([mu - sigma, mu + sigma], axis=1)
        elif method == "quantile":
            q = np.linspace(0.0, 1.0, bins + 1)[1:-1]
            E = np.empty((F.shape[1], q.size))
            full = np.ones(F.shape[1], dtype=bool) if miss is None else ~miss.any(axis=0)
            if full.any():
                E[full] = np.quantile(F[:, full], q, axis=0).T
            for j in np.flatnonzero(~full):   # columns with missing values: their finite values only
                assert miss is not None       # (full is all True without a mask)
                x = F[~miss[:, j], j]
                E[j] = np.quantile(x, q) if x.size else np.nan
        else:
            E = uniform_edges(np.fmin.reduce(F, axis=0), np.fmax.reduce(F, axis=0), bins)
    return np.sort(E, axis=1)


def uniform_edges(lo: np.ndarray, hi: np.ndarray, bins: int) -> np.ndarray:
    """lo + k (hi - lo) / bins for k = 1 .. bins-1, per column (np.linspace's formula; no overflow)."""
    with np.errstate(over="ignore", invalid="ignore"):
        step = (hi - lo) / bins
        step = np.where(np.isfinite(step), step, hi / bins - lo / bins)
        return np.arange(1, bins)[None, :] * step[:, None] + lo[:, None]


def mark_ties(E: np.ndarray) -> np.ndarray:
    """Sorted edges with each repeat replaced by +inf (tied edges merge; no finite x reaches +inf)."""
    E = E.copy()
    tied = np.zeros(E.shape, dtype=bool)
    tied[:, 1:] = E[:, 1:] == E[:, :-1]
    E[tied] = np.inf
    return E


def bin_edges(x: np.ndarray, method: str, bins: int) -> np.ndarray:
    """Inner edges of the bins of the finite values ``x`` (the outer bins are open to +-inf)."""
    if method == "auto":
        x = np.asarray(x, dtype=np.float64)
        E = mean_std_edges(x)
        q = mark_ties(block_edges(x[:, None], None, "quantile", bins))
        ms, qs = largest_share(x[:, None], E[None, :], x.size), largest_share(x[:, None], q, x.size)
        if not (ms[0] >= ROBUST_SHARE and qs[0] < ms[0]):
            return E
        return q[0][np.isfinite(q[0])]
    if method == "mean-std":
        return mean_std_edges(x)
    E = mark_ties(block_edges(np.asarray(x, dtype=np.float64)[:, None], None, method, bins))[0]
    return E[np.isfinite(E)]


def _fmt(v: float) -> str:
    return f"{v:.4g}"


def bin_names(edges: np.ndarray) -> tuple[str, ...]:
    """Interval names of the bins cut at ``edges``: (-inf, a), [a, b), ..., [z, inf)."""
    return _interval_names([_fmt(e) for e in edges])


def _interval_names(inner: list[str]) -> tuple[str, ...]:
    bounds = ["-inf", *inner, "inf"]
    return tuple(("(" if i == 0 else "[") + f"{bounds[i]}, {bounds[i + 1]})" for i in range(len(bounds) - 1))


def _bin_name_rows(E: np.ndarray) -> list[tuple[str, ...]]:
    """:func:`bin_names` of each row's finite edges (marked ties are +inf), every edge formatted in one pass."""
    if not E.size:
        return [_interval_names([]) for _ in range(E.shape[0])]
    text = [_fmt(v) for v in E.ravel().tolist()]
    w = E.shape[1]
    finite = np.isfinite(E)
    if finite.all():
        return [_interval_names(text[r * w:(r + 1) * w]) for r in range(E.shape[0])]
    keep = finite.tolist()
    return [_interval_names([text[r * w + c] for c in range(w) if keep[r][c]]) for r in range(E.shape[0])]


def distinct_values(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Sorted distinct values of finite ``x``, each value's rank, and whether all are integers.

    Integer columns with a small range (the common case: 0/1 indicators, counts) use one
    ``np.bincount`` instead of a sort, so a wide table of indicators encodes in linear time.
    """
    if x.size == 0:
        return x, np.zeros(0, dtype=np.int64), True
    lo, hi = float(x.min()), float(x.max())
    integral = bool(np.all(x == np.floor(x)))
    if integral and hi - lo < 4 * x.size + 1024:
        offset = (x - lo).astype(np.int64)
        present = np.bincount(offset) > 0
        rank = np.cumsum(present) - 1
        return np.flatnonzero(present) + lo, rank[offset], integral
    uniques, inverse = np.unique(x, return_inverse=True)
    return uniques, inverse.astype(np.int64), integral


def is_discrete(n_distinct, integral, bins: int):
    """Kept as is: at most two distinct values, or integers with at most max(bins, DISCRETE_MAX) of them."""
    return (n_distinct <= 2) | (integral & (n_distinct <= max(bins, DISCRETE_MAX)))


def value_name(v: float) -> str:
    return str(int(v)) if float(v).is_integer() and abs(v) < 1e15 else _fmt(v)


def encode_numeric(values: np.ndarray, method: str, bins: int, name: str = "column") -> ColumnCodes:
    """Codes of a numeric column (float, NaN = missing; no infinities): kept, or binned by ``method``."""
    values = np.asarray(values, dtype=np.float64)
    enc = encode_frame(pd.DataFrame({name: values}), method, bins, array=values[:, None])
    return ColumnCodes(enc.X[:, 0].astype(np.int64), enc.categories[0], enc.kinds[0])


def text_factorize(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(codes, distinct texts as an object array) of a column by hashing, not sorting: code -1 for a missing value.

    Rows are equal when their text (``str(value)``) is: pandas text columns and categories are factorized as
    they are (their values are their text); other columns (object, mixed) are turned into text first, since
    hashing would merge 1 and 1.0 or True, whose texts differ."""
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return (np.asarray(column.cat.codes, dtype=np.int64),
                np.asarray(dtype.categories.astype(str), dtype=object))
    if isinstance(dtype, pd.StringDtype):
        codes, uniques = pd.factorize(column, use_na_sentinel=True)
        return np.asarray(codes, dtype=np.int64), np.asarray(uniques, dtype=object)
    present = column.notna().to_numpy(bool)
    part, uniques = pd.factorize(column[present].astype(str))
    codes = np.full(len(column), -1, dtype=np.int64)
    codes[present] = part
    return codes, np.asarray(uniques, dtype=object)


def encode_categorical(column: pd.Series, factorized: tuple[np.ndarray, np.ndarray] | None = None) -> ColumnCodes:
    """Codes of a text (or mixed) column: categories in sorted order of their text, missing last.

    One hash pass over the rows (:func:`text_factorize`, or ``factorized``: its result when the caller has it);
    only the distinct texts are sorted (the same order as sorting every row's text)."""
    codes, texts = text_factorize(column) if factorized is None else factorized
    uniques, rank = np.unique(texts, return_inverse=True)
    names = [str(u) for u in uniques]
    out = np.append(rank.astype(np.int64), len(names))[codes]   # code -1 picks the last entry: missing
    if (codes < 0).any():
        names.append(MISSING)
    return ColumnCodes(out, tuple(names), "categorical")


def numeric_values(column: pd.Series) -> np.ndarray | None:
    """The column as floats (NaN = missing), or None if it is not numeric. Booleans count as 0/1."""
    if pd.api.types.is_bool_dtype(column) or pd.api.types.is_numeric_dtype(column):
        if pd.api.types.is_complex_dtype(column):
            return None
        return column.to_numpy(dtype=np.float64, na_value=np.nan)
    return None


def encode_column(column: pd.Series, method: str = "mean-std", bins: int = 3) -> ColumnCodes:
    """Encode one feature column (see the module docstring for the rules)."""
    values = numeric_values(column)
    if values is None:
        return encode_categorical(column)
    return encode_numeric(values, method, bins, name=str(column.name))


@dataclass(frozen=True, eq=False)
class EncodedFrame:
    """All feature columns encoded: codes (m x n, smallest unsigned dtype), arities, names, raw source, notes.

    ``raw`` is what the numeric values can be read from (the caller's array or the features frame, never a
    copy), or None when every numeric column's codes equal its values minus a constant (integers lo..hi, all
    present, no missing: a Fisher score or a learner on the codes equals one on the values); ``values``
    builds the float matrix from it. ``kinds[j]`` is "binned", "discrete" (kept as is) or "categorical".
    """

    X: np.ndarray
    arities: np.ndarray
    categories: tuple[tuple[str, ...], ...]
    raw: object
    notes: tuple[str, ...]
    kinds: tuple[str, ...] = ()
    edges: dict[int, np.ndarray] | None = None    # {column: inner cut points} of the binned columns (code = #{e <= x})
    levels: dict[int, np.ndarray] | None = None   # {column: values kept as codes, in order} of the discrete columns
    # method="auto": {column: (mean-std's largest bin share, quantile's)} of the columns given quantile bins
    robust: dict[int, tuple[float, float]] | None = None

    @property
    def values(self) -> np.ndarray | None:
        return raw_matrix(self.raw)


_DESCRIBE = {
    "mean-std": "three bins (-inf, mu-sigma), [mu-sigma, mu+sigma), [mu+sigma, inf) with the sample std "
                "(Ahmed et al., footnote 6)",
    "quantile": "{bins} bins of about equal counts (quantiles)",
    "uniform": "{bins} equal-width bins",
    "auto": "three mean-std bins, or {bins} quantile bins where outliers crowd 90 % of the rows into one",
}


def _exact_mean_std(cols: np.ndarray, stats: ColumnStats, n: int) -> np.ndarray:
    """(mu - sigma, mu + sigma) from the exact integer sums of x and x^2: sigma^2 = (n S2 - S1^2) / (n (n - 1))
    with the numerator in Python integers (no rounding before the final division)."""
    assert stats.sums is not None and stats.squares is not None  # the caller checked
    s1 = [int(v) for v in stats.sums[cols]]
    s2 = [int(v) for v in stats.squares[cols]]
    mean = np.array([a / n for a in s1])
    var = np.array([(n * b - a * a) / (n * max(n - 1, 1)) for a, b in zip(s1, s2, strict=True)])
    sigma = np.sqrt(np.maximum(var, 0.0))
    return np.stack([mean - sigma, mean + sigma], axis=1)


def _mean_std_blocks(source: NumericSource, cols: np.ndarray, stats: ColumnStats, blocks=None) -> np.ndarray:
    """(mu - sigma, mu + sigma) of columns ``cols``, kept in ``stats.mean_std`` (the profile and the codes ask for
    the same columns), computed once from two passes over blocks of rows of those columns on x / max|x| (or from
    the exact integer moments of the scan, for small integers with no missing value). ``blocks``: the caller's
    ``list(source.row_blocks(cols=cols))`` when it reads them anyway (used when every column needs its edges)."""
    cols = np.asarray(cols, dtype=np.int64)
    todo = np.array([i for i in cols.tolist() if i not in stats.mean_std], dtype=np.int64)
    if todo.size:
        given = blocks if blocks is not None and todo.size == cols.size else None
        for i, edges in zip(todo.tolist(), _compute_mean_std(source, todo, stats, given), strict=True):
            stats.mean_std[i] = (float(edges[0]), float(edges[1]))
    return np.array([stats.mean_std[i] for i in cols.tolist()], dtype=np.float64).reshape(cols.size, 2)


def _compute_mean_std(source: NumericSource, cols: np.ndarray, stats: ColumnStats, given=None) -> np.ndarray:
    if stats.sums is not None and stats.small[cols].all() and not stats.n_missing[cols].any():
        return _exact_mean_std(cols, stats, source.n_rows)
    scale = np.fmax(np.abs(stats.lo[cols]), np.abs(stats.hi[cols]))
    scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
    n = source.n_rows - stats.n_missing[cols]
    # the columns' blocks are read once when they fit one block (both passes use them), else twice
    # Fortran order, as the slices of whole blocks this replaced were: numpy sums depend on the layout, and the codes
    # of a value on an edge must not change
    blocks: Iterable[tuple[Any, np.ndarray]] = ((rows, np.asfortranarray(block))
                                                for rows, block in (source.row_blocks(cols=cols) if given is None
                                                                    else given))
    if source.n_rows * cols.size <= BLOCK_CELLS or given is not None:
        blocks = list(blocks)
    total = np.zeros(cols.size)
    for _, block in blocks:
        Z = block / scale
        total += np.nansum(Z, axis=0) if Z.dtype.kind == "f" and stats.n_missing[cols].any() else Z.sum(axis=0)
    mean = total / np.maximum(n, 1)
    squares = np.zeros(cols.size)
    for _, block in (blocks if isinstance(blocks, list) else source.row_blocks(cols=cols)):
        dev = np.asfortranarray(block) / scale - mean
        if stats.n_missing[cols].any():
            dev = np.where(np.isnan(dev), 0.0, dev)
        squares += np.einsum("ij,ij->j", dev, dev)
    sigma = np.sqrt(squares / np.maximum(n - 1, 1))
    with np.errstate(over="ignore", invalid="ignore"):
        return np.stack([(mean - sigma) * scale, (mean + sigma) * scale], axis=1)


def mean_std_block_edges(source: NumericSource, cols: np.ndarray, stats: ColumnStats, blocks=None) -> np.ndarray:
    """(mu - sigma, mu + sigma) of the numeric columns ``cols`` of ``source``, exactly as :func:`encode_frame` bins
    them (columns x 2); ``blocks``: ``list(source.row_blocks(cols=cols))`` when the caller has read it."""
    return _mean_std_blocks(source, cols, stats, blocks)


def _edges(source: NumericSource, cols: np.ndarray, stats: ColumnStats, method: str, bins: int) -> np.ndarray:
    """Sorted inner edges of the binned columns ``cols`` (ties marked +inf)."""
    if method == "mean-std":
        E = _mean_std_blocks(source, cols, stats)
    elif method == "uniform":
        E = uniform_edges(stats.lo[cols], stats.hi[cols], bins)
    else:
        E = np.empty((cols.size, bins - 1))
        for idx, block in source.column_blocks(cols):
            F = block.astype(np.float64, copy=False)
            E[idx] = block_edges(F, missing_mask(F) if stats.n_missing[cols[idx]].any() else None, method, bins)
    return np.sort(E, axis=1)


def largest_share(F: np.ndarray, E: np.ndarray, n) -> np.ndarray:
    """Per column of the block ``F`` (rows x columns), the share of its ``n`` non-missing rows in its fullest bin
    under the sorted inner edges ``E`` (columns x edges; +inf marks a merged tie): with g_k = #{x >= e_k}, bin b
    holds g_b - g_{b+1} (g_0 = n, past the last edge 0). One comparison per edge, no sort."""
    with np.errstate(invalid="ignore"):
        ge = np.stack([(F >= E[:, k][None, :]).sum(axis=0) for k in range(E.shape[1])], axis=1)
    n = np.asarray(n, dtype=np.int64).reshape(-1)
    bounds = np.concatenate([np.broadcast_to(n, (F.shape[1],))[:, None], ge, np.zeros((F.shape[1], 1), np.int64)],
                            axis=1)
    return (-np.diff(bounds, axis=1)).max(axis=1) / np.maximum(n, 1)


def _robust_edges(source: NumericSource, cols: np.ndarray, stats: ColumnStats, bins: int, names
                  ) -> tuple[np.ndarray, dict[int, tuple[float, float]]]:
    """``auto``'s sorted inner edges of the binned columns ``cols`` (columns x max(2, bins - 1), +inf padded) and
    {position in cols: (mean-std's largest share, quantile's)} of the columns given quantile bins instead of
    mean-std: those with at least ROBUST_SHARE of their rows in one mean-std bin whose quantile bins crowd fewer.
    One pass over the binned columns for the occupancy, a sort only of the crowded ones."""
    M = np.sort(_mean_std_blocks(source, cols, stats), axis=1)
    _check_edges(M, cols, source, stats, names)
    present = source.n_rows - stats.n_missing[cols]
    share = np.zeros(cols.size)
    for idx, block in source.column_blocks(cols):
        share[idx] = largest_share(block, M[idx], present[idx])
    E = np.full((cols.size, max(2, bins - 1)), np.inf)
    E[:, :2] = M
    crowded = np.flatnonzero(share >= ROBUST_SHARE)
    robust: dict[int, tuple[float, float]] = {}
    if crowded.size:
        Q = mark_ties(_edges(source, cols[crowded], stats, "quantile", bins))
        _check_edges(np.where(np.isinf(Q), 0.0, Q), cols[crowded], source, stats, names)
        q_share = np.zeros(crowded.size)
        for idx, block in source.column_blocks(cols[crowded]):
            q_share[idx] = largest_share(block, Q[idx], present[crowded[idx]])
        better = robust_switch(share[crowded], q_share)
        E[crowded[better], :] = np.inf
        E[crowded[better], :Q.shape[1]] = Q[better]
        robust = {int(c): (float(share[c]), float(q)) for c, q in zip(crowded[better], q_share[better], strict=True)}
    return E, robust


def fullest_share(counts: np.ndarray, n) -> np.ndarray:
    """Per column, the share of its ``n`` non-missing rows in its fullest bin, from its rows per bin ``counts``
    (columns x bins): max_b counts[b] / n. The SQL and Dask paths count the bins in the engine."""
    return np.asarray(counts, dtype=np.int64).max(axis=1) / np.maximum(np.asarray(n, dtype=np.int64), 1)


def robust_switch(mean_std_share, quantile_share) -> np.ndarray:
    """``auto``'s rule per column: quantile bins where mean-std bins put at least :data:`ROBUST_SHARE` of the rows
    in one bin and quantile bins put fewer in their fullest one."""
    ms, q = np.asarray(mean_std_share, dtype=np.float64), np.asarray(quantile_share, dtype=np.float64)
    return (ms >= ROBUST_SHARE) & (q < ms)


def robust_note(name: str, mean_std_share: float, quantile_share: float) -> str:
    """The plan's words for a column ``auto`` gave quantile bins."""
    def pct(share: float) -> str:   # rounded down: 99.5 % is not "100 %" of the rows
        return f"{math.floor(share * 100 + 1e-9)}%"
    return (f"{name}: quantile bins, because mean-std bins put {pct(mean_std_share)} of the rows in one bin "
            f"(outliers); quantile bins put at most {pct(quantile_share)} in one.")


def _check_edges(E: np.ndarray, cols: np.ndarray, source: NumericSource, stats: ColumnStats, names) -> None:
    bad = ~np.isfinite(E).all(axis=1)
    if bad.any():   # e.g. values near 1e308 whose mean + std overflows
        i = int(cols[np.flatnonzero(bad)[0]])
        big = max(abs(stats.lo[i]), abs(stats.hi[i]))
        raise DataError(f"column {names[source.positions[i]]!r} has values too large to bin (|x| up to "
                        f"{big:.3g}); rescale the column")


def encode_frame(frame: pd.DataFrame, method: str = "mean-std", bins: int = 3, array: np.ndarray | None = None,
                 stats: ColumnStats | None = None, check_memory=None,
                 factorized: dict[str, tuple[np.ndarray, np.ndarray]] | None = None) -> EncodedFrame:
    """Encode every column of ``frame`` (features only) and say in notes what was done to how many.

    ``array``: the frame's values as one numeric 2-d array when the caller has it (``Dataset.from_arrays``):
    it is read in blocks of rows, never copied. ``stats``: the columns' :func:`fslab.column_stats.scan`, when
    the caller already has it. ``check_memory(n_bytes, what)`` is called before the codes are allocated.
    ``factorized``: {column: (code per row, -1 missing; distinct texts)} of text columns already hashed (the
    column typing's, :attr:`fslab.data.column_types.TypedFrame.text_codes`), rows as in ``frame``.
    """
    method, bins = check_method(method, bins)
    m, n = frame.shape
    names = [str(c) for c in frame.columns]
    source = NumericSource.of(frame, array)
    stats = scan(source) if stats is None else stats
    numeric = np.zeros(n, dtype=bool)
    numeric[source.positions] = True
    categories: list[tuple[str, ...] | None] = [None] * n
    kinds = ["categorical"] * n
    text_codes = {}
    for j in np.flatnonzero(~numeric):   # text columns, one at a time
        enc = encode_categorical(frame.iloc[:, j], (factorized or {}).get(names[j]))
        text_codes[j], categories[j] = enc.codes, enc.categories
    discrete = is_discrete(stats.n_distinct, stats.integral, bins)
    binned = np.flatnonzero(~discrete)
    robust: dict[int, tuple[float, float]] = {}
    if method == "auto" and binned.size:
        E, robust = _robust_edges(source, binned, stats, bins, names)   # checked, ties marked
    else:
        E = _edges(source, binned, stats, method, bins) if binned.size else np.zeros((0, 1))
        _check_edges(E, binned, source, stats, names)
        E = mark_ties(E)
    # names of every numeric column's codes
    small_rank = np.cumsum(stats.small) - 1
    sizes = []
    binned_names = iter(_bin_name_rows(E))   # the binned columns come in order
    missing_any, discrete_l = (stats.n_missing > 0).tolist(), discrete.tolist()
    positions = source.positions
    cut = {int(positions[i]): row[np.isfinite(row)] for i, row in zip(binned.tolist(), E, strict=True)}
    kept: dict[int, np.ndarray] = {}
    for i, j in enumerate(positions.tolist()):
        names_i: Sequence[str]
        if discrete_l[i]:
            if stats.small[i]:
                k = small_rank[i]
                values = np.flatnonzero(stats.present[stats.starts[k]:stats.starts[k + 1]]) + stats.lo[i]
            else:
                values = stats.uniques.get(i, np.zeros(0))
            kept[j] = np.asarray(values, dtype=np.float64)
            names_i = [value_name(v) for v in values]
            kinds[j] = "discrete"
        else:
            names_i = next(binned_names)
            kinds[j] = "binned"
        sizes.append(len(names_i))
        categories[j] = (*names_i, MISSING) if missing_any[i] else tuple(names_i)
    n_values = np.array(sizes, dtype=np.int64)
    filled = cast(list[tuple[str, ...]], categories)  # every column's names are set by now
    arities = np.array([len(c) for c in filled], dtype=np.int64)
    dtype = code_dtype(int(arities.max()) if n else 1)
    if (array is not None and source.n_columns == n and array.dtype.kind in "iu"
            and array.dtype.itemsize == dtype.itemsize and array.flags.c_contiguous
            and bool(_identity(source, stats, discrete).all())):
        X = array.view(dtype)   # every column already holds its codes 0 .. a-1: the caller's array, not a copy
    else:
        if check_memory is not None:
            check_memory(m * n * dtype.itemsize, f"the codes of {m:,} x {n:,} cells")
        X = np.empty((m, n), dtype=dtype)
        for j, codes in text_codes.items():
            X[:, j] = codes
        _numeric_codes(X, source, stats, discrete, binned, E, n_values)
    with np.errstate(over="ignore", invalid="ignore"):
        span = stats.hi - stats.lo + 1
    exact = discrete & stats.small & (stats.n_missing == 0) & (stats.n_distinct == span)
    raw = None if exact.all() else (array if array is not None else frame)
    quantile = {int(positions[binned[c]]): shares for c, shares in robust.items()}
    notes = kind_notes(kinds, filled, method, bins) + tuple(robust_note(names[j], *quantile[j]) for j in quantile)
    return EncodedFrame(X, arities, tuple(filled), raw, notes, tuple(kinds), cut, kept, quantile)


def _identity(source: NumericSource, stats: ColumnStats, discrete) -> np.ndarray:
    """Per numeric column: its integer values are already its codes 0 .. a-1 (every one present, none missing)."""
    with np.errstate(invalid="ignore"):
        return (discrete & stats.small & (stats.lo == 0) & (stats.n_missing == 0)
                & (stats.n_distinct == stats.hi + 1) & (source.dtype.kind in "biu"))


def _numeric_codes(X, source: NumericSource, stats: ColumnStats, discrete, binned, E, n_values) -> None:
    """Write the codes of every numeric column into X, a block of rows at a time.

    Columns whose values are already 0 .. a-1 (every integer present, no missing) are copied as they are;
    other small-range integer columns go through a rank table, wide-range ones through their sorted values.
    """
    identity = _identity(source, stats, discrete)
    small = np.flatnonzero(discrete & stats.small & ~identity)
    copy = np.flatnonzero(identity)
    wide = np.flatnonzero(discrete & ~stats.small & (stats.n_distinct > 0))
    small_rank = (np.cumsum(stats.small) - 1)[small]
    rank = np.zeros(0, dtype=np.int64)
    if small.size:   # rank of each value within its column (a table over every count slot: only when used)
        seen = np.cumsum(stats.present)
        before = np.concatenate([[0], seen])[stats.starts[:-1]]
        rank = seen - 1 - np.repeat(before, np.diff(stats.starts))
    shift = (stats.starts[small_rank] - stats.lo[small].astype(np.int64))[None, :] if small.size else None
    any_missing = bool(stats.n_missing.any())
    everything = source.n_columns == X.shape[1]
    integer_edges = None
    if source.dtype.kind in "biu" and source.dtype.itemsize <= 2 and binned.size:
        with np.errstate(invalid="ignore"):
            integer_edges = np.clip(np.ceil(E), -2**31, 2**31 - 1).astype(np.int32)   # +inf (ties) -> never reached
    rank = rank.astype(X.dtype)   # ranks are codes: gathered in the codes' dtype
    hit: np.ndarray | None = None   # the comparisons' bool buffer, reused by every block (no fresh pages per block)
    for rows, block in source.row_blocks():
        if everything and copy.size == block.shape[1]:
            X[rows] = block   # every column already holds its codes
            continue
        # codes in the block's layout (a frame's mixed columns come column-major): whole columns are written
        # contiguously, and transposed once into X at the end
        order: Literal["C", "F"] = "F" if block.flags.f_contiguous and not block.flags.c_contiguous else "C"
        direct = everything and order == "C"   # row-major codes of every column: written in place into X's rows
        out = X[rows] if direct else np.zeros(block.shape, dtype=X.dtype, order=order)
        if direct:
            out[...] = 0
        miss = missing_mask(block) if any_missing else None
        if copy.size:
            out[:, copy] = block[:, copy]
        if order == "F":   # column by column on contiguous columns, no copies of column groups
            _column_codes(out, block, miss, stats, small, shift, rank, binned,
                          E if integer_edges is None else integer_edges, integer_edges is not None)
        elif small.size:
            part = block[:, small]
            if miss is not None and stats.n_missing[small].any():
                part = np.where(miss[:, small], stats.lo[small][None, :], part)
            out[:, small] = _gather(rank, part.astype(np.int64) + shift)
        for i in wide:
            out[:, i] = np.searchsorted(stats.uniques[int(i)], block[:, i])
        if binned.size and order == "C":
            whole = binned.size == block.shape[1]   # every column binned (wide numeric data): no column copies
            F = block if whole else block[:, binned]
            # integers: x >= e  <=>  x >= ceil(e), compared with int32 edges (numpy casts the small integers of
            # the block in its buffered loop: no int32 copy of the block)
            edges = integer_edges if integer_edges is not None else E
            codes = out if whole else np.zeros_like(F, dtype=X.dtype)
            if hit is None or hit.shape[1] != F.shape[1] or hit.shape[0] < F.shape[0]:
                hit = np.empty(F.shape, dtype=bool)
            for k in range(edges.shape[1]):
                codes += np.greater_equal(F, edges[:, k][None, :], out=hit[:F.shape[0]])
            if not whole:
                out[:, binned] = codes
        if miss is not None:
            np.copyto(out, n_values[None, :].astype(X.dtype), where=miss)
        if everything and not direct:
            X[rows] = out
        elif not everything:
            X[rows, source.positions] = out


def _column_codes(out, block, miss, stats: ColumnStats, small, shift, rank, binned, edges, integer: bool) -> None:
    """Codes of the small-range discrete and the binned columns of a column-major block, one contiguous column at
    a time (each step vectorised over the rows); the same codes as the row-major path."""
    for k, i in enumerate(small):
        column = block[:, i]
        if miss is not None and stats.n_missing[i]:
            column = np.where(miss[:, i], stats.lo[i], column)
        out[:, i] = rank[column.astype(np.int64) + shift[0, k]]
    for k, i in enumerate(binned):
        column = block[:, i].astype(np.int32) if integer else block[:, i]
        codes = out[:, i]
        for edge in edges[k]:
            codes += column >= edge


def _gather(table: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``table[index]`` in the layout of ``index`` (numpy's fancy indexing returns row-major, and the strided
    write of a row-major result into column-major codes cost more than the gather)."""
    if index.flags.f_contiguous and not index.flags.c_contiguous:
        return table[index.ravel(order="F")].reshape(index.shape, order="F")
    return table[index]


def kind_notes(kinds, categories, method: str, bins: int, where: str = "") -> tuple[str, ...]:
    """The coding notes of a discretisation: how many columns were binned (with ``where`` their statistics came
    from, e.g. " (global statistics over all partitions)"), got fewer bins than asked, were kept as codes or as
    categories; one rule for the in-memory, Dask and SQL paths."""
    count = {k: kinds.count(k) for k in ("binned", "discrete", "categorical")}
    short = sum(1 for k, c in zip(kinds, categories, strict=True)
                if k == "binned" and method not in ("mean-std", "auto") and len(c) - (MISSING in c) < bins)
    notes = []
    if count["binned"]:
        notes.append(f"{count['binned']} numeric column(s) binned into " + _DESCRIBE[method].format(bins=bins)
                     + f"{where}.")
    if short:
        notes.append(f"{short} column(s) got fewer than {bins} bins because of tied or few distinct values.")
    if count["discrete"]:
        notes.append(f"{count['discrete']} column(s) with few distinct numbers kept as they are.")
    if count["categorical"]:
        notes.append(f"{count['categorical']} text column(s) coded as categories.")
    return tuple(notes)


def raw_matrix(raw) -> np.ndarray | None:
    """The raw numeric values as a float matrix (NaN for text and missing cells), for the Fisher score.

    ``raw`` is a numeric array (returned as is when it is already float; float32 when its integers are exact
    there) or a features frame (float64, text columns NaN). None stays None.
    """
    if raw is None:
        return None
    if isinstance(raw, np.ndarray):
        if raw.dtype.kind == "f":
            return raw
        exact = raw.dtype.kind == "b" or raw.dtype.itemsize <= 2   # 16-bit integers are exact in float32
        return raw.astype(np.float32 if exact else np.float64)
    source = NumericSource.of(raw)
    out = np.full(raw.shape, np.nan, dtype=np.float64)
    for rows, block in source.row_blocks():
        out[rows, source.positions] = block
    return out
