"""The target column of a table, encoded: class indices, labels, task, and the positive class.

Conventions (DESIGN.md): a binary target becomes y in {0, 1} with 1 the positive class the user named; with no
``positive`` the default is a value that reads as "yes" (1, true, yes, +1, positive) or else the less frequent
class, and a note says which. A multiclass target keeps its classes unless ``positive`` is given (then
one-vs-rest). A numeric target with more than ``REGRESSION_MIN_DISTINCT`` distinct values is real-valued (task
"regression", for the squared error), unless it is split into classes (:func:`split_target`: at a threshold, the
median by default, or into quantile classes).

Below every reader of rows (``dataset``, ``sparse``, ``distributed``), so each encodes its target the same way
without importing another (issue 25: the data layer's imports flow one way).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import ParameterError
from .data_checks import TargetClassError, check_finite
from .discretize import distinct_values, numeric_values, value_name

REGRESSION_MIN_DISTINCT = 20
POSITIVE_WORDS = ("1", "true", "yes", "y", "+1", "positive", "pos")
TASKS = ("binary", "multiclass", "regression")


@dataclass(frozen=True)
class Target:
    """An encoded target: class index per row, labels, class names, task and how it was chosen."""

    y: np.ndarray
    labels: np.ndarray
    class_names: tuple[str, ...]
    task: str
    positive: str | None
    notes: tuple[str, ...]


def _listed(names, limit: int = 10) -> str:
    names = [repr(n) for n in names]
    return ", ".join(names[:limit]) + (f", ... ({len(names)} in all)" if len(names) > limit else "")


@dataclass(frozen=True)
class Classes:
    """The classes chosen for a target from its distinct values and their counts: ``index[k]`` is the class index
    of distinct value k; ``labels`` as :class:`Target`'s."""

    task: str
    class_names: tuple[str, ...]
    positive: str | None
    notes: tuple[str, ...]
    index: np.ndarray
    labels: np.ndarray


def choose_classes(name: str, names: list[str], counts: np.ndarray, uniques: np.ndarray | None = None,
                   positive=None) -> Classes:
    """The target's task, classes and positive class from its sorted distinct values' ``names`` and row
    ``counts`` (``uniques``: the values of a numeric target); the rules are in the module docstring. One rule
    for every engine: memory counts the rows, SQL and Dask count them in the engine (fslab.data.plan)."""
    k = len(names)
    if k < 2:
        raise TargetClassError(
            f"target {name!r} has only one class ({_listed(names)}); feature selection needs at least two. "
            "Choose another target column."
        )
    counts = np.asarray(counts, dtype=np.int64)
    if positive is not None:
        pos = str(positive).strip()
        hits = [i for i, n in enumerate(names) if n == pos]
        if not hits and uniques is not None:
            try:
                hits = [i for i, v in enumerate(uniques) if v == float(pos)]
            except ValueError:
                hits = []
        if not hits:
            raise TargetClassError(
                f"positive class {pos!r} does not occur in target {name!r}; its values are {_listed(names)}"
            )
        p = hits[0]
        if k == 2:
            notes = (f"Positive class: {names[p]!r} ({counts[p] / counts.sum():.1%} of rows).",)
            class_names = (names[1 - p], names[p])
        else:
            notes = (f"Target {name!r} has {k} classes; {names[p]!r} is the positive class and the "
                     f"other {k - 1} together are the negative class (one-vs-rest).",)
            class_names = (f"not {names[p]}", names[p])
        return Classes("binary", class_names, names[p], notes, (np.arange(k) == p).astype(np.int64),
                       np.array([0, 1]))
    if uniques is not None and k > REGRESSION_MIN_DISTINCT:
        note = (f"Target {name!r} has {k} distinct numbers, so it is treated as real-valued "
                "(regression): the squared-error measure applies. Name a positive class to make it binary.")
        return Classes("regression", tuple(names), None, (note,), np.arange(k), uniques.astype(np.float64))
    if k > 2:
        note = (f"Target {name!r} has {k} classes ({_listed(names)}); measures for two classes need "
                "a positive class (one-vs-rest).")
        # Labels are the class values: numbers stay numbers (the squared error needs them), text stays text
        # (so the squared error refuses it instead of treating class numbers as values).
        labels = uniques.astype(np.float64) if uniques is not None else np.asarray(names)
        return Classes("multiclass", tuple(names), None, (note,), np.arange(k), labels)
    words = [i for i, n in enumerate(names) if n.lower() in POSITIVE_WORDS]
    if len(words) == 1:
        p, why = words[0], "a usual name for the positive class"
    else:
        p, why = (0, "the less frequent class") if counts[0] < counts[1] else (1, "the less frequent class")
    note = (f"Positive class: {names[p]!r} ({why}, {counts[p] / counts.sum():.1%} of rows); choose the other "
            f"class ({names[1 - p]!r}) if that is the one you care about.")
    return Classes("binary", (names[1 - p], names[p]), names[p], (note,), (np.arange(2) == p).astype(np.int64),
                   np.array([0, 1]))


SPLIT_QUANTILES = (2, 5)   # quantile classes: at least 2, at most 5


@dataclass(frozen=True)
class TargetSplit:
    """A numeric target cut into classes: ``labels`` (one text label per row), the ``positive`` class (the upper
    one of a threshold split; None for quantile classes), the cut points ``cuts`` and the ``note`` that says them."""

    labels: pd.Series
    positive: str | None
    cuts: tuple[float, ...]
    note: str


def check_split(how):
    """``how`` as :func:`split_target` takes it: "median", a finite number, or ("quantiles", q) with q in 2..5;
    anything else is a ParameterError saying what is accepted."""
    if isinstance(how, str) and how.strip().lower() == "median":
        return "median"
    if isinstance(how, int | float | np.number) and not isinstance(how, bool) and np.isfinite(float(how)):
        return float(how)
    if isinstance(how, tuple | list) and len(how) == 2 and how[0] == "quantiles" and \
            isinstance(how[1], int | np.integer) and SPLIT_QUANTILES[0] <= int(how[1]) <= SPLIT_QUANTILES[1]:
        return ("quantiles", int(how[1]))
    raise ParameterError(f"target_split must be 'median', a finite number (the threshold) or ('quantiles', q) with q "
                         f"from {SPLIT_QUANTILES[0]} to {SPLIT_QUANTILES[1]}; got {how!r}")


def parse_split(text: str):
    """A split as a command line or a link writes it: "median", a number ("12.5": the threshold) or "q<q>" ("q3":
    3 quantile classes); returns what ``target_split=`` takes (a ParameterError for anything else)."""
    word = str(text).strip().lower()
    if word.startswith("q") and word[1:].isdigit():
        return check_split(("quantiles", int(word[1:])))
    try:
        return check_split(word if word == "median" else float(word))
    except ValueError:
        raise ParameterError(f"a target split is 'median', a number (the threshold) or q2..q5 (quantile classes); "
                             f"got {text!r}") from None


def split_text(how) -> str:
    """The split as :func:`parse_split` reads it back: "median", "12.5", "q3" (a recipe's or a link's text)."""
    how = check_split(how)
    return how if how == "median" else f"q{how[1]}" if isinstance(how, tuple) else value_name(how)


def split_target(column: pd.Series, name: str, how="median") -> TargetSplit:
    """A numeric target (no missing values) cut into classes, ``how``:

    - "median" or a number t: two classes, ``name > t`` (the positive class) and ``name <= t``; t = the median
      (numpy's, the mean of the two middle values for an even count) by default. A value equal to t goes below.
    - ("quantiles", q), q = 2..5: cut points c_k = the k/q quantiles (numpy's linear rule), k = 1..q-1, repeated
      ones merged; class of y = #{k : c_k < y} (a value equal to a cut point goes to the lower class), labelled
      "q1 (y <= c_1)", "q2 (c_1 < y <= c_2)", ..., so the labels sort in class order.

    The note says the threshold or cut points. A non-numeric target is a TargetClassError; a threshold (or cut
    points) leaving every row in one class is a TargetClassError naming the range of the values."""
    how = check_split(how)
    values = numeric_values(column)
    if values is None:
        raise TargetClassError(f"target {name!r} is not numeric, so it cannot be split at a threshold; choose a "
                               "numeric target or use its classes as they are")
    values = np.asarray(values, dtype=np.float64)
    check_finite(name, values)
    lo, hi = float(values.min()), float(values.max())
    if isinstance(how, tuple):
        q = how[1]
        cuts = np.unique(np.quantile(values, np.arange(1, q) / q))
        cuts = cuts[cuts < hi]   # a cut at the maximum would leave its upper class empty
        if cuts.size == 0:
            raise TargetClassError(f"target {name!r}: its {q}-quantiles are all {value_name(hi)}, its largest value, "
                                   "so quantile classes leave every row in one class; split at a threshold instead")
        cls = np.searchsorted(cuts, values, side="left")
        edges = [value_name(c) for c in cuts]
        texts = [f"{name} <= {edges[0]}"] + [f"{a} < {name} <= {b}" for a, b in zip(edges, edges[1:], strict=False)] \
            + [f"{name} > {edges[-1]}"]
        names = np.array([f"q{k + 1} ({t})" for k, t in enumerate(texts)], dtype=object)
        counts = np.bincount(cls, minlength=len(names))
        note = (f"Target {name!r} split into {len(names)} quantile classes at {', '.join(edges)} (its "
                f"{', '.join(f'{k}/{q}' for k in range(1, q))} quantiles"
                + (", repeated ones merged" if len(cuts) < q - 1 else "") + "); a value equal to a cut point goes "
                "to the lower class: " + ", ".join(f"{n} {c:,}" for n, c in zip(names, counts, strict=True)) + ".")
        return TargetSplit(pd.Series(names[cls], name=column.name, index=column.index), None,
                           tuple(float(c) for c in cuts), note)
    t = float(np.median(values)) if how == "median" else how
    if not lo <= t < hi:
        raise TargetClassError(f"target {name!r}: the threshold {value_name(t)} leaves every row in one class (its "
                               f"values run from {value_name(lo)} to {value_name(hi)}); choose a threshold from "
                               f"{value_name(lo)} up to, but not including, {value_name(hi)}")
    above = values > t
    up, down = f"{name} > {value_name(t)}", f"{name} <= {value_name(t)}"
    said = f"{value_name(t)} (the median)" if how == "median" else value_name(t)
    note = (f"Target {name!r} split at {said}: '{up}' is the positive class ({int(above.sum()):,} rows, "
            f"{above.mean():.1%}), '{down}' the other ({int((~above).sum()):,} rows); a value equal to the threshold "
            "goes below.")
    return TargetSplit(pd.Series(np.where(above, up, down), name=column.name, index=column.index), up, (t,), note)


def encode_target(column: pd.Series, name: str, positive=None) -> Target:
    """Class indices of a target column with no missing values (the rules are in the module docstring)."""
    values = numeric_values(column)
    if values is not None:
        check_finite(name, values)
        uniques, rank, _ = distinct_values(values)
        names = [value_name(v) for v in uniques]
    else:
        text = column.astype(str).str.strip().to_numpy(dtype=object)
        uniques, rank = np.unique(text, return_inverse=True)
        names = [str(u) for u in uniques]
        uniques = None
    if positive is not None and pd.api.types.is_bool_dtype(column) and str(positive).strip().lower() in (
            "true", "false"):   # positive=True on a bool column
        positive = "1" if str(positive).strip().lower() == "true" else "0"
    counts = np.bincount(rank, minlength=len(names))
    chosen = choose_classes(name, names, counts, uniques, positive)
    return Target(chosen.index[rank].astype(np.int64), chosen.labels, chosen.class_names, chosen.task,
                  chosen.positive, chosen.notes)
