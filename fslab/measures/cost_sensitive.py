"""Bayes cost-sensitive error (Ahmed et al., Example 3)."""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from ..tables import JointTable
from .base import MeasureSpec


def cost_sensitive_error(table: JointTable, c: float = 0.5) -> np.ndarray:
    """er^{c,*} = E_X[min((1-c) eta(X), c (1-eta(X)))] = sum_x min((1-c) p(x,1), c p(x,0)).

    Example 3's loss costs c for a false positive (y=0, yhat=1) and 1-c for a false negative. At a
    cell x, predicting 1 costs c (1-eta(x)) in expectation and predicting 0 costs (1-c) eta(x); the
    Bayes classifier takes the smaller. At c = 1/2 this is half the 0-1 error.
    Tiny table, c = 0.25: p = [[.4, .1], [.2, .3]] -> min(.75*.1, .25*.4) + min(.75*.3, .25*.2)
    = .075 + .05 = 0.125.
    """
    p = table.probabilities()
    return np.minimum((1.0 - c) * p[..., 1], c * p[..., 0]).sum(axis=-1)


def _check(params: dict) -> None:
    c = params["c"]
    if not isinstance(c, (int, float, np.number)) or not 0.0 < float(c) < 1.0:
        raise ParameterError(f"the cost c must lie strictly between 0 and 1 (cost of a false positive); got {c!r}")


SPEC = MeasureSpec(
    name="cost-sensitive",
    label="cost-sensitive error",
    func=cost_sensitive_error,
    greater_is_better=False,
    formula=r"\mathrm{er}^{c,*}_{D_J} = \mathbf{E}_X\big[\min\big((1-c)\,\eta_J(X_J),\; c\,(1-\eta_J(X_J))\big)\big]",
    reference="Ahmed et al., Example 3 (c = cost of a false positive, 1-c of a false negative)",
    params={"c": 0.5},
    check=_check,
)
