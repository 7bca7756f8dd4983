"""Performance measures: each a pure function of a JointTable giving the Bayes-optimal value.

``MEASURES`` maps a name to its record; ``measure(name, **params)`` binds parameters.
"""

from __future__ import annotations

from types import MappingProxyType

from ..errors import ParameterError
from . import zero_one
from .base import Measure, MeasureSpec, bind

MEASURES: MappingProxyType[str, MeasureSpec] = MappingProxyType({
    spec.name: spec for spec in (zero_one.SPEC,)
})


def measure(name: str | Measure, **params) -> Measure:
    """The measure called ``name`` with its parameters, e.g. ``measure("cost-sensitive", c=0.25)``."""
    if isinstance(name, Measure):
        return name if not params else bind(name.spec, **{**name.params, **params})
    try:
        spec = MEASURES[name]
    except KeyError:
        raise ParameterError(f"unknown measure '{name}'; choose one of: {', '.join(MEASURES)}") from None
    return bind(spec, **params)


__all__ = ["MEASURES", "Measure", "MeasureSpec", "measure"]
