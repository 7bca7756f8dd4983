"""Bayes squared error E[Var(Y | X_J)] (Ahmed et al., Example 6)."""

from __future__ import annotations

import numpy as np

from ..information import _sum_classes
from ..tables import JointTable
from .base import MeasureSpec


def squared_error(table: JointTable) -> np.ndarray:
    """er^{sq,*} = E_X[Var(Y | X_J)] = sum_x (sum_y p(x,y) y^2 - (sum_y p(x,y) y)^2 / p(x)).

    The Bayes regressor predicts mu(x) = E[Y | X_J = x]; ``table.labels`` are the real values of Y
    (0/1 for a binary target, where this is E[eta (1 - eta)]). Y is centred on its overall mean first
    so the per-cell difference does not cancel catastrophically; each cell's term is clipped at 0.
    Tiny table, labels [0, 1]: p = [[.4, .1], [.2, .3]] -> .5*.2*.8 + .5*.6*.4 = 0.2.
    """
    p = table.probabilities()
    y = np.asarray(table.labels, dtype=np.float64)
    class_mass = np.ones(p.size // p.shape[-1]) @ p.reshape(-1, p.shape[-1])  # over cells and batch
    y = y - class_mass @ y / class_mass.sum()  # Var is shift-invariant; centring avoids cancellation
    px = _sum_classes(p)
    s1 = p @ y
    s2 = p @ (y * y)
    within = s2 - np.divide(s1 * s1, px, out=np.zeros_like(px), where=px > 0)
    return np.maximum(within, 0.0).sum(axis=-1)

SPEC = MeasureSpec(
    name="squared",
    label="squared error",
    func=squared_error,
    greater_is_better=False,
    binary_only=False,
    real_target=True,
    formula=r"\mathrm{er}^{\mathrm{sq},*}_{D_J} = \mathbf{E}_X\big[\mathrm{Var}(Y\mid X_J)\big]",
    reference="Ahmed et al., Example 6",
)
