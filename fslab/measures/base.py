"""Measure records: a Bayes quantity of a JointTable, its direction, parameters and reference."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from ..errors import ParameterError, UnsupportedTargetError
from ..tables import JointTable, as_source


@dataclass(frozen=True)
class MeasureSpec:
    """Registry record of one performance measure.

    ``func(table, **params)`` returns the paper's quantity for the Bayes classifier, one value per
    table of a batch (a float for a single table). ``params`` maps each parameter to its default;
    ``check(params)`` raises ParameterError on bad values.

    Criteria that are not a function of the subset's joint table alone (the precision / recall
    criteria of per-feature predictors) also set ``subset_func(source, subset, **params) -> float``
    and ``extension_func(source, subset, candidates, **params) -> array`` (the value of
    ``subset + [j]`` for each candidate); :meth:`Measure.subset_value` and
    :meth:`Measure.extension_values` use them, and ``func`` then gives the value of the joint table
    read as one compound feature.
    """

    name: str
    label: str
    func: Callable[..., np.ndarray | float]
    greater_is_better: bool
    formula: str
    reference: str
    binary_only: bool = True
    real_target: bool = False
    params: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    check: Callable[[dict], None] | None = None
    subset_func: Callable[..., float] | None = None
    extension_func: Callable[..., np.ndarray] | None = None

    def __post_init__(self) -> None:
        # registry records are shared by every session: keep the parameter defaults read-only
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))


@dataclass(frozen=True)
class Measure:
    """A measure with its parameters bound: ``value(table)`` is the Bayes quantity, ``criterion`` the
    quantity selectors maximise (``-error`` or ``+score``, Ahmed et al. equation (3))."""

    spec: MeasureSpec
    params: Mapping[str, object]

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def greater_is_better(self) -> bool:
        return self.spec.greater_is_better

    @property
    def label(self) -> str:
        extra = ", ".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.spec.label} ({extra})" if extra else self.spec.label

    @property
    def needs_source(self) -> bool:
        """True when the criterion needs the source's per-feature structure, not only the joint table."""
        return self.spec.extension_func is not None

    def check_labels(self, labels) -> None:
        """Refuse a target this measure does not support (UnsupportedTargetError, with what to do instead)."""
        labels = np.asarray(labels)
        if self.spec.binary_only and labels.shape[0] != 2:
            raise UnsupportedTargetError(
                f"{self.spec.label} is defined for a binary target; this target has {labels.shape[0]} classes. "
                "Pick a positive class (one-vs-rest) or use the 0-1 error or log-loss."
            )
        if self.spec.real_target and not np.issubdtype(labels.dtype, np.number):
            raise UnsupportedTargetError(
                f"{self.spec.label} needs a numeric target; this target's classes are text "
                f"({', '.join(map(str, labels[:5]))}{', ...' if labels.shape[0] > 5 else ''}). "
                "Use the 0-1 error, log-loss or mutual information, or pick a positive class.")

    def check_table(self, table: JointTable) -> None:
        self.check_labels(table.labels)

    def value(self, table: JointTable):
        """The measure of the Bayes-optimal predictor on ``table`` (a float, or one per batched table)."""
        self.check_table(table)
        out = self.spec.func(table, **self.params)
        return float(out) if np.ndim(out) == 0 else np.asarray(out, dtype=np.float64)

    def criterion(self, table: JointTable):
        """``value`` if greater is better, else ``-value``: what selectors maximise."""
        v = self.value(table)
        return v if self.greater_is_better else -v


    def subset_value(self, source, subset: Sequence[int]) -> float:
        """The measure of ``subset`` on a TableSource: ``value(source.table(subset))`` unless the
        criterion needs per-feature structure (then the measure's own ``subset_func``)."""
        source = as_source(source)
        if self.spec.subset_func is None:
            return self.value(source.table(subset))
        self.check_labels(source.labels)
        return float(self.spec.subset_func(source, subset, **self.params))

    def extension_values(self, source, subset: Sequence[int], candidates: Sequence[int]) -> np.ndarray:
        """Values of ``subset + [j]`` for every candidate j (what one greedy step compares), shape (B,)."""
        source = as_source(source)
        if self.spec.extension_func is None:
            return np.atleast_1d(self.value(source.extension_tables(subset, candidates)))
        self.check_labels(source.labels)
        return np.asarray(self.spec.extension_func(source, subset, candidates, **self.params), dtype=np.float64)

    def subset_criterion(self, source, subset: Sequence[int]) -> float:
        """``subset_value`` signed so that greater is better."""
        v = self.subset_value(source, subset)
        return v if self.greater_is_better else -v

    def extension_criteria(self, source, subset: Sequence[int], candidates: Sequence[int]) -> np.ndarray:
        """``extension_values`` signed so that greater is better: what a greedy step maximises."""
        v = self.extension_values(source, subset, candidates)
        return v if self.greater_is_better else -v


def bind(spec: MeasureSpec, **params) -> Measure:
    """Bind parameters (defaults filled in, unknown names refused) to a measure record."""
    unknown = set(params) - set(spec.params)
    if unknown:
        known = ", ".join(spec.params) or "none"
        raise ParameterError(f"measure '{spec.name}' has no parameter {sorted(unknown)}; its parameters: {known}")
    bound = {**spec.params, **params}
    if spec.check is not None:
        spec.check(bound)
    return Measure(spec, MappingProxyType(bound))
