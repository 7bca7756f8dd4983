"""Cross-fitted (held-out) estimates of the Bayes criteria: the folds and the arithmetic they share.

The paper's plug-in estimate of a measure on the features J fits the plug-in Bayes rule on the sample and
scores it on the same sample. A column with one value per row fits any sample perfectly that way (its
in-sample 0-1 error is 0), so on real tables the plug-in value rewards sheer cardinality. The cross-fitted
estimate splits the rows into F stratified folds (:func:`assign_folds`: :func:`fslab.row_hash.folds`, the one
definition the SQL and Dask engines compute too, with F lowered to the smallest class's row count so that no fold
is empty); for each fold f the plug-in rule is fitted on the other folds (the training counts) and its loss is
measured on fold f (the test counts); the value is the mean over the folds:

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

from .. import row_hash
from ..errors import ParameterError
from ._ranking import sorted_order

ESTIMATES = ("plug-in", "cross-fitted")
DEFAULT_FOLDS = 5
DEFAULT_SEED = 0
MAX_FOLDS = 20
# Log-loss and MI: a cell's class probabilities are smoothed towards the training prior by this many
# pseudo-rows, (n_cl + a prior_l) / (n_c + a), so a held-out row of a class unseen in its cell costs a
# finite -ln((a prior_l) / (n_c + a)) instead of infinity. The prior is the training class frequency N_l / N
# (so the smoothed rule of one all-rows cell IS the prior, and an unseen cell predicts exactly as no feature);
# only when a class is absent from the training folds it is add-1/2 (Krichevsky-Trofimov), to stay finite.
LOG_SMOOTHING = 1.0


def check_estimate(estimate: str, folds=DEFAULT_FOLDS):
    """Validate an estimate request; returns (estimate, folds). ``folds`` is a number of folds (2 .. 20), or one
    fold index per row (an int array with 2 .. 20 distinct values 0 .. F-1), e.g. to keep the copies of a row in a
    bootstrap resample in one fold (NPFS)."""
    if estimate not in ESTIMATES:
        raise ParameterError(f"estimate must be one of {', '.join(ESTIMATES)}; got {estimate!r}")
    if isinstance(folds, np.ndarray):
        if folds.ndim != 1 or folds.dtype.kind not in "iu" or folds.size == 0 or folds.min() < 0 \
                or not 2 <= int(folds.max()) + 1 <= MAX_FOLDS:
            raise ParameterError("fold indices must be a 1-d integer array with values 0 .. F-1, "
                                 f"2 <= F <= {MAX_FOLDS}")
        return estimate, folds
    if isinstance(folds, bool) or not isinstance(folds, int | np.integer) or not 2 <= folds <= MAX_FOLDS:
        raise ParameterError(f"folds must be a whole number from 2 to {MAX_FOLDS}; got {folds!r}")
    return estimate, int(folds)


def describe_estimate(estimate: str, folds: int | None = None) -> str:
    """The estimate in words, for every place a number is shown."""
    if estimate == "cross-fitted":
        return f"held-out ({folds or DEFAULT_FOLDS}-fold cross-fitted)"
    if estimate == "plug-in":
        return "in-sample (plug-in, as in the papers)"
    return "in-sample"


class TooFewRowsError(ParameterError):
    """The rows cannot be split into two folds that each hold a row of every class (a class with one row).
    ``reason``: the first half of the message, without the advice (for a note that falls back to the plug-in)."""

    def __init__(self, message: str, reason: str | None = None):
        super().__init__(message)
        self.reason = reason or message


def check_seed(seed) -> int:
    """A split seed: a whole number 0 <= seed < 2**63 (it enters :func:`fslab.row_hash.folds` as an int64)."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= int(seed) < 2**63:
        raise ParameterError(f"the split seed must be a whole number from 0 to 2**63 - 1; got {seed!r}")
    return int(seed)


def fold_sizes(class_counts, n_folds: int, seed: int) -> np.ndarray:
    """Rows of every (fold, class) that :func:`fslab.row_hash.folds` gives, from the class counts alone (F, L):
    each full block of F rows of class c puts one row in every fold; the last r = n_c mod F rows, ranks
    bF .. bF + r - 1, go to folds (i + hash(seed, c, b)) mod F, i < r. No rows needed: the same on every engine."""
    counts = np.asarray(class_counts, dtype=np.int64).ravel()
    F = int(n_folds)
    out = np.broadcast_to(counts // F, (F, counts.size)).copy()
    offset = row_hash.row_hash(int(seed), np.arange(counts.size), counts // F)
    i = np.arange(F)[:, None]
    np.add.at(out, ((i + offset) % F, np.broadcast_to(np.arange(counts.size), (F, counts.size))),
              (i < counts % F).astype(np.int64))
    return out


def fold_count(class_counts, folds: int, class_names=None, *, seed: int = DEFAULT_SEED,
               stratified: bool = True) -> tuple[int, tuple[str, ...]]:
    """(F, notes): the folds actually used.

    A class target (``stratified``): F = min(folds, rows of the smallest class present). :func:`fslab.row_hash.folds`
    deals the rows of each class in blocks of F, one row per fold, so every fold holds at least one row of every
    class: no fold is empty, every fold's training rows hold every class, and no held-out value divides by zero. A
    class with a single row is refused (:class:`TooFewRowsError`). A real-valued target (each value its own "class",
    most with one row): the largest F <= folds whose folds (:func:`fold_sizes`) all hold a row, at least 2. Fewer
    folds than asked come with a note.
    """
    counts = np.asarray(class_counts, dtype=np.float64).ravel()
    present = np.flatnonzero(counts > 0)
    total = int(counts.sum())
    advice = "; use the in-sample estimate (estimate='plug-in', --estimate plug-in)"
    if not stratified:
        usable = [F for F in range(int(folds), 1, -1)
                  if fold_sizes(counts.astype(np.int64), F, seed).sum(axis=1).min() > 0]
        if not usable:
            reason = f"too few rows to hold out: {total:,} row{'' if total == 1 else 's'} cannot fill 2 folds"
            raise TooFewRowsError(reason + advice, reason=reason)
        notes = () if usable[0] == int(folds) else (
            f"Held out over {usable[0]} folds instead of {int(folds)}: with {total:,} rows, more folds would leave "
            "one empty.",)
        return usable[0], notes
    rare = int(present[np.argmin(counts[present])]) if present.size else 0
    n_min = int(counts[rare]) if present.size else 0
    name = repr(str(class_names[rare])) if class_names is not None and len(class_names) > rare else f"#{rare}"
    if n_min < 2:
        reason = ("too few rows to hold out: " + (f"the class {name} has a single row of {total:,}"
                                                  if n_min else "the sample has no rows")
                  + ", and the held-out estimate needs at least 2 rows of every class (one to fit, one to test)")
        raise TooFewRowsError(reason + advice + " or drop or merge that class", reason=reason)
    n_folds = min(int(folds), n_min)
    notes = () if n_folds == int(folds) else (
        f"Held out over {n_folds} folds instead of {int(folds)}: the class {name} has only {n_min} rows, and every "
        "fold needs a row of every class.",)
    return n_folds, notes


def assign_folds(y: np.ndarray, folds, seed, class_names=None, *,
                 stratified: bool = True) -> tuple[np.ndarray, int, tuple[str, ...]]:
    """(fold of every row, F, notes) for the cross-fitted estimate.

    ``folds`` a number: stratified folds :func:`fslab.row_hash.folds` (``y``'s class codes 0..L-1, rows in table
    order; the same function the SQL and Dask engines compute) over :func:`fold_count`'s safe F (``stratified``
    False for a real-valued target). ``folds`` one index per row (e.g. NPFS keeping a row's bootstrap copies in one
    fold): folds that hold no row are dropped and the others numbered 0..F-1 in order; fewer than 2 left is a
    :class:`TooFewRowsError`.
    """
    y = np.asarray(y, dtype=np.int64)
    if isinstance(folds, np.ndarray):
        if folds.shape != y.shape:
            raise ParameterError(f"need one fold index per row: {y.size} rows, {folds.size} indices")
        used, fold = np.unique(folds, return_inverse=True)
        if used.size < 2:
            raise TooFewRowsError("too few rows to hold out: the given fold indices put every row in one fold")
        notes: tuple[str, ...] = () if used.size == int(folds.max()) + 1 else (
            f"Held out over the {used.size} folds that hold rows (of {int(folds.max()) + 1} fold indices).",)
        return fold.astype(np.int64).ravel(), int(used.size), notes
    seed = check_seed(seed)
    n_folds, notes = fold_count(np.bincount(y) if y.size else [], folds, class_names, seed=seed,
                                stratified=stratified)
    return row_hash.folds(y, n_folds, seed), n_folds, notes


def split(counts: np.ndarray, folds: int) -> tuple[np.ndarray, np.ndarray]:
    """(train, test) of shape (..., F, cells, L) from counts (..., cells, F * L) of (cell, fold * L + class)."""
    shape = counts.shape[:-1] + (folds, counts.shape[-1] // folds)
    folded = counts.reshape(shape)
    test = np.ascontiguousarray(np.moveaxis(folded, -2, -3))   # one copy: every reduction after runs contiguous
    train = folded.sum(axis=-2)[..., None, :, :] - test
    return train, test


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


__all__ = ["DEFAULT_FOLDS", "DEFAULT_SEED", "ESTIMATES", "LOG_SMOOTHING", "TooFewRowsError", "assign_folds",
           "check_estimate", "check_seed", "describe_estimate", "fold_count", "fold_sizes", "split"]
