"""The NPFS test statistics and result record (Ditzler, Polikar, Rosen 2015, Section III).

Pure functions of counts: the binomial critical value (equation (3)), one-sided p-values and the Hoeffding
bound (equation (5)); :class:`NPFSResult` holds a selection matrix and every derived view.

Two decision rules (``RULES``): ``"strict"``, equation (3) of the paper, declares feature i relevant iff
z_i > zeta (so P(reject | H0) <= alpha); ``"at-least"``, the authors' released MATLAB code, iff z_i >= zeta. They
differ only for a count exactly at the critical value. With alpha = 0.01, n = 100 and p0 = 24/25 (the paper's
Fig. 1(d)) zeta = 100: the strict test can declare nothing, the released code declares every feature selected in
all 100 bootstraps.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from dataclasses import dataclass, field
from typing import cast

import numpy as np
import pandas as pd

from ..errors import ParameterError
from .stability import StabilityEstimate, kuncheva_consistency, nogueira_stability, overlap_counts

# A bootstrap's picks as int8 codes (the engines' blocks; a bool block is all PICKED): PICKED counts for the
# feature; TIED_PICK is a pick the tie rule made among several candidates within 1e-12 * max(1, |best|) of the
# best, and counts for no feature (issue 33.2): the lowest-index tie rule alone must not make a feature relevant.
PICKED, TIED_PICK = 1, 2


def split_picks(codes, constant=None) -> tuple[np.ndarray, np.ndarray]:
    """(K x n counted picks, K tied picks not counted) from the K x n pick codes; a ``constant`` column (a mask:
    one value on all rows, it cannot change any criterion) is never counted either: its picks join the tied ones.

    p0 stays k/K (the null rate of a selector that always picks k), so dropping tied picks only lowers counts:
    the test stays valid and becomes conservative on tie-heavy criteria (the 0-1 error's flat steps).
    """
    codes = np.asarray(codes)
    counted = codes == PICKED
    uncounted = codes == TIED_PICK
    if constant is not None and np.any(constant):
        uncounted[constant] |= counted[constant]
        counted[constant] = False
    return counted, uncounted.sum(axis=1)

RULES = ("strict", "at-least")
RULE_TEXT = {"strict": "z > zeta", "at-least": "z >= zeta"}


def check_rule(rule: str) -> str:
    """The rule itself, or ParameterError naming the two allowed values."""
    if rule not in RULES:
        raise ParameterError(f"rule must be 'strict' (equation (3): z > zeta) or 'at-least' (the authors' released "
                             f"code: z >= zeta); got {rule!r}")
    return rule


def relevant_mask(counts, threshold: int, rule: str = "strict") -> np.ndarray:
    """Relevant features under ``rule``: z > zeta (``"strict"``, equation (3)) or z >= zeta (``"at-least"``)."""
    counts = np.asarray(counts)
    return counts >= threshold if check_rule(rule) == "at-least" else counts > threshold


def npfs_threshold(n: int, p0: float, alpha: float) -> int:
    """Critical count zeta: the smallest z with P(Z <= z) >= 1 - alpha for Z ~ Binomial(n, p0) (equation (3)).

    A feature is relevant iff its count is strictly greater than zeta, so P(reject | H0) <= alpha. Computed as the
    smallest z with P(Z > z) <= alpha, the same survival function as the p-values (``binom.ppf(1 - alpha, ...)``
    would round 1 - alpha away for tiny alpha), so ``count > zeta`` holds exactly when ``p_value <= alpha``.
    """
    z = np.arange(int(n) + 1)
    from scipy.stats import binom  # on use: scipy.stats takes ~0.35 s to import
    return int(np.argmax(binom.sf(z, n, p0) <= alpha))  # sf(n) = 0, so a hit always exists


def npfs_p_values(counts, n: int, p0: float) -> np.ndarray:
    """P(Z >= z | H0) for each observed count z, Z ~ Binomial(n, p0): the one-sided p-value of each feature."""
    from scipy.stats import binom  # on use: scipy.stats takes ~0.35 s to import
    return binom.sf(np.asarray(counts) - 1, n, p0)


def hoeffding_bound(n: int, epsilon: float) -> float:
    """Hoeffding bound of equation (5): P(|p_hat - p| >= epsilon) <= 2 exp(-2 n epsilon^2), capped at 1."""
    return float(min(1.0, 2 * math.exp(-2 * n * epsilon**2)))


def hoeffding_n(epsilon: float, delta: float) -> int:
    """Bootstraps needed so that equation (5) bounds P(|p_hat - p| >= epsilon) by delta: ln(2/delta) / (2 eps^2)."""
    return math.ceil(math.log(2 / delta) / (2 * epsilon**2))


def relevant_path(matrix: np.ndarray, p0: float, alpha: float, rule: str = "strict") -> np.ndarray:
    """Number of relevant features after the first l bootstraps, l = 1..n (the paper's Fig. 2 for one k).

    The test is redone for each l with Z_l ~ Binomial(l, p0). Strict: a feature counts when P(Z_l >= z) <= alpha,
    which is the same as z > zeta_l (see :func:`npfs_threshold`); at-least: when P(Z_l > z) <= alpha, the same as
    z >= zeta_l.
    """
    n = matrix.shape[1]
    running = np.cumsum(matrix, axis=1)  # K x n counts after l bootstraps
    shift = 1 if check_rule(rule) == "strict" else 0
    from scipy.stats import binom  # on use: scipy.stats takes ~0.35 s to import
    return np.asarray(binom.sf(running - shift, np.arange(1, n + 1)[None, :], p0) <= alpha).sum(axis=0)


def min_bootstraps(p0: float, alpha: float) -> int:
    """The fewest bootstraps n with which the strict test of equation (3) can declare any feature relevant.

    A feature's smallest possible p-value is that of a feature chosen in all n bootstraps, P(Z = n | H0) = p0^n for
    Z ~ Binomial(n, p0); the strict rule (z > zeta, i.e. P(Z >= z | H0) <= alpha) can reject only if p0^n <= alpha,
    that is n >= ln(alpha) / ln(p0). E.g. k = 10 of K = 50 (p0 = 0.2) at alpha = 0.01: 0.2^2 = 0.04 > 0.01 and
    0.2^3 = 0.008, so n >= 3; the paper's Fig. 1(d), p0 = 24/25: n >= 113, so n = 100 declares nothing.
    """
    if not 0 < p0 < 1 or not 0 < alpha < 1:
        raise ParameterError(f"min_bootstraps needs 0 < p0 = k/K < 1 and 0 < alpha < 1; got p0 = {p0}, alpha = {alpha}")
    n = max(1, math.ceil(math.log(alpha) / math.log(p0)))
    # the quotient can round either way at an exact power (0.1**2 vs 0.01): decide by p0**n itself, the page's test
    if p0**n > alpha:
        n += 1
    elif n > 1 and p0 ** (n - 1) <= alpha:
        n -= 1
    return n


@dataclass(frozen=True, eq=False)
class NPFSResult:
    """Outcome of :func:`fslab.npfs.npfs`: the selection matrix, the test's parameters and every derived view.

    Fields hold what the matrix cannot give: ``matrix`` (K x n bool, the paper's X), ``p0``, ``alpha``, ``epsilon``,
    ``rule``, names and the run's metadata. ``tied_picks``: per feature, the picks NOT counted because the tie rule
    alone made them (several candidates tied for the best at that step) or the column is constant on the rows
    (:func:`split_picks`); None when the engine does not report ties (a callable selector, rows in Dask or SQL).

    Derived, computed once on first use: ``counts`` the row sums z_i; ``threshold`` the critical value zeta;
    ``relevant`` the indices with z_i > zeta (``rule="strict"``) or z_i >= zeta (``rule="at-least"``), ascending;
    ``p_values`` P(Z >= z_i | H0); ``hoeffding`` the bound 2 exp(-2 n eps^2) of equation (5);
    ``relevant_path[l-1]`` the number relevant after l bootstraps; ``tie_note`` the ties in words.
    """

    matrix: np.ndarray
    p0: float
    alpha: float
    epsilon: float
    feature_names: tuple[str, ...]
    k: int
    selector: str = "custom"
    seed: int | None = None
    sample_fraction: float = 1.0
    n_requested: int = 0
    cancelled: bool = False
    selector_params: dict = field(default_factory=dict)
    rule: str = "strict"
    tied_picks: np.ndarray | None = None

    @classmethod
    def from_matrix(cls, matrix, *, p0: float, alpha: float, epsilon: float = 0.1, k: int | None = None,
                    feature_names=None, rule: str = "strict", **meta) -> NPFSResult:
        """Apply the test to a K x n selection matrix (from any source: bootstraps, cross-validation folds)."""
        check_rule(rule)
        matrix = np.asarray(matrix, dtype=bool)
        K, n = matrix.shape
        names = tuple(feature_names) if feature_names is not None else tuple(f"X{i + 1}" for i in range(K))
        meta.setdefault("n_requested", n)
        return cls(matrix=matrix, p0=p0, alpha=alpha, epsilon=epsilon, feature_names=names,
                   k=int(k) if k is not None else round(p0 * K), rule=rule, **meta)

    def with_rule(self, rule: str) -> NPFSResult:
        """The same bootstraps decided by another rule (the matrix, counts, zeta and p-values do not change)."""
        if check_rule(rule) == self.rule:
            return self
        return dataclasses.replace(self, rule=rule)

    @property
    def n_bootstraps(self) -> int:
        return self.matrix.shape[1]

    @property
    def n_features(self) -> int:
        return self.matrix.shape[0]

    @functools.cached_property
    def counts(self) -> np.ndarray:
        """z_i: how many bootstraps picked feature i (the matrix's row sums)."""
        return self.matrix.sum(axis=1)

    @functools.cached_property
    def threshold(self) -> int:
        """The critical count zeta of equation (3) for n bootstraps (:func:`npfs_threshold`)."""
        return npfs_threshold(self.n_bootstraps, self.p0, self.alpha)

    @functools.cached_property
    def relevant(self) -> np.ndarray:
        """Indices of the relevant features under ``self.rule``, ascending."""
        return np.flatnonzero(self.relevant_mask)

    @functools.cached_property
    def p_values(self) -> np.ndarray:
        """P(Z >= z_i | H0), Z ~ Binomial(n, p0), for each feature."""
        return npfs_p_values(self.counts, self.n_bootstraps, self.p0)

    @property
    def hoeffding(self) -> float:
        """Equation (5)'s bound 2 exp(-2 n eps^2) on P(|p_hat - p| >= eps), capped at 1."""
        return hoeffding_bound(self.n_bootstraps, self.epsilon)

    @functools.cached_property
    def relevant_path(self) -> np.ndarray:
        """The number of relevant features after the first l = 1..n bootstraps (:func:`relevant_path`)."""
        return relevant_path(self.matrix, self.p0, self.alpha, self.rule)

    @property
    def k_star(self) -> int:
        """The number of relevant features: NPFS's estimate of k* (Section III-C)."""
        return int(self.relevant.size)

    @property
    def relevant_mask(self) -> np.ndarray:
        """K bools: feature i is relevant under ``self.rule``."""
        return relevant_mask(self.counts, self.threshold, self.rule)

    @property
    def rule_text(self) -> str:
        """The decision in words for captions: "z > zeta" or "z >= zeta"."""
        return RULE_TEXT[self.rule]

    @property
    def tie_note(self) -> str | None:
        """A sentence naming the features with picks left uncounted (tied steps, constant columns), else None."""
        if self.tied_picks is None or not np.any(self.tied_picks):
            return None
        top = np.argsort(-self.tied_picks, kind="stable")[:5]
        named = ", ".join(f"{self.feature_names[i]} {int(self.tied_picks[i])}" for i in top if self.tied_picks[i])
        return (f"Picks made only by the tie rule (several features tied for the best at that step) or of a column "
                f"with one value count for no feature: {named} of {self.n_bootstraps} bootstraps.")

    @property
    def relevant_names(self) -> list[str]:
        return [self.feature_names[i] for i in self.relevant]

    def summary(self) -> pd.DataFrame:
        """One row per feature, most often selected first: count, frequency z/n, p-value, relevant."""
        df = pd.DataFrame({
            "feature": np.arange(self.n_features), "name": list(self.feature_names), "count": self.counts,
            "frequency": self.counts / self.n_bootstraps, "p_value": self.p_values,
            "relevant": self.relevant_mask,
        })
        if self.tied_picks is not None:
            df["tied picks (not counted)"] = self.tied_picks
        return df.sort_values(["count", "feature"], ascending=[False, True], ignore_index=True)

    def stability(self, alpha: float = 0.05) -> dict[str, float | StabilityEstimate | None]:
        """Kuncheva's consistency (mean over pairs of bootstraps) and Nogueira et al.'s estimate with its CI."""
        runs = self.matrix.T
        if runs.shape[0] < 2:
            return {"kuncheva": None, "nogueira": None}
        sizes = runs.sum(axis=1)
        same = bool(np.all(sizes == sizes[0]) and 0 < sizes[0] < self.n_features)
        defined = bool(0 < sizes.mean() < self.n_features)  # both indices need some but not all features chosen
        return {"kuncheva": kuncheva_consistency(runs) if same else None,
                "nogueira": nogueira_stability(runs, alpha) if defined else None}

    @functools.cached_property
    def kuncheva_pairs(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Kuncheva's index over all pairs of bootstraps as (index values, number of pairs), one entry per overlap
        r = |S_a & S_b| that occurs: I_C = (r K - k^2) / (k (K - k)). At most k + 1 entries however many
        bootstraps (12.5 M pairs for n = 5,000); computed once per result. None when the index is undefined
        (sets of different sizes, fewer than 2 bootstraps)."""
        runs = self.matrix.T
        if runs.shape[0] < 2 or self.n_features < 2:
            return None
        sizes = runs.sum(axis=1)
        k, K = int(sizes[0]), self.n_features
        if np.any(sizes != k) or not 0 < k < K:
            return None
        counts = overlap_counts(runs)
        r = np.flatnonzero(counts)
        return (r * K - k * k) / (k * (K - k)), counts[r]

    def to_dict(self) -> dict:
        """Plain JSON-ready view (the matrix as lists of selected indices per bootstrap)."""
        stab = self.stability()
        nog = cast("StabilityEstimate | None", stab["nogueira"])
        return {
            "method": "NPFS (Ditzler, Polikar, Rosen 2015)", "selector": self.selector,
            "selector_params": {k: v for k, v in self.selector_params.items() if isinstance(v, str | int | float)},
            "k": self.k, "n_bootstraps": self.n_bootstraps, "n_requested": self.n_requested,
            "cancelled": self.cancelled, "alpha": self.alpha, "p0": self.p0, "threshold": self.threshold,
            "rule": self.rule,
            "seed": self.seed, "sample_fraction": self.sample_fraction, "k_star": self.k_star,
            "relevant": [int(i) for i in self.relevant], "relevant_names": self.relevant_names,
            "feature_names": list(self.feature_names), "counts": [int(c) for c in self.counts],
            "p_values": [float(p) for p in self.p_values], "epsilon": self.epsilon, "hoeffding": self.hoeffding,
            "relevant_path": [int(v) for v in self.relevant_path],
            "tied_picks": None if self.tied_picks is None else [int(v) for v in self.tied_picks],
            "kuncheva": stab["kuncheva"],
            "nogueira": None if nog is None else {"value": nog.value, "lower": nog.lower, "upper": nog.upper},
            "selected_per_bootstrap": [np.flatnonzero(col).tolist() for col in self.matrix.T],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)

    def matrix_frame(self) -> pd.DataFrame:
        """The selection matrix as 0/1 with feature names as rows and bootstraps b1..bn as columns."""
        cols = [f"b{i + 1}" for i in range(self.n_bootstraps)]
        return pd.DataFrame(self.matrix.astype(np.int8), index=list(self.feature_names), columns=cols)


__all__ = ["PICKED", "RULES", "TIED_PICK", "NPFSResult", "check_rule", "hoeffding_bound", "hoeffding_n",
           "min_bootstraps", "npfs_p_values", "npfs_threshold", "relevant_mask", "relevant_path", "split_picks"]
