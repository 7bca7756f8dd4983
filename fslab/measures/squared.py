"""Bayes squared error E[Var(Y | X_J)] (Ahmed et al., Example 6)."""

from __future__ import annotations

import numpy as np

from ..information import _sum_classes
from ..tables import JointTable
from ._folds import test_total
from .base import MeasureSpec


def squared_error(table: JointTable) -> np.ndarray:
    """er^{sq,*} = E_X[Var(Y | X_J)] = sum_x sum_y p(x,y) (y - mu(x))^2, mu(x) = E[Y | X_J = x].

    The Bayes regressor predicts mu(x); ``table.labels`` are the real values of Y (0/1 for a binary
    target, where this is E[eta (1 - eta)]). Two passes (cell means first, then squared deviations) so a
    pure cell contributes exactly 0 whatever the scale of Y: the one-pass s2 - s1^2/p form leaves rounding
    noise of order eps * y^2 that would break ties between equally good features.
    Tiny table, labels [0, 1]: p = [[.4, .1], [.2, .3]] -> .5*.2*.8 + .5*.6*.4 = 0.2.
    """
    p = table.probabilities()
    y = np.asarray(table.labels, dtype=np.float64)
    px = _sum_classes(p)
    mu = np.divide(p @ y, px, out=np.zeros_like(px), where=px > 0)
    return (p * (y - mu[..., None]) ** 2).sum(axis=(-2, -1))


def held_out_squared(train: np.ndarray, test: np.ndarray, labels, **_) -> np.ndarray:
    """Held-out squared error of the training cell means mu(x) (the training mean for an unseen cell):
    sum_{x,y} n_test(x, y) (y - mu(x))^2 / m_test, per fold."""
    y = np.asarray(labels, dtype=np.float64)
    n_cell = train.sum(axis=-1)
    mean = (train.sum(axis=-2) @ y / np.maximum(train.sum(axis=(-2, -1)), 1e-300))[..., None]
    mu = np.divide(train @ y, n_cell, out=np.broadcast_to(mean, n_cell.shape).copy(), where=n_cell > 0)
    return (test * (y - mu[..., None]) ** 2).sum(axis=(-2, -1)) / test_total(test)


SPEC = MeasureSpec(
    name="squared",
    label="squared error",
    func=squared_error,
    greater_is_better=False,
    binary_only=False,
    real_target=True,
    formula=r"\mathrm{er}^{\mathrm{sq},*}_{D_J} = \mathbf{E}_X\big[\mathrm{Var}(Y\mid X_J)\big]",
    reference="Ahmed et al., Example 6",
    held_out=held_out_squared,
)
