"""Performance measures: each a pure function of a JointTable giving the Bayes-optimal value.

``MEASURES`` maps a name to its record; ``measure(name, **params)`` binds parameters.
Errors (lower is better): zero-one, cost-sensitive (c), balanced, log-loss (nats), squared.
Scores (higher is better): f-beta (beta), auc, mi (bits), precision and recall (approach 1 or 2).
Each record's ``parameters`` carry one default and the offered range (``MeasureSpec.parameters[name]``:
a :class:`Param` with ``default``, ``low``, ``high``, ``step``, ``choices``, ``help``); ``PARAM_DEFAULTS``
collects the defaults for the command line, recipes and pages, ``PARAMETERS`` each parameter's record and the
measures that take it, ``SCORABLE`` the measures with a test-sample scorer (``MeasureSpec.empirical``). These are
read from the registry on every use: a record added with :func:`register` shows up everywhere, with no other edit.

Every number reported for a subset J goes through ONE evaluator per (source, measure):
``measure(name, **params).on(source)`` -> ``.value(J)``, ``.criterion(J)``, ``.extensions(J, candidates)``,
``.removals(kept)`` (see :mod:`fslab.measures.evaluator`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from types import MappingProxyType

import numpy as np

from ..counting.folds import DEFAULT_FOLDS, ESTIMATES, check_estimate, describe_estimate
from ..errors import FslabError, ParameterError
from . import auc, balanced, cost_sensitive, f_beta, log_loss, mutual_info, precision_recall, squared, zero_one
from ._folds import LOG_SMOOTHING
from .auc import auc_score
from .balanced import balanced_error
from .base import Measure, MeasureSpec, MixedCellReducer, Param, bind
from .cost_sensitive import DEFAULT_C, cost_sensitive_error
from .cross_fit import CrossFittedEvaluator
from .empirical import SCORERS
from .evaluator import ENGINES, Evaluator, TableEvaluator
from .f_beta import f_beta_score
from .log_loss import log_loss_error
from .mutual_info import mi_score
from .precision_recall import precision_criterion, precision_gain, recall_criterion, recall_gain
from .squared import squared_error
from .zero_one import zero_one_error

_SHIPPED = tuple(replace(spec, empirical=SCORERS.get(spec.name)) for spec in (
    zero_one.SPEC, cost_sensitive.SPEC, balanced.SPEC, log_loss.SPEC, squared.SPEC,
    f_beta.SPEC, auc.SPEC, mutual_info.SPEC, precision_recall.PRECISION, precision_recall.RECALL,
))
_REGISTRY: dict[str, MeasureSpec] = {spec.name: spec for spec in _SHIPPED}
MEASURES: MappingProxyType[str, MeasureSpec] = MappingProxyType(_REGISTRY)


class Derived(Mapping):
    """A read-only mapping computed from the registries on every read, so a registered record shows up in it."""

    def __init__(self, build: Callable[[], Mapping]):
        self._build = build

    def __getitem__(self, key):
        return self._build()[key]

    def __iter__(self) -> Iterator:
        return iter(self._build())

    def __len__(self) -> int:
        return len(self._build())

    def __repr__(self) -> str:
        return f"Derived({dict(self._build())!r})"


# parameter name -> its one default, over all measures (c, beta, approach)
PARAM_DEFAULTS: Mapping[str, object] = Derived(lambda: {
    name: p.default for spec in MEASURES.values() for name, p in spec.parameters.items()})
# parameter name -> (its Param record, the measures that take it), in registry order
PARAMETERS: Mapping[str, tuple[Param, tuple[str, ...]]] = Derived(lambda: {
    name: (p, tuple(m for m, s in MEASURES.items() if name in s.parameters))
    for spec in MEASURES.values() for name, p in spec.parameters.items()})
# measures a test sample can be scored on (a record with ``empirical``) -> greater_is_better
SCORABLE: Mapping[str, bool] = Derived(lambda: {
    name: spec.greater_is_better for name, spec in MEASURES.items() if spec.empirical is not None})


def register(spec: MeasureSpec) -> MeasureSpec:
    """Add a measure record (an extension, at start-up): ``measure``, every selector, the cost model, links, recipes,
    the command line and every page that offers measures read it from :data:`MEASURES`. Refuses a taken name."""
    if not isinstance(spec, MeasureSpec):
        raise ParameterError(f"register takes a MeasureSpec; got {type(spec).__name__}")
    if spec.name in _REGISTRY:
        raise ParameterError(f"a measure named '{spec.name}' is already registered")
    _REGISTRY[spec.name] = spec
    return spec


def unregister(name: str) -> None:
    """Remove a measure record added by :func:`register` (the shipped ones stay)."""
    if name in {spec.name for spec in _SHIPPED}:
        raise ParameterError(f"'{name}' is a shipped measure; only registered ones can be removed")
    _REGISTRY.pop(name, None)


def measure(name: str | Measure, **params) -> Measure:
    """The measure called ``name`` with its parameters, e.g. ``measure("cost-sensitive", c=0.25)``."""
    if isinstance(name, Measure):
        return name if not params else bind(name.spec, **{**name.params, **params})
    try:
        spec = MEASURES[name]
    except KeyError:
        raise ParameterError(f"unknown measure '{name}'; choose one of: {', '.join(MEASURES)}") from None
    return bind(spec, **params)


def supported_measures(source) -> list[str]:
    """Names of the measures that make sense for ``source``'s target with their default parameters, in registry
    order.

    A binary target takes every measure; a real-valued target (``task == "regression"``) only the squared
    error (its values are not classes); a multiclass target the measures that allow several classes (0-1,
    balanced, log-loss, MI) plus the squared error when its class values are numbers. A measure whose default
    parameters do not fit the target is left out: the cost-sensitive error on K > 2 classes needs a K x K cost
    matrix (``c=``; ``--cost-matrix``), which the caller gives explicitly.
    """
    labels = np.asarray(source.labels)
    if labels.shape[0] == 2:
        return list(MEASURES)
    if getattr(source, "task", None) == "regression":
        return ["squared"]
    numeric = np.issubdtype(labels.dtype, np.number)
    return [name for name, spec in MEASURES.items()
            if not spec.binary_only and (numeric or not spec.real_target) and _defaults_fit(spec, labels)]


def _defaults_fit(spec, labels: np.ndarray, params: Mapping | None = None) -> bool:
    if spec.check_target is None:
        return True
    try:
        spec.check_target(labels, {name: p.default for name, p in spec.parameters.items()} | dict(params or {}))
    except FslabError:
        return False
    return True


def measure_fits(source, name: str, params: Mapping | None = None) -> bool:
    """True when measure ``name`` with ``params`` (its defaults for the others) fits ``source``'s target: one of
    :func:`supported_measures`, or a measure whose given parameters make it fit (the cost-sensitive error on K
    classes with a K x K cost matrix ``c``)."""
    if name in supported_measures(source):
        return True
    spec = MEASURES[name]
    labels = np.asarray(source.labels)
    return (bool(params) and getattr(source, "task", None) != "regression" and not spec.binary_only
            and _defaults_fit(spec, labels, params))


__all__ = [
    "DEFAULT_C", "DEFAULT_FOLDS", "ENGINES", "ESTIMATES", "LOG_SMOOTHING", "CrossFittedEvaluator", "check_estimate",
    "describe_estimate", "Derived", "MEASURES", "PARAMETERS", "PARAM_DEFAULTS", "SCORABLE", "Evaluator", "Measure",
    "MeasureSpec", "MixedCellReducer", "Param", "TableEvaluator", "auc_score", "balanced_error", "cost_sensitive_error",
    "f_beta_score", "log_loss_error", "measure", "mi_score", "precision_criterion", "precision_gain",
    "measure_fits", "recall_criterion", "recall_gain", "register", "squared_error", "supported_measures", "unregister",
    "zero_one_error",
]
