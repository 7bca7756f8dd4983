"""Bayes balanced error rate (Ahmed et al., Example 4), for K >= 2 classes: the mean per-class error."""

from __future__ import annotations

import numpy as np

from ..information import _sum_cells
from ..tables import JointTable
from ._folds import along_folds
from .base import HeldOutCells, MeasureSpec


def balanced_error(table: JointTable) -> np.ndarray:
    """BER* = (1/K) sum_y P(h*(X) != y | Y = y) = (1/K) sum_x (sum_y q(x,y) - max_y q(x,y)), q(x,y) = p(x,y)/p(y).

    The Bayes classifier h*(x) = argmax_y p(y|x)/p(y) (ties: the lower label) maximises sum_y P(h = y | Y = y).
    Binary (K = 2): 1/2 sum_x min(p(x,1)/p, p(x,0)/(1-p)) = 1/2 E_X[min(eta/p, (1-eta)/(1-p))], p = P(Y=1).
    Example 4's loss costs 1/(1-p) for a false positive and 1/p for a false negative, so the paper's quantity
    E[min(eta/p, (1-eta)/(1-p))] equals FNR + FPR of the Bayes classifier: twice the usual balanced error rate
    1/2 (FNR + FPR) reported here. Selection is the same.
    A class with no mass contributes 0 (its error rate is taken as 0); K counts every class of the target.
    Tiny table: p = [[.4, .1], [.2, .3]] (p = .4): 1/2 (min(.25, .667) + min(.75, .333)) = 0.2917.
    """
    p = table.probabilities()
    prior = _sum_cells(p)
    if p.shape[-1] == 2:   # the binary formula as it always was (bit for bit)
        pos = np.divide(p[..., 1], prior[..., 1:2], out=np.zeros_like(p[..., 1]), where=prior[..., 1:2] > 0)
        neg = np.divide(p[..., 0], prior[..., 0:1], out=np.zeros_like(p[..., 0]), where=prior[..., 0:1] > 0)
        return 0.5 * np.minimum(pos, neg).sum(axis=-1)
    prior = prior[..., None, :]
    q = np.divide(p, prior, out=np.zeros_like(p), where=prior > 0)
    return (q.sum(axis=-1) - q.max(axis=-1)).sum(axis=-1) / p.shape[-1]


def _rule(train: np.ndarray, totals: np.ndarray, axis: int) -> np.ndarray:
    """The plug-in balanced rule argmax_y n_train(x, y) / N_y (= eta_train(y|x) / prior_train(y); ties: the lower
    label; an unseen cell: the lowest class; a class without training rows is never predicted)."""
    ratio = np.divide(train, totals, out=np.full(np.broadcast_shapes(train.shape, totals.shape), -1.0),
                      where=totals > 0)
    return ratio.argmax(axis=axis)


def held_out_balanced(train: np.ndarray, test: np.ndarray, labels, **_) -> np.ndarray:
    """Held-out balanced error (1/K) sum_y (test rows of class y the plug-in rule gets wrong) / (test rows of y), per
    fold, of the rule argmax_y n_train(x, y) / N_train(y) (binary: 1(eta (1 - p) > (1 - eta) p), ties: 0, all 1 when
    the training folds hold positives only); a class absent from a test fold adds 0."""
    L = train.shape[-1]
    rule = _rule(train, train.sum(axis=-2, keepdims=True), axis=-1)
    right = np.arange(L) == rule[..., None]
    wrong = np.where(right, 0.0, test).sum(axis=-2)
    n = test.sum(axis=-2)
    return np.divide(wrong, n, out=np.zeros_like(wrong), where=n > 0).sum(axis=-1) / L


def _held_out_cells(train: np.ndarray, test: np.ndarray, rows: np.ndarray, params) -> np.ndarray:
    """Each cell's share of its fold's held-out balanced error: counts (C, F, L, ...) -> (C, F, ...):
    (1/K) sum over the classes y the cell's rule misses of test(y) / rows(fold, y)."""
    L = rows.shape[-1]
    totals = along_folds(rows.sum(axis=0) - rows, train.ndim)   # training rows of each class, (1, F, L, 1...)
    share = test / along_folds(np.maximum(rows, 1e-300), train.ndim)
    if L == 2:   # issue 35.2: one comparison n1 N0 > n0 N1 (exact on counts) instead of an argmax over classes
        t0, t1 = train[:, :, 0], train[:, :, 1]
        pick1 = (t1 * totals[:, :, 0] > t0 * totals[:, :, 1]) | (totals[:, :, 0] <= 0)
        return 0.5 * np.where(pick1, share[:, :, 0], share[:, :, 1])
    rule = _rule(train, totals, axis=2)
    miss = np.arange(L).reshape((1, 1, L) + (1,) * (train.ndim - 3)) != rule[:, :, None]
    return np.where(miss, share, 0.0).sum(axis=2) / L


def _held_out_prior(rows: np.ndarray, params) -> np.ndarray:
    """Share (F, L) of one held-out row of each class in its fold's balanced error under the rule of an unseen cell
    (the lowest class with training rows: every ratio n/N is 0)."""
    totals = rows.sum(axis=0) - rows
    rule = (totals > 0).argmax(axis=-1)
    miss = np.arange(rows.shape[-1]) != rule[:, None]
    return np.where(miss, 1.0 / (rows.shape[-1] * np.maximum(rows, 1e-300)), 0.0)


SPEC = MeasureSpec(
    name="balanced",
    label="balanced error",
    func=balanced_error,
    greater_is_better=False,
    binary_only=False,
    formula=(r"\mathrm{BER}^{*}_{D_J} = \tfrac1K \sum_{y} \mathbf{P}\big(h^{*}(X_J) \ne y \mid Y = y\big),\quad "
             r"h^{*}(x) = \arg\max_y \frac{p(y \mid x)}{p(y)};\ K = 2:\ "
             r"\tfrac12\,\mathbf{E}_X\Big[\min\Big(\frac{\eta_J(X_J)}{p},\,\frac{1-\eta_J(X_J)}{1-p}\Big)\Big]"),
    reference="Ahmed et al., Example 4 (the paper's value is twice this: FNR + FPR); K classes: the mean per-class "
              "error",
    held_out=held_out_balanced,
    held_out_cells=HeldOutCells(_held_out_cells, _held_out_prior),
)
