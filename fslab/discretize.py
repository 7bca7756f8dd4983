"""Discretisation: every feature column becomes small integer codes plus the name of each code.

Numeric columns are binned by one of ``METHODS``:

* ``mean-std`` (Ahmed et al., footnote 6): three bins (-inf, mu-sigma), [mu-sigma, mu+sigma),
  [mu+sigma, inf) with the sample standard deviation (ddof=1, as MATLAB's ``std``);
* ``quantile``: ``bins`` bins holding about equal numbers of rows (edges at the empirical quantiles;
  tied edges merge, so a column with many ties may get fewer bins);
* ``uniform``: ``bins`` equal-width bins between the column's minimum and maximum.

Every bin is left-closed, [a, b), so a value equal to an edge goes up. A column that is already
discrete is kept as is (code = rank of the value): at most two distinct values, or integers with at
most ``max(bins, DISCRETE_MAX)`` distinct values. Text columns become category codes in sorted order.
A missing value becomes its own category ``"missing"``, the last code.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .errors import DataError, ParameterError

METHODS = ("mean-std", "quantile", "uniform")
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


def mean_std_edges(x: np.ndarray) -> np.ndarray:
    """Edges [mu - sigma, mu + sigma] of the paper's three bins (sample std, ddof=1; 0 for one value)."""
    mu = float(np.mean(x))
    sigma = float(np.std(x, ddof=1)) if x.size > 1 else 0.0
    return np.array([mu - sigma, mu + sigma])


def bin_edges(x: np.ndarray, method: str, bins: int) -> np.ndarray:
    """Inner edges of the bins of the finite values ``x`` (the outer bins are open to +-inf)."""
    if method == "mean-std":
        return mean_std_edges(x)
    if method == "quantile":
        edges = np.quantile(x, np.linspace(0.0, 1.0, bins + 1)[1:-1])
    else:
        edges = np.linspace(float(np.min(x)), float(np.max(x)), bins + 1)[1:-1]
    return np.unique(edges)   # tied quantiles merge; also drops repeats when min == max


def _fmt(v: float) -> str:
    return f"{v:.4g}"


def bin_names(edges: np.ndarray) -> tuple[str, ...]:
    """Interval names of the bins cut at ``edges``: (-inf, a), [a, b), ..., [z, inf)."""
    bounds = ["-inf", *(_fmt(e) for e in edges), "inf"]
    return tuple(
        ("(" if i == 0 else "[") + f"{bounds[i]}, {bounds[i + 1]})" for i in range(len(bounds) - 1)
    )


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


def _is_discrete(n_distinct: int, integral: bool, bins: int) -> bool:
    return n_distinct <= 2 or (integral and n_distinct <= max(bins, DISCRETE_MAX))


def value_name(v: float) -> str:
    return str(int(v)) if float(v).is_integer() and abs(v) < 1e15 else _fmt(v)


def _with_missing(codes: np.ndarray, names: list[str], missing: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
    if missing.any():
        codes = np.where(missing, len(names), codes)
        names = [*names, MISSING]
    return codes.astype(np.int64), tuple(names)


def encode_numeric(values: np.ndarray, method: str, bins: int, name: str = "column") -> ColumnCodes:
    """Codes of a numeric column (float, NaN = missing; no infinities): kept, or binned by ``method``."""
    values = np.asarray(values, dtype=np.float64)
    missing = np.isnan(values)
    x = values[~missing]
    uniques, rank, integral = distinct_values(x)
    codes = np.zeros(values.shape, dtype=np.int64)
    if _is_discrete(uniques.size, integral, bins):
        codes[~missing] = rank
        names, kind = [value_name(v) for v in uniques], "discrete"
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            edges = bin_edges(x, method, bins)
        if not np.all(np.isfinite(edges)):   # e.g. values near 1e308 overflow the mean or the std
            raise DataError(f"column {name!r} has values too large to bin (|x| up to {np.abs(x).max():.3g}); "
                            "rescale the column")
        codes[~missing] = np.searchsorted(edges, x, side="right")   # left-closed bins [a, b)
        names, kind = list(bin_names(edges)), "binned"
    codes, cats = _with_missing(codes, names, missing)
    return ColumnCodes(codes, cats, kind)


def encode_categorical(column: pd.Series) -> ColumnCodes:
    """Codes of a text (or mixed) column: categories in sorted order of their text, missing last."""
    missing = column.isna().to_numpy()
    text = column[~missing].astype(str).to_numpy(dtype=object)
    uniques, inverse = np.unique(text, return_inverse=True)
    codes = np.zeros(len(column), dtype=np.int64)
    codes[~missing] = inverse
    codes, cats = _with_missing(codes, [str(u) for u in uniques], missing)
    return ColumnCodes(codes, cats, "categorical")


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
    """All feature columns encoded: codes (m x n), arities, category names, raw numeric values, notes."""

    X: np.ndarray
    arities: np.ndarray
    categories: tuple[tuple[str, ...], ...]
    values: np.ndarray
    notes: tuple[str, ...]


_DESCRIBE = {
    "mean-std": "three bins (-inf, mu-sigma), [mu-sigma, mu+sigma), [mu+sigma, inf) with the sample std "
                "(Ahmed et al., footnote 6)",
    "quantile": "{bins} bins of about equal counts (quantiles)",
    "uniform": "{bins} equal-width bins",
}


def encode_frame(frame: pd.DataFrame, method: str = "mean-std", bins: int = 3) -> EncodedFrame:
    """Encode every column of ``frame`` (features only) and say in notes what was done to how many."""
    method, bins = check_method(method, bins)
    m, n = frame.shape
    X = np.empty((m, n), dtype=np.int64)   # row-major, as CodedSource keeps it (no second copy)
    # column-major: each raw column is written contiguously
    values = np.empty((m, n), dtype=np.float64, order="F")
    categories, kinds, short = [], {"binned": 0, "discrete": 0, "categorical": 0}, 0
    for j, c in enumerate(frame.columns):
        column = frame[c]
        v = numeric_values(column)
        enc = encode_categorical(column) if v is None else encode_numeric(v, method, bins, name=str(c))
        values[:, j] = np.nan if v is None else v
        X[:, j] = enc.codes
        categories.append(enc.categories)
        kinds[enc.kind] += 1
        n_bins = len(enc.categories) - (MISSING in enc.categories)
        short += enc.kind == "binned" and method != "mean-std" and n_bins < bins
    notes = []
    if kinds["binned"]:
        notes.append(f"{kinds['binned']} numeric column(s) binned into " + _DESCRIBE[method].format(bins=bins) + ".")
    if short:
        notes.append(f"{short} column(s) got fewer than {bins} bins because of tied or few distinct values.")
    if kinds["discrete"]:
        notes.append(f"{kinds['discrete']} column(s) with few distinct numbers kept as they are.")
    if kinds["categorical"]:
        notes.append(f"{kinds['categorical']} text column(s) coded as categories.")
    arities = np.array([len(cats) for cats in categories], dtype=np.int64)
    return EncodedFrame(X, arities, tuple(categories), values, tuple(notes))
