"""Selection: the result of one selector run, with its full step-by-step trace."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..counting.folds import describe_estimate
from ..export import json_ready

TRACE_COLUMNS = ("step", "candidate", "name", "value", "chosen", "n_tied", "tied")


class _Later:
    """A field made on first access: ``__init__`` may pass the value or a :func:`deferred` that makes it (the trace's
    DataFrame and the code alerts are a third of a small ``select``'s fixed cost, and NPFS or a quick recomputation
    often reads neither). The value made is kept. Installed on the class after ``@dataclass`` (so the fields keep
    their types and defaults); a data descriptor, so a frozen dataclass's ``__init__`` sets it here."""

    def __init__(self, name: str):
        self.slot = "_" + name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        value = obj.__dict__[self.slot]
        if isinstance(value, Deferred):
            value = value.make()
            obj.__dict__[self.slot] = value
        return value

    def __set__(self, obj, value) -> None:
        obj.__dict__[self.slot] = value


@dataclass(frozen=True)
class Deferred:
    """``make()`` returns ``fn(*args)``: a value a :class:`Selection` builds when it is first read."""

    fn: Callable[..., Any]
    args: tuple = ()

    def make(self):
        return self.fn(*self.args)


def deferred(fn: Callable[..., Any], *args) -> Any:
    """A :class:`Selection` field's value made by ``fn(*args)`` when first read (``trace``, ``alerts``)."""
    return Deferred(fn, args)


@dataclass(frozen=True, eq=False)
class Selection:
    """Features chosen by a selector.

    ``features``: 0-based indices in the order chosen (forward and ranking selectors), or the
    surviving features in increasing index order (backward elimination, exhaustive search).
    ``scores``: the criterion after each step (greedy: C(J_t) with J_t the first t features;
    ranking: each chosen feature's own score; exhaustive: C of each prefix of the best subset;
    backward: C of the remaining set after each elimination, so one per eliminated feature, and
    none when k equals the number of features).
    ``start_score``: backward only, C of the full feature set the elimination starts from.
    ``notes``: plain sentences about the run a user should know (e.g. nothing was eliminated).
    ``trace``: one row per (step, candidate) with columns step, candidate (feature index), name,
    value (the candidate's criterion or gain at that step), chosen, n_tied (candidates within
    1e-12 * max(1, |best|) of the best at that step; the lowest index wins), tied (this candidate is one of
    them: :mod:`fslab.selectors.ties`, so plots need not recompute ties). Exhaustive search
    lists every subset it scored, with a ``subset`` column and ``candidate`` = -1.
    ``alerts``: leak alerts on the chosen columns (:func:`fslab.alerts.code_alerts`, in-sample on the codes: a
    chosen column that gives the class exactly, H(Y|X) = 0, or is a function of it, H(X|Y) = 0); the held-out
    "near-perfect" and "filled in for one class only" checks need the raw table and held-out rows:
    :func:`fslab.alerts.selection_alerts` (the command line prints both).
    ``estimate``: which estimate the scores and trace values are: ``"plug-in"`` (in-sample, the papers'),
    ``"cross-fitted"`` (held out over ``folds`` stratified folds split by ``split_seed``), or ``"in-sample"``
    for the Fisher score (a statistic of the raw values with no held-out version).
    """

    features: tuple[int, ...]
    names: tuple[str, ...]
    scores: np.ndarray
    trace: pd.DataFrame
    selector: str
    measure: str
    k: int
    s: int | None = None
    params: dict = field(default_factory=dict)
    eliminated: tuple[int, ...] = ()
    start_score: float | None = None
    notes: tuple[str, ...] = ()
    estimate: str = "plug-in"
    folds: int | None = None
    split_seed: int | None = None
    alerts: tuple = ()

    def __getstate__(self) -> dict:
        """Pickled with every deferred field made (a deferred alert holds the whole source)."""
        return {key: value.make() if isinstance(value, Deferred) else value for key, value in self.__dict__.items()}

    @property
    def estimate_label(self) -> str:
        """Which number the scores and trace values are, in words (:func:`fslab.measures.describe_estimate`)."""
        return describe_estimate(self.estimate, self.folds)

    def support(self, n_features: int) -> np.ndarray:
        """Boolean mask of length ``n_features``, True on the selected features."""
        mask = np.zeros(int(n_features), dtype=bool)
        mask[list(self.features)] = True
        return mask

    def summary(self) -> pd.DataFrame:
        """One row per selected feature: rank, feature index, name, and its step's score when defined."""
        scores = np.asarray(self.scores, dtype=np.float64)
        per_feature = scores if scores.size == len(self.features) else np.full(len(self.features), np.nan)
        return pd.DataFrame({
            "rank": np.arange(1, len(self.features) + 1),
            "feature": list(self.features),
            "name": list(self.names),
            "score": per_feature,
        })

    def to_dict(self) -> dict:
        """Plain JSON-ready record (without the trace; see ``trace.to_dict``)."""
        return {
            "selector": self.selector,
            "measure": self.measure,
            "k": self.k,
            "s": self.s,
            "params": {key: json_ready(value) for key, value in self.params.items()},
            "features": list(self.features),
            "names": list(self.names),
            "scores": [json_ready(v) for v in np.asarray(self.scores, dtype=np.float64)],
            "eliminated": list(self.eliminated),
            "start_score": json_ready(self.start_score),
            "notes": list(self.notes),
            "estimate": self.estimate,
            "folds": self.folds,
            "split_seed": json_ready(self.split_seed),
            "alerts": [a.to_dict() for a in self.alerts],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())


for _name in ("trace", "alerts"):
    setattr(Selection, _name, _Later(_name))


def build_trace(log, names: tuple[str, ...]) -> pd.DataFrame:
    """Assemble the per-step arrays of the search loop (a ``SearchLog``) into the trace DataFrame."""
    if not log.steps:
        return pd.DataFrame({c: pd.Series(dtype=t) for c, t in zip(
            TRACE_COLUMNS, ("int64", "int64", "object", "float64", "bool", "int64", "bool"), strict=True)})
    cand = np.concatenate(log.candidates)
    lengths = np.array([len(c) for c in log.candidates])
    return pd.DataFrame({
        "step": np.concatenate(log.steps),
        "candidate": cand,
        "name": np.asarray(names, dtype=object)[cand],
        "value": np.concatenate(log.values),
        "chosen": cand == np.repeat(np.asarray(log.order), lengths),
        "n_tied": np.repeat(np.asarray(log.n_tied, dtype=np.int64), lengths),
        "tied": np.concatenate(log.tied),
    }, copy=False)  # fresh arrays: no copy (halves the fixed cost of a small run)
