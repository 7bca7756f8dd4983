"""Column types as a person reads them: dates, percentages, numbers with units, booleans, IDs to leave out.

A CSV export holds "2021-03-04", "62%", "1.86 mm/s", "$1,234.50", "6,243", "59,8" and "yes"/"no" as text;
read as text they become hundreds of categories that fit the sample by sheer number. :func:`infer_types` reads
each text column as a person would, by the table's plan (:mod:`fslab.data.plan`; the parse rules are the one table
of :mod:`fslab.data.parse_rules`), vectorised over the column's distinct values:

* ``date``: ISO dates and timestamps, 04-Mar-2021, 4 March 2021, March 04, 2021, d/m/Y or m/d/Y with ``/``, ``-``
  or ``.`` -> days since 1970-01-01 (dates) or seconds (timestamps); day and month that fit both orders are read
  month-first unless ``dayfirst=True``, and the note says which;
* ``percent``: "62%" -> 62.0;
* ``number``: numbers with a currency sign or a unit ("$1,234.50", "€ 12", "1.86 mm/s"), thousands separators
  ("6,243"), decimal commas ("59,8") -> floats;
* ``boolean``: yes/no, true/false, y/n (any case; 1/0 too) -> 1/0, when every value is one of them.

A column is converted when at least :data:`MIN_PARSED` (95 %) of its non-missing values parse; the others
become missing and the message counts them. Every conversion is one plain message. Values longer than 64
characters are text (never parsed), so typing costs time linear in the input.

``column_types={"col": TYPE}`` overrides the inference, TYPE one of :data:`TYPES`: ``auto`` (the default rule),
``number``, ``date``, ``percent``, ``boolean``, ``category`` (keep the values as text levels) or ``drop`` (leave
the column out). A forced type must parse every non-missing value, else :class:`ColumnTypeError` names the
column, the first bad data row (1-based) and its value. Any explicit type keeps a near-unique column.

Near-unique columns (:func:`fslab.data.plan.near_unique_why`) are left out by default: text with a distinct value
in at least :data:`NEAR_UNIQUE` (50 %) of the rows (IDs, free text), and numbers with a different value in every
row that are whole numbers or evenly spaced (row numbers, a float that is really an ID). A real-valued
measurement that happens to be unique is kept, and so is every converted column (a date is a number, not an ID).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .plan import (  # noqa: F401  (one definition: the plan's; these names stay importable from here)
    KEEP_HINT,
    MIN_PARSED,
    NEAR_UNIQUE,
    TYPES,
    ColumnTypeError,
    evenly_spaced,
    id_message,
)


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
    """The features after typing: the new ``frame`` (converted columns are float64, left-out columns are gone,
    marked ``dropped`` in their :class:`ColumnType`), one :class:`ColumnType` per original column, notes (what was
    done) and warnings (what to look at)."""

    frame: pd.DataFrame
    types: tuple[ColumnType, ...]
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    converted: frozenset[str] = field(default_factory=frozenset)
    text_codes: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict, repr=False)
    # {column: (code per row, -1 missing; distinct texts)} of the text columns kept as text (their values are their
    # stripped text): their hashing is reused by the profile and the codes (fslab.data.discretize.encode_frame)
    plan: object = None   # the fslab.data.plan.TablePlan the frame was read by

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


# ---- near-unique columns


def column_type(c) -> ColumnType:
    """The :class:`ColumnType` of a column's plan (:class:`fslab.data.plan.ColumnPlan`)."""
    kind = "dropped" if c.left_out == "asked" else c.type
    return ColumnType(c.name, kind, c.inferred, c.message, c.example, c.n_unparsed, dropped=bool(c.left_out),
                      why=c.why, n_distinct=c.n_distinct)


def infer_types(features: pd.DataFrame, column_types: dict[str, str] | None = None,
                near_unique: str = "drop", *, dayfirst: bool = False, constant: str = "keep") -> TypedFrame:
    """Type every column of ``features`` by its plan (see the module docstring and :mod:`fslab.data.plan`);
    ``column_types`` as checked by :func:`check_column_types`; ``near_unique``: "drop" (the default) or "keep";
    ``constant``: "keep" (the default here) or "drop" constant and empty columns."""
    from .plan import PlanOptions, apply, decide, summarize

    given = check_column_types(column_types, features.columns)
    cache: dict = {}
    summary = summarize(features, cache=cache)
    plan = decide(summary, PlanOptions.of(given, dayfirst=dayfirst, near_unique=near_unique, constant=constant))
    text_codes: dict = {}
    frame = apply(plan, features, cache, text_codes)
    frame.attrs = {}
    types = tuple(column_type(c) for c in plan.columns)
    notes = tuple(c.message for c in plan.columns if c.message)
    converted = frozenset(c.name for c in plan.kept if c.rule)
    return TypedFrame(frame, types, notes, (), converted, text_codes, plan)


def type_column(name: str, column: pd.Series, kind: str = "auto", *, dayfirst: bool = False
                ) -> tuple[pd.Series | None, ColumnType]:
    """One column typed alone by the plan's rules: (the converted floats, or None when it is kept as it is, and
    how it was read); near-unique and constant columns are not looked for here."""
    from .plan import PlanOptions, decide_column, read_column, summarize

    summary = summarize(column.rename(name)).columns[0]
    plan = decide_column(summary, kind, PlanOptions(dayfirst=dayfirst, constant="keep"), len(column))
    if plan.left_out:
        return None, column_type(plan)
    values, _ = read_column(column, plan)
    return (values if plan.rule else None), column_type(plan)
