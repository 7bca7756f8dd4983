"""Fisher score of each feature (Gu, Li & Han 2011; the F-score baseline of Ahmed et al., Section 4).

F_j = sum_l p_l (mu_lj - mu_j)^2 / sum_l p_l sigma_lj^2, with p_l the class proportions, mu_lj and
sigma_lj^2 the mean and (population) variance of feature j within class l, mu_j the overall mean.
Real values are used when the encoded dataset keeps them (``values``); otherwise, and for text columns
(no real values), the integer codes.
On a Distribution the moments are exact expectations under the law.
"""

from __future__ import annotations

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
    if source.y is not None:
        W = np.zeros((matrix.shape[0], n_labels))
        W[np.arange(matrix.shape[0]), source.y] = 1.0
    else:
        W = np.asarray(source.weights, dtype=np.float64)
    return np.concatenate([_block_scores(np.asarray(matrix[:, start:start + _BLOCK], dtype=np.float64), W)
                           for start in range(0, matrix.shape[1], _BLOCK)])


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


def _block_scores(V: np.ndarray, W: np.ndarray) -> np.ndarray:
    finite = np.isfinite(V)  # missing raw values are left out of each feature's moments
    V0 = _centred_scaled(V, finite)
    mass = W.T @ finite.astype(np.float64)           # (L, n) mass of class l with a value of feature j
    safe = np.where(mass > 0, mass, 1.0)
    mean = (W.T @ V0) / safe                         # mu_lj
    second = (W.T @ (V0 * V0)) / safe
    var = np.maximum(second - mean**2, 0.0)          # sigma_lj^2
    p = mass / mass.sum(axis=0, keepdims=True).clip(min=1e-300)
    overall = (p * mean).sum(axis=0)
    between = (p * (mean - overall) ** 2).sum(axis=0)
    within = (p * var).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(within > 0, between / np.where(within > 0, within, 1.0), np.where(between > 0, _HUGE, 0.0))
