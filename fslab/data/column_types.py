"""Column types as a person reads them: dates, percentages, numbers with units, booleans, IDs to leave out.

A CSV export holds "2021-03-04", "62%", "1.86 mm/s", "$1,234.50", "6,243", "59,8" and "yes"/"no" as text;
read as text they become hundreds of categories that fit the sample by sheer number. :func:`infer_types` reads
each text column as a person would, vectorised over the column (pandas string operations and
``pd.to_datetime(..., format=...)``, never a Python loop over rows):

* ``date``: ISO dates and timestamps, d/m/Y or m/d/Y -> days since 1970-01-01 (dates) or seconds (timestamps);
* ``percent``: "62%" -> 62.0;
* ``number``: numbers with a currency sign or a unit ("$1,234.50", "€ 12", "1.86 mm/s"), thousands separators
  ("6,243"), decimal commas ("59,8") -> floats;
* ``boolean``: yes/no, true/false, y/n (any case; 1/0 too) -> 1/0, when every value is one of them.

A column is converted when at least :data:`MIN_PARSED` (95 %) of its non-missing values parse; the others
become missing and the message counts them. Every conversion is one plain message.

``column_types={"col": TYPE}`` overrides the inference, TYPE one of :data:`TYPES`: ``auto`` (the default rule),
``number``, ``date``, ``percent``, ``boolean``, ``category`` (keep the values as text levels) or ``drop`` (leave
the column out). A forced type must parse every non-missing value, else :class:`ColumnTypeError` names the
column, the first bad data row (1-based) and its value. Any explicit type keeps a near-unique column.

Near-unique columns (:func:`near_unique`) are left out by default: text with a distinct value in at least
:data:`NEAR_UNIQUE` (50 %) of the rows (IDs, free text), and numbers with a different value in every row that are
whole numbers or evenly spaced (row numbers, a float that is really an ID). A real-valued measurement that
happens to be unique is kept, and so is every converted column (a date is a number, not an ID).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import DataError
from .data_checks import ID_MIN_ROWS  # below this many rows, "a distinct value per row" means nothing

TYPES = ("auto", "number", "date", "percent", "boolean", "category", "drop")
MIN_PARSED = 0.95          # share of non-missing values that must parse for an inferred conversion
NEAR_UNIQUE = 0.5          # text columns with distinct values in at least this share of rows are left out
SAMPLE = 200               # values tried first, before a whole column is parsed
PREFIX = 20                # of which this many are checked in plain Python first (:func:`_may_parse`)
TRUE_WORDS = ("yes", "true", "y", "1")
FALSE_WORDS = ("no", "false", "n", "0")
EPOCH = pd.Timestamp("1970-01-01")

_NUM = r"[+-]?(?:\d{1,3}(?:[,.' ]\d{3})+|\d+)(?:[.,]\d+)?|[+-]?[.,]\d+"
_CURRENCY = r"(?:[$€£¥₹]|USD|EUR|GBP|CHF)"
_UNIT = r"[^\d\s+-][^\d]{0,15}?"
# a unit right after the digits must be a usual one ("12kg", "5ms"): "274xx" or "12A" are codes, not quantities
_TIGHT = r"(?:%|[kmcµμn]?[gmslLW]|[kmM]?Hz|h|hr?s?|min|mph|kph|kWh|[kKMG]B|°[CF]?|K|V|Pa|kPa|bar|psi|pts?)"
_NUMBER_RE = re.compile(rf"^\s*(?P<cur>{_CURRENCY})?\s*(?P<num>{_NUM})(?:\s+(?P<unit>{_UNIT})|(?P<tight>{_TIGHT}))?"
                        r"\s*$")
_DATE_RES = {   # a regex the whole value must match, then the formats tried for it (first parse wins)
    "iso": (r"^\d{4}-\d{1,2}-\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?\s*(?:Z|[+-]\d{2}:?\d{2})?$",
            ("ISO8601",)),
    "slash": (r"^\d{1,2}/\d{1,2}/\d{4}(?: \d{1,2}:\d{2}(?::\d{2})?)?$",
              ("%m/%d/%Y", "%d/%m/%Y", "%m/%d/%Y %H:%M", "%d/%m/%Y %H:%M", "%m/%d/%Y %H:%M:%S",
               "%d/%m/%Y %H:%M:%S")),
    "dot": (r"^\d{1,2}\.\d{1,2}\.\d{4}$", ("%d.%m.%Y",)),
    "ymd-slash": (r"^\d{4}/\d{1,2}/\d{1,2}$", ("%Y/%m/%d",)),
    "compact": (r"^(?:19|20)\d{6}$", ("%Y%m%d",)),   # 20210304 (a number column set to date)
}


class ColumnTypeError(DataError):
    """A column type given by the user does not fit the column's values (or is not a known type)."""


@dataclass(frozen=True)
class ColumnType:
    """How one feature column was read: ``type`` (one of TYPES but auto/drop, or "text"/"numeric" as given),
    whether it was ``inferred`` or given, a plain ``message`` (empty when nothing was done), an ``example`` raw
    value, values that became missing (``n_unparsed``) and whether it was left out (``dropped``, ``why``)."""

    column: str
    type: str
    inferred: bool
    message: str = ""
    example: str = ""
    n_unparsed: int = 0
    dropped: bool = False
    why: str = ""
    n_distinct: int = -1   # distinct values of a left-out column (-1: not counted)


@dataclass(frozen=True, eq=False)
class TypedFrame:
    """The features after typing: the new ``frame`` (converted columns are float64, columns dropped as asked are
    gone; near-unique text columns are still there, marked ``dropped`` in their :class:`ColumnType`), one
    :class:`ColumnType` per original column, notes (what was done) and warnings (what to look at)."""

    frame: pd.DataFrame
    types: tuple[ColumnType, ...]
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    converted: frozenset[str] = field(default_factory=frozenset)
    text_codes: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict, repr=False)
    # {column: (code per row, -1 missing; distinct texts)} of text columns kept as text whose values are their own
    # stripped text: their hashing is reused by the codes (fslab.data.discretize.encode_frame)

    @property
    def dropped(self) -> tuple[str, ...]:
        return tuple(t.column for t in self.types if t.dropped)


def check_column_types(column_types, columns) -> dict[str, str]:
    """Validate a ``column_types`` mapping against the table's ``columns``; returns {column: type}."""
    if column_types is None:
        return {}
    if not isinstance(column_types, dict):
        raise ColumnTypeError(f"column_types must be a dict {{column: type}}; got {type(column_types).__name__}")
    names = {str(c) for c in columns}
    out = {}
    for col, kind in column_types.items():
        col, kind = str(col).strip(), str(kind).strip().lower()
        if kind not in TYPES:
            raise ColumnTypeError(f"unknown column type {kind!r} for column {col!r}; choose one of {', '.join(TYPES)}")
        if col not in names:
            raise ColumnTypeError(f"column_types names {col!r}, which is not a feature column of the data")
        out[col] = kind
    return out


# ---- parsers: each takes the stripped text of the non-missing values and returns floats (NaN: did not parse)


def parse_boolean(text: pd.Series) -> pd.Series:
    low = text.str.lower()
    out = pd.Series(np.nan, index=text.index)
    out[low.isin(TRUE_WORDS).to_numpy()] = 1.0
    out[low.isin(FALSE_WORDS).to_numpy()] = 0.0
    return out


def _decimal_comma(num: pd.Series) -> bool:
    """Whether a comma is the decimal mark of this column: some value has a comma not followed by exactly three
    digits ("59,8", "0,125 5"), or a European "1.234,5"."""
    return bool(num.str.contains(r",\d{1,2}$|,\d{4,}$|\.\d{3},\d", regex=True).any())


def _to_float(num: pd.Series) -> pd.Series:
    """Number text (thousands separators, a decimal point or comma) as floats; the column decides the comma.

    Plain numbers take one fast ``pd.to_numeric`` pass; only the values it refuses go through the regexes."""
    out = pd.to_numeric(num, errors="coerce").astype(np.float64)
    out[np.isinf(out.to_numpy())] = np.nan   # "inf" is a word here, not a number to bin
    rest = out.isna().to_numpy() & (num != "").to_numpy(bool)
    if not rest.any():
        return out
    part = num[rest].str.replace(r"(?<=\d)['\s](?=\d{3})", "", regex=True)
    if _decimal_comma(part):
        part = part.str.replace(r"(?<=\d)\.(?=\d{3}(?:\D|$))(?=.*,)", "", regex=True).str.replace(",", ".")
    else:
        part = part.str.replace(r"(?<=\d),(?=\d{3})", "", regex=True)
    out[rest] = pd.to_numeric(part, errors="coerce").astype(np.float64).to_numpy()
    return out


def parse_number(text: pd.Series) -> tuple[pd.Series, str]:
    """Floats of "$1,234.50", "1.86 mm/s", "6,243", "59,8"; and the most common currency sign or unit."""
    parts = text.str.extract(_NUMBER_RE)
    unit = parts["unit"].fillna(parts["tight"]).fillna("").str.strip()
    unit = parts["cur"].fillna("") + unit
    common = str(unit.mode().iloc[0]) if len(unit) else ""
    values = _to_float(parts["num"].fillna(""))
    return values.where((unit == common).to_numpy(bool)), common   # one unit per column: "3 kg" vs "3 m" is not


def parse_percent(text: pd.Series) -> pd.Series:
    ok = text.str.endswith("%").to_numpy(bool)
    return _to_float(text.str[:-1].str.strip()).where(ok)


def parse_date(text: pd.Series) -> tuple[pd.Series, str]:
    """Days (dates) or seconds (timestamps) since 1970-01-01 and the unit, by the format that parses most values."""
    best, best_ok = None, -1
    head = text.iloc[:SAMPLE]
    for pattern, formats in _DATE_RES.values():
        if not head.str.match(pattern).any():
            continue
        for fmt in formats:
            got = pd.to_datetime(text, format=fmt, errors="coerce", utc=True)
            ok = int(got.notna().sum())
            if ok > best_ok:
                best, best_ok = got, ok
            if ok == len(text):
                break
        if best_ok == len(text):
            break
    if best is None:
        return pd.Series(np.nan, index=text.index), "days"
    delta = best.dt.tz_convert(None) - EPOCH
    seconds = delta.dt.total_seconds()
    timestamp = bool((seconds.dropna() % 86400 != 0).any())
    return (seconds if timestamp else seconds / 86400.0).astype(np.float64), "seconds" if timestamp else "days"


# ---- one column


def _range(values: pd.Series, kind: str, unit: str = "") -> str:
    lo, hi = values.min(), values.max()
    if kind == "date":
        scale = "s" if unit == "seconds" else "D"
        shown = [str((EPOCH + pd.to_timedelta(v, unit=scale)).date() if scale == "D"
                      else EPOCH + pd.to_timedelta(v, unit=scale)) for v in (lo, hi)]
        return f"{shown[0]} .. {shown[1]}"
    return f"{lo:g} .. {hi:g}"


_WHAT = {"date": "dates", "percent": "percentages", "number": "numbers", "boolean": "yes/no values"}


def _message(name: str, kind: str, values: pd.Series, detail: str, n_bad: int, forced: bool) -> str:
    said = "set to" if forced else "read as"
    if kind == "date":
        what = f"{'timestamps' if detail == 'seconds' else 'dates'} ({_range(values, kind, detail)}), binned as " \
               f"numbers ({detail} since 1970-01-01)"
    elif kind == "boolean":
        what = "yes/no values (yes, true, y, 1 -> 1; no, false, n, 0 -> 0)"
    elif kind == "percent":
        what = f"percentages ({_range(values, kind)}), binned as numbers"
    else:
        unit = f" in {detail}" if detail else ""
        what = f"numbers{unit} ({_range(values, kind)}), binned as numbers"
    bad = (f"; {n_bad} value(s) that do not read as {_WHAT[kind]} became missing" if n_bad else "")
    return f"{name!r} {said} {what}{bad}."


def _parse(kind: str, text: pd.Series) -> tuple[pd.Series, str]:
    if kind == "date":
        return parse_date(text)
    if kind == "percent":
        return parse_percent(text), ""
    if kind == "boolean":
        return parse_boolean(text), ""
    return parse_number(text)


def _first_bad(name: str, column: pd.Series, parsed: pd.Series, kind: str) -> ColumnTypeError:
    bad = column.notna().to_numpy(bool).copy()
    bad[bad] = parsed.isna().to_numpy()   # parsed holds the non-missing rows, in order (any index)
    row = int(np.flatnonzero(bad)[0])
    return ColumnTypeError(
        f"column {name!r} was set to {kind} but data row {row + 1} holds {str(column.iloc[row])[:60]!r}, which "
        f"does not read as {_WHAT[kind]} ({int(bad.sum())} such value(s)); fix the values or choose another type "
        "(category keeps them as text)")


def type_column(name: str, column: pd.Series, kind: str = "auto", reuse: dict | None = None
                ) -> tuple[pd.Series | None, ColumnType]:
    """The column converted to floats (or None: kept as it is) and how it was read (see the module docstring).
    ``reuse``: a dict that receives ``{name: (codes, distinct texts)}`` when the column's hashing can be reused
    by the codes (a pandas text column none of whose values changes when stripped)."""
    numeric = pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column)
    present = column.notna()
    mask = present.to_numpy(bool)
    example = str(column.iloc[int(mask.argmax())]) if mask.any() else ""
    if kind == "category":
        if not numeric:
            return None, ColumnType(name, "category", False, f"{name!r} kept as text levels, as asked.", example)
        values = column.to_numpy(dtype=np.float64, na_value=np.nan)
        whole = bool(np.all(values[~np.isnan(values)] % 1 == 0))
        text = (column.astype("Int64") if whole else column).astype(str)
        return (text.where(present.to_numpy(bool)).astype(object),
                ColumnType(name, "category", False, f"{name!r} kept as levels of its values, as asked.", example))
    if kind == "drop":
        return None, ColumnType(name, "dropped", False, f"{name!r} left out, as asked.", example, dropped=True,
                                why="asked")
    if numeric:
        if kind in ("auto", "number", "percent"):
            return None, ColumnType(name, "numeric", kind == "auto", example=example)
        text = column[present].astype(str).str.replace(r"\.0$", "", regex=True)
        codes, uniques = pd.factorize(text)
        index, n_text = text.index, len(text)
        distinct = pd.Series(np.asarray(uniques, dtype=object), dtype=text.dtype)
    else:   # every parser runs on the distinct values only (a column of 4 letters costs 4 parses, not 10,000)
        codes, distinct = _stripped_distinct(column, mask, name, reuse)
        index = column.index[mask]
        n_text = len(index)
    if kind != "auto":
        parsed, detail = _parse(kind, distinct)
        rows = _rows(parsed, codes, index)
        if rows.isna().any():
            raise _first_bad(name, column, rows, kind)
        return _full(rows, column), ColumnType(name, kind, False, _message(name, kind, parsed, detail, 0, True),
                                               example, n_distinct=len(distinct))
    if not n_text:
        return None, ColumnType(name, "text", True, example=example, n_distinct=0)
    head = distinct.iloc[:SAMPLE]
    digits = bool(head.str.contains(r"\d", regex=True).any())
    prefix = [str(v) for v in head.iloc[:PREFIX]]
    for candidate in ("boolean", "date", "percent", "number"):
        if candidate != "boolean" and not digits:   # no digit among the first values: no date or number
            break
        need = 1.0 if candidate == "boolean" else MIN_PARSED   # a rare third word is a real level, not noise
        if sum(not _may_parse(candidate, v) for v in prefix) > (1 - need) * len(head):
            continue   # too many of the first values cannot parse for the head to reach ``need``
        if _parse(candidate, head)[0].notna().mean() < need:
            continue
        parsed, detail = _parse(candidate, distinct)
        rows = _rows(parsed, codes, index)
        ok = rows.notna()
        if ok.mean() < need:
            continue
        n_bad = int((~ok).sum())
        said = _message(name, candidate, parsed.dropna(), detail, n_bad, False)
        if candidate == "number" and _decimal_comma(distinct):
            said = said[:-1] + " (decimal commas read as decimal points)."
        return _full(rows, column), ColumnType(name, candidate, True, said, example, n_bad, n_distinct=len(distinct))
    return None, ColumnType(name, "text", True, example=example, n_distinct=len(distinct))


_ASCII_NUMBER_RE = re.compile(_NUMBER_RE.pattern, re.ASCII)
_BOOLEAN_WORDS = frozenset(TRUE_WORDS + FALSE_WORDS)


def _may_parse(kind: str, value: str) -> bool:
    """False when ``value`` certainly does not parse as ``kind`` (a necessary condition of each parser, checked in
    plain Python on a few values before the vectorised parsers run on a column's distinct values)."""
    if kind == "boolean":
        return value.lower() in _BOOLEAN_WORDS
    if kind == "percent":
        return value.endswith("%")
    if kind == "date":
        return value[:1].isdigit()   # every accepted format starts with the year, day or month
    return _ASCII_NUMBER_RE.match(value) is not None or _NUMBER_RE.match(value) is not None


def _stripped_distinct(column: pd.Series, present: np.ndarray, name: str = "", reuse: dict | None = None
                       ) -> tuple[np.ndarray, pd.Series]:
    """``pd.factorize`` of the stripped text of the rows ``present`` (not missing) of ``column``, with its distinct
    values as text: the rows are hashed once, only the distinct values are stripped (then merged: " a" and "a" are
    one). A pandas text column is hashed as it is (its missing values get code -1), any other turned into text."""
    text_dtype = column.iloc[:0].astype(str).dtype
    every = None
    if isinstance(column.dtype, pd.StringDtype):
        every, uniques = pd.factorize(column, use_na_sentinel=True)
        codes = np.asarray(every)[present]
    else:
        codes, uniques = pd.factorize(column[present].astype(str))
    stripped = pd.Series(np.asarray(uniques, dtype=object), dtype=text_dtype).str.strip()
    merged, distinct = pd.factorize(stripped)
    if reuse is not None and every is not None and len(distinct) == len(uniques) and \
            bool((stripped.to_numpy(dtype=object) == np.asarray(uniques, dtype=object)).all()):
        reuse[name] = (np.asarray(every, dtype=np.int64), np.asarray(uniques, dtype=object))
    return np.asarray(merged, dtype=np.int64)[codes], pd.Series(np.asarray(distinct, dtype=object), dtype=text_dtype)


def _rows(parsed: pd.Series, codes: np.ndarray, index) -> pd.Series:
    """Values parsed once per distinct text, spread back over the rows (``codes`` from ``pd.factorize``)."""
    return pd.Series(parsed.to_numpy(dtype=np.float64, na_value=np.nan)[codes], index=index)


def _full(parsed: pd.Series, column: pd.Series) -> pd.Series:
    """Parsed values of the non-missing rows back in a float column of every row (NaN: missing)."""
    out = np.full(len(column), np.nan)
    out[column.notna().to_numpy(bool)] = parsed.to_numpy(dtype=np.float64, na_value=np.nan)
    return pd.Series(out, index=column.index, name=column.name)


# ---- near-unique columns


def near_unique_text(n_distinct: int, n_rows: int) -> bool:
    """Text with a distinct value in at least NEAR_UNIQUE of the rows (an ID, free text)."""
    return n_rows >= ID_MIN_ROWS and n_distinct >= NEAR_UNIQUE * n_rows


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


def numeric_ids(n_rows: int, n_distinct: np.ndarray, n_missing: np.ndarray, integral: np.ndarray,
                column=None, lo: np.ndarray | None = None, hi: np.ndarray | None = None) -> np.ndarray:
    """Numeric columns that are IDs: a different value in every row (none missing) and whole numbers, or evenly
    spaced reals (``column(i)`` gives column i's values; asked only for the few unique real columns)."""
    if n_rows < ID_MIN_ROWS:
        return np.zeros(n_distinct.size, dtype=bool)
    unique = (n_distinct == n_rows) & (n_missing == 0)
    ids = unique & integral
    if column is not None:
        for i in np.flatnonzero(unique & ~integral):
            ids[i] = evenly_spaced(np.asarray(column(i)), None if lo is None else float(lo[i]),
                                   None if hi is None else float(hi[i]))
    return ids


KEEP_HINT = "column_types={{{name!r}: 'category'}} (command line: --column-type {name}=category)"


def id_message(names: list[str], reasons: dict[str, str]) -> str:
    listed = ", ".join(f"{n!r} ({reasons[n]})" for n in names[:10])
    more = f", ... ({len(names)} in all)" if len(names) > 10 else ""
    first = names[0]
    return (f"Left out {len(names)} near-unique column(s): {listed}{more}. A column with (nearly) a different value "
            "in every row fits the sample by sheer number of values and tells nothing about new rows. To keep one, "
            f"pass {KEEP_HINT.format(name=first)}.")


def infer_types(features: pd.DataFrame, column_types: dict[str, str] | None = None,
                near_unique: str = "drop") -> TypedFrame:
    """Type every text column of ``features`` (see the module docstring); ``column_types`` as checked by
    :func:`check_column_types`; ``near_unique``: "drop" (the default) or "keep" text columns that are near-unique
    (numeric IDs are found later from the column statistics, see :func:`numeric_ids`)."""
    given = check_column_types(column_types, features.columns)
    m = len(features)
    new: dict[str, pd.Series] = {}
    types, notes = [], []
    converted = set()
    reuse: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    dtypes = list(features.dtypes)
    for j, name in enumerate(str(c) for c in features.columns):
        kind = given.get(name, "auto")
        numeric = pd.api.types.is_numeric_dtype(dtypes[j]) or pd.api.types.is_bool_dtype(dtypes[j])
        if kind == "auto" and numeric:   # the common case of wide numeric tables: nothing to read
            types.append(ColumnType(name, "numeric", True))
            continue
        column = features.iloc[:, j]
        values, info = type_column(name, column, kind, reuse)
        if values is not None:
            new[name] = values
            if info.type not in ("category",):
                converted.add(name)
        if info.type == "text" and near_unique == "drop":
            n_distinct = info.n_distinct
            if near_unique_text(n_distinct, m):
                share = n_distinct / max(m, 1)
                why = "a different value in every row" if n_distinct == m else f"{share:.0%} of rows distinct"
                info = ColumnType(name, "text", True, "", info.example, dropped=True, why=why, n_distinct=n_distinct)
        types.append(info)
        if info.message:
            notes.append(info.message)
    dropped = [t.column for t in types if t.dropped and t.why == "asked"]   # near-unique ones: by the caller
    frame = features
    if new:
        frame = frame.assign(**new) if all(isinstance(c, str) for c in frame.columns) else _replace(frame, new)
    if dropped:
        frame = frame.drop(columns=dropped)
    frame.attrs = {}
    kept = {t.column for t in types if t.type == "text" and not t.dropped}
    return TypedFrame(frame, tuple(types), tuple(notes), (), frozenset(converted),
                      {k: v for k, v in reuse.items() if k in kept})


def _replace(frame: pd.DataFrame, new: dict[str, pd.Series]) -> pd.DataFrame:
    frame = frame.copy()
    for name, values in new.items():
        frame[name] = values
    return frame
