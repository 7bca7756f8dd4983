"""Guesses for a new table: which column is the target, and which columns are IDs to leave out.

A target defaulting to the last column turned a breast-cancer table (text target ``diagnosis`` in the middle) into
a regression on a numeric feature, and "the last column with 2-20 values" guessed wrong on 5 of 6 public tables
(a passenger class, free-text comments, a year, a payment method, a job code). :func:`guess_target` scores the
columns that can be a target by their name and shape and asks when none is clearly it; :func:`id_like_columns`
finds the columns with a different value in every row (integers or text, as ``fslab.data_checks`` flags them),
which fit a sample perfectly and generalise not at all. Both return their reason in words, so the app can say
what it guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .data_checks import ID_MIN_ROWS

MAX_CLASSES = 20
# a column named exactly like one of these is taken for the target (issue 33: the analyst's usual names)
TARGET_NAMES = ("target", "class", "label", "y", "outcome", "diagnosis", "species", "churn", "churned", "survived",
                "default", "fraud", "is_fraud", "approve", "approved", "exited", "attrition", "response", "risk",
                "converted", "purchase", "purchased", "clicked", "left", "status", "result", "decision", "grade",
                "quality")
STRONG = 3.0   # an exact target name
TOKEN = 2.0    # a target name inside a longer one ("is_fraud", "ChurnFlag"); "passengerClass" scores here, below
BINARY = 1.0   # two values: the usual shape of a target
LAST = 0.5     # the last column: exports often put the target there
SURE = 3.0     # a guess scoring at least this (and ahead of the next by BINARY) is made; otherwise the user is asked
_DATE = (r"^\s*(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{1,2}[- ][A-Za-z]{3,9}[- ]\d{4}"
         r"|[A-Za-z]{3,9} \d{1,2},? \d{4})")


@dataclass(frozen=True)
class TargetGuess:
    """The column to predict and why, in words. ``sure`` is False when the evidence is weak (no column named like a
    target, or none that can be one: then ``column`` is the last column): the app should ask instead of guessing."""

    column: str
    reason: str
    sure: bool = True


def _norm(name) -> str:
    return str(name).strip().lower()


def _tokens(name) -> set[str]:
    """Words of a column name: split at non-letters and at camelCase humps ("passengerClass" -> passenger, class)."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", str(name))
    return {t for t in re.split(r"[^a-z0-9]+", spaced.lower()) if t}


def _why_not(col: pd.Series, name: str, n_distinct: int, max_classes: int) -> str:
    """Why a column cannot be the target ("" if it can): mostly missing, constant, a date, a year, free text."""
    present = col.dropna()
    if len(present) < len(col) / 2:
        return "missing in most rows"
    if n_distinct < 2:
        return "one value"
    if "date" in _tokens(name) or "time" in _tokens(name) or "timestamp" in _tokens(name):
        return "a date"
    if pd.api.types.is_numeric_dtype(col):
        if "year" in _tokens(name) or "yr" in _tokens(name):
            return "a year"
        return ""
    text = present.astype(str).head(200).str.strip()
    if text.str.contains(_DATE, regex=True).mean() >= 0.95:
        return "a date"
    if text.str.split().str.len().mean() > 5 or text.str.endswith(".").mean() > 0.5:
        return "free text"
    return ""


def guess_target(frame: pd.DataFrame, max_classes: int = MAX_CLASSES) -> TargetGuess:
    """The column to predict, or a question. Each column that can be a target (not mostly missing, constant, a
    date, a year or free text, and with 2..``max_classes`` values unless it is named exactly like a target) scores
    STRONG for an exact target name (:data:`TARGET_NAMES`, case-insensitive), TOKEN for a target name among its
    words, + BINARY for two values, + LAST for the last column. The best is taken when it scores at least
    :data:`SURE` and leads the next by BINARY; otherwise ``sure`` is False (the app asks, offering the best, or the
    last column when no column can be a target)."""
    if frame.shape[1] == 0:
        raise ValueError("a table without columns has no target")
    distinct = frame.nunique(dropna=True)
    last = str(frame.columns[-1])
    scored: list[tuple[float, int, str, str]] = []
    for i, c in enumerate(frame.columns):   # a few dozen columns: reasons per column, not per row
        name, n = str(c), int(distinct[c])
        exact = _norm(name) in TARGET_NAMES
        if _why_not(frame[c], name, n, max_classes) or (n > max_classes and not exact):
            continue
        words = [w for w in TARGET_NAMES if w in _tokens(name)]
        score = (STRONG if exact else TOKEN if words else 0.0) + (BINARY if n == 2 else 0.0) + \
            (LAST if name == last else 0.0)
        why = (f"'{name}' is named like a target" if exact else f"'{name}' has '{words[0]}' in its name" if words
               else f"'{name}' has few distinct values")
        scored.append((score, -i, name, f"{why} and has {n:,} distinct values"))
    if not scored:
        return TargetGuess(last, "not sure: no column looks like a target (each is mostly missing, constant, a date, "
                                 f"a year, free text or has more than {max_classes} values), so the last column is "
                                 "shown; choose the column to predict", sure=False)
    scored.sort(reverse=True)
    best, runner = scored[0], (scored[1][0] if len(scored) > 1 else -np.inf)
    if best[0] >= SURE and best[0] - runner >= BINARY:
        return TargetGuess(best[2], best[3])
    return TargetGuess(best[2], f"not sure: {best[3]}, but no column is clearly the target; choose the column to "
                                "predict", sure=False)


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
