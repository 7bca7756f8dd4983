"""Fisher score of each feature (Gu, Li & Han 2011; the F-score baseline of Ahmed et al., Section 4).

F_j = sum_l p_l (mu_lj - mu_j)^2 / sum_l p_l sigma_lj^2, with p_l the class proportions, mu_lj and
sigma_lj^2 the mean and (population) variance of feature j within class l, mu_j the overall mean.
Real values are used when the encoded dataset keeps them (``values``); otherwise, and for text columns
(no real values), the integer codes.
On a Distribution the moments are exact expectations under the law.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ..data.encoded import EncodedDataset

_HUGE = np.finfo(np.float64).max  # a feature that separates the classes perfectly (zero within-class spread)


_BLOCK = 512  # features per block: bounds the float temporaries to a few (rows x 512) matrices


def fisher_scores(source) -> np.ndarray:
    """Fisher score of every feature of a sample (rows with a class index) or an exact distribution."""
    values = source.values if isinstance(source, EncodedDataset) else None  # only encoded data keeps raw values
    matrix = source.X if values is None else values
    if values is not None:  # text columns have no real values (all NaN): score their codes instead
        no_values = np.isnan(values).all(axis=0)
        if no_values.any():
            matrix = np.where(no_values[None, :], source.X, values)
    n_labels = len(source.labels)
    rows: slice | np.ndarray = slice(None)
    if source.y is not None:
        rows = np.argsort(source.y, kind="stable")   # rows by class: a class's sums are one reduceat segment
        class_sums = _sorted_class_sums(np.bincount(source.y, minlength=n_labels))
    else:
        class_sums = partial(np.matmul, np.asarray(source.weights, dtype=np.float64).T)   # sum_x w_l(x) v(x)
    return np.concatenate([_block_scores(np.asarray(matrix[rows, start:start + _BLOCK], dtype=np.float64),
                                         class_sums) for start in range(0, matrix.shape[1], _BLOCK)])


def _sorted_class_sums(counts: np.ndarray):
    """A -> the (L, n) sums of A's rows per class, A's rows sorted by class (``counts`` rows each): one
    ``np.add.reduceat``, not a product with a one-hot matrix (BLAS threads on a shared 2-core server spin: Fisher
    on Mushroom took 336 ms of CPU that way at load 8, 45 ms by sums)."""
    present = counts > 0
    starts = (np.cumsum(counts) - counts)[present]

    def sums(A: np.ndarray) -> np.ndarray:
        out = np.zeros((counts.size, A.shape[1]))
        if A.shape[0]:
            out[present] = np.add.reduceat(A, starts, axis=0)
        return out
    return sums


def _centred_scaled(V: np.ndarray, finite: np.ndarray) -> np.ndarray:
    """(V - c) / s per column, c the midpoint and s the half-range of its finite values: every value lands in
    [-1, 1], so squares cannot overflow whatever the input (values near +-1e308 included). The Fisher score
    is a ratio of a between- to a within-class spread, unchanged by a shift and a scale (issue 18)."""
    lo = np.where(finite, V, np.inf).min(axis=0)
    hi = np.where(finite, V, -np.inf).max(axis=0)
    ok = np.isfinite(lo)
    lo, hi = np.where(ok, lo, 0.0), np.where(ok, hi, 0.0)
    centre = lo / 2 + hi / 2   # halves first: hi + lo could overflow
    half = hi / 2 - lo / 2
    half = np.where(half > 0, half, 1.0)
    return np.where(finite, (np.where(finite, V, 0.0) - centre) / half, 0.0)


def _block_scores(V: np.ndarray, class_sums) -> np.ndarray:
    finite = np.isfinite(V)  # missing raw values are left out of each feature's moments
    V0 = _centred_scaled(V, finite)
    mass = class_sums(finite.astype(np.float64))     # (L, n) mass of class l with a value of feature j
    safe = np.where(mass > 0, mass, 1.0)
    mean = class_sums(V0) / safe                     # mu_lj
    second = class_sums(V0 * V0) / safe
    var = np.maximum(second - mean**2, 0.0)          # sigma_lj^2
    p = mass / mass.sum(axis=0, keepdims=True).clip(min=1e-300)
    overall = (p * mean).sum(axis=0)
    between = (p * (mean - overall) ** 2).sum(axis=0)
    within = (p * var).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(within > 0, between / np.where(within > 0, within, 1.0), np.where(between > 0, _HUGE, 0.0))
