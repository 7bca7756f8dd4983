"""Subset criteria on any source: the Bayes value of a measure and the criterion selectors maximise."""

from __future__ import annotations

from collections.abc import Sequence

from .measures import Measure
from .measures import measure as get_measure
from .tables import as_source


def bayes_value(source, subset: Sequence[int], measure: str | Measure = "zero-one", **params) -> float:
    """The measure of the Bayes-optimal predictor using only the features in ``subset``.

    ``source`` is a Dataset (plug-in estimate from counts / m), an encoded dataset, or a Distribution (exact).
    The number is ``measure.on(source).value(subset)``, the one evaluator every selector and report uses
    (precision and recall combine per-feature predictors, derivation notes 003).
    """
    return get_measure(measure, **params).on(as_source(source)).value(subset)


def criterion(source, subset: Sequence[int], measure: str | Measure = "zero-one", **params) -> float:
    """C^{Bayes}(J) = -error or +score (Ahmed et al., equation (3))."""
    return get_measure(measure, **params).on(as_source(source)).criterion(subset)
