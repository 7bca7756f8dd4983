"""An analyst's score table: every feature's value under several measures, in-sample and held out, side by side,
and the value of a hand-picked subset (Orange's Rank widget and Weka's attribute evaluators, with the Bayes
criteria of Ahmed et al. beside mutual information).

A feature's score under measure l is the Bayes-optimal predictor's value on that feature alone, C(l)({j}): an error
(lower is better) or a score (higher is better), as :func:`fslab.bayes_value` reports it. Each is given as the
papers' in-sample plug-in estimate and as the cross-fitted held-out one (:mod:`fslab.measures.cross_fit`), so a
column that merely has many levels shows a large in-sample score and a held-out one no better than no feature.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .errors import ParameterError
from .measures import DEFAULT_FOLDS, MEASURES, supported_measures
from .measures import measure as get_measure
from .measures.cross_fit import can_hold_out
from .tables import as_source

# the measures shown by default: the Bayes paper's headline ones and MI (precision / recall are greedy objectives)
DEFAULT_SCORE_MEASURES = ("zero-one", "balanced", "auc", "log-loss", "mi")
IN_SAMPLE, HELD_OUT = "in-sample", "held-out"


def _measures(source, measures: Sequence[str] | None) -> list[str]:
    fitting = supported_measures(source)
    chosen = [m for m in (measures or DEFAULT_SCORE_MEASURES) if m in fitting]
    unknown = [m for m in (measures or ()) if m not in MEASURES]
    if unknown:
        raise ParameterError(f"unknown measure {unknown[0]!r}; choose among {', '.join(MEASURES)}")
    if not chosen:
        raise ParameterError(f"none of {', '.join(measures or DEFAULT_SCORE_MEASURES)} fits this target; "
                             f"these do: {', '.join(fitting)}")
    return chosen


def _estimates(source) -> tuple[str, ...]:
    return ("plug-in", "cross-fitted") if can_hold_out(source) else ("plug-in",)


def column_label(measure: str, estimate: str) -> str:
    """A score table column: "balanced error, in-sample" / "balanced error, held-out"."""
    return f"{MEASURES[measure].label}, {IN_SAMPLE if estimate == 'plug-in' else HELD_OUT}"


def _bound(name: str, params: Mapping[str, Any] | None):
    """Measure ``name`` with the parameters of ``params`` it takes (its record's; the others are for other measures)."""
    return get_measure(name, **{p: v for p, v in (params or {}).items() if p in MEASURES[name].parameters})


def feature_scores(source, measures: Sequence[str] | None = None, *, folds: int = DEFAULT_FOLDS,
                   seed=0, params: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """One row per feature: its name, number of levels, and its value under each measure alone, in-sample and
    (on a sample) held out over ``folds`` stratified folds split by ``seed``. Measures that do not fit the target
    are left out. An exact Distribution gets its exact values only (column "..., in-sample"). ``params``: measure
    parameters (c, beta, ...), each measure taking the ones its record declares."""
    src = as_source(source)
    names = list(src.feature_names)
    table = pd.DataFrame({"feature": names, "levels": np.asarray(src.arities, dtype=np.int64)})
    every = np.arange(src.n_features)
    for name in _measures(src, measures):
        for estimate in _estimates(src):
            ev = _bound(name, params).on(src, estimate=estimate, folds=folds, seed=seed)
            table[column_label(name, estimate)] = ev.sign * ev.extensions([], every)
    return table


def subset_scores(source, subset: Sequence[int], measures: Sequence[str] | None = None, *,
                  folds: int = DEFAULT_FOLDS, seed=0, params: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """One row per measure: the value of the Bayes-optimal predictor on the features ``subset`` in-sample and held
    out, the held-out value of no feature at all (the class prior), and whether lower or higher is better
    (``params`` as in :func:`feature_scores`)."""
    src = as_source(source)
    rows = []
    for name in _measures(src, measures):
        m = _bound(name, params)
        row: dict[str, Any] = {"measure": m.label, "better": "higher" if m.greater_is_better else "lower"}
        for estimate in _estimates(src):
            ev = m.on(src, estimate=estimate, folds=folds, seed=seed)
            label = IN_SAMPLE if estimate == "plug-in" else HELD_OUT
            row[label] = ev.value(list(subset))
            if estimate == "cross-fitted":
                row["no feature, held-out"] = ev.value([])
        rows.append(row)
    return pd.DataFrame(rows)


__all__ = ["DEFAULT_SCORE_MEASURES", "column_label", "feature_scores", "subset_scores"]
