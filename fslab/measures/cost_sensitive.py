"""Bayes cost-sensitive error (Ahmed et al., Example 3)."""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from ..tables import JointTable
from ._folds import along_folds, binary_eta, test_total
from .base import HeldOutCells, MeasureSpec, MixedCellReducer, Param


def cost_sensitive_error(table: JointTable, c: float = 0.25) -> np.ndarray:
    """er^{c,*} = E_X[min((1-c) eta(X), c (1-eta(X)))] = sum_x min((1-c) p(x,1), c p(x,0)).

    Example 3's loss costs c for a false positive (y=0, yhat=1) and 1-c for a false negative. At a
    cell x, predicting 1 costs c (1-eta(x)) in expectation and predicting 0 costs (1-c) eta(x); the
    Bayes classifier takes the smaller. At c = 1/2 this is half the 0-1 error.
    Tiny table, c = 0.25: p = [[.4, .1], [.2, .3]] -> min(.75*.1, .25*.4) + min(.75*.3, .25*.2)
    = .075 + .05 = 0.125.
    """
    p = table.probabilities()
    return np.minimum((1.0 - c) * p[..., 1], c * p[..., 0]).sum(axis=-1)


def held_out_cost_sensitive(train: np.ndarray, test: np.ndarray, labels, c: float = 0.25, **_) -> np.ndarray:
    """Held-out cost of the plug-in rule 1((1-c) eta_train(x) > c (1 - eta_train(x))) (ties: 0):
    (c FP + (1-c) FN) / m_test, per fold."""
    eta = binary_eta(train)[0]
    positive = (1.0 - c) * eta > c * (1.0 - eta)
    fp = np.where(positive, test[..., 0], 0.0).sum(axis=-1)
    fn = np.where(positive, 0.0, test[..., 1]).sum(axis=-1)
    return (c * fp + (1.0 - c) * fn) / test_total(test)


def _held_out_cells(train: np.ndarray, test: np.ndarray, rows: np.ndarray, params) -> np.ndarray:
    """Each cell's held-out cost over its fold's rows: counts (C, F, L, ...), class axis 2 -> (C, F, ...)."""
    c = float(params["c"])
    n = train.sum(axis=2)
    class_train = rows.sum(axis=0) - rows
    pi = along_folds(class_train[:, 1] / class_train.sum(axis=-1), n.ndim)
    eta = np.divide(train[:, :, 1], n, out=np.broadcast_to(pi, n.shape).copy(), where=n > 0)
    positive = (1.0 - c) * eta > c * (1.0 - eta)
    cost = np.where(positive, c * test[:, :, 0], (1.0 - c) * test[:, :, 1])
    return cost / along_folds(rows.sum(axis=1), cost.ndim)


def _held_out_prior(rows: np.ndarray, params) -> np.ndarray:
    """Cost (F, 2) of one held-out row of each class under the prior's rule 1((1-c) pi > c (1 - pi)), over the
    fold's rows."""
    c = float(params["c"])
    class_train = rows.sum(axis=0) - rows
    pi = class_train[:, 1] / class_train.sum(axis=-1)
    positive = (1.0 - c) * pi > c * (1.0 - pi)
    cost = np.stack([np.where(positive, c, 0.0), np.where(positive, 0.0, 1.0 - c)], axis=-1)
    return cost / rows.sum(axis=1, keepdims=True)


def _check(params: dict) -> None:
    c = params["c"]
    if not isinstance(c, (int, float, np.number)) or not 0.0 < float(c) < 1.0:
        raise ParameterError(f"the cost c must lie strictly between 0 and 1 (cost of a false positive); got {c!r}")


def _mixed_cell_costs(counts: np.ndarray, params, nlogn) -> np.ndarray:
    """Per feature j: sum over mixed cells (c, v) of min((1-c) n_cv1, c n_cv0) (pure cells cost nothing)."""
    c = float(params["c"])
    return np.minimum((1.0 - c) * counts[:, 1], c * counts[:, 0]).sum(axis=(0, 1))


# c's one default. The paper's cost-sensitive experiments (Ahmed et al., Section 4.1, Table 2: "Adult
# (c = 0.25)") run at c = 0.25, and at c = 1/2 the cost-sensitive error is exactly half the 0-1 error, so
# that default would select the same features as the 0-1 error and teach nothing about costs.
DEFAULT_C = 0.25

SPEC = MeasureSpec(
    name="cost-sensitive",
    label="cost-sensitive error",
    func=cost_sensitive_error,
    greater_is_better=False,
    formula=r"\mathrm{er}^{c,*}_{D_J} = \mathbf{E}_X\big[\min\big((1-c)\,\eta_J(X_J),\; c\,(1-\eta_J(X_J))\big)\big]",
    reference="Ahmed et al., Example 3 (c = cost of a false positive, 1-c of a false negative)",
    parameters={"c": Param(DEFAULT_C, "cost of a false positive (a false negative costs 1 - c); the paper's "
                                      "experiments use c = 0.25 (Section 4.1, Table 2); c = 0.5 gives half the "
                                      "0-1 error", low=0.05, high=0.95, step=0.05)},
    check=_check,
    mixed_cells=MixedCellReducer(_mixed_cell_costs),
    held_out=held_out_cost_sensitive,
    held_out_cells=HeldOutCells(_held_out_cells, _held_out_prior),
)
