"""Stability of the feature sets a selector returns across resamples.

Two estimates on the binary selection matrix ``Z`` (M runs x d features, ``Z[i, f] = 1`` when run i
selected feature f):

* Kuncheva's consistency index (Ditzler et al., Definition 2.1, after Kuncheva 2007), averaged
  over all pairs of runs: ``I_C(A, B) = (r d - k^2) / (k (d - k))`` with ``r = |A & B|``, ``k = |A| = |B|``;
  its distribution over pairs is that of the overlap r (``overlap_counts``: k + 1 values, never one per pair).
* Nogueira, Sechidis and Brown (JMLR 2018) estimate ``phi_hat = 1 - mean_f s_f^2 / (kbar/d (1 - kbar/d))``
  with ``s_f^2 = M/(M-1) p_f (1 - p_f)`` the unbiased variance of feature f's selection indicator, and its
  asymptotic variance (their Theorem 9), giving a normal (1 - alpha) confidence interval.

Note: the NPFS matrix is K x n (features x bootstraps); pass ``result.matrix.T`` or use ``NPFSResult.stability()``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError


def _check_matrix(Z) -> np.ndarray:
    Z = np.asarray(Z)
    if Z.ndim != 2 or Z.shape[0] < 2 or Z.shape[1] < 2:
        raise ParameterError(
            f"stability needs a (runs x features) 0/1 matrix with at least 2 runs and 2 features; got shape {Z.shape}"
        )
    if not np.isin(Z, (0, 1)).all():
        raise ParameterError("the selection matrix must hold only 0/1 (or boolean) entries")
    return Z.astype(np.float64)


def kuncheva_index(a, b, n_features: int) -> float:
    """Kuncheva's consistency index of two equal-size subsets of ``n_features`` features.

    ``I_C = (r K - k^2) / (k (K - k))``: 1 for identical sets, about 0 for independent random sets,
    negative down to -1 for disjoint sets (Ditzler et al., Definition 2.1).
    """
    a, b = set(int(j) for j in a), set(int(j) for j in b)
    k, K = len(a), int(n_features)
    if len(b) != k:
        raise ParameterError(f"Kuncheva's index compares sets of equal size; got sizes {k} and {len(b)}")
    if not 0 < k < K:
        raise ParameterError(f"Kuncheva's index needs 0 < k < K; got k={k}, K={K}")
    r = len(a & b)
    return (r * K - k * k) / (k * (K - k))


def kuncheva_consistency(Z) -> float:
    """Mean of Kuncheva's index over all pairs of runs of the (runs x features) matrix ``Z``.

    All runs must select the same number k of features, with 0 < k < d (the index is undefined otherwise).
    """
    Z = _check_matrix(Z)
    M, d = Z.shape
    sizes = Z.sum(axis=1)
    k = sizes[0]
    if np.any(sizes != k):
        raise ParameterError(
            f"Kuncheva's index needs every run to select the same number of features; sizes range "
            f"{int(sizes.min())}..{int(sizes.max())}. Use Nogueira's estimate instead."
        )
    if not 0 < k < d:
        raise ParameterError(f"Kuncheva's index needs 0 < k < K; got k={int(k)}, K={d}")
    # sum over pairs a < b of |S_a & S_b| = sum_f C(c_f, 2), c_f the runs that chose f: no M x M matrix
    chosen = Z.sum(axis=0)
    mean_overlap = float((chosen * (chosen - 1)).sum()) / (M * (M - 1))
    return float((mean_overlap * d - k * k) / (k * (d - k)))


def overlap_counts(Z) -> np.ndarray:
    """Number of pairs of runs a < b whose sets share r features, for r = 0..d: ``counts[r]``.

    Built without one entry per pair (5,000 runs have 12.5 M pairs): identical runs are grouped first
    (``c`` copies of a set give C(c, 2) pairs of overlap |S|), then the overlaps of distinct sets come from a
    matrix product in blocks of bounded size, each pair weighted by the product of the two groups' sizes.
    """
    Z = _check_matrix(Z).astype(bool)
    d = Z.shape[1]
    sets, copies = np.unique(Z, axis=0, return_counts=True)
    copies = copies.astype(np.float64)
    sizes = sets.sum(axis=1)
    counts = np.bincount(sizes, weights=copies * (copies - 1) / 2, minlength=d + 1)
    U = sets.astype(np.float32)  # overlaps are whole numbers <= d: exact in float32
    u = U.shape[0]
    step = max(1, (1 << 22) // u)
    for start in range(0, u, step):
        stop = min(u, start + step)
        R = U[start:stop] @ U.T  # overlaps of sets start..stop-1 with every set
        upper = np.arange(u)[None, :] > np.arange(start, stop)[:, None]  # each unordered pair once
        weight = copies[start:stop, None] * copies[None, :]
        counts += np.bincount(R[upper].astype(np.int64), weights=weight[upper], minlength=d + 1)
    return np.rint(counts).astype(np.int64)


@dataclass(frozen=True)
class StabilityEstimate:
    """Nogueira et al.'s stability estimate with its variance and a (1 - alpha) confidence interval."""

    value: float
    variance: float
    lower: float
    upper: float
    alpha: float
    n_runs: int

    def __str__(self) -> str:
        level = round(100 * (1 - self.alpha))
        return f"{self.value:.3f} ({level}% CI {self.lower:.3f} .. {self.upper:.3f})"


def nogueira_stability(Z, alpha: float = 0.05) -> StabilityEstimate:
    """Nogueira, Sechidis and Brown's stability ``phi_hat`` of a (runs x features) 0/1 matrix.

    ``phi_hat = 1 - (1/d) sum_f s_f^2 / (kbar/d (1 - kbar/d))`` (their Definition 4). The variance is the
    asymptotic one of their Theorem 9: ``4/M^2 sum_i (phi_i - mean phi)^2`` with
    ``phi_i = [mean_f Z_if p_f - k_i kbar/d^2 + phi_hat/2 (2 k_i kbar/d^2 - k_i/d - kbar/d + 1)]``
    ``/ (kbar/d (1 - kbar/d))``.
    The interval is ``phi_hat +- z_{1-alpha/2} sqrt(variance)``. 1 means every run chose the same set;
    about 0 means the sets are no more alike than random sets of the same sizes.
    """
    if not 0 < alpha < 1:
        raise ParameterError(f"alpha must lie in (0, 1); got {alpha}")
    Z = _check_matrix(Z)
    M, d = Z.shape
    p = Z.mean(axis=0)
    sizes = Z.sum(axis=1)
    kbar = sizes.mean()
    denom = (kbar / d) * (1 - kbar / d)
    if denom <= 0:
        raise ParameterError("stability is undefined when every run selects no feature or every feature")
    s2 = M / (M - 1) * p * (1 - p)
    phi = 1 - s2.mean() / denom
    phi_i = ((Z @ p) / d - sizes * kbar / d**2
             + phi / 2 * (2 * sizes * kbar / d**2 - sizes / d - kbar / d + 1)) / denom
    variance = 4 / M**2 * np.sum((phi_i - phi_i.mean()) ** 2)
    from scipy.stats import norm  # on use: scipy.stats takes ~0.35 s to import
    half = norm.ppf(1 - alpha / 2) * np.sqrt(variance)
    return StabilityEstimate(float(phi), float(variance), float(phi - half), float(phi + half), float(alpha), M)
