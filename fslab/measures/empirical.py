"""Each measure on a test sample: the rate a fitted classifier achieves on held-out rows (``MeasureSpec.empirical``).

``scorer(y, pred, proba, **params)`` with ``y`` the true class index (1 = positive), ``pred`` the predicted class
and ``proba`` the predicted class probabilities (rows x classes, or None). Learning curves and Compare score the
selected features with these (Ahmed et al., Section 4); a measure without one is not offered there.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import ParameterError, UnsupportedTargetError


def _binary(name: str, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if np.any(y > 1):
        raise UnsupportedTargetError(f"the {name} measure needs a binary target; use zero-one or log-loss")
    return y == 1, y == 0


def zero_one_rate(y, pred, proba=None) -> float:
    """mean 1(pred != y)."""
    return float(np.mean(np.asarray(pred) != np.asarray(y)))


def cost_sensitive_rate(y, pred, proba=None, *, c) -> float:
    """Example 3: mean of c 1(y=0, pred=1) + (1-c) 1(y=1, pred=0); a K x K cost matrix C: mean C[y, pred]."""
    if np.ndim(c) == 2:
        return float(np.mean(np.asarray(c, dtype=np.float64)[np.asarray(y), np.asarray(pred)]))
    pos, neg = _binary("cost-sensitive", np.asarray(y))
    pred = np.asarray(pred)
    return float(np.mean(c * (neg & (pred == 1)) + (1 - c) * (pos & (pred == 0))))


def balanced_rate(y, pred, proba=None) -> float:
    """Example 4 (DESIGN.md): (FNR + FPR) / 2; K classes: (1/K) sum_y P(pred != y | y), a class absent from the
    sample adds 0. K: the columns of ``proba``, else the largest class index seen plus one (at least 2)."""
    y, pred = np.asarray(y), np.asarray(pred)
    K = max(2, int(max(y.max(initial=0), pred.max(initial=0))) + 1 if proba is None else np.shape(proba)[1])
    n = np.bincount(y, minlength=K).astype(np.float64)
    wrong = np.bincount(y[pred != y], minlength=K).astype(np.float64)
    return float(np.divide(wrong, n, out=np.zeros(K), where=n > 0).sum() / K)


def f_beta_rate(y, pred, proba=None, *, beta: float) -> float:
    """Example 7: (1+b^2) TP / ((1+b^2) TP + b^2 FN + FP); 0 when nothing is positive."""
    pos, neg = _binary("f-beta", np.asarray(y))
    pred = np.asarray(pred)
    tp = np.sum(pos & (pred == 1))
    denom = (1 + beta**2) * tp + beta**2 * np.sum(pos & (pred == 0)) + np.sum(neg & (pred == 1))
    return float((1 + beta**2) * tp / denom) if denom > 0 else 0.0


def log_loss_rate(y, pred, proba=None) -> float:
    """mean -ln p(y | x) in nats, probabilities clipped to [1e-15, 1]."""
    if proba is None:
        raise ParameterError("the log-loss needs class probabilities; pick a learner with predict_proba")
    y = np.asarray(y)
    return float(-np.mean(np.log(np.clip(np.asarray(proba)[np.arange(y.size), y], 1e-15, 1.0))))


def auc_rate(y, pred, proba=None) -> float:
    """AUC of scoring by P(Y=1 | x), ties counted 1/2 (Mann-Whitney: (rank sum of positives - n1(n1+1)/2) / (n1 n0));
    NaN without probabilities or without both classes."""
    pos, neg = _binary("auc", np.asarray(y))
    if proba is None or not (pos.any() and neg.any()):
        return float("nan")
    from scipy.stats import rankdata  # on use: scipy.stats takes ~0.3 s to import, and `import fslab` needs none of it

    ranks = rankdata(np.asarray(proba)[:, 1])
    n1, n0 = int(pos.sum()), int(neg.sum())
    return float((ranks[pos].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


SCORERS: dict[str, Callable[..., float]] = {
    "zero-one": zero_one_rate, "cost-sensitive": cost_sensitive_rate, "balanced": balanced_rate,
    "log-loss": log_loss_rate, "f-beta": f_beta_rate, "auc": auc_rate}
