"""Exhaustive search: the best subset of size k under a subset criterion (Pena & Nilsson: k-optimal
subsets need it in general; Ahmed et al., Section 3.2: the ideal argmax that greedy approximates)."""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import pandas as pd

from ..errors import TooLargeError
from ..limits import server_limits, setting
from ._loop import Hooks
from .ties import tied_mask

_PREFIX_BLOCK = 256  # prefixes between two polls of the cancel hook


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


def exhaustive_search(source, k: int, ev, max_subsets: int | None = None, hooks: Hooks | None = None):
    """Score every k-subset in lexicographic order; return (best subset, its value, trace).

    Subsets sharing their first k-1 features are scored in one batched ``ev.extensions`` call. Only the
    prefixes that have an extension are visited (the (k-1)-subsets of the first n-1 features: C(n-1, k-1)
    <= C(n, k) of them, one at a time from ``itertools.combinations``, never a list), so both memory and
    the number of evaluator calls are bounded by C(n, k), the number the limit checks. ``hooks`` are
    polled between blocks of prefixes. The lexicographically first subset tied with the best wins
    (:mod:`fslab.selectors.ties`). ``max_subsets`` None: the server's ``max_exhaustive_subsets``
    (``FSLAB_MAX_EXHAUSTIVE_SUBSETS``), read when called.
    """
    max_subsets = server_limits().max_exhaustive_subsets if max_subsets is None else int(max_subsets)
    n = source.n_features
    total = comb(n, k)
    if total > max_subsets:
        raise TooLargeError(too_many_subsets_message(n, k, max_subsets))
    hooks = hooks or Hooks()
    n_prefixes = comb(n - 1, k - 1)
    subsets = np.empty((total, k), dtype=np.int32 if n < 2**31 else np.int64)
    values = np.empty(total)
    filled = 0
    for i, prefix in enumerate(itertools.combinations(range(n - 1), k - 1)):
        if i % _PREFIX_BLOCK == 0:
            hooks.check()
        last = np.arange(prefix[-1] + 1 if prefix else 0, n)
        stop = filled + last.size
        values[filled:stop] = ev.extensions(prefix, last)
        subsets[filled:stop, :k - 1] = prefix
        subsets[filled:stop, k - 1] = last
        filled = stop
        if (i + 1) % _PREFIX_BLOCK == 0 or i + 1 == n_prefixes:
            hooks.step(i + 1, n_prefixes)
    tied = tied_mask(values)
    winner = int(np.argmax(tied))
    names = np.asarray(source.feature_names, dtype=object)
    trace = pd.DataFrame({
        "step": np.ones(total, dtype=np.int64),
        "candidate": np.full(total, -1, dtype=np.int64),
        "name": [", ".join(row) for row in names[subsets]],
        "value": values,
        "chosen": np.arange(total) == winner,
        "n_tied": np.full(total, int(tied.sum()), dtype=np.int64),
        "tied": tied,
        "subset": subsets.tolist(),
    })
    best = tuple(int(j) for j in subsets[winner])
    return best, float(values[winner]), trace
