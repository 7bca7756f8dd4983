"""Bayes logarithmic loss = H(Y | X_J) in nats (Ahmed et al., Example 5)."""

from __future__ import annotations

import numpy as np

from ..information import conditional_entropy
from ..tables import JointTable
from ._folds import LOG_SMOOTHING, along_folds, held_out_cross_entropy, smoothed_prior
from .base import HeldOutCells, MeasureSpec, MixedCellReducer


def log_loss_error(table: JointTable) -> np.ndarray:
    """er^{log,*} = E_X[-sum_y p(y|X) ln p(y|X)] = H(Y | X_J) in nats = H(Y) - I(X_J; Y).

    The Bayes class-probability estimate is eta itself, so the Bayes log-loss is the conditional
    entropy (Example 5; minimising it is the MI criterion). Any number of classes.
    Tiny table: p = [[.4, .1], [.2, .3]] -> .5 H(.8, .2) + .5 H(.4, .6)
    = .5 * 0.500402 + .5 * 0.673012 = 0.586707 nats.
    """
    return conditional_entropy(table, unit="nats")


def mixed_cell_entropy(counts: np.ndarray, params, nlogn: np.ndarray) -> np.ndarray:
    """Per feature j: sum over mixed cells (c, v) of n_cv ln n_cv - sum_l n_cvl ln n_cvl (m H(Y | X_J, X_j) in nats;
    pure cells add 0), from counts (C, L, A, n) with k ln k = ``nlogn[k]``. The sums run in the counts' memory
    order (the fast engine's key path hands a (n, A, C, L) block transposed): ``np.einsum`` over the contiguous
    layout, a gather and a few passes, where reductions across strided axes cost several times more."""
    whole = counts if counts.dtype.kind in "iu" else counts.astype(np.intp)
    perm = tuple(int(i) for i in np.argsort([-s for s in whole.strides], kind="stable"))
    whole = whole.transpose(perm)
    axes = "".join("clan"[i] for i in perm)
    cells = axes.replace("l", "")
    totals = np.einsum(f"{axes}->{cells}", whole)
    return np.einsum(f"{cells}->n", nlogn[totals]) - np.einsum(f"{axes}->n", nlogn[whole])


def held_out_log_loss(train: np.ndarray, test: np.ndarray, labels, **_) -> np.ndarray:
    """Held-out log-loss (nats) of the cell's training class probabilities smoothed towards the training prior,
    (n_xy + a pi_y) / (n_x + a) with a = 1 pseudo-row and pi the add-1/2 prior: -mean ln p(y | x) over the test
    rows, per fold (:data:`fslab.measures._folds.LOG_SMOOTHING`)."""
    return held_out_cross_entropy(train, test)[0]


def held_out_cell_entropy(train: np.ndarray, test: np.ndarray, rows: np.ndarray, params) -> np.ndarray:
    """Each cell's held-out cross-entropy (nats) over its fold's rows: counts (C, F, L, ...) -> (C, F, ...):
    [t ln(n + a) - sum_l t_l ln(n_l + a pi_l)] / m_f with n_l, t_l the cell's training and test rows of class l
    (-sum_l t_l ln p_l, p_l = (n_l + a pi_l) / (n + a), without dividing every entry: 1.3x less time on
    optdigits' pairs, 10 classes x 5 folds)."""
    prior = along_folds(LOG_SMOOTHING * smoothed_prior(rows.sum(axis=0) - rows), train.ndim)
    inner = train + prior   # float64 whatever the counts' type; then in place (no further temporaries)
    np.log(inner, out=inner)
    inner *= test
    loss = train.sum(axis=2) + LOG_SMOOTHING
    np.log(loss, out=loss)
    loss *= test.sum(axis=2)
    loss -= inner.sum(axis=2)
    loss /= along_folds(rows.sum(axis=1), loss.ndim)
    return loss


def held_out_entry_entropy(group: np.ndarray, fold: np.ndarray, cls: np.ndarray, count: np.ndarray, n_groups: int,
                           rows: np.ndarray, params) -> np.ndarray:
    """:func:`held_out_cell_entropy` from the non-zero entries (cell ``group``, ``fold``, class ``cls``: ``count``
    test rows) -> (n_groups, F). With N the cell's rows over every fold, t its test rows in fold f and N_l, t_l by
    class, a = LOG_SMOOTHING and pi the fold's smoothed training prior, its share of fold f's cross-entropy is

        [ t ln(N - t + a) - sum_l t_l ln(N_l - t_l + a pi_l) ] / m_f

    (-sum_l t_l ln p_l with p_l = (N_l - t_l + a pi_l) / (N - t + a)): a log per non-zero entry and one per occupied
    (cell, fold), where the dense form takes one per (cell, fold, class), zeros included (issue 35.2: held-out JMI
    and CMIM on 10 classes x 5 folds, 8-17 % of the entries non-zero)."""
    F, L = rows.shape
    count = count.astype(np.float64)
    by_class = np.bincount(group * L + cls, weights=count, minlength=n_groups * L)
    gf = group * F + fold
    by_fold = np.bincount(gf, weights=count, minlength=n_groups * F).reshape(n_groups, F)
    prior = LOG_SMOOTHING * smoothed_prior(rows.sum(axis=0) - rows)
    inner = np.bincount(gf, weights=count * np.log(by_class[group * L + cls] - count + prior[fold, cls]),
                        minlength=n_groups * F).reshape(n_groups, F)
    loss = by_fold * np.log(by_fold.sum(axis=1, keepdims=True) - by_fold + LOG_SMOOTHING) - inner
    return loss / rows.sum(axis=1)


def held_out_run_entropy(part: np.ndarray, fold: np.ndarray, cls: np.ndarray, count: np.ndarray, n_parts: int,
                         rows: np.ndarray, params) -> np.ndarray:
    """:func:`held_out_entry_entropy` per entry, for entries sorted by (part, fold) (the row path's sorted keys):
    entry (part, f, l) with t_l test rows gets -t_l ln(N_l - t_l + a pi_l) / m_f, and the first entry of each
    (part, f) run also t ln(N - t + a) / m_f (t: the run's rows, N, N_l: the part's rows over every fold). Summed by
    (candidate, fold) they give the held-out cross-entropy; no (part, fold) layout, so a part in one fold costs what
    any other does (its share is its rows' prior loss: N_l = t_l, N = t)."""
    F, L = rows.shape
    if not part.size:
        return np.zeros(0)
    count = np.asarray(count, dtype=np.float64)
    by_class = part * L + cls
    share = np.bincount(by_class, weights=count, minlength=n_parts * L)[by_class]
    share -= count
    share += (LOG_SMOOTHING * smoothed_prior(rows.sum(axis=0) - rows)).ravel()[fold * L + cls]
    np.log(share, out=share)
    share *= -count
    head = np.empty(part.size, dtype=bool)
    head[:1] = True
    head[1:] = (part[1:] != part[:-1]) | (fold[1:] != fold[:-1])
    start = np.flatnonzero(head)
    t = np.add.reduceat(count, start)                                # rows of each (part, fold) run: whole numbers
    of_run = part[start]
    rest = np.bincount(of_run, weights=t, minlength=n_parts)[of_run] - t + LOG_SMOOTHING
    np.log(rest, out=rest)
    share[start] += t * rest
    share /= rows.sum(axis=1)[fold]
    return share


def held_out_prior_entropy(rows: np.ndarray, params) -> np.ndarray:
    """-ln prior_l (F, L) over the fold's rows: one held-out row of class l in a cell unseen in training."""
    return -np.log(smoothed_prior(rows.sum(axis=0) - rows)) / rows.sum(axis=1, keepdims=True)


HELD_OUT_CELLS = HeldOutCells(held_out_cell_entropy, held_out_prior_entropy, entry_loss=held_out_entry_entropy,
                              run_loss=held_out_run_entropy)

SPEC = MeasureSpec(
    name="log-loss",
    label="log-loss",
    func=log_loss_error,
    greater_is_better=False,
    binary_only=False,
    formula=(r"\begin{aligned}\mathrm{er}^{\log,*}_{D_J} &= \mathbf{E}_X\big[-\eta_J\ln\eta_J"
             r"-(1-\eta_J)\ln(1-\eta_J)\big]\\ &= H(Y\mid X_J) = H(Y) - I(X_J;Y)\ \text{(nats)}\end{aligned}"),
    reference="Ahmed et al., Example 5",
    mixed_cells=MixedCellReducer(mixed_cell_entropy),
    held_out=held_out_log_loss,
    held_out_cells=HELD_OUT_CELLS,
)
