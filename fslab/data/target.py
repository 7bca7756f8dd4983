"""The target column of a table, encoded: class indices, labels, task, and the positive class.

Conventions (DESIGN.md): a binary target becomes y in {0, 1} with 1 the positive class the user named; with no
``positive`` the default is a value that reads as "yes" (1, true, yes, +1, positive) or else the less frequent
class, and a note says which. A multiclass target keeps its classes unless ``positive`` is given (then
one-vs-rest). A numeric target with more than ``REGRESSION_MIN_DISTINCT`` distinct values is real-valued (task
"regression", for the squared error).

Below every reader of rows (``dataset``, ``sparse``, ``distributed``), so each encodes its target the same way
without importing another (issue 25: the data layer's imports flow one way).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

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
