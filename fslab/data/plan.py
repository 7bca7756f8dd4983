"""The plan: how a table is read, what is left out, how it is coded and how it is estimated, as one record.

Every engine (memory, SQL, Dask) reaches the same plan in three steps:

1. :func:`summarize` a frame (or one partition of it) into per-column :class:`ColumnSummary` records whose counts
   ADD across row partitions (rows, missing, how many non-missing values each parse reading reads, the flags the
   decision needs, distinct values up to a cap, numeric range and sums); :func:`merge` adds two of them.
2. :func:`decide` (pure and deterministic: the same summaries and options give the same plan) turns the summaries
   and the user's :class:`PlanOptions` into a :class:`TablePlan`: one :class:`ColumnPlan` per column (its type and
   parse reading, whether and why it is left out) and the target's encoding.
3. :func:`apply` reads a frame (or a partition) by the plan: parsed columns become floats, left-out ones go.
   The coding (levels, discrete values, cut points) is computed from the parsed values by each engine (in memory by
   :func:`fslab.data.discretize.encode_frame`) and recorded with :meth:`TablePlan.with_coding`; :func:`code` then
   codes any chunk of rows by the recorded plan alone.

The rules decide() applies (in this order, per feature column):

* ``column_types`` given: ``drop`` leaves the column out ("asked"); another type reads it with that type's best
  reading, and every non-missing value must parse (else :class:`~fslab.data.column_types.ColumnTypeError`).
* no non-missing value: left out ("all missing"); one distinct value (missing aside): left out ("constant"), both
  unless ``constant="keep"``.
* a text column is read as yes/no when every value is one, else by the date, percent or number reading that reads
  the most values when it reads at least :data:`MIN_PARSED` of them (the others become missing). A date whose first
  two numbers fit both orders (every value <= 12 in both places) is read month-first unless ``dayfirst=True``; a
  column that only fits day-first is read day-first; either way the plan says so.
* near-unique (``near_unique="drop"``): text with a distinct value in at least :data:`NEAR_UNIQUE` of the rows or
  more than :data:`TEXT_CAP` distinct values; numbers with a different value in every row (none missing) that
  are whole numbers or evenly spaced. A converted column (a date is a number) or one whose type was given is kept.
  When nothing else would remain, the near-unique columns are kept (flagged).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DataError, ParameterError
from . import parse_rules as pr
from .column_stats import KEEP_UNIQUES, ColumnStats, NumericSource, scan
from .data_checks import ID_MIN_ROWS
from .parse_rules import ColumnTypeError

MIN_PARSED = 0.95      # share of non-missing values a reading must read to be inferred
NEAR_UNIQUE = 0.5      # text columns with distinct values in at least this share of rows are left out
TEXT_CAP = 1 << 16     # distinct texts kept in a summary; a text column with more is near-unique
VALUES_CAP = KEEP_UNIQUES   # distinct numbers kept in a summary (enough to code a discrete column: <= 100 bins)


class _Types(Sequence):
    """The column types of ``column_types=``: the built-in ones and every registered
    :class:`fslab.data.parse_rules.ColumnKind`, read at each use (a type registered at start-up shows up in
    every check and list that reads :data:`TYPES`)."""

    BUILT_IN = ("auto", "number", "date", "percent", "boolean")

    def _all(self) -> tuple[str, ...]:
        return (*self.BUILT_IN, *pr.EXTRA, "category", "drop")

    def __iter__(self):
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __getitem__(self, i):
        return self._all()[i]

    def __contains__(self, kind) -> bool:
        return kind in self._all()

    def __repr__(self) -> str:
        return repr(self._all())

    def __eq__(self, other) -> bool:
        return tuple(self) == (tuple(other) if isinstance(other, Sequence) and not isinstance(other, str) else other)

    def __hash__(self) -> int:
        return hash(self._all())


TYPES: Sequence[str] = _Types()
LEFT_OUT = ("asked", "all missing", "constant", "near-unique")
ESTIMATES = ("plug-in", "cross-fitted")
MISSING = "missing"
EPOCH = pd.Timestamp("1970-01-01")
_WHAT = {"date": "dates", "percent": "percentages", "number": "numbers", "boolean": "yes/no values"}


def _what(kind: str) -> str:
    """The values of a parsed kind in words ("dates"; a registered kind's own ``what``)."""
    return _WHAT[kind] if kind in _WHAT else pr.EXTRA[kind].what


class PlanError(DataError):
    """A plan that cannot be applied to the data (a column missing, a value the plan's coding does not know)."""


def evenly_spaced(values: np.ndarray, lo: float | None = None, hi: float | None = None) -> bool:
    """Distinct values at one step from each other, as row numbers or generated IDs are.

    With ``n`` distinct values between ``lo`` and ``hi`` (the column statistics), that means every value sits on the
    grid lo + k (hi - lo) / (n - 1): one pass, no sort, and the first 64 values usually decide."""
    x = np.asarray(values, dtype=np.float64)
    x = x[~np.isnan(x)]
    if x.size < 3:
        return False
    lo = float(x.min()) if lo is None else lo
    hi = float(x.max()) if hi is None else hi
    step = (hi - lo) / (x.size - 1)
    if not step > 0:
        return False
    for part in (x[:64], x):
        r = (part - lo) / step
        if not np.allclose(r, np.round(r), rtol=0, atol=1e-6):
            return False
    return True


KEEP_HINT = "column_types={{{name!r}: 'category'}} (command line: --column-type {name}=category)"


def id_message(names: list[str], reasons: dict[str, str]) -> str:
    listed = ", ".join(f"{n!r} ({reasons[n]})" for n in names[:10])
    more = f", ... ({len(names)} in all)" if len(names) > 10 else ""
    first = names[0]
    return (f"Left out {len(names)} near-unique column(s): {listed}{more}. A column with (nearly) a different value "
            "in every row fits the sample by sheer number of values and tells nothing about new rows. To keep one, "
            f"pass {KEEP_HINT.format(name=first)}.")


# ---- 1. summaries


@dataclass(frozen=True)
class ColumnSummary:
    """Statistics of one column over some rows, mergeable across row partitions (:func:`merge`).

    ``source``: "numeric" (a number dtype: read as it is) or "text". ``counts``: rows per key, all additive:
    ``"read|<rule>|<order>|<mark>|<unit>"`` rows the reading parses, ``"unit|<unit>"`` rows the number rule matches
    with that unit, ``"comma|<rule>"`` rows whose number text has a decimal comma, ``"time|<reading>"`` parsed rows
    with a time of day. ``lows``/``highs``: range of each reading's values (dates in seconds since 1970-01-01).
    ``levels``: sorted distinct values (stripped texts, or floats) while there are at most :data:`TEXT_CAP` (text)
    or :data:`VALUES_CAP` (numbers), else None; ``level_counts``: rows per level (the target only).
    ``n_distinct``: exact when ``distinct_exact`` (an engine may set the exact count it counted itself), else a
    lower bound. Numbers: ``lo``, ``hi``, ``integral``, ``total`` (sum), ``total_sq`` (sum of squares).
    ``evenly_spaced`` (numbers, unique reals): known only on the whole column (None after a merge). ``example``:
    the first non-missing text value ("" for numbers: the profile shows their first row).
    """

    name: str
    source: str
    n_rows: int
    n_missing: int
    counts: dict[str, int] = field(default_factory=dict)
    lows: dict[str, float] = field(default_factory=dict)
    highs: dict[str, float] = field(default_factory=dict)
    levels: tuple | None = ()
    level_counts: tuple[int, ...] | None = None
    n_distinct: int = 0
    distinct_exact: bool = True
    lo: float = math.nan
    hi: float = math.nan
    integral: bool = True
    total: float = 0.0
    total_sq: float = 0.0
    example: str = ""
    evenly_spaced: bool | None = None

    @property
    def n_present(self) -> int:
        return self.n_rows - self.n_missing


@dataclass(frozen=True)
class TableSummary:
    """Summaries of every column of a table (the target's included), over the rows that have a target value;
    ``n_rows_total`` counts every row and ``target_missing`` those without a target."""

    columns: tuple[ColumnSummary, ...]
    target: str | None
    n_rows_total: int
    target_missing: int = 0

    def __getitem__(self, name: str) -> ColumnSummary:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(name)


def _key(reading: pr.Reading) -> str:
    return "read|" + reading.key()


def stripped_distinct(column: pd.Series) -> tuple[np.ndarray, pd.Series, bool]:
    """(code per row, -1 for missing; distinct stripped texts; whether every value is already its own stripped
    text) of a column read as text, by hashing: only the distinct values are stripped."""
    present = column.notna().to_numpy(bool)
    text_dtype = column.iloc[:0].astype(str).dtype
    codes = np.full(len(column), -1, dtype=np.int64)
    if isinstance(column.dtype, pd.StringDtype):
        every, uniques = pd.factorize(column, use_na_sentinel=True)
        part = np.asarray(every)[present]
    else:
        part, uniques = pd.factorize(column[present].astype(str))
    raw = np.asarray(uniques, dtype=object)
    stripped = pd.Series(raw, dtype=text_dtype).str.strip()
    merged, distinct = pd.factorize(stripped)
    codes[present] = np.asarray(merged, dtype=np.int64)[part]
    own = len(distinct) == len(raw) and bool((stripped.to_numpy(dtype=object) == raw).all())
    return codes, pd.Series(np.asarray(distinct, dtype=object), dtype=text_dtype), own


def _reading_counts(text: pd.Series, weights: np.ndarray, forced_only: bool = True) -> tuple[dict, dict, dict]:
    """(counts, lows, highs) of every reading of the distinct texts ``text`` (``weights``: rows per text)."""
    counts: dict[str, int] = {}
    lows: dict[str, float] = {}
    highs: dict[str, float] = {}

    if not len(text):
        return counts, lows, highs
    short = pr.parseable(text)
    digits = short & text.str.contains(r"\d", regex=True).to_numpy(bool)
    if digits.any():   # every rule but yes/no needs a digit and starts with a digit, a sign, a currency or a month
        digits[digits] = text[digits].str.match(pr.LEAD).to_numpy(bool)
    for rule in pr.all_rules():
        if not rule.inferred and not forced_only:
            continue
        pick = short if rule.kind == "boolean" or rule.kind in pr.EXTRA else digits
        if not pick.any():
            continue
        sub, w = text[pick], weights[pick]
        hit = sub.str.match(rule.pattern).fillna(False).to_numpy(bool)
        if not hit.any():
            continue
        sub, w = sub[hit], w[hit]
        groups = pr.extract(rule, sub)
        if rule.kind in pr.EXTRA:   # a registered kind: one reading per rule
            v = np.asarray(pr.EXTRA[rule.kind].value(rule, groups), dtype=np.float64)
            _add_rows(counts, lows, highs, _key(pr.Reading(rule.name)), ~np.isnan(v), v, w)
        elif rule.kind == "boolean":
            v = pr.boolean_value(groups)
            _add_rows(counts, lows, highs, _key(pr.Reading(rule.name)), ~np.isnan(v), v, w)
        elif rule.kind == "date":
            for order in rule.orders:
                reading = pr.Reading(rule.name, order)
                v = pr.date_value(rule, groups, order)
                ok = ~np.isnan(v)
                _add_rows(counts, lows, highs, _key(reading), ok, v, w)
                _add_rows(counts, {}, {}, "time|" + reading.key(), ok & (np.nan_to_num(v) % 86400 != 0), None, w)
        else:
            col = 0 if rule.kind == "percent" else 1
            num = groups[col]
            _add_rows(counts, {}, {}, "comma|" + rule.name, pr.comma_decimal(num) & num.notna().to_numpy(bool),
                      None, w)
            units = pr.number_unit(groups) if rule.kind == "number" else pd.Series("", index=groups.index)
            has = num.notna().to_numpy(bool)
            if rule.kind == "number":
                for unit, rows in _group_weights(units[has], w[has]).items():
                    counts["unit|" + unit] = counts.get("unit|" + unit, 0) + rows
            for mark in (".", ","):
                v = pr.number_value(num, mark == ",")
                ok = ~np.isnan(v) & has
                if rule.kind == "percent":
                    _add_rows(counts, lows, highs, _key(pr.Reading(rule.name, "", mark)), ok, v, w)
                    continue
                for unit in _group_weights(units[ok], w[ok]):
                    sel = ok & (units == unit).to_numpy(bool)
                    _add_rows(counts, lows, highs, _key(pr.Reading(rule.name, "", mark, unit)), sel, v, w)
    return counts, lows, highs


def _group_weights(labels: pd.Series, w: np.ndarray) -> dict[str, int]:
    """{label: sum of the weights of its values}, labels in sorted order (zero sums left out)."""
    if not len(labels):
        return {}
    names, index = np.unique(labels.to_numpy(dtype=object).astype(str), return_inverse=True)
    sums = np.bincount(index.ravel(), weights=w, minlength=len(names)).astype(np.int64)
    return {str(k): int(v) for k, v in zip(names.tolist(), sums.tolist(), strict=True) if v}


def _add_rows(counts, lows, highs, key: str, ok: np.ndarray, values, w: np.ndarray) -> None:
    n = int(w[ok].sum())
    if not n:
        return
    counts[key] = counts.get(key, 0) + n
    if values is not None:
        lows[key] = min(lows.get(key, math.inf), float(values[ok].min()))
        highs[key] = max(highs.get(key, -math.inf), float(values[ok].max()))


def _example(column: pd.Series) -> str:
    present = column.notna().to_numpy(bool)
    return str(column.iloc[int(present.argmax())]) if present.any() else ""


def summarize_text(column: pd.Series, name: str | None = None, counted: bool = False,
                   factorized: tuple[np.ndarray, pd.Series, bool] | None = None) -> ColumnSummary:
    """The summary of a column read as text (see :class:`ColumnSummary`); ``counted``: keep rows per level (the
    target). ``factorized``: :func:`stripped_distinct` of the column when the caller has it."""
    codes, distinct, _ = stripped_distinct(column) if factorized is None else factorized
    present = codes >= 0
    weights = np.bincount(codes[present], minlength=len(distinct)).astype(np.int64)
    counts, lows, highs = _reading_counts(distinct, weights)
    levels, level_counts = None, None
    if len(distinct) <= TEXT_CAP:   # Python's sort of the texts (code-point order, as np.unique's)
        texts = [str(v) for v in distinct.tolist()]
        if counted:
            order = sorted(range(len(texts)), key=texts.__getitem__)
            levels = tuple(texts[k] for k in order)
            level_counts = tuple(weights[order].tolist())
        else:
            levels = tuple(sorted(texts))
    return ColumnSummary(str(column.name if name is None else name), "text", len(column),
                         int((~present).sum()), counts, lows, highs, levels, level_counts,
                         len(distinct), True, example=_example(column))


def is_numeric(column: pd.Series) -> bool:
    return _numeric_dtype(column.dtype)


def summarize_numbers(frame: pd.DataFrame, stats: ColumnStats | None = None, counted: tuple[str, ...] = (),
                      moments: bool = True) -> list[ColumnSummary]:
    """Summaries of the numeric columns of ``frame`` (every column must be numeric), vectorised over blocks of
    columns by :func:`fslab.data.column_stats.scan` (``stats``: its result when the caller has it). ``moments``:
    also the sums of x and x^2 (one more pass; the in-memory loader skips it: its coding computes the moments
    from the values, and decide() never reads them), else NaN."""
    source = NumericSource.of(frame)
    if source.n_columns != frame.shape[1]:
        raise ParameterError("summarize_numbers needs numeric columns only")
    stats = scan(source) if stats is None else stats
    total = np.zeros(source.n_columns) if moments else np.full(source.n_columns, np.nan)
    total_sq = total.copy()
    for _, block in (source.row_blocks() if moments else ()):
        F = block if block.dtype.kind in "biu" else np.where(np.isnan(block), 0.0, block)
        total += F.sum(axis=0, dtype=np.float64)
        total_sq += np.einsum("ij,ij->j", F, F, dtype=np.float64, casting="unsafe")
    out = []
    small_rank = (np.cumsum(stats.small) - 1).tolist()
    names = [str(c) for c in frame.columns.tolist()]
    m = len(frame)
    # plain Python lists: one conversion per array, not a numpy scalar per column and field (2,000 columns: 30 ms)
    nds, misses, los, his = (stats.n_distinct.tolist(), stats.n_missing.tolist(), stats.lo.tolist(),
                             stats.hi.tolist())
    integral, small, starts = stats.integral.tolist(), stats.small.tolist(), stats.starts.tolist()
    totals, squares = total.tolist(), total_sq.tolist()
    for i, name in enumerate(names):
        nd = nds[i]
        values: tuple | None = None
        if nd <= VALUES_CAP:
            if small[i]:
                k = small_rank[i]
                vals = np.flatnonzero(stats.present[starts[k]:starts[k + 1]]) + los[i]
            else:
                vals = stats.uniques.get(i, np.zeros(0))
            values = tuple(np.asarray(vals, dtype=np.float64).tolist())
        level_counts = None
        if name in counted and values is not None:
            x = frame.iloc[:, i].to_numpy(dtype=np.float64, na_value=np.nan)
            level_counts = tuple(np.bincount(np.searchsorted(np.asarray(values), x[~np.isnan(x)]),
                                             minlength=len(values)).tolist())
        spaced = None
        if nd == m and not misses[i] and not integral[i]:
            spaced = evenly_spaced(frame.iloc[:, i].to_numpy(dtype=np.float64, na_value=np.nan), los[i], his[i])
        out.append(ColumnSummary(name, "numeric", m, misses[i], {}, {}, {}, values, level_counts, nd, True, los[i],
                                 his[i], integral[i], totals[i], squares[i], "", spaced))
    return out


def summarize(frame: pd.DataFrame | pd.Series, target: str | None = None, *, stats: ColumnStats | None = None,
              cache: dict | None = None, moments: bool = True) -> TableSummary:
    """Summaries of every column of ``frame`` (a DataFrame, or one column as a Series), over the rows whose
    ``target`` is present (every row without a target); the target's summary keeps its class counts.

    In memory, ``stats``: :func:`fslab.data.column_stats.scan` of the frame's numeric columns (rows with a target)
    when the caller has it; ``cache``: a dict that receives each text column's :func:`stripped_distinct`, which
    :func:`apply` reuses (one hashing of the rows); ``moments``: see :func:`summarize_numbers`."""
    if isinstance(frame, pd.Series):
        frame = frame.to_frame()
    names = [str(c) for c in frame.columns.tolist()]
    frame = frame.set_axis(names, axis=1)
    total_rows = len(frame)
    target_missing = 0
    if target is not None:
        if target not in names:
            raise PlanError(f"target column {target!r} is not in the data")
        gone = frame[target].isna().to_numpy(bool)
        target_missing = int(gone.sum())
        if target_missing:
            frame = frame.loc[~gone].reset_index(drop=True)
    dtypes = list(frame.dtypes)
    numeric = [n for n, t in zip(names, dtypes, strict=True) if _numeric_dtype(t)]
    by_name = {}
    if numeric:
        part = frame[numeric] if len(numeric) < len(names) else frame
        if stats is not None and stats.n_distinct.size != len(numeric):
            stats = None
        by_name = {s.name: s for s in summarize_numbers(part, stats, (target,) if target else (), moments)}
    for n in names:
        if n not in by_name:
            factorized = stripped_distinct(frame[n])
            if cache is not None:
                cache[n] = factorized
            by_name[n] = summarize_text(frame[n], n, counted=n == target, factorized=factorized)
    return TableSummary(tuple(by_name[n] for n in names), target, total_rows, target_missing)


def _numeric_dtype(dtype) -> bool:
    return (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)) \
        and not pd.api.types.is_complex_dtype(dtype)


def merge(a: ColumnSummary | TableSummary, b: ColumnSummary | TableSummary):
    """The summary of the rows of ``a`` and ``b`` together (two partitions of one table; ``a``'s rows first)."""
    if isinstance(a, TableSummary):
        assert isinstance(b, TableSummary)
        if [c.name for c in a.columns] != [c.name for c in b.columns] or a.target != b.target:
            raise PlanError(f"the partitions have different columns: {[c.name for c in a.columns]} and "
                            f"{[c.name for c in b.columns]}")
        return TableSummary(tuple(merge(x, y) for x, y in zip(a.columns, b.columns, strict=True)), a.target,
                            a.n_rows_total + b.n_rows_total, a.target_missing + b.target_missing)
    assert isinstance(b, ColumnSummary)
    if a.source != b.source:
        raise PlanError(f"column {a.name!r} is {a.source} in one partition and {b.source} in another; give every "
                        "partition the same dtype")
    counts = dict(a.counts)
    for k, v in b.counts.items():
        counts[k] = counts.get(k, 0) + v
    lows = {k: min(a.lows.get(k, math.inf), b.lows.get(k, math.inf)) for k in {*a.lows, *b.lows}}
    highs = {k: max(a.highs.get(k, -math.inf), b.highs.get(k, -math.inf)) for k in {*a.highs, *b.highs}}
    cap = TEXT_CAP if a.source == "text" else VALUES_CAP
    levels: tuple | None = None
    level_counts = None
    exact = a.distinct_exact and b.distinct_exact and a.levels is not None and b.levels is not None
    if a.levels is not None and b.levels is not None:
        merged = sorted(set(a.levels) | set(b.levels))
        n_distinct = len(merged)
        if n_distinct <= cap:
            levels = tuple(merged)
            if a.level_counts is not None and b.level_counts is not None:
                tally = dict(zip(a.levels, a.level_counts, strict=True))
                for v, c in zip(b.levels, b.level_counts, strict=True):
                    tally[v] = tally.get(v, 0) + c
                level_counts = tuple(tally[v] for v in levels)
    else:
        n_distinct = max(a.n_distinct, b.n_distinct)
        exact = False
    return ColumnSummary(
        a.name, a.source, a.n_rows + b.n_rows, a.n_missing + b.n_missing, counts, lows, highs, levels,
        level_counts, n_distinct, exact, float(np.fmin(a.lo, b.lo)), float(np.fmax(a.hi, b.hi)),
        a.integral and b.integral, a.total + b.total, a.total_sq + b.total_sq,
        a.example if a.n_present else b.example,
        None)


# ---- 2. the plan


@dataclass(frozen=True)
class PlanOptions:
    """What the user chose: ``column_types`` {column: type}, ``dayfirst``, ``missing`` ("level" or "drop"),
    ``near_unique`` and ``constant`` ("drop" or "keep"), the target's ``positive`` class, the coding
    (``method``, ``bins``) and the estimate (``estimate``, ``folds``, ``seed``)."""

    column_types: tuple[tuple[str, str], ...] = ()
    dayfirst: bool = False
    missing: str = "level"
    near_unique: str = "drop"
    constant: str = "drop"
    positive: str | None = None
    method: str = "mean-std"
    bins: int = 3
    estimate: str = "plug-in"
    folds: int = 5
    seed: int = 0

    @classmethod
    def of(cls, column_types: dict[str, str] | None = None, **options) -> PlanOptions:
        opts = cls(column_types=tuple(sorted((str(k).strip(), str(v).strip().lower())
                                             for k, v in (column_types or {}).items())), **options)
        opts.check()
        return opts

    def check(self) -> None:
        for kind in dict(self.column_types).values():
            if kind not in TYPES:
                raise ColumnTypeError(f"unknown column type {kind!r}; choose one of {', '.join(TYPES)}")
        for what, value, allowed in (("missing", self.missing, ("level", "drop")),
                                     ("near_unique", self.near_unique, ("drop", "keep")),
                                     ("constant", self.constant, ("drop", "keep")),
                                     ("estimate", self.estimate, ESTIMATES)):
            if value not in allowed:
                raise DataError(f"{what} must be one of {', '.join(allowed)}; got {value!r}")
        if not isinstance(self.dayfirst, bool | np.bool_):
            raise ParameterError(f"dayfirst must be True or False; got {self.dayfirst!r}")


@dataclass(frozen=True)
class ColumnPlan:
    """How one feature column is read and coded.

    ``type``: numeric (a number dtype, as it is), number, percent, date, boolean (parsed from text: floats),
    category (text levels, as asked) or text. ``rule``/``order``/``mark``/``unit``: the parse reading
    (:mod:`fslab.data.parse_rules`; for dates ``unit`` is "days" or "seconds" since 1970-01-01). ``left_out``: ""
    (kept) or one of :data:`LEFT_OUT`, ``why`` its detail. The coding, once known: ``coding`` ("binned",
    "discrete", "categorical"), ``levels`` (the codes' names in order, "missing" last when any), ``values``
    (discrete numbers kept as codes, in order) or ``edges`` (inner cut points: code = #{e <= x}); ``binning``: why a
    column of a robust coding (method "auto") got quantile bins instead of mean-std, in words ("" otherwise)."""

    name: str
    type: str
    rule: str = ""
    order: str = ""
    mark: str = "."
    unit: str = ""
    inferred: bool = True
    left_out: str = ""
    why: str = ""
    n_unparsed: int = 0
    n_distinct: int = -1
    example: str = ""
    message: str = ""
    coding: str = ""
    levels: tuple[str, ...] = ()
    values: tuple[float, ...] = ()
    edges: tuple[float, ...] = ()
    binning: str = ""

    @property
    def reading(self) -> pr.Reading | None:
        if not self.rule:
            return None
        return pr.Reading(self.rule, self.order, self.mark, self.unit if self.type == "number" else "")


@dataclass(frozen=True)
class TargetPlan:
    """The target's encoding: ``classes`` in class-index order (binary: negative, positive), the ``positive``
    class (None: multiclass or regression), the ``task`` and the rows dropped for a missing target."""

    name: str
    task: str
    classes: tuple[str, ...]
    positive: str | None
    n_missing: int = 0
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class TablePlan:
    """The one record of how a table is read, left out, coded and estimated (see the module docstring)."""

    columns: tuple[ColumnPlan, ...]
    target: TargetPlan | None
    options: PlanOptions
    n_rows: int
    coded: bool = False   # the coding (levels, values, edges) is recorded

    # ---- inspect

    @cached_property
    def kept(self) -> tuple[ColumnPlan, ...]:
        return tuple(c for c in self.columns if not c.left_out)

    @property
    def left_out(self) -> tuple[ColumnPlan, ...]:
        return tuple(c for c in self.columns if c.left_out)

    def column(self, name: str) -> ColumnPlan:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(name)

    def describe(self, estimate: bool = True) -> tuple[str, ...]:
        """The plan in plain sentences: how columns were read, what was left out and why, the missing-value rule,
        the target, the coding and (``estimate``) the estimate. A source's notes leave the estimate out: the
        selection run on it chooses one and says so."""
        from ..counting.folds import describe_estimate

        said = [c.message for c in self.columns if c.message]
        near = [c for c in self.columns if c.left_out == "near-unique"]
        if near:
            said.append(id_message([c.name for c in near], {c.name: c.why for c in near}))
        for reason in ("constant", "all missing"):
            gone = [c for c in self.columns if c.left_out == reason]
            if gone:
                said.append(left_out_message(reason, [c.name for c in gone]))
        if self.options.missing == "drop":
            said.append("Rows with a missing feature value are dropped (missing='drop').")
        else:
            said.append("A missing value is a level of its own ('missing' in the coding table).")
        if self.target is not None:
            said.extend(self.target.notes)
        if self.coded:
            from .discretize import kind_notes
            kept = self.kept
            said.extend(kind_notes([c.coding for c in kept], [c.levels for c in kept], self.options.method,
                                   self.options.bins))
            said.extend(c.binning for c in kept if c.binning)
        o = self.options
        if estimate:
            est = describe_estimate(o.estimate, o.folds)
            said.append(f"Estimate: {est}" + (f", folds seeded with {o.seed}." if o.estimate == "cross-fitted"
                                              else "."))
        return tuple(said)

    def to_frame(self) -> pd.DataFrame:
        """One row per column: read as, reading, left out and why, coding, number of codes, cut points."""
        rows = []
        for c in self.columns:
            rows.append({"column": c.name, "read as": c.type + ("" if c.inferred else " (as asked)"),
                         "rule": _rule_words(c),
                         "left out": c.left_out, "why": c.why, "unparsed": c.n_unparsed, "coding": c.coding,
                         "codes": len(c.levels) if c.coding else 0,
                         "cut points": ", ".join(f"{e:.4g}" for e in c.edges)})
        return pd.DataFrame(rows)

    # ---- round trip

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict (lists, strings, numbers, None); :meth:`from_dict` gives the plan back."""
        out = asdict(self)
        out["options"]["column_types"] = [list(p) for p in self.options.column_types]
        return json.loads(json.dumps(out))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TablePlan:
        try:
            opts = dict(data["options"])
            opts["column_types"] = tuple(tuple(p) for p in opts.get("column_types", ()))
            columns = tuple(_record(ColumnPlan, c) for c in data["columns"])
            target = None if data.get("target") is None else _record(TargetPlan, data["target"])
            return cls(columns, target, PlanOptions(**opts), int(data["n_rows"]), bool(data.get("coded", False)))
        except (KeyError, TypeError, ValueError) as err:
            raise ParameterError(f"not a plan record: {str(err)[:200]}") from None

    # ---- override

    def with_estimate(self, estimate: str | None = None, folds: int | None = None, seed: int | None = None
                      ) -> TablePlan:
        """The plan with another estimate (plug-in or cross-fitted), number of folds or seed."""
        from ..counting.folds import check_estimate, check_seed
        o = self.options
        est, k = check_estimate(o.estimate if estimate is None else estimate, o.folds if folds is None else folds)
        s = check_seed(o.seed if seed is None else seed)
        return replace(self, options=replace(o, estimate=est, folds=int(k), seed=s))

    def with_coding(self, kinds, categories, method: str, bins: int, edges=None, values=None, robust=None
                    ) -> TablePlan:
        """The plan with the coding of its kept columns recorded: ``kinds[j]``/``categories[j]`` of kept column j
        (:class:`fslab.data.discretize.EncodedFrame`), ``edges`` {j: cut points}, ``values`` {j: discrete values},
        ``robust`` {j: (mean-std's largest bin share, quantile's)} of the columns method "auto" gave quantile bins
        (:attr:`EncodedFrame.robust`; said in :meth:`describe`)."""
        from .discretize import robust_note
        kept = [i for i, c in enumerate(self.columns) if not c.left_out]
        if len(kept) != len(kinds):
            raise PlanError(f"the coding has {len(kinds)} columns; the plan keeps {len(kept)}")
        cols = list(self.columns)
        edges, values, robust = edges or {}, values or {}, robust or {}
        for j, i in enumerate(kept):
            cols[i] = _with(cols[i], coding=kinds[j], levels=tuple(map(str, categories[j])),
                            edges=tuple(np.asarray(edges.get(j, ()), dtype=np.float64).tolist()),
                            values=tuple(np.asarray(values.get(j, ()), dtype=np.float64).tolist()),
                            binning=robust_note(cols[i].name, *robust[j]) if j in robust else "")
        return replace(self, columns=tuple(cols), coded=True,
                       options=replace(self.options, method=method, bins=int(bins)))


def _with(c: ColumnPlan, **changes) -> ColumnPlan:
    """``dataclasses.replace`` of a column plan without re-running the frozen __init__ (2,000 columns: 20 ms)."""
    out = object.__new__(ColumnPlan)
    out.__dict__.update(c.__dict__, **changes)
    return out


def _rule_words(c: ColumnPlan) -> str:
    """The parse reading in a few words: "date-slash, month-first", "number, decimal comma, in mm/s"."""
    if not c.rule:
        return ""
    words = [c.rule]
    if c.order:
        words.append("month-first" if c.order == "mdy" else "day-first")
    if c.type in ("number", "percent") and c.mark == ",":
        words.append("decimal comma")
    if c.type == "number" and c.unit:
        words.append(f"in {c.unit}")
    if c.type == "date":
        words.append(c.unit)
    return ", ".join(words)


def _record(cls, data: dict):
    names = {f.name for f in fields(cls)}
    out = {k: (tuple(v) if isinstance(v, list) else v) for k, v in data.items() if k in names}
    return cls(**out)


def left_out_message(reason: str, names: list[str]) -> str:
    listed = ", ".join(repr(n) for n in names[:10]) + (f", ... ({len(names)} in all)" if len(names) > 10 else "")
    if reason == "constant":
        return (f"Left out {len(names)} constant column(s): {listed} (one value in every row, missing aside: it "
                "cannot tell the classes apart). To keep them, pass constant='keep'.")
    return (f"Left out {len(names)} column(s) with no value at all: {listed}. To keep them, pass "
            "constant='keep'.")


def _range(lo: float, hi: float, kind: str, unit: str = "") -> str:
    if kind == "date":
        if unit == "seconds":
            return f"{EPOCH + pd.to_timedelta(lo, unit='s')} .. {EPOCH + pd.to_timedelta(hi, unit='s')}"
        return f"{(EPOCH + pd.to_timedelta(lo, unit='s')).date()} .. {(EPOCH + pd.to_timedelta(hi, unit='s')).date()}"
    return f"{lo:g} .. {hi:g}"


def read_message(name: str, kind: str, lo: float, hi: float, detail: str, n_bad: int, forced: bool,
                 comma: bool = False, order_said: str = "") -> str:
    """The sentence said when a column is read as ``kind`` (today's wording; ``detail``: the unit)."""
    said = "set to" if forced else "read as"
    if kind == "date":
        what = (f"{'timestamps' if detail == 'seconds' else 'dates'} ({_range(lo, hi, kind, detail)}), binned as "
                f"numbers ({detail} since 1970-01-01)")
    elif kind == "boolean":
        what = "yes/no values (yes, true, y, 1 -> 1; no, false, n, 0 -> 0)"
    elif kind == "percent":
        what = f"percentages ({_range(lo, hi, kind)}), binned as numbers"
    elif kind in pr.EXTRA:
        what = f"{pr.EXTRA[kind].what} ({_range(lo, hi, kind)} {pr.EXTRA[kind].unit}), binned as numbers"
    else:
        unit = f" in {detail}" if detail else ""
        what = f"numbers{unit} ({_range(lo, hi, kind)}), binned as numbers"
    bad = f"; {n_bad} value(s) that do not read as {_what(kind)} became missing" if n_bad else ""
    out = f"{name!r} {said} {what}{bad}."
    if comma:
        out = out[:-1] + " (decimal commas read as decimal points)."
    if order_said:
        out = f"{out} {order_said}"
    return out


def _best(summary: ColumnSummary, kind: str, dayfirst: bool, forced: bool) -> tuple[pr.Reading | None, int]:
    """The reading of ``kind`` that parses the most rows (ties: the table's order; month-first before day-first
    unless ``dayfirst``), with its row count."""
    c = summary.counts
    best, best_n = None, -1
    for rule in pr.rules_of(kind, forced):
        if kind in ("percent", "number"):
            mark = "," if c.get("comma|" + rule.name, 0) else "."
            unit = ""
            if kind == "number":
                units = {k[5:]: v for k, v in c.items() if k.startswith("unit|")}
                units[""] = units.get("", 0) + summary.n_present - sum(units.values())   # unmatched: no unit
                unit = min(units, key=lambda u: (-units[u], u))   # the most common (ties: the first in sort order)
            cands = [pr.Reading(rule.name, "", mark, unit)]
        else:
            orders = rule.orders if not dayfirst else tuple(reversed(rule.orders))
            cands = [pr.Reading(rule.name, o) for o in orders]
        for r in cands:
            n = c.get(_key(r), 0)
            if n > best_n:
                best, best_n = r, n
    return best, max(best_n, 0)


def _order_said(summary: ColumnSummary, reading: pr.Reading, dayfirst: bool) -> str:
    if not reading.order:
        return ""
    c = summary.counts
    mdy = c.get(_key(replace(reading, order="mdy")), 0)
    dmy = c.get(_key(replace(reading, order="dmy")), 0)
    if reading.order == "mdy":
        if mdy == dmy:
            return ("Day and month fit both orders (every value <= 12 in both places): read month-first (03/04 is "
                    "March 4); dayfirst=True reads them day-first.")
        return "Read month-first: more values fit month/day than day/month." + \
            (" dayfirst=True was asked, but the values do not fit it." if dayfirst else "")
    if mdy == dmy:
        return "Day and month fit both orders: read day-first, as asked (dayfirst=True)."
    return "Read day-first: some values only fit day/month (a first number above 12)."


def decide_column(s: ColumnSummary, kind: str, opts: PlanOptions, n_rows: int) -> ColumnPlan:
    """The plan of one feature column from its summary (the rules of the module docstring, near-unique aside)."""
    ex = s.example
    if kind == "drop":
        return ColumnPlan(s.name, "category" if s.source == "text" else "numeric", inferred=False,
                          left_out="asked", why="asked", example=ex, message=f"{s.name!r} left out, as asked.",
                          n_distinct=s.n_distinct)
    if kind == "category":
        what = "text levels" if s.source == "text" else "levels of its values"
        return ColumnPlan(s.name, "category", inferred=False, example=ex, n_distinct=s.n_distinct,
                          message=f"{s.name!r} kept as {what}, as asked.")
    if opts.constant == "drop" and kind == "auto":
        if s.n_present == 0:
            return ColumnPlan(s.name, "text" if s.source == "text" else "numeric", left_out="all missing",
                              why="no value in any row", example=ex, n_distinct=0)
        if s.n_distinct == 1 and s.distinct_exact:
            one = (s.levels[0] if s.source == "text" else _class_name(s.levels[0], True)) if s.levels else ex
            return ColumnPlan(s.name, "text" if s.source == "text" else "numeric", left_out="constant",
                              why=f"one value ({one}) in every row",
                              example=ex, n_distinct=1)
    if s.source == "numeric" and kind in ("auto", "number", "percent"):
        return ColumnPlan(s.name, "numeric", inferred=kind == "auto", example=ex, n_distinct=s.n_distinct)
    if s.source == "numeric" and kind in pr.EXTRA:
        raise ColumnTypeError(f"column {s.name!r} holds numbers; it cannot be read as {pr.EXTRA[kind].what} "
                              f"(type {kind!r} reads text such as {pr.EXTRA[kind].rules[0].conversion})")
    if s.source == "numeric":   # a number column set to date (20210304) or boolean (1/0): read as its text
        fixed = pr.Reading("date-compact" if kind == "date" else "boolean")
        ends = pd.Series([f"{v:.0f}" if math.isfinite(v) else "" for v in (s.lo, s.hi)])
        lo, hi = pr.read_values(fixed, ends)
        return ColumnPlan(s.name, kind, fixed.rule, inferred=False, unit="days" if kind == "date" else "",
                          n_distinct=s.n_distinct, example=s.example,
                          message=read_message(s.name, kind, lo, hi, "days", 0, True))
    if kind != "auto":
        reading, n = _best(s, kind, opts.dayfirst, forced=True)
        return _parsed(s, kind, reading, n, opts.dayfirst, forced=True)
    if s.n_present == 0:
        return ColumnPlan(s.name, "text", example=ex, n_distinct=0)
    for cand in pr.kinds():
        need = 1.0 if cand == "boolean" else MIN_PARSED   # a rare third word is a real level, not noise
        reading, n = _best(s, cand, opts.dayfirst, forced=False)
        if reading is not None and n >= need * s.n_present and n > 0:
            return _parsed(s, cand, reading, n, opts.dayfirst, forced=False)
    return ColumnPlan(s.name, "text", example=ex, n_distinct=s.n_distinct)


def _parsed(s: ColumnSummary, kind: str, reading: pr.Reading | None, n: int, dayfirst: bool, forced: bool
            ) -> ColumnPlan:
    if reading is None:   # a forced type no value reads as: apply() names the first bad row
        reading = pr.Reading(pr.rules_of(kind, True)[0].name, "dmy" if dayfirst and kind == "date" else
                             ("mdy" if kind == "date" and pr.rule_named(pr.rules_of(kind, True)[0].name).orders
                              != ("",) else ""))
    key = _key(reading)
    lo, hi = s.lows.get(key, math.nan), s.highs.get(key, math.nan)
    unit = reading.unit
    if kind == "date":
        unit = "seconds" if s.counts.get("time|" + reading.key(), 0) else "days"
    elif kind in pr.EXTRA:
        unit = pr.EXTRA[kind].unit
    n_bad = s.n_present - n
    said = read_message(s.name, kind, lo, hi, unit, 0 if forced else n_bad, forced,
                        comma=kind == "number" and reading.mark == ",",
                        order_said=_order_said(s, reading, dayfirst) if kind == "date" else "") if n else ""
    return ColumnPlan(s.name, kind, reading.rule, reading.order, reading.mark, unit, inferred=not forced,
                      n_unparsed=n_bad, n_distinct=s.n_distinct, example=s.example, message=said)


def near_unique_why(s: ColumnSummary, plan: ColumnPlan, n_rows: int) -> str:
    """Why a kept column is near-unique ("" when it is not): text with distinct values in at least NEAR_UNIQUE
    of the rows (or more than TEXT_CAP), or numbers with a different value in every row that are whole numbers
    or evenly spaced."""
    if n_rows < ID_MIN_ROWS or not plan.inferred or plan.left_out:
        return ""
    if plan.type == "text":
        if s.n_distinct >= NEAR_UNIQUE * n_rows or (s.n_distinct > TEXT_CAP):
            share = s.n_distinct / max(n_rows, 1)
            return "a different value in every row" if s.n_distinct == n_rows else f"{share:.0%} of rows distinct"
        return ""
    if plan.type == "numeric" and s.distinct_exact and s.n_distinct == n_rows and s.n_missing == 0:
        if s.integral:
            return "whole numbers, a different one in every row"
        if s.evenly_spaced:
            return "evenly spaced, a different value in every row"
    return ""


def decide(summary: TableSummary, options: PlanOptions | None = None) -> TablePlan:
    """The plan of a table from its summaries (see the module docstring); deterministic."""
    opts = options or PlanOptions()
    opts.check()
    given = dict(opts.column_types)
    names = [c.name for c in summary.columns]
    for col in given:
        if col not in names or col == summary.target:
            raise ColumnTypeError(f"column_types names {col!r}, which is not a feature column of the data")
    features = [c for c in summary.columns if c.name != summary.target]
    n_rows = summary.n_rows_total - summary.target_missing
    plans = [decide_column(s, given.get(s.name, "auto"), opts, n_rows) for s in features]
    if opts.near_unique == "drop":
        whys = [near_unique_why(s, p, n_rows) for s, p in zip(features, plans, strict=True)]
        remain = sum(1 for p, w in zip(plans, whys, strict=True) if not p.left_out and not w)
        if remain:   # nothing else to select from: keep them (flagged)
            plans = [replace(p, left_out="near-unique", why=w) if w else p for p, w in zip(plans, whys, strict=True)]
    target = None
    if summary.target is not None:
        target = decide_target(summary[summary.target], opts.positive, summary.target_missing)
    return TablePlan(tuple(plans), target, opts, n_rows)


def decide_target(s: ColumnSummary, positive=None, n_missing: int = 0) -> TargetPlan | None:
    """The target's encoding from its summary's class counts (:func:`fslab.data.target.choose_classes`); past the
    summary's cap, a numeric target is real-valued (regression) and a text one multiclass, its classes not listed."""
    from .target import choose_classes

    if s.levels is None or s.level_counts is None:   # past the summary's cap: classes not listed
        return TargetPlan(s.name, "regression" if s.source == "numeric" else "multiclass", (), None, n_missing)
    numeric = s.source == "numeric"
    if numeric and positive is not None and str(positive).strip().lower() in ("true", "false") \
            and set(s.levels) <= {0.0, 1.0}:   # positive=True on a boolean column
        positive = "1" if str(positive).strip().lower() == "true" else "0"
    chosen = choose_classes(s.name, [_class_name(v, numeric) for v in s.levels], np.asarray(s.level_counts),
                            np.asarray(s.levels, dtype=np.float64) if numeric else None, positive)
    return TargetPlan(s.name, chosen.task, chosen.class_names, chosen.positive, n_missing, chosen.notes)


def _class_name(v, numeric: bool) -> str:
    if not numeric:
        return str(v)
    from .discretize import value_name
    return value_name(float(v))


# ---- 3. apply and code


def read_column(column: pd.Series, plan: ColumnPlan, factorized: tuple[np.ndarray, pd.Series, bool] | None = None
                ) -> tuple[pd.Series, tuple[np.ndarray, np.ndarray] | None]:
    """One column read by its plan, and for a text column its (code per row, -1 missing; distinct texts): floats
    for a parsed column (NaN: missing or unparsed), the stripped text for text, the values for a numeric column,
    the text of the values for a numeric column kept as category. ``factorized``: :func:`stripped_distinct` of
    the column when the caller has it."""
    if plan.type == "numeric":
        return column, None
    numeric = is_numeric(column)
    if plan.type == "category" and numeric:
        values = column.to_numpy(dtype=np.float64, na_value=np.nan)
        whole = bool(np.all(values[~np.isnan(values)] % 1 == 0))
        text = (column.astype("Int64") if whole else column).astype(str)
        return text.where(column.notna().to_numpy(bool)).astype(object), None
    if numeric:
        present = column.notna().to_numpy(bool)
        codes, distinct, own = stripped_distinct(column[present].astype(str).str.replace(r"\.0$", "", regex=True)
                                                 .reindex(column.index))
    else:
        codes, distinct, own = stripped_distinct(column) if factorized is None else factorized
    if plan.type in ("text", "category"):
        texts = distinct.to_numpy(dtype=object)
        if own and not numeric:   # every value is its own stripped text: the column as it is
            return column, (codes, texts)
        table = np.concatenate([texts, np.array([None], dtype=object)])
        out = pd.Series(table[codes], index=column.index, name=column.name, dtype=object)
        if isinstance(column.dtype, pd.StringDtype):
            out = out.astype(column.dtype)
        return out, (codes, texts)
    reading = plan.reading
    assert reading is not None
    parsed = pr.read_values(reading, distinct)
    if plan.type == "date":
        parsed = parsed if plan.unit == "seconds" else parsed / 86400.0
    values = np.append(parsed, np.nan)[codes]
    if not plan.inferred:
        bad = (codes >= 0) & np.isnan(values)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise ColumnTypeError(
                f"column {plan.name!r} was set to {plan.type} but data row {row + 1} holds "
                f"{str(column.iloc[row])[:60]!r}, which does not read as {_what(plan.type)} ({int(bad.sum())} such "
                "value(s)); fix the values or choose another type (category keeps them as text)")
    return pd.Series(values, index=column.index, name=column.name), None


def apply(plan: TablePlan, frame: pd.DataFrame, cache: dict | None = None,
          text_codes: dict | None = None) -> pd.DataFrame:
    """The features of ``frame`` (or of a partition) read by the plan: left-out columns gone, parsed columns as
    floats (dates in days or seconds since 1970-01-01), text stripped; every row kept, the target left out.
    A column of the plan missing from the frame is a :class:`PlanError` naming it. In memory, ``cache``: the
    :func:`summarize` cache of the same rows; ``text_codes``: a dict that receives {column: (code per row, -1
    missing; distinct texts)} of the text columns (reused by the coding)."""
    names = [str(c) for c in frame.columns.tolist()]
    present = set(names)
    missing = [c.name for c in plan.kept if c.name not in present]
    if missing:
        raise PlanError(f"the plan reads column(s) {', '.join(repr(n) for n in missing)}, which the data does not "
                        "have")
    position = {n: j for j, n in enumerate(names)}
    kept = [c.name for c in plan.kept]
    out = frame if kept == names else frame.iloc[:, [position[n] for n in kept]]
    new: dict[str, pd.Series] = {}
    for c in plan.kept:
        if c.type == "numeric":   # read as it is (the common case of wide numeric tables: no column touched)
            continue
        column = frame.iloc[:, position[c.name]]
        values, hashed = read_column(column, c, (cache or {}).get(c.name))
        if values is not column:
            new[c.name] = values
        if hashed is not None and text_codes is not None:
            text_codes[c.name] = hashed
    if new:
        out = out.copy() if out is frame else out
        for name, values in new.items():
            out[name] = values.to_numpy() if isinstance(values.dtype, np.dtype) else values.array
    if list(out.columns) != kept:
        out = out.set_axis(kept, axis=1)
    return out


def code(plan: TablePlan, typed: pd.DataFrame) -> np.ndarray:
    """Codes (rows x kept columns, int64) of a typed chunk (:func:`apply`) by the plan's recorded coding:
    categories by their level's position, discrete numbers by their value's, binned numbers by #{edges <= x};
    a missing value is the last code ("missing"). A value the coding does not know is a :class:`PlanError`."""
    if not plan.coded:
        raise PlanError("the plan has no coding yet: discretize the data first (TablePlan.with_coding)")
    kept = plan.kept
    out = np.empty((len(typed), len(kept)), dtype=np.int64)
    for j, c in enumerate(kept):
        column = typed[c.name]
        has_missing = bool(c.levels) and c.levels[-1] == MISSING
        n_codes = len(c.levels) - has_missing
        if c.coding == "categorical":
            text = column.astype(object).where(column.notna(), None)
            codes = pd.Index(list(c.levels[:n_codes]), dtype=object).get_indexer(text.to_numpy(object)).astype(np.int64)
            unknown = (codes < 0) & text.notna().to_numpy(bool)
            miss = text.isna().to_numpy(bool)
        else:
            x = column.to_numpy(dtype=np.float64, na_value=np.nan)
            miss = np.isnan(x)
            if c.coding == "binned":
                codes = np.searchsorted(np.asarray(c.edges), x, side="right").astype(np.int64)
                unknown = np.zeros(len(x), dtype=bool)
            else:
                vals = np.asarray(c.values)
                codes = np.clip(np.searchsorted(vals, x), 0, max(len(vals) - 1, 0)).astype(np.int64)
                unknown = ~miss & (vals[codes] != x if len(vals) else True)
        if unknown.any():
            i = int(np.flatnonzero(unknown)[0])
            raise PlanError(f"column {c.name!r}: row {i + 1} holds {str(column.iloc[i])[:60]!r}, which the plan's "
                            "coding does not know (the plan was made on other rows)")
        if miss.any():
            if not has_missing:
                raise PlanError(f"column {c.name!r} has missing values where the plan's coding has none")
            codes[miss] = n_codes
        out[:, j] = codes
    return out
