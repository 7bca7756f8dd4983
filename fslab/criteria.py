"""Subset criteria on any source: the Bayes value of a measure and the criterion selectors maximise."""

from __future__ import annotations

from collections.abc import Sequence

from .measures import DEFAULT_FOLDS, Measure
from .measures import measure as get_measure
from .tables import as_source


def bayes_value(source, subset: Sequence[int], measure: str | Measure = "zero-one", *, estimate: str = "plug-in",
                folds: int = DEFAULT_FOLDS, seed=0, **params) -> float:
    """The measure of the Bayes-optimal predictor using only the features in ``subset``.

    ``source`` is a Dataset (plug-in estimate from counts / m), an encoded dataset, or a Distribution (exact).
    The number is ``measure.on(source).value(subset)``, the one evaluator every selector and report uses
    (precision and recall combine per-feature predictors, derivation notes 003).
    ``estimate="cross-fitted"`` gives the held-out estimate instead (a sample only: the plug-in rule fitted on
    ``folds - 1`` stratified folds, its loss measured on the remaining fold, averaged; :mod:`fslab.measures.cross_fit`).
    """
    ev = get_measure(measure, **params).on(as_source(source), estimate=estimate, folds=folds, seed=seed)
    return ev.value(subset)


def criterion(source, subset: Sequence[int], measure: str | Measure = "zero-one", *, estimate: str = "plug-in",
              folds: int = DEFAULT_FOLDS, seed=0, **params) -> float:
    """C^{Bayes}(J) = -error or +score (Ahmed et al., equation (3)); ``estimate`` as in :func:`bayes_value`."""
    ev = get_measure(measure, **params).on(as_source(source), estimate=estimate, folds=folds, seed=seed)
    return ev.criterion(subset)
