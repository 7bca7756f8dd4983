"""Guesses for a new table: which column is the target, and which columns are IDs to leave out.

A target defaulting to the last column turned a breast-cancer table (text target ``diagnosis`` in the middle) into
a regression on a numeric feature. :func:`guess_target` prefers a low-cardinality column with a conventional name,
then the last low-cardinality column; :func:`id_like_columns` finds the columns with a different value in every
row (integers or text, as ``fslab.data_checks`` flags them), which fit a sample perfectly and generalise not at all.
Both return their reason in words, so the app can say what it guessed.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from .data_checks import ID_MIN_ROWS

CONVENTIONAL = ("target", "class", "label", "y", "diagnosis", "outcome")
MAX_CLASSES = 20


@dataclass(frozen=True)
class TargetGuess:
    column: str
    reason: str


def _norm(name) -> str:
    return str(name).strip().lower()


def guess_target(frame: pd.DataFrame, max_classes: int = MAX_CLASSES) -> TargetGuess:
    """The column to predict: a column named like a target (target, class, label, y, diagnosis, outcome; in that
    order of preference, case-insensitive) with 2..``max_classes`` distinct values; else the last column with
    2..``max_classes`` distinct values; else the last column."""
    if frame.shape[1] == 0:
        raise ValueError("a table without columns has no target")
    distinct = frame.nunique(dropna=True)
    low = [str(c) for c in frame.columns[((distinct >= 2) & (distinct <= max_classes)).to_numpy()]]
    by_name = {_norm(c): c for c in low}
    for name in CONVENTIONAL:
        if name in by_name:
            col = by_name[name]
            return TargetGuess(col, f"'{col}' is named like a target and has {int(distinct[col])} distinct values")
    if low:
        col = low[-1]
        return TargetGuess(col, f"'{col}' is the last column with few distinct values ({int(distinct[col])}); "
                                "no column is named target, class, label, y, diagnosis or outcome")
    col = str(frame.columns[-1])
    return TargetGuess(col, f"no column has between 2 and {max_classes} distinct values, so the last column "
                            f"'{col}' is taken (a real-valued target)")


def id_like_columns(frame: pd.DataFrame, target: str | None = None) -> list[str]:
    """Columns other than ``target`` with a different value in every row (at least ``ID_MIN_ROWS`` rows), holding
    integers or text (a real-valued measurement is expected to be all different)."""
    m = len(frame)
    if m < ID_MIN_ROWS:
        return []
    distinct = frame.nunique(dropna=False)
    candidates = [c for c in frame.columns[(distinct == m).to_numpy()] if str(c) != str(target)]
    out = []
    for c in candidates:  # only the few all-distinct columns are looked at: integers or text, not real numbers
        col = frame[c]
        if pd.api.types.is_float_dtype(col):
            values = col.to_numpy()
            if not (values == values.round()).all():
                continue
        elif not (pd.api.types.is_integer_dtype(col) or pd.api.types.is_string_dtype(col)
                  or pd.api.types.is_object_dtype(col)):
            continue
        out.append(str(c))
    return out
