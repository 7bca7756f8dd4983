"""The folds of a cross-fitted (held-out) estimate: one definition for every engine.

The rows are split into F stratified folds (:func:`assign_folds`: :func:`fslab.row_hash.folds`, the one definition
the SQL and Dask engines compute too, with F lowered to the smallest class's row count so that no fold is empty).
Counts add up, so every fold's tables come from ONE count of (cell, fold x class): an engine counts a derived sample
whose class index is ``fold * L + y``, and :func:`split` turns those counts into each fold's training counts (the
total minus its own) and test counts. The measures' held-out arithmetic on them is :mod:`fslab.measures._folds`.
"""

from __future__ import annotations

import numpy as np

from .. import row_hash
from ..errors import ParameterError

ESTIMATES = ("plug-in", "cross-fitted")
DEFAULT_FOLDS = 5
DEFAULT_SEED = 0
MAX_FOLDS = 20


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


__all__ = ["DEFAULT_FOLDS", "DEFAULT_SEED", "ESTIMATES", "MAX_FOLDS", "TooFewRowsError", "assign_folds",
           "check_estimate", "check_seed", "describe_estimate", "fold_count", "fold_sizes", "split"]
