"""Bayes-optimal F-beta: the best threshold classifier on eta (Ahmed et al., Example 7)."""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from ..tables import JointTable
from ._folds import threshold_fbeta
from ._ranking import rank_cells
from .base import MeasureSpec, Param


def f_beta_score(table: JointTable, beta: float = 1.0) -> np.ndarray:
    """F*_beta = sup_t F_beta[1(eta(X) > t)],  F_beta[h] = (1+b^2) TP / ((1+b^2) TP + b^2 FN + FP).

    With p = P(Y=1) and Q = P(h(X)=1): F_beta = (1+b^2) TP / (b^2 p + Q), the paper's
    (1+b^2) / (b^2/Prec + 1/Rec). Thresholding eta at t predicts positive on the cells with the
    largest eta, so the sup runs over "top groups": cells sorted by eta descending, cells with equal
    eta (within 1e-12) kept together, cumulative TP and Q at the end of each group. The last group
    end is the all-positive classifier (t below every eta); the empty classifier scores 0.
    This sup equals the sup over ALL classifiers of X_J (Example 7's first line): at the optimum F*,
    h maximises sum_x h(x) [(1+b^2) p(x,1) - F* p(x)], i.e. h = 1(eta > F*/(1+b^2)), a threshold.
    Vectorised over the batch (one sort per table row, cumulative sums, F at group ends only).
    Tiny table, beta = 1: p = [[.4, .1], [.2, .3]] (eta .2, .6; p = .4): top cell gives
    2*.3/(.4+.5) = 0.6667; both cells 2*.4/(.4+1) = 0.5714; so F*_1 = 2/3.
    """
    w = _recall_weight(beta)
    r = rank_cells(table, descending=True)
    n_cells = r.last.shape[-1]
    # evaluate F only at group ends (one per distinct eta), then a per-table max by segments
    ends = np.flatnonzero(r.last)
    tp = r.cum_pos.ravel()[ends]
    # (1+b^2) TP / (b^2 p + TP + FP), divided through by 1+b^2: no b^2 that overflows for a large beta
    denom = w * r.cum_pos[..., -1].ravel()[ends // n_cells] + (1.0 - w) * (tp + r.cum_neg.ravel()[ends])
    f = np.divide(tp, denom, out=np.zeros_like(tp), where=denom > 0)
    starts = np.searchsorted(ends, np.arange(0, r.last.size, n_cells))
    return np.maximum(np.maximum.reduceat(f, starts), 0.0).reshape(table.batch_shape)[()]


def _recall_weight(beta: float) -> float:
    """b^2 / (1 + b^2) without forming b^2 (which overflows past beta ~ 1.3e154)."""
    beta = float(beta)
    return 1.0 / (1.0 + (1.0 / beta) ** 2) if beta >= 1.0 else beta ** 2 / (1.0 + beta ** 2)


BETA_RANGE = (1e-100, 1e100)  # beyond, F-beta is recall (precision) to double precision; b^2 stays finite


def held_out_f_beta(train: np.ndarray, test: np.ndarray, labels, beta: float = 1.0, **_) -> np.ndarray:
    """Held-out F-beta of the threshold on eta_train that maximises the training F-beta
    (:func:`fslab.measures._folds.threshold_fbeta`), per fold."""
    return threshold_fbeta(train, test, beta)


def _check(params: dict) -> None:
    beta = params["beta"]
    if isinstance(beta, bool) or not isinstance(beta, (int, float, np.number)) or not 0.0 < float(beta) < np.inf:
        raise ParameterError(f"beta must be a positive finite number (beta > 1 favours recall); got {beta!r}")
    if not BETA_RANGE[0] <= float(beta) <= BETA_RANGE[1]:
        raise ParameterError(f"beta must lie in [{BETA_RANGE[0]:g}, {BETA_RANGE[1]:g}]; got {beta!r}. Far outside "
                             "that range F-beta weighs only recall (large beta) or only precision (small beta) to "
                             "machine precision, and beta^2 overflows")


SPEC = MeasureSpec(
    name="f-beta",
    label="F-beta",
    func=f_beta_score,
    greater_is_better=True,
    formula=(r"\begin{aligned}C^{\mathrm{Bayes},F_\beta}_D(J) &= \sup_{t\in[0,1]} F_{\beta,D_J}"
             r"\big[\mathrm{sign}(\eta_J - t)\big],\\ "
             r"F_\beta &= \frac{1+\beta^2}{\beta^2/\mathrm{Prec} + 1/\mathrm{Rec}}\end{aligned}"),
    reference="Ahmed et al., Example 7",
    parameters={"beta": Param(1.0, "weight of recall against precision (beta = 1: the F1 score)",
                              low=0.25, high=4.0, step=0.25)},
    check=_check,
    held_out=held_out_f_beta,
)
