"""The parse rules: how one text value is read as a yes/no value, a percentage, a number or a date. ONE table.

Every rule is a regex the whole (stripped) value must match and a conversion of its capture groups. The regexes
use only the subset shared by Python ``re``, RE2 (DuckDB) and PostgreSQL's ARE: anchors, classes, ``\\d``/``\\s``,
bounded repeats, ``(?:...)``, a leading ``(?i)``; no lookaround, no backreferences, no named groups, no lazy
quantifiers. So the SQL reader evaluates the same patterns in the engine (``regexp_matches`` /
``regexp_extract`` / ``~``) and mirrors each conversion with string functions and integer arithmetic.

A value longer than :data:`MAX_CHARS` characters is never parsed (it is text): no rule costs more than a bounded
amount per value, so typing is linear in the input whatever the cells hold.

Rules (pattern of the whole value -> conversion; the exact patterns are :data:`RULES`):

* ``boolean``: ``(?i)^(yes|true|y|1|no|false|n|0)$`` -> yes, true, y, 1 -> 1; no, false, n, 0 -> 0.
* ``date-iso``: ``^(Y{4})-(M{1,2})-(D{1,2})`` with an optional ``T``/space time ``H:M[:S[.f]]`` and ``Z`` or
  ``+-hh:mm`` -> days (seconds with a time of day) since 1970-01-01, UTC.
* ``date-ymd``: ``2021/03/04`` -> days.
* ``date-slash``, ``date-dash``, ``date-dot``: ``a/b/YYYY`` (or ``-``, ``.``), optional ``H:M[:S]`` -> read
  month-first (a = month, order "mdy") or day-first (a = day, "dmy").
* ``date-dmy-name``: ``04-Mar-2021``, ``4 March 2021``; ``date-mdy-name``: ``March 04, 2021``, ``Mar 4, 2021``.
* ``percent``: ``^(NUM)\\s*%$`` -> the number: "62%" -> 62.
* ``number``: ``^(?:(CUR)\\s*)?(NUM)(?:\\s+(UNIT)|(TIGHT))?$`` -> the number; its unit is CUR + unit, and one
  unit per column (the most common) is read.
* ``date-compact``: ``20210304``, only when a column is set to date.

NUM is :data:`NUM`: digits with thousands groups (``,`` ``.`` ``'`` or a space before each group of three) and an
optional decimal part. Its conversion depends on the column's decimal mark (:data:`COMMA_DECIMAL` seen in any
value of the rule: "59,8", "0,5", "1.234,5"): with a decimal point, ``'``, spaces and commas are group separators
and are removed; with a decimal comma, a value holding a comma has its dots, ``'`` and spaces removed and the comma
read as the point, and a value without one loses only ``'`` and spaces. A date is valid when its month is 1..12
and its day exists in that month (leap years included); days since 1970-01-01 come from integer arithmetic on
year, month and day (:func:`days_from_civil`, portable to SQL), seconds add the time of day minus the UTC offset.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import DataError

MAX_CHARS = 64   # longer values are text: never parsed as numbers or dates

NUM = r"[+-]?(?:\d{1,3}(?:[,.' ]\d{3})+|\d+)(?:[.,]\d+)?|[+-]?[.,]\d+"
CURRENCY = r"[$€£¥₹]|USD|EUR|GBP|CHF"
UNIT = r"[^\d\s+-][^\d]{0,15}"
# a unit right after the digits must be a usual one ("12kg", "5ms"): "274xx" or "12A" are codes, not quantities
TIGHT = r"%|[kmcµμn]?[gmslLW]|[kmM]?Hz|h|hr?s?|min|mph|kph|kWh|[kKMG]B|°[CF]?|K|V|Pa|kPa|bar|psi|pts?"
MONTH = (r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
         r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?")
COMMA_DECIMAL = r",\d{1,2}$|,\d{4,}$|\.\d{3},\d|^[+-]?,"   # on a rule's NUM text: the column's decimal mark is a comma
_TIME = r"(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?"
TRUE_WORDS = ("yes", "true", "y", "1")
FALSE_WORDS = ("no", "false", "n", "0")
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


@dataclass(frozen=True)
class ParseRule:
    """One rule: its ``name``, the ``kind`` of values it reads (boolean, percent, number, date), the ``pattern`` the
    whole stripped value must match (portable regex), what each capture group holds and the conversion in words.
    ``orders``: the readings of a date's first two numbers ("mdy", "dmy") when both are possible."""

    name: str
    kind: str
    pattern: str
    groups: tuple[str, ...]
    conversion: str
    orders: tuple[str, ...] = ("",)
    inferred: bool = True   # False: tried only when the user sets the column's type


def _numeric_date(sep: str) -> str:
    return rf"^(\d{{1,2}}){sep}(\d{{1,2}}){sep}(\d{{4}})(?: {_TIME})?$"


RULES: tuple[ParseRule, ...] = (
    ParseRule("boolean", "boolean", r"(?i)^(yes|true|y|1|no|false|n|0)$", ("word",),
              "yes, true, y, 1 -> 1; no, false, n, 0 -> 0 (any case)"),
    ParseRule("date-iso", "date", rf"^(\d{{4}})-(\d{{1,2}})-(\d{{1,2}})(?:[T ]{_TIME})?\s*(Z|[+-]\d{{2}}:?\d{{2}})?$",
              ("year", "month", "day", "hour", "minute", "second", "fraction", "utc offset"),
              "days since 1970-01-01 (seconds when a time of day is given), in UTC"),
    ParseRule("date-ymd", "date", r"^(\d{4})/(\d{1,2})/(\d{1,2})$", ("year", "month", "day"),
              "days since 1970-01-01"),
    ParseRule("date-slash", "date", _numeric_date("/"), ("a", "b", "year", "hour", "minute", "second", "fraction"),
              "month/day/year or day/month/year -> days (or seconds) since 1970-01-01", ("mdy", "dmy")),
    ParseRule("date-dash", "date", _numeric_date("-"), ("a", "b", "year", "hour", "minute", "second", "fraction"),
              "month-day-year or day-month-year -> days (or seconds) since 1970-01-01", ("mdy", "dmy")),
    ParseRule("date-dot", "date", _numeric_date(r"\."), ("a", "b", "year", "hour", "minute", "second", "fraction"),
              "month.day.year or day.month.year -> days (or seconds) since 1970-01-01", ("mdy", "dmy")),
    ParseRule("date-dmy-name", "date", rf"(?i)^(\d{{1,2}})[ -]({MONTH})\.?,?[ -](\d{{4}})$",
              ("day", "month name", "year"), "04-Mar-2021, 4 March 2021 -> days since 1970-01-01"),
    ParseRule("date-mdy-name", "date", rf"(?i)^({MONTH})\.? (\d{{1,2}}),? (\d{{4}})$",
              ("month name", "day", "year"), "March 04, 2021, Mar 4, 2021 -> days since 1970-01-01"),
    ParseRule("percent", "percent", rf"^({NUM})\s*%$", ("number",),
              "the number, with the column's decimal mark: 62% -> 62"),
    ParseRule("number", "number", rf"^(?:({CURRENCY})\s*)?({NUM})(?:\s+({UNIT})|({TIGHT}))?$",
              ("currency", "number", "unit", "unit"),
              "the number, with the column's decimal mark; its unit is the currency sign plus the unit"),
    ParseRule("date-compact", "date", r"^((?:19|20)\d{2})(\d{2})(\d{2})$", ("year", "month", "day"),
              "days since 1970-01-01", inferred=False),
)
class ColumnTypeError(DataError):
    """A column type given by the user does not fit the column's values (or is not a known type)."""


class _BuiltIn(dict):
    """The built-in rules by name (what the SQL reader mirrors); a registered kind's rule asked here is a
    ColumnTypeError saying where it is read, not a bare KeyError."""

    def __missing__(self, name: str):
        kind = next((k for k in EXTRA.values() if any(r.name == name for r in k.rules)), None)
        if kind is None:
            raise KeyError(name)
        raise ColumnTypeError(f"column type {kind.name!r} is registered in this process and read in memory; the "
                              "SQL reader knows the built-in types only: leave the column as text there, or load "
                              "the rows with Dataset.from_frame")


BY_NAME = _BuiltIn({r.name: r for r in RULES})
KINDS = ("boolean", "date", "percent", "number")   # the order in which a text column's readings are tried


@dataclass(frozen=True)
class ColumnKind:
    """A column type declared in one record (issue 36.3): ``name`` (a type of ``column_types=``, the Data page's and
    the command line's choices), ``what`` its values in words ("durations"), ``unit`` what its floats are in
    ("minutes"), ``rules`` its :class:`ParseRule` records (``kind`` = name; portable regexes as above) and
    ``value(rule, groups)`` the floats of a rule's capture groups (NaN: not a value). An inferred kind is tried on
    a text column after the built-in :data:`KINDS` (a column they read stays theirs). Read in memory, and on Dask
    when the module that registers it is imported on the workers too (a registration lives in its process); the SQL
    reader's mirror knows the built-in rules only (:data:`RULES`), so there the column stays text."""

    name: str
    what: str
    unit: str
    rules: tuple[ParseRule, ...]
    value: Callable[[ParseRule, pd.DataFrame], np.ndarray]


EXTRA: dict[str, ColumnKind] = {}   # registered kinds, in registration order


def register(kind: ColumnKind) -> ColumnKind:
    """Add a column type (at start-up): typing, the plan's words, ``column_types=``, recipes, the command line and
    the Data page read it from here. Refuses a taken name or a rule of another kind."""
    from ..errors import ParameterError

    taken = {*KINDS, "auto", "category", "drop", "text", "numeric", *EXTRA}
    names = {r.name for r in all_rules()}
    if kind.name in taken or not kind.rules or any(r.kind != kind.name or r.name in names for r in kind.rules):
        raise ParameterError(f"column type {kind.name!r}: the name must be new and every rule of kind {kind.name!r} "
                             "with a new rule name")
    EXTRA[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    EXTRA.pop(name, None)


def all_rules() -> tuple[ParseRule, ...]:
    """The built-in rules, then every registered kind's."""
    return RULES + tuple(r for kind in EXTRA.values() for r in kind.rules)


def rule_named(name: str) -> ParseRule:
    return BY_NAME[name] if name in BY_NAME else next(r for r in all_rules() if r.name == name)


def kinds() -> tuple[str, ...]:
    """Every kind a text column's reading is tried as, in order: the built-in ones, then the registered ones."""
    return KINDS + tuple(EXTRA)


def rules_of(kind: str, forced: bool = False) -> tuple[ParseRule, ...]:
    return tuple(r for r in all_rules() if r.kind == kind and (r.inferred or forced))


# ---- conversions (vectorised over the distinct values of a column; NaN: the value does not parse)


def parseable(text: pd.Series) -> np.ndarray:
    """Values short enough to be parsed (:data:`MAX_CHARS`)."""
    return (text.str.len() <= MAX_CHARS).to_numpy(bool)


LEAD = r"(?i)^(?:[0-9+.,$€£¥₹-]|usd|eur|gbp|chf|" + MONTH.replace("(?:", "(?:") + ")"
# what a value must start with to match any rule but boolean: a digit, a sign or mark, a currency, a month name


def extract(rule: ParseRule, text: pd.Series) -> pd.DataFrame:
    """The capture groups of ``rule`` for every value of ``text`` (NaN rows: no match; long values never match).
    Only the values the pattern matches are split into groups (``str.match`` first: most values of a text column
    match no rule)."""
    short = parseable(text)
    hit = short & text.str.match(rule.pattern).fillna(False).to_numpy(bool)   # pyarrow strings: RE2, fast
    n_groups = re.compile(rule.pattern).groups
    out = pd.DataFrame(np.full((len(text), n_groups), np.nan, dtype=object), index=text.index)
    if hit.any():
        groups = text[hit].astype(object).str.extract(rule.pattern, expand=True).to_numpy(dtype=object)
        out.iloc[hit] = groups
    return out


def comma_decimal(num: pd.Series) -> np.ndarray:
    """Which NUM texts say the decimal mark is a comma (:data:`COMMA_DECIMAL`)."""
    return num.fillna("").str.contains(COMMA_DECIMAL, regex=True).to_numpy(bool)


def number_value(num: pd.Series, comma: bool) -> np.ndarray:
    """Floats of NUM texts with the column's decimal mark (see the module docstring); NaN for no match."""
    num = num.fillna("")
    if comma:
        has = num.str.contains(",", regex=False)
        text = num.str.replace(r"['. ]", "", regex=True).str.replace(",", ".", regex=False).where(
            has, num.str.replace(r"[' ]", "", regex=True))
    else:
        text = num.str.replace(r"[,' ]", "", regex=True)
    out = np.array(pd.to_numeric(text.where(text != "", "x"), errors="coerce"), dtype=np.float64)
    out[~np.isfinite(out)] = np.nan
    return out


def boolean_value(groups: pd.DataFrame) -> np.ndarray:
    word = groups[0].str.lower()
    out = np.full(len(groups), np.nan)
    out[word.isin(TRUE_WORDS).to_numpy(bool)] = 1.0
    out[word.isin(FALSE_WORDS).to_numpy(bool)] = 0.0
    return out


def days_from_civil(y: np.ndarray, m: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Days since 1970-01-01 of the proleptic Gregorian date (y, m, d), integer arithmetic only (H. Hinnant):
    y' = y - [m <= 2], era = floor(y' / 400), yoe = y' - 400 era, doy = (153 (m + 9 mod 12) + 2) // 5 + d - 1,
    doe = 365 yoe + yoe // 4 - yoe // 100 + doy, days = 146097 era + doe - 719468."""
    y = y - (m <= 2)
    era = np.floor_divide(y, 400)
    yoe = y - era * 400
    doy = (153 * ((m + 9) % 12) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def valid_date(y: np.ndarray, m: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Month 1..12 and a day that exists in it (February 29 in leap years only)."""
    leap = ((y % 4 == 0) & (y % 100 != 0)) | (y % 400 == 0)
    mm = np.clip(m, 1, 12).astype(np.int64)
    last = np.array([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])[mm - 1] + (leap & (mm == 2))
    return (m >= 1) & (m <= 12) & (d >= 1) & (d <= last) & (y >= 1)


def _ints(column: pd.Series) -> np.ndarray:
    return pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64)


def date_value(rule: ParseRule, groups: pd.DataFrame, order: str = "") -> np.ndarray:
    """Seconds since 1970-01-01 (UTC) of the values matched by a date rule (NaN: no match or not a valid date).
    ``order``: "mdy" or "dmy" for the rules with both readings."""
    if rule.name.endswith("-name"):
        name_col, day_col = (1, 0) if rule.name == "date-dmy-name" else (0, 1)
        names = groups[name_col].str.lower().str[:3]
        month = names.map({n: i + 1 for i, n in enumerate(MONTHS)}).to_numpy(dtype=np.float64)
        day, year = _ints(groups[day_col]), _ints(groups[2])
    elif rule.orders != ("",):
        a, b = _ints(groups[0]), _ints(groups[1])
        month, day = (b, a) if order == "dmy" else (a, b)
        year = _ints(groups[2])
    else:
        year, month, day = _ints(groups[0]), _ints(groups[1]), _ints(groups[2])
    ok = ~(np.isnan(year) | np.isnan(month) | np.isnan(day))
    y, m, d = (np.where(ok, v, 1).astype(np.int64) for v in (year, month, day))
    ok &= valid_date(y, m, d)
    seconds = days_from_civil(y, m, d).astype(np.float64) * 86400.0
    first_time = 3 if rule.name in ("date-iso",) or rule.orders != ("",) else None
    if first_time is not None and groups.shape[1] > first_time:
        h, mi = _ints(groups[first_time]), _ints(groups[first_time + 1])
        s = _ints(groups[first_time + 2])
        frac = groups[first_time + 3].fillna("")
        f = pd.to_numeric("0." + frac.where(frac != "", "0"), errors="coerce").to_numpy(dtype=np.float64)
        timed = ~np.isnan(h)
        h, mi, s = np.nan_to_num(h), np.nan_to_num(mi), np.nan_to_num(s)
        ok &= ~timed | ((h <= 23) & (mi <= 59) & (s <= 59))
        seconds += np.where(timed, h * 3600 + mi * 60 + s + f, 0.0)
        if rule.name == "date-iso":
            zone = groups[7].fillna("Z").str.replace(":", "", regex=False)
            sign = np.where(zone.str[:1] == "-", -1.0, 1.0)
            zh, zm = _ints(zone.str[1:3]), _ints(zone.str[3:5])
            seconds -= np.where(zone == "Z", 0.0, sign * (np.nan_to_num(zh) * 3600 + np.nan_to_num(zm) * 60))
    return np.where(ok, seconds, np.nan)


@dataclass(frozen=True)
class Reading:
    """One way to read a column: a rule, its date order ("mdy"/"dmy"/""), its decimal mark ("." or ",") and its
    unit (number rule). ``key()`` names it in the summaries' counts."""

    rule: str
    order: str = ""
    mark: str = "."
    unit: str = ""

    def key(self) -> str:
        return f"{self.rule}|{self.order}|{self.mark}|{self.unit}"


def read_values(reading: Reading, text: pd.Series) -> np.ndarray:
    """Floats of stripped texts by one reading (NaN: does not parse): dates in seconds since 1970-01-01."""
    rule = rule_named(reading.rule)
    groups = extract(rule, text)
    if rule.kind in EXTRA:
        return np.asarray(EXTRA[rule.kind].value(rule, groups), dtype=np.float64)
    if rule.kind == "boolean":
        return boolean_value(groups)
    if rule.kind == "date":
        return date_value(rule, groups, reading.order)
    if rule.kind == "percent":
        return number_value(groups[0], reading.mark == ",")
    values = number_value(groups[1], reading.mark == ",")
    return np.where(number_unit(groups).to_numpy(dtype=object) == reading.unit, values, np.nan)


def number_unit(groups: pd.DataFrame) -> pd.Series:
    """The unit of matched number values: the currency sign plus the unit ("" for none; NaN rows: no match)."""
    unit = groups[2].fillna(groups[3]).fillna("").str.strip()
    out = groups[0].fillna("") + unit
    return out.where(groups[1].notna())
