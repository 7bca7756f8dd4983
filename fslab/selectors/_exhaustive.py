"""Exhaustive search: the best subset of size k under a subset criterion (Pena & Nilsson: k-optimal
subsets need it in general; Ahmed et al., Section 3.2: the ideal argmax that greedy approximates)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from math import comb

import numpy as np
import pandas as pd

from ..errors import TooLargeError
from ..limits import LIMITS, setting
from ._loop import TIE_TOLERANCE

DEFAULT_MAX_SUBSETS = LIMITS.max_exhaustive_subsets  # FSLAB_MAX_EXHAUSTIVE_SUBSETS on a server


def largest_k(n: int, max_subsets: int) -> int:
    """The largest k <= n/2 with C(n, k) <= max_subsets (0 if none); C(n, k) grows with k up to n/2."""
    k = 0
    while k + 1 <= n // 2 and comb(n, k + 1) <= max_subsets:
        k += 1
    return k


def too_many_subsets_message(n: int, k: int, max_subsets: int) -> str:
    """What to do when C(n, k) exceeds the limit: name the sizes that fit for this n."""
    head = (f"exhaustive search over all {comb(n, k):,} subsets of size k={k} from {n} features exceeds the limit "
            f"max_subsets={max_subsets:,} (exhaustive subsets limit: a server sets it with "
            f"{setting('max_exhaustive_subsets')}). ")
    fit = largest_k(n, max_subsets)
    if fit == 0:
        return head + f"No subset size between 1 and {n - 1} fits; use a greedy selector (BayesGreedy or backward)."
    also = f"; by symmetry so does k >= {n - fit}" if n - fit > fit + 1 else ""
    return head + (f"With {n} features, k <= {fit} fits (C({n}, {fit}) = {comb(n, fit):,} subsets{also}). "
                   "Lower k or use a greedy selector (BayesGreedy or backward).")


def exhaustive_search(source, k: int, crit, max_subsets: int = DEFAULT_MAX_SUBSETS,
                      progress: Callable[[int, int], None] | None = None):
    """Score every k-subset in lexicographic order; return (best subset, its value, n tied, trace).

    Subsets sharing their first k-1 features are scored in one batched table. The lexicographically
    first subset within 1e-12 * max(1, |best|) of the best wins (DESIGN.md).
    """
    n = source.n_features
    total = comb(n, k)
    if total > max_subsets:
        raise TooLargeError(too_many_subsets_message(n, k, max_subsets))
    subsets, values = [], []
    prefixes = list(itertools.combinations(range(n), k - 1))
    for i, prefix in enumerate(prefixes):
        start = prefix[-1] + 1 if prefix else 0
        if start >= n:
            continue
        last = np.arange(start, n)
        values.append(crit.extension(prefix, last))
        subsets.extend(prefix + (int(j),) for j in last)
        if progress is not None:
            progress(i + 1, len(prefixes))
    vals = np.concatenate(values)
    v = np.where(np.isnan(vals), -np.inf, vals)
    best = v.max()
    tied = v >= best - TIE_TOLERANCE * max(1.0, abs(best)) if np.isfinite(best) else v == best
    winner = int(np.argmax(tied))
    trace = pd.DataFrame({
        "step": np.ones(len(subsets), dtype=np.int64),
        "candidate": np.full(len(subsets), -1, dtype=np.int64),
        "name": [", ".join(source.feature_names[j] for j in sub) for sub in subsets],
        "value": vals,
        "chosen": np.arange(len(subsets)) == winner,
        "n_tied": np.full(len(subsets), int(tied.sum()), dtype=np.int64),
        "subset": [list(sub) for sub in subsets],
    })
    return subsets[winner], float(vals[winner]), trace
