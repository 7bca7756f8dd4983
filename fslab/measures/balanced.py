"""Bayes balanced error rate (Ahmed et al., Example 4)."""

from __future__ import annotations

import numpy as np

from ..information import _sum_cells
from ..tables import JointTable
from ._folds import along_folds, binary_eta
from .base import HeldOutCells, MeasureSpec


def balanced_error(table: JointTable) -> np.ndarray:
    """BER* = 1/2 E_X[min(eta(X)/p, (1-eta(X))/(1-p))] = 1/2 sum_x min(p(x,1)/p, p(x,0)/(1-p)).

    Example 4's loss costs 1/(1-p) for a false positive and 1/p for a false negative (p = P(Y=1)), so
    the paper's quantity E[min(eta/p, (1-eta)/(1-p))] equals FNR + FPR of the Bayes classifier: twice
    the usual balanced error rate 1/2 (FNR + FPR) reported here. Selection is the same.
    A class with no mass contributes 0 (its error rate is taken as 0).
    Tiny table: p = [[.4, .1], [.2, .3]] (p = .4): 1/2 (min(.25, .667) + min(.75, .333)) = 0.2917.
    """
    p = table.probabilities()
    prior = _sum_cells(p)
    pos = np.divide(p[..., 1], prior[..., 1:2], out=np.zeros_like(p[..., 1]), where=prior[..., 1:2] > 0)
    neg = np.divide(p[..., 0], prior[..., 0:1], out=np.zeros_like(p[..., 0]), where=prior[..., 0:1] > 0)
    return 0.5 * np.minimum(pos, neg).sum(axis=-1)


def held_out_balanced(train: np.ndarray, test: np.ndarray, labels, **_) -> np.ndarray:
    """Held-out balanced error 1/2 (FNR + FPR) of the plug-in rule 1(eta_train(x) (1 - p) > (1 - eta_train(x)) p),
    p the training prior (ties: 0; all 1 when the training folds hold positives only); a class absent from a
    test fold adds 0, per fold."""
    eta, p = binary_eta(train)
    p = p[..., None]
    positive = (eta * (1.0 - p) > (1.0 - eta) * p) | (p >= 1.0)   # a training fold of positives only: all 1
    pos, neg = test[..., 1].sum(axis=-1), test[..., 0].sum(axis=-1)
    fn = np.where(positive, 0.0, test[..., 1]).sum(axis=-1)
    fp = np.where(positive, test[..., 0], 0.0).sum(axis=-1)
    fnr = np.divide(fn, pos, out=np.zeros_like(fn), where=pos > 0)
    fpr = np.divide(fp, neg, out=np.zeros_like(fp), where=neg > 0)
    return 0.5 * (fnr + fpr)


def _held_out_cells(train: np.ndarray, test: np.ndarray, rows: np.ndarray, params) -> np.ndarray:
    """Each cell's share of its fold's held-out balanced error: counts (C, F, 2, ...) -> (C, F, ...)."""
    class_train = rows.sum(axis=0) - rows
    p = along_folds(class_train[:, 1] / class_train.sum(axis=-1), train.ndim - 1)
    n = train.sum(axis=2)
    eta = np.divide(train[:, :, 1], n, out=np.broadcast_to(p, n.shape).copy(), where=n > 0)
    positive = (eta * (1.0 - p) > (1.0 - eta) * p) | (p >= 1.0)
    pos, neg = (along_folds(np.maximum(rows[:, i], 1e-300), n.ndim) for i in (1, 0))
    return 0.5 * np.where(positive, test[:, :, 0] / neg, test[:, :, 1] / pos)


def _held_out_prior(rows: np.ndarray, params) -> np.ndarray:
    """Share (F, 2) of one held-out row of each class in its fold's balanced error under the prior's rule."""
    class_train = rows.sum(axis=0) - rows
    p = class_train[:, 1] / class_train.sum(axis=-1)
    positive = (p * (1.0 - p) > (1.0 - p) * p) | (p >= 1.0)   # eta = p: ties go to 0 unless p = 1
    share = 0.5 / np.maximum(rows, 1e-300)
    return np.stack([np.where(positive, share[:, 0], 0.0), np.where(positive, 0.0, share[:, 1])], axis=-1)


SPEC = MeasureSpec(
    name="balanced",
    label="balanced error",
    func=balanced_error,
    greater_is_better=False,
    formula=(r"\mathrm{BER}^{*}_{D_J} = \tfrac12\,\mathbf{E}_X\Big[\min\Big(\frac{\eta_J(X_J)}{p},"
             r"\,\frac{1-\eta_J(X_J)}{1-p}\Big)\Big],\quad p = \mathbf{P}(Y=1)"),
    reference="Ahmed et al., Example 4 (the paper's value is twice this: FNR + FPR)",
    held_out=held_out_balanced,
    held_out_cells=HeldOutCells(_held_out_cells, _held_out_prior),
)
