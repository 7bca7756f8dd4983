"""Validation of tabular data: size limits (from :mod:`fslab.limits`), data errors, per-column profiles and flags.

Every problem found here is either an error (a :class:`DataError` subclass whose message says what
to change) or a flag: a plain sentence about a column that is kept but deserves a look (constant,
all missing, one distinct value per row like an ID, mostly missing, numbers stored as text).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..errors import DataError, TooLargeError
from ..limits import MB, Limits, over_limit  # Limits re-exported: fslab.limits is its one source
from .column_stats import BLOCK_CELLS, ColumnStats, NumericSource, scan
from .discretize import (
    DISCRETE_MAX,
    check_method,
    distinct_values,
    is_discrete,
    largest_share,
    mark_ties,
    mean_std_block_edges,
    numeric_values,
    robust_switch,
    uniform_edges,
)

ID_MIN_ROWS = 10          # below this, "a distinct value per row" is too common to mean anything
MOSTLY_MISSING = 0.5
OUTLIER_IQR = 3.0         # outliers: values beyond [Q1 - 3 IQR, Q3 + 3 IQR] (Tukey's "far out" fences)
STRETCHED = 0.9           # ... that leave at least this share of the rows in one of the three mean-std bins


class EmptyFileError(DataError):
    """The file or frame holds no data."""


class BinaryFileError(DataError):
    """The upload is not text (a spreadsheet, an archive, an image...)."""


class MalformedFileError(DataError):
    """The text could not be parsed as a delimited table."""


class NoHeaderError(DataError):
    """The first row holds data, not column names."""


class DuplicateColumnError(DataError):
    """Two columns share a name."""


class UnknownTargetError(DataError):
    """The target column named by the user does not exist."""


class TargetClassError(DataError):
    """The target has a single class, or the positive class does not occur in it."""


class InfiniteValueError(DataError):
    """A numeric column holds +inf or -inf."""


class DataLimitError(DataError, TooLargeError):
    """More rows, columns or cells than the limits (:mod:`fslab.limits`) allow."""


def check_size(n_rows: int, n_columns: int, limits: Limits | None) -> None:
    """Raise DataLimitError when the table has more rows, columns or cells than ``limits`` (None: no cap)."""
    if limits is None:
        return
    if n_rows > limits.max_rows:
        raise DataLimitError(over_limit("max_rows", f"the data has {n_rows:,} rows", limits))
    if n_columns > limits.max_columns:
        raise DataLimitError(over_limit("max_columns", f"the data has {n_columns:,} columns", limits))
    if n_rows * n_columns > limits.max_cells:
        raise DataLimitError(over_limit("max_cells", f"the data has {n_rows * n_columns:,} cells (rows x columns)",
                                        limits))


def check_bytes(n_bytes: int, limits: Limits | None) -> None:
    """Raise DataLimitError when a file of ``n_bytes`` is larger than the upload limit (MB of 10^6 bytes, as
    Streamlit's ``max_upload_size``); None: no cap."""
    if limits is not None and n_bytes > limits.max_upload_mb * MB:
        got = f"the file has {n_bytes / MB:,.1f} MB ({n_bytes:,} bytes)"
        raise DataLimitError(over_limit("max_upload_mb", got, limits))


def check_field(what: str, n_chars: int, limits: Limits | None) -> None:
    """Raise DataLimitError when ``what`` (the header line, a cell) has more than ``max_field_chars`` characters;
    None: no cap."""
    if limits is not None and n_chars > limits.max_field_chars:
        raise DataLimitError(over_limit("max_field_chars", f"{what} has {n_chars:,} characters", limits))


def check_names(names) -> tuple[str, ...]:
    """Column names as text; raise DuplicateColumnError naming the repeated ones."""
    names = tuple(str(n).strip() for n in names)
    seen: dict[str, list[int]] = {}
    for i, n in enumerate(names):
        seen.setdefault(n, []).append(i + 1)
    dups = {n: pos for n, pos in seen.items() if len(pos) > 1}
    if dups:
        listed = "; ".join(f"{n!r} (columns {', '.join(map(str, pos))})" for n, pos in list(dups.items())[:5])
        raise DuplicateColumnError(f"column names must be unique; repeated: {listed}. Rename the repeated columns")
    return names


def check_finite(name: str, values: np.ndarray) -> None:
    """Raise InfiniteValueError if the numeric column ``values`` holds +-inf."""
    bad = np.isinf(values)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise InfiniteValueError(
            f"column {name!r} has {int(bad.sum())} infinite value(s) (first in data row {first + 1}); "
            "replace them by a number or leave the cells empty (missing)"
        )


def _kind(column: pd.Series, values: np.ndarray | None, integral: bool) -> str:
    if pd.api.types.is_bool_dtype(column):
        return "boolean"
    if values is None:
        return "text"
    return "integer" if integral else "real"


def profile_column(name: str, column: pd.Series) -> dict:
    """Type, distinct non-missing values, missing count and flags (short words plus sentences)."""
    m = len(column)
    values = numeric_values(column)
    if values is not None:
        check_finite(name, values)
        missing_mask = np.isnan(values)
        uniques, _, integral = distinct_values(values[~missing_mask])
        n_distinct = int(uniques.size)
    else:
        missing_mask = column.isna().to_numpy()
        n_distinct, integral = int(column[~missing_mask].astype(str).nunique()), False
    n_missing = int(missing_mask.sum())
    kind = _kind(column, values, integral)
    flags, sentences = _sentences(name, kind, m, n_distinct, n_missing, column)
    return {"column": name, "type": kind, "distinct": n_distinct, "missing": n_missing,
            "flags": ", ".join(flags), "_sentences": sentences}


def _sentences(name: str, kind: str, m: int, n_distinct: int, n_missing: int, column=None,
               factorized: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[list, list]:
    """Flags and sentences of a column; ``factorized``: a text column's (code per row, -1 missing; distinct texts)
    when the caller has them (the column typing's hashing), instead of factorizing ``column`` again."""
    flags, sentences = [], []
    if n_missing == m:
        flags.append("all missing")
        sentences.append(f"Column {name!r} is empty in every row; it is kept but cannot help.")
    elif n_distinct == 1 and n_missing == 0:
        flags.append("constant")
        sentences.append(f"Column {name!r} has the same value in every row; it is kept but cannot help.")
    elif n_missing > MOSTLY_MISSING * m:
        flags.append("mostly missing")
        sentences.append(f"Column {name!r} is missing in {n_missing / m:.0%} of rows; missing is its own category.")
    if m >= ID_MIN_ROWS and n_distinct == m and kind in ("integer", "text"):
        flags.append("ID-like")
        sentences.append(
            f"Column {name!r} has a different value in every row, like an ID; it would fit the sample "
            "perfectly and tell nothing about new data. Consider dropping it."
        )
    if kind == "text" and n_missing < m:
        if factorized is not None:
            codes, uniques = factorized[0][factorized[0] >= 0], factorized[1]
        else:
            codes, uniques = pd.factorize(column[column.notna()].astype(str))   # each distinct text parsed once
        numeric = pd.to_numeric(pd.Series(np.asarray(uniques, dtype=object)), errors="coerce").notna().to_numpy()
        share = float(numeric[codes].mean()) if numeric.any() else 0.0
        if share >= 0.8:
            flags.append("numbers as text")
            sentences.append(
                f"Column {name!r} is mostly numbers ({share:.0%}) but some entries are text, so it is "
                "treated as categories; fix those entries to bin it as a number."
            )
    return flags, sentences


def pct(share: float) -> str:
    """A share as a whole percentage rounded down (99.5 % of the rows is not "100%"), as the plan's notes say it."""
    return f"{math.floor(share * 100 + 1e-9)}%"


def outlier_notes(frame: pd.DataFrame, array: np.ndarray | None, stats: ColumnStats, method: str = "auto",
                  bins: int = 3) -> dict[int, tuple[str, str]]:
    """Numeric columns whose far outliers crowd the bins of ``method``: {feature position: (flag, sentence)}.

    A binned column (not kept as is) is flagged when it has values beyond Tukey's far-out fences
    [Q1 - 3 IQR, Q3 + 3 IQR] and at least ``STRETCHED`` (90 %) of its non-missing rows fall in one bin: one of the
    three mean-std bins (-inf, mu - sigma), [mu - sigma, mu + sigma), [mu + sigma, inf) for "mean-std" and
    "auto", one of the ``bins`` equal-width bins for "uniform". Quantile bins are not stretched by outliers, so
    "quantile" flags nothing. The sentence says what the binning in use does and suggests only what would change
    the codes: quantile bins where they put fewer rows in their fullest bin (auto's own rule,
    :func:`fslab.data.discretize.robust_switch`: under "auto" such a column already has them), otherwise fixing
    the values. Occupancy is one pass over blocks of rows; only the crowded columns are sorted. SQL and Dask say
    the same words (:func:`outlier_words`) from counts made in the engine (``from_sql``, ``from_dask``).
    """
    method, bins = check_method(method, bins)
    if method == "quantile":
        return {}
    source = NumericSource.of(frame, array)
    cols = np.flatnonzero(outlier_columns(stats.n_distinct, stats.integral, bins))
    if not cols.size:
        return {}
    n = source.n_rows - stats.n_missing[cols]
    # only the binned columns are read, once when they fit one block (edges and occupancy both use it)
    blocks = list(source.row_blocks(cols=cols)) if source.n_rows * cols.size <= BLOCK_CELLS else None
    if method == "uniform":
        U = uniform_edges(stats.lo[cols], stats.hi[cols], bins)
        share = np.zeros(cols.size)
        for idx, block in source.column_blocks(cols):
            share[idx] = largest_share(block, U[idx], n[idx])
    else:
        share = _mean_std_share(source, cols, stats, n, blocks)
    crowded = np.flatnonzero(share >= STRETCHED)
    levels = np.linspace(0.0, 1.0, bins + 1)[1:-1]   # the quantile bins' inner edges (block_edges' levels)
    probs = np.concatenate([[0.25, 0.75], levels])
    out = {}
    names = [str(c) for c in frame.columns]
    small_rank = np.cumsum(stats.small) - 1
    small_ints = source.dtype.kind in "biu" and source.dtype.itemsize <= 2
    for idx, block in source.column_blocks(cols[crowded]):
        # quartiles of a block's columns in one call (those with missing values one by one, without them)
        # with the quantile bins' edges (numpy's linear rule, as encode_frame's): one partition of each column
        complete = stats.n_missing[cols[crowded[idx]]] == 0
        q = np.empty((2 + levels.size, idx.size))
        if complete.any():   # along contiguous columns: partitioning strided ones costs ~3x more
            q[:, complete] = np.quantile(np.ascontiguousarray(block[:, complete].T, dtype=np.float64), probs, axis=1)
        for k in np.flatnonzero(~complete):   # in float64, as encode_frame (no small-integer overflow between values)
            x = block[:, k].astype(np.float64, copy=False)
            q[:, k] = np.quantile(x[~np.isnan(x)], probs)
        q1, q3 = q[:2]
        lo, hi = q1 - OUTLIER_IQR * (q3 - q1), q3 + OUTLIER_IQR * (q3 - q1)
        with np.errstate(invalid="ignore"):
            if small_ints and np.isfinite(q[:2]).all():   # integers: x < lo <=> x < ceil(lo), x > hi <=> x > floor(hi)
                far = (block < np.clip(np.ceil(lo), -2**31, 2**31 - 1).astype(np.int32)) | \
                    (block > np.clip(np.floor(hi), -2**31, 2**31 - 1).astype(np.int32))
            else:
                far = (block < lo) | (block > hi)   # a missing value is never far
        n_far = far.sum(axis=0)
        flagged = np.flatnonzero(n_far)
        if not flagged.size:
            continue
        # quantile bins' fullest share, as encode_frame's auto computes it (sorted edges, tied edges merged)
        Q = mark_ties(np.sort(q[2:, flagged].T, axis=1))
        q_share = largest_share(block[:, flagged], Q, n[crowded[idx[flagged]]])
        for k, qs in zip(flagged, q_share, strict=True):
            c = crowded[idx[k]]
            i = int(cols[c])
            j = int(source.positions[i])
            if stats.small[i]:   # the distinct values are the scan's: no pass over the column's far rows
                r = small_rank[i]
                values = np.flatnonzero(stats.present[stats.starts[r]:stats.starts[r + 1]]) + stats.lo[i]
                first = values[(values < lo[k]) | (values > hi[k])][:3]
            else:
                first = np.unique(block[far[:, k], k])[:3]
            out[j] = outlier_words(names[j], int(n_far[k]), first, float(lo[k]), float(hi[k]), method, bins,
                                   float(share[c]), float(qs))
    return out


def _mean_std_share(source: NumericSource, cols: np.ndarray, stats: ColumnStats, n: np.ndarray, blocks
                    ) -> np.ndarray:
    """The share of each column's non-missing rows in its fullest mean-std bin (one pass over blocks of rows)."""
    E = mean_std_block_edges(source, cols, stats, blocks)
    low = np.zeros(cols.size, dtype=np.int64)
    high = np.zeros(cols.size, dtype=np.int64)
    if source.dtype.kind in "biu" and source.dtype.itemsize <= 2 and bool(np.isfinite(E).all()):
        # integers: x < e <=> x < ceil(e) and x >= e <=> x >= ceil(e), compared in int32
        E = np.clip(np.ceil(E), -2**31, 2**31 - 1).astype(np.int32)
    for _, part in blocks if blocks is not None else source.row_blocks(cols=cols):
        with np.errstate(invalid="ignore"):
            low += (part < E[:, 0]).sum(axis=0)
            high += (part >= E[:, 1]).sum(axis=0)
    return np.maximum(np.maximum(low, high), n - low - high) / np.maximum(n, 1)


def outlier_columns(n_distinct, integral, bins: int):
    """The numeric columns :func:`outlier_notes` looks at (a mask): binned (not kept as is) with more than
    DISCRETE_MAX distinct values."""
    return ~is_discrete(n_distinct, integral, bins) & (np.asarray(n_distinct) > DISCRETE_MAX)


def outlier_words(name: str, n_far: int, first, lo: float, hi: float, method: str, bins: int, share: float,
                  q_share: float) -> tuple[str, str]:
    """(flag, sentence) of one column's outliers under ``method``: what they do to the bins in use and the one change
    that would change the codes. ``n_far``: its rows beyond the fences [``lo``, ``hi``] = [Q1 - 3 IQR, Q3 + 3 IQR];
    ``first``: its smallest distinct far values (three are shown); ``share``: its rows' share in the fullest bin
    of ``method``; ``q_share``: in the fullest of ``bins`` quantile bins. Every engine (memory, SQL, Dask) says
    these words."""
    shown = ", ".join(f"{v:g}" for v in list(first)[:3]) + (", ..." if n_far > 3 else "")
    quantile_helps = bool(robust_switch(share, q_share))
    said = f"Column {name!r} has {n_far} outlier(s) ({shown}; beyond [Q1 - 3 IQR, Q3 + 3 IQR] = [{lo:g}, {hi:g}])"
    kind = f"{bins} equal-width bins" if method == "uniform" else "three mean-std bins"
    crowd = f"{kind} put {pct(share)} of the rows in one bin"
    if method == "auto" and quantile_helps:
        return ("outliers: quantile bins",
                f"{said}: {crowd}, so robust bins (auto) give it {bins} quantile bins, with at most {pct(q_share)} "
                "in one. Fix the values if they are errors.")
    if quantile_helps:
        robust = " (or robust bins, auto)" if method == "mean-std" else ""
        return ("outliers: use quantile bins",
                f"{said} that stretch the bins: {crowd}. Quantile bins{robust} would put at most {pct(q_share)} in "
                "one; or fix the values.")
    keep = ", so robust bins (auto) keep mean-std bins" if method == "auto" else ""
    return ("outliers",
            f"{said}: {crowd}, and {bins} quantile bins would not spread them (many rows share one value: "
            f"{pct(q_share)} in one){keep}. Fix the values if they are errors.")


def stretched_columns(frame: pd.DataFrame, array: np.ndarray | None, stats: ColumnStats, method: str = "auto",
                      bins: int = 3) -> dict[int, str]:
    """The sentences of :func:`outlier_notes`: {feature position: sentence}."""
    return {j: said for j, (_, said) in outlier_notes(frame, array, stats, method, bins).items()}


def column_stats(frame: pd.DataFrame, array: np.ndarray | None = None) -> ColumnStats:
    """:func:`fslab.column_stats.scan` of the numeric feature columns; InfiniteValueError names a column with +-inf."""
    source = NumericSource.of(frame, array)
    names = [str(c) for c in frame.columns]
    return scan(source, on_infinite=lambda i, column: check_finite(names[source.positions[i]], column))


def profile(frame: pd.DataFrame, array: np.ndarray | None = None, stats: ColumnStats | None = None,
            text_codes: dict[str, tuple[np.ndarray, np.ndarray]] | None = None
            ) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """Per-column summary (column, type, distinct, missing, flags) and the flag sentences.

    Numeric columns come from ``stats`` (whole-block numpy statistics, see :func:`column_stats`; ``array``:
    the frame's values as one numeric array when the caller has it); text columns are profiled one by one, from
    ``text_codes`` ({column: (code per row, -1 missing; distinct texts)}, the column typing's hashing of a text
    column that is its own text) when given.
    """
    text_codes = text_codes or {}
    m, n = frame.shape
    names = [str(c) for c in frame.columns]
    source = NumericSource.of(frame, array)
    stats = column_stats(frame, array) if stats is None else stats
    distinct = np.zeros(n, dtype=np.int64)
    missing = np.zeros(n, dtype=np.int64)
    kinds = np.full(n, "text", dtype=object)
    distinct[source.positions], missing[source.positions] = stats.n_distinct, stats.n_missing
    kinds[source.positions] = np.where(stats.integral, "integer", "real")
    dtypes = [array.dtype] * n if array is not None else list(frame.dtypes)
    for j in range(n):
        if kinds[j] == "text" and names[j] in text_codes:
            codes, uniques = text_codes[names[j]]
            missing[j] = int(np.count_nonzero(codes < 0))
            distinct[j] = len(uniques)
        elif kinds[j] == "text":
            column = frame.iloc[:, j]
            present = column.notna()
            missing[j] = m - int(present.sum())
            distinct[j] = int(column[present].astype(str).nunique())
        elif pd.api.types.is_bool_dtype(dtypes[j]):
            kinds[j] = "boolean"
    # only columns that may carry a flag (or text, for "numbers as text") go through the sentences
    maybe = (missing == m) | ((distinct == 1) & (missing == 0)) | (missing > MOSTLY_MISSING * m) | (kinds == "text")
    if m >= ID_MIN_ROWS:
        maybe |= (distinct == m) & (kinds == "integer")
    flags = np.full(n, "", dtype=object)
    sentences: list[str] = []
    for j in np.flatnonzero(maybe).tolist():
        given = text_codes.get(names[j]) if kinds[j] == "text" else None
        words, said = _sentences(names[j], kinds[j], m, int(distinct[j]), int(missing[j]),
                                 frame.iloc[:, j] if kinds[j] == "text" and given is None else None, given)
        flags[j] = ", ".join(words)
        sentences += said
    table = pd.DataFrame({"column": names, "type": kinds, "distinct": distinct, "missing": missing, "flags": flags})
    return table, tuple(sentences)
