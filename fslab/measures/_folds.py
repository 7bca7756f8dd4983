"""Cross-fitted (held-out) estimates of the Bayes criteria: the folds and the arithmetic they share.

The paper's plug-in estimate of a measure on the features J fits the plug-in Bayes rule on the sample and
scores it on the same sample. A column with one value per row fits any sample perfectly that way (its
in-sample 0-1 error is 0), so on real tables the plug-in value rewards sheer cardinality. The cross-fitted
estimate splits the rows into F stratified folds (:func:`fslab.counting.folds.assign_folds`:
:func:`fslab.row_hash.folds`, the one definition the SQL and Dask engines compute too, with F lowered to the
smallest class's row count so that no fold is empty); for each fold f the plug-in rule is fitted on the other
folds (the training counts) and its loss is measured on fold f (the test counts); the value is the mean over the folds:

    C_cf(J) = (1/F) sum_f  loss( rule fitted on counts_{-f}(X_J, Y),  rows of fold f ).

Counts add up, so the tables of every fold come from ONE count of (cell, fold x class): the evaluator
counts a derived sample whose class index is ``fold * L + y`` and every fold's training table is the total
minus its own. A cell never seen in the training folds backs off to the training class prior (the rule of
an empty cell), so a value-per-row ID column predicts like no feature at all.

Arrays here have shape ``(..., F, cells, L)``: ``test[..., f, c, l]`` = rows of fold f in cell c and class
l, ``train = total - test``. Every function is vectorised over the leading axes (tables of a batch, folds).
"""

from __future__ import annotations

import numpy as np

from ._ranking import sorted_order

# Log-loss and MI: a cell's class probabilities are smoothed towards the training prior by this many
# pseudo-rows, (n_cl + a prior_l) / (n_c + a), so a held-out row of a class unseen in its cell costs a
# finite -ln((a prior_l) / (n_c + a)) instead of infinity. The prior is the training class frequency N_l / N
# (so the smoothed rule of one all-rows cell IS the prior, and an unseen cell predicts exactly as no feature);
# only when a class is absent from the training folds it is add-1/2 (Krichevsky-Trofimov), to stay finite.
LOG_SMOOTHING = 1.0


def class_probabilities(train: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(P_train(y | cell), training prior): a cell with no training rows gets the prior. Shapes
    (..., F, cells, L) and (..., F, 1, L)."""
    n_cell = train.sum(axis=-1, keepdims=True)
    class_totals = train.sum(axis=-2, keepdims=True)
    prior = class_totals / np.maximum(class_totals.sum(axis=-1, keepdims=True), 1e-300)
    eta = np.divide(train, n_cell, out=np.broadcast_to(prior, train.shape).copy(), where=n_cell > 0)
    return eta, prior


def along_folds(per_fold: np.ndarray, ndim: int) -> np.ndarray:
    """A per-fold array (F,) or (F, L) shaped to broadcast against (cells, F[, L], ...) arrays of ``ndim`` axes."""
    return per_fold.reshape((1,) + per_fold.shape + (1,) * (ndim - 1 - per_fold.ndim))


def test_total(test: np.ndarray) -> np.ndarray:
    """Rows of each test fold, shape (..., F)."""
    return np.maximum(test.sum(axis=(-2, -1)), 1e-300)


def argmax_rule(train: np.ndarray) -> np.ndarray:
    """The plug-in 0-1 rule of each cell: the most frequent training class (ties: the lower label), the training
    prior's choice for an unseen cell. Shape (..., F, cells)."""
    eta, _ = class_probabilities(train)
    return eta.argmax(axis=-1)


def smoothed_prior(class_totals: np.ndarray) -> np.ndarray:
    """The training prior of log-loss and MI from training class counts (classes on the last axis): N_l / N, or
    add-1/2 (N_l + 1/2) / (N + L/2) when a class has no training row (see ``LOG_SMOOTHING``)."""
    half = np.where((class_totals <= 0).any(axis=-1, keepdims=True), 0.5, 0.0)
    return (class_totals + half) / (class_totals.sum(axis=-1, keepdims=True) + half * class_totals.shape[-1])


def smoothed_log_probabilities(train: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(ln P_smooth(y | cell), ln prior): the cell's training counts smoothed towards the training prior by
    ``LOG_SMOOTHING`` pseudo-rows (see the module constants)."""
    prior = smoothed_prior(train.sum(axis=-2, keepdims=True))
    a = LOG_SMOOTHING
    p = (train + a * prior) / (train.sum(axis=-1, keepdims=True) + a)
    return np.log(p), np.log(prior)


def held_out_cross_entropy(train: np.ndarray, test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(held-out cross-entropy of the smoothed cell rule, of the prior alone), nats per test row, shape (..., F)."""
    log_p, log_prior = smoothed_log_probabilities(train)
    m = test_total(test)
    rule = -(test * log_p).sum(axis=(-2, -1)) / m
    prior = -(test.sum(axis=-2) * log_prior[..., 0, :]).sum(axis=-1) / m
    return rule, prior


def binary_eta(train: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(eta_train(cell) = P_train(Y = 1 | cell) with the prior for unseen cells, the training prior P(Y = 1))."""
    eta, prior = class_probabilities(train)
    return eta[..., 1], prior[..., 0, 1]


def threshold_fbeta(train: np.ndarray, test: np.ndarray, beta: float) -> np.ndarray:
    """Held-out F-beta of the plug-in F-beta rule: cells sorted by training eta (descending, equal eta within
    1e-12 together), the cut after the group that maximises the training F-beta (the first such group: the
    fewest positives), then F-beta = (1+b^2) TP / ((1+b^2) TP + b^2 FN + FP) of that cut on the test rows."""
    b2 = float(beta) ** 2
    eta, _ = binary_eta(train)
    order, last = descending_groups(eta)
    tr_pos = np.take_along_axis(train[..., 1], order, axis=-1).cumsum(axis=-1)
    tr_all = np.take_along_axis(train.sum(axis=-1), order, axis=-1).cumsum(axis=-1)
    p_train = tr_pos[..., -1:]
    denom = b2 * p_train + tr_all
    f_train = np.divide((1.0 + b2) * tr_pos, denom, out=np.zeros_like(tr_pos), where=denom > 0)
    f_train = np.where(last, f_train, -1.0)
    cut = f_train.argmax(axis=-1)[..., None]
    te_pos = np.take_along_axis(np.take_along_axis(test[..., 1], order, axis=-1).cumsum(axis=-1), cut, axis=-1)
    te_all = np.take_along_axis(np.take_along_axis(test.sum(axis=-1), order, axis=-1).cumsum(axis=-1), cut, axis=-1)
    p_test = test[..., 1].sum(axis=-1, keepdims=True)
    denom = b2 * p_test + te_all
    f = np.divide((1.0 + b2) * te_pos, denom, out=np.zeros_like(te_pos), where=denom > 0)
    return f[..., 0]


def descending_groups(score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``score`` (values in [0, 1], shape (..., cells)): the order by descending score and ``last``,
    True at the last cell of each equal-score group (within 1e-12) in that order."""
    shape = score.shape
    order, gap = sorted_order(score.reshape(-1, shape[-1]))
    order, gap = order[:, ::-1], gap[:, ::-1]
    last = np.empty(order.shape, dtype=bool)
    last[:, :-1] = gap
    last[:, -1] = True
    return order.reshape(shape), last.reshape(shape)


def scored_auc(score: np.ndarray, test: np.ndarray) -> np.ndarray:
    """AUC on the test rows of ranking cells by ``score`` (the training eta), ties counted 1/2:
    sum over equal-score groups g of P_g (N_{<g} + N_g / 2) / (P N); 1/2 when a class is absent."""
    shape = score.shape
    order, gap = sorted_order(score.reshape(-1, shape[-1]))
    pos = np.take_along_axis(test[..., 1].reshape(-1, shape[-1]), order, axis=-1)
    neg = np.take_along_axis(test[..., 0].reshape(-1, shape[-1]), order, axis=-1)
    group = np.zeros(order.shape, dtype=np.int64)
    group[:, 1:] = np.cumsum(gap, axis=-1)
    rows = np.arange(order.shape[0])[:, None] * shape[-1]
    flat = (group + rows).ravel()
    size = order.shape[0] * shape[-1]
    p_g = np.bincount(flat, weights=pos.ravel(), minlength=size).reshape(order.shape)
    n_g = np.bincount(flat, weights=neg.ravel(), minlength=size).reshape(order.shape)
    below = np.cumsum(n_g, axis=-1) - n_g
    num = (p_g * (below + n_g / 2.0)).sum(axis=-1)
    denom = pos.sum(axis=-1) * neg.sum(axis=-1)
    auc = np.divide(num, denom, out=np.full_like(num, 0.5), where=denom > 0)
    return auc.reshape(shape[:-1])


__all__ = ["LOG_SMOOTHING", "along_folds", "argmax_rule", "binary_eta", "class_probabilities", "descending_groups",
           "held_out_cross_entropy", "scored_auc", "smoothed_log_probabilities", "smoothed_prior", "test_total",
           "threshold_fbeta"]
