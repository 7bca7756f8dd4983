"""Measure records: a Bayes quantity of a JointTable, its direction, parameters and reference."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from ..errors import ParameterError, UnsupportedTargetError
from ..tables import JointTable


@dataclass(frozen=True)
class MeasureSpec:
    """Registry record of one performance measure.

    ``func(table, **params)`` returns the paper's quantity for the Bayes classifier, one value per
    table of a batch (a float for a single table). ``params`` maps each parameter to its default;
    ``check(params)`` raises ParameterError on bad values.
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

    def check_table(self, table: JointTable) -> None:
        if self.spec.binary_only and table.n_classes != 2:
            raise UnsupportedTargetError(
                f"{self.spec.label} is defined for a binary target; this target has {table.n_classes} classes. "
                "Pick a positive class (one-vs-rest) or use the 0-1 error or log-loss."
            )
        if self.spec.real_target and not np.issubdtype(np.asarray(table.labels).dtype, np.number):
            raise UnsupportedTargetError(f"{self.spec.label} needs a numeric target")

    def value(self, table: JointTable):
        """The measure of the Bayes-optimal predictor on ``table`` (a float, or one per batched table)."""
        self.check_table(table)
        out = self.spec.func(table, **self.params)
        return float(out) if np.ndim(out) == 0 else np.asarray(out, dtype=np.float64)

    def criterion(self, table: JointTable):
        """``value`` if greater is better, else ``-value``: what selectors maximise."""
        v = self.value(table)
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
