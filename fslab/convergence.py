"""What-ifs on a toy distribution: which features each criterion picks, and how much data plug-in
selection needs before it picks the exact optimum (Ahmed et al., Example 1; Pena and Nilsson, Section 5).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from .data.distributions import Distribution
from .errors import FslabError, ParameterError
from .measures import MEASURES
from .measures import measure as get_measure
from .selectors import SELECTORS, select


def criterion_picks(dist: Distribution, k: int = 1, measures: Sequence[str] | None = None,
                    selectors: Sequence[str] = ("bayes-greedy", "exhaustive")) -> pd.DataFrame:
    """For every measure (default: all registered) the features each selector picks on the exact law.

    One row per (measure, selector): the chosen names, the measure's Bayes value of that subset, and ``ties``:
    the ties behind the pick in words (:func:`tie_words`; DESIGN.md's tie rule returns the first), empty when
    the pick is the only one. Measures that do not apply (a binary-only
    measure on a 3-class target) get a note instead. Example 1 of Ahmed et al.: with k = 1 the 0-1 error picks
    X1 and mutual information X2; on XOR of order 3 over 4 features, X1, X2, X3 and X4 tie at 0.5.
    """
    rows = []
    for name in measures if measures is not None else list(MEASURES):
        label = MEASURES[name].label if name in MEASURES else name
        for selector in selectors:
            try:
                sel = select(dist, k, selector, measure=name)
                value = get_measure(name).on(dist).value(sel.features)
                rows.append({"measure": label, "selector": selector, "picks": ", ".join(sel.names),
                             "value": value, "note": "", "ties": tie_words(sel, dist.feature_names)})
            except FslabError as err:
                rows.append({"measure": label, "selector": selector, "picks": "", "value": np.nan,
                             "note": str(err), "ties": ""})
    return pd.DataFrame(rows, columns=["measure", "selector", "picks", "value", "note", "ties"])


def tie_words(selection, names: Sequence[str]) -> str:
    """The ties behind ``selection``'s pick in words, "" when there was none.

    Exhaustive search: every optimal subset, "X1 / X2 / X3 / X4" (the trace's ``tied`` rows; the pick is the
    first by DESIGN.md's tie rule). A step-wise search: each step whose candidates tied, "step 1: X1, X2, X3, X4
    tie" (the lowest index was taken)."""
    trace = selection.trace
    if "tied" not in trace or trace.empty:
        return ""
    tied = trace[trace["tied"].astype(bool)]
    if "subset" in trace:
        subsets = [", ".join(names[j] for j in s) for s in tied["subset"]]
        return " / ".join(subsets) if len(subsets) > 1 else ""
    steps = [(int(step), [names[int(c)] for c in rows["candidate"]]) for step, rows in tied.groupby("step", sort=True)
             if len(rows) > 1]
    return "; ".join(f"step {step}: {', '.join(who)} tie" for step, who in steps)


def optimum_rate(dist: Distribution, sizes: Sequence[int], k: int = 1,
                 selectors: Sequence[str] = ("bayes-greedy", "mi-greedy", "exhaustive"),
                 measure: str = "zero-one", repeats: int = 20, seed=0,
                 progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """How often each selector, run on m iid rows, picks an exact k-optimal subset (as a set).

    The targets are every k-subset whose ``measure`` on the exact distribution ties with the exhaustive
    optimum (within the tie rule of :mod:`fslab.selectors.ties`): when several subsets are exactly optimal,
    picking any of them is a success, not only the lexicographically first. For every
    m in ``sizes`` and each of ``repeats`` samples (independent streams spawned from ``seed``) every
    selector runs on the same sample. Returns one row per (m, selector): hits, repeats, rate, and the
    selector's own answer on the exact law (``exact_pick``), to which it converges as m grows.
    ``attrs["optima"]``: the names of every optimal subset; ``attrs["target"]``: the first of them.
    """
    sizes = [int(m) for m in sizes]
    if not sizes or min(sizes) < 1:
        raise ParameterError(f"sample sizes must be positive whole numbers; got {sizes}")
    if not 1 <= int(repeats) <= 1000:
        raise ParameterError(f"repeats must be between 1 and 1000; got {repeats}")
    unknown = [s for s in selectors if s not in SELECTORS]
    if unknown:
        raise ParameterError(f"unknown selector(s) {unknown}; choose from: {', '.join(SELECTORS)}")
    scored = select(dist, k, "exhaustive", measure=measure).trace
    targets = {frozenset(subset) for subset in scored.loc[scored["tied"], "subset"]}
    exact = {s: select(dist, k, s, measure=measure).names for s in selectors}
    streams = np.random.SeedSequence(seed).spawn(len(sizes) * int(repeats))
    hits = {(m, s): 0 for m in sizes for s in selectors}
    total = len(streams)
    for t, stream in enumerate(streams):
        m = sizes[t // int(repeats)]
        sample = dist.sample(m, seed=np.random.default_rng(stream))
        for s in selectors:
            hits[(m, s)] += frozenset(select(sample, k, s, measure=measure).features) in targets
        if progress is not None:
            progress(t + 1, total)
    rows = [{"m": m, "selector": s, "hits": hits[(m, s)], "repeats": int(repeats),
             "rate": hits[(m, s)] / int(repeats), "exact_pick": ", ".join(exact[s])}
            for m in sizes for s in selectors]
    out = pd.DataFrame(rows)
    optima = [", ".join(dist.feature_names[j] for j in subset) for subset in sorted(sorted(t) for t in targets)]
    out.attrs["optima"] = optima
    out.attrs["target"] = optima[0]
    return out
