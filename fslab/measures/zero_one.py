"""Bayes 0-1 error (Ahmed et al., Example 2): er* = sum_x min over predictions of the wrong mass."""

from __future__ import annotations

import numpy as np

from ..information import _max_classes
from ..tables import JointTable
from ._folds import along_folds, argmax_rule, test_total
from .base import HeldOutCells, MeasureSpec, MixedCellReducer


def zero_one_error(table: JointTable) -> np.ndarray:
    """er^{0-1,*} = E_X[1 - max_y p(y|X)] = sum_x (p(x) - max_y p(x, y)).

    Binary case: sum_x min(p(x,0), p(x,1)) = E_X[min(eta(X), 1 - eta(X))] (Example 2).
    Works for any number of classes. Tiny table: p = [[.4, .1], [.2, .3]] gives .1 + .2 = 0.3.
    """
    p = table.probabilities()
    return p.sum(axis=(-2, -1)) - _max_classes(p).sum(axis=-1)


def held_out_zero_one(train: np.ndarray, test: np.ndarray, labels, **_) -> np.ndarray:
    """Held-out 0-1 error of the plug-in rule argmax_y n_train(x, y) (ties: the lower label; an unseen cell: the
    training prior's class): 1 - sum_x n_test(x, rule(x)) / m_test, per fold."""
    right = np.take_along_axis(test, argmax_rule(train)[..., None], axis=-1)[..., 0].sum(axis=-1)
    return 1.0 - right / test_total(test)


def _held_out_cells(train: np.ndarray, test: np.ndarray, rows: np.ndarray, params) -> np.ndarray:
    """Each cell's held-out 0-1 errors over its fold's rows: counts (C, F, L, ...) -> (C, F, ...); ``rows`` (F, L)
    are the test folds' class counts (the training prior's class decides an unseen cell)."""
    prior = rows.sum(axis=0) - rows
    if rows.shape[-1] == 2:   # issue 35.2: one comparison instead of an argmax and a gather (ties: class 0)
        t0, t1 = train[:, :, 0], train[:, :, 1]
        pick1 = np.where(t0 + t1 > 0, t1 > t0, along_folds(prior[:, 1] > prior[:, 0], t0.ndim))
        wrong = np.where(pick1, test[:, :, 0], test[:, :, 1])
        return wrong / along_folds(rows.sum(axis=1), wrong.ndim)
    seen = train.sum(axis=2, keepdims=True) > 0   # every cell seen (the row path's spread parts): no copy
    rule = (train if seen.all() else np.where(seen, train, along_folds(prior, train.ndim))).argmax(axis=2)
    right = np.take_along_axis(test, rule[:, :, None], axis=2)[:, :, 0]
    return (test.sum(axis=2) - right) / along_folds(rows.sum(axis=1), right.ndim)


def _held_out_prior(rows: np.ndarray, params) -> np.ndarray:
    """0-1 loss (F, L) of one held-out row of class l under the training prior's class, over the fold's rows."""
    prior_class = (rows.sum(axis=0) - rows).argmax(axis=-1)
    wrong = np.arange(rows.shape[-1]) != prior_class[:, None]
    return wrong / rows.sum(axis=1, keepdims=True)


def _mixed_cell_errors(counts: np.ndarray, params, nlogn) -> np.ndarray:
    """Per feature j: sum over mixed cells (c, v) of n_cv - max_l n_cvl (pure cells make no error)."""
    return (counts.sum(axis=1) - counts.max(axis=1)).sum(axis=(0, 1))


SPEC = MeasureSpec(
    name="zero-one",
    label="0-1 error",
    func=zero_one_error,
    greater_is_better=False,
    binary_only=False,
    formula=r"\mathrm{er}^{0\text{-}1,*}_{D_J} = \mathbf{E}_{X}\big[\min\big(\eta_J(X_J),\,1-\eta_J(X_J)\big)\big]",
    reference="Ahmed et al., Example 2",
    mixed_cells=MixedCellReducer(_mixed_cell_errors),
    held_out=held_out_zero_one,
    held_out_cells=HeldOutCells(_held_out_cells, _held_out_prior),
)
