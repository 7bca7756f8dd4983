"""The work a selector does, declared on its record (``SelectorSpec.work``) for the cost model (fslab.cost).

Counted in subset tables (one table of J + {j} per candidate) and passes (recodings of a subset's cells over the
rows); ``fslab.cost`` turns them into row-tables, seconds and bytes. A record without its own ``work`` gets the
default of its ``kind`` (:data:`KIND_WORK`), so a new selector never falls through to another one's model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Work:
    """Counts of one selection. ``depth``: |J| of the largest batched table and ``candidates``: tables per batched
    count (memory); ``path``: "counts" (the measure's counting path), "deep" (many distinct deep prefixes),
    "removal" (the one-pass backward step) or "values" (raw values, ``row_bytes`` per row); ``fixed_bytes``: more
    memory (a trace, a pairwise matrix); ``subsets``: the C(n, k) a selector's own size limit bounds."""

    tables: int
    passes: int
    depth: int
    candidates: int
    path: str = "counts"
    row_bytes: int = 0
    fixed_bytes: int = 0
    subsets: int | None = None
    advice: str = "choose a smaller k"


def forward_tables(n: int, k: int) -> int:
    """sum_{t=0}^{k-1} (n - t): one table per remaining candidate at each of the k steps (Algorithm 1)."""
    return k * n - k * (k - 1) // 2


def svariate_tables(n: int, k: int, s: int) -> tuple[int, int]:
    """(tables, passes) of the forward s-variate approximation (Ahmed et al., Section 3.2).

    Steps t <= s use the exact criterion (n - t + 1 candidates); the commit after step t (t < k) adds
    C(B' + {f, j}) for every (s-2)-subset B' of the t - 1 features chosen before f: C(t-1, s-2) batched calls of
    n - t candidates each. s = 1 scores every feature once.
    """
    if s == 1:
        return n, 1
    tables = sum(n - t + 1 for t in range(1, min(k, s) + 1))
    passes = min(k, s)
    for t in range(1, k):
        calls = math.comb(t - 1, s - 2)
        tables += calls * (n - t)
        passes += calls
    return tables, passes


def forward_work(n: int, k: int, s: int | None) -> Work:
    """Greedy forward search: sum_{t<k} (n - t) tables, one pass per step (s-variate: :func:`svariate_tables`)."""
    if s is not None:
        tables, passes = svariate_tables(n, k, int(s))
        return Work(tables, passes, max(int(s) - 1, 0), n, advice="choose a smaller s (s = 2 is the paper's "
                    "bivariate approximation) or a smaller k")
    return Work(forward_tables(n, k), k, k - 1, n)


def ranking_work(n: int, k: int, s: int | None) -> Work:
    """A ranking by one score per feature: n tables in one pass."""
    return Work(n, 1, 0, n)


def pairwise_work(n: int, k: int, s: int | None) -> Work:
    """mRMR, JMI, CMIM: n relevance tables plus n - t pair tables after each of the first k - 1 picks."""
    return Work(n + sum(n - t for t in range(1, k)), k, 1, n)


def values_work(n: int, k: int, s: int | None) -> Work:
    """Fisher: one pass over the raw values (three float64 columns' worth per feature and row)."""
    return Work(n, 1, 0, 0, path="values", row_bytes=24 * n)


def exhaustive_work(n: int, k: int, s: int | None) -> Work:
    """C(n, k) tables and C(n, k-1) prefix recodings (the trie of (k-1)-prefixes: for k > n/2 this, not C(n, k), is
    the work); the trace keeps one row per subset."""
    subsets = math.comb(n, k)
    return Work(subsets + k, math.comb(n, k - 1), k - 1, n - k + 1, path="deep", fixed_bytes=subsets * (k * 48 + 200),
                subsets=subsets, advice=f"choose k <= {n // 2} or nearer to {n} (C(n, k) and C(n, k-1) must both be "
                "small), or a greedy selector")


def backward_work(n: int, k: int, s: int | None) -> Work:
    """Backward to k: steps of n, n-1, ..., k+1 removals, one pass per remaining feature per step (the suffix
    cells); s given: the n(n-1)/2 pairwise criteria, then cheap updates."""
    if s is not None:
        return Work(n * (n - 1) // 2 + 1, n, 1, n, fixed_bytes=8 * n * n, advice="choose a larger k")
    steps = n - k
    passes = sum(n - i for i in range(steps))
    return Work(1 + passes, passes, n - 1, 1, path="removal", row_bytes=4 * n,
                advice="choose a larger k (backward removes n - k features, each step scoring every remaining one)")


KIND_WORK = {"forward": forward_work, "ranking": ranking_work, "exhaustive": exhaustive_work,
             "backward": backward_work}
