"""Side-by-side selections: several selectors, the same k, the same data; where and why they disagree.

The question of Ahmed et al., Section 4: do the features chosen by the Bayes criterion of the measure
differ from those of MI, mRMR or the Fisher score? Example 1 is the smallest case: the Bayes 0-1
criterion picks X1 (error 0.25 < 0.30) while MI picks X2 (0.17 > 0.08 bit).

Overlap of two selections A and B (k features each, in the order chosen):
Jaccard = |A n B| / |A u B|; rank correlation = Kendall's tau-b over the features of A u B, a feature
ranked by the step at which it was chosen and k + 1 (a tie) where it was not chosen. It is 1 when
both chose the same features in the same order and negative when the orders run against each other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .errors import ParameterError, TooLargeError
from .measures import DEFAULT_FOLDS
from .measures import measure as get_measure
from .selectors import SELECTORS, Selection, select
from .selectors.ties import ties_with
from .tables import CodedSource, as_source

DEFAULT_SELECTORS = ("bayes-greedy", "bayes-score", "mi-greedy", "mi-score", "mrmr", "jmi", "fisher")


def jaccard(a: Sequence[int], b: Sequence[int]) -> float:
    """|A n B| / |A u B| (1 for two empty sets)."""
    sa, sb = set(a), set(b)
    return len(sa & sb) / len(sa | sb) if sa | sb else 1.0


def rank_correlation(a: Sequence[int], b: Sequence[int]) -> float:
    """Kendall's tau-b of the step ranks over A u B; a feature not chosen ranks k + 1 (see the module note).

    NaN when a ranking is constant (e.g. one feature each and the same one: use the Jaccard then).
    """
    union = sorted(set(a) | set(b))
    k = max(len(a), len(b))
    ra = [list(a).index(j) + 1 if j in a else k + 1 for j in union]
    rb = [list(b).index(j) + 1 if j in b else k + 1 for j in union]
    if len(union) < 2 or len(set(ra)) < 2 or len(set(rb)) < 2:
        return float("nan") if list(a) != list(b) else 1.0
    from scipy.stats import kendalltau  # on use: scipy.stats takes ~0.35 s to import
    return float(kendalltau(ra, rb).statistic)


def step_grid(selections: Mapping[str, Sequence[int]], feature_names: Sequence[str]) -> pd.DataFrame:
    """Features (rows, any selector's pick) x selectors (columns): the 1-based step of the pick, NaN if not picked.

    Rows are ordered by the earliest step any selector took them, then by feature index.
    """
    picked = {j for feats in selections.values() for j in feats}
    first = {j: min(list(f).index(j) for f in selections.values() if j in f) for j in picked}
    rows = sorted(picked, key=lambda j: (first[j], j))
    grid = pd.DataFrame(np.nan, index=pd.Index([feature_names[j] for j in rows], name="feature"),
                        columns=list(selections), dtype=float)
    for name, feats in selections.items():
        for step, j in enumerate(feats):
            grid.loc[feature_names[j], name] = step + 1
    return grid


def overlap_table(selections: Mapping[str, Sequence[int]]) -> pd.DataFrame:
    """One row per pair of selectors: Jaccard and rank correlation of their selections."""
    names = list(selections)
    rows = [(a, b, jaccard(selections[a], selections[b]), rank_correlation(selections[a], selections[b]))
            for i, a in enumerate(names) for b in names[i + 1:]]
    return pd.DataFrame(rows, columns=["selector_a", "selector_b", "jaccard", "rank_correlation"])


def overlap_matrix(selections: Mapping[str, Sequence[int]], metric: str = "jaccard") -> pd.DataFrame:
    """Square selectors x selectors matrix of ``jaccard`` or ``rank_correlation``."""
    funcs = {"jaccard": jaccard, "rank_correlation": rank_correlation}
    if metric not in funcs:
        raise ParameterError(f"metric must be 'jaccard' or 'rank_correlation'; got {metric!r}")
    names = list(selections)
    values = [[funcs[metric](selections[a], selections[b]) for b in names] for a in names]
    return pd.DataFrame(values, index=names, columns=names)


@dataclass(frozen=True, eq=False)
class Comparison:
    """Selections of several selectors for the same k (``selections``: name -> Selection) on one source.

    ``optimal``/``optimal_value``: the exact k-optimal subset and its criterion (exhaustive search, for an exact
    distribution; None on a sample or when the search is too large, ``note`` says why).
    """

    selections: Mapping[str, Selection]
    k: int
    measure: str
    measure_params: Mapping[str, object]
    feature_names: tuple[str, ...]
    features: pd.DataFrame            # per feature: bayes_value, criterion, mi_bits (single-feature values)
    subsets: pd.DataFrame             # per selector: bayes_value and mi_bits of its whole selected set
    optimal: tuple[int, ...] | None = None
    optimal_value: float | None = None
    note: str = ""
    estimate: str = "plug-in"   # of every value above: "plug-in" (in-sample) or "cross-fitted" (held out)

    def orders(self) -> dict[str, list[int]]:
        return {name: list(sel.features) for name, sel in self.selections.items()}

    def grid(self) -> pd.DataFrame:
        return step_grid(self.orders(), self.feature_names)

    def overlap(self) -> pd.DataFrame:
        return overlap_table(self.orders())

    def disagreements(self) -> pd.DataFrame:
        """Features some but not all selectors picked, with their Bayes value and MI, and who picked them."""
        orders = self.orders()
        counts = {j: [n for n, f in orders.items() if j in f] for f in orders.values() for j in f}
        rows = [j for j, who in counts.items() if len(who) < len(orders)]
        out = self.features.loc[sorted(rows)].copy()
        out["picked_by"] = [", ".join(counts[j]) for j in out.index]
        out["n_picked"] = [len(counts[j]) for j in out.index]
        return out.sort_values(["n_picked", "criterion"], ascending=[False, False])


def compare_selectors(source, k: int, selectors: Sequence[str] | None = None, measure: str = "zero-one",
                      *, s: int | None = None, exact: bool | None = None, estimate: str = "plug-in",
                      folds: int = DEFAULT_FOLDS, seed=0, **params) -> Comparison:
    """Run each selector for the same ``k`` and ``measure`` (measure parameters in ``params``, e.g. c=0.25).

    ``selectors`` defaults to :data:`DEFAULT_SELECTORS`, less those declared ``needs_rows`` (the Fisher score) on a
    source that gives only count tables (a Dask or SQL source), said in ``note``; one named explicitly is run or
    refused. ``exact`` (default: True for a Distribution) also runs exhaustive search for the k-optimal subset;
    a TooLargeError there is reported in ``note`` instead of failing the comparison. ``estimate``, ``folds``,
    ``seed``: the estimate of every criterion, the selectors' and the reported values alike (``select``'s).
    """
    src = as_source(source)
    notes = []
    if selectors is None:
        selectors = DEFAULT_SELECTORS
        if not isinstance(src, CodedSource):   # only count tables: what reads rows cannot run
            skipped = [n for n in selectors if SELECTORS[n].needs_rows]
            selectors = tuple(n for n in selectors if n not in skipped)
            if skipped:
                left = ", ".join(SELECTORS[n].label for n in skipped)
                notes.append(f"left out {left}: it reads every row's codes, and this {type(src).__name__} keeps no "
                             "dense rows here")
    if not selectors:
        raise ParameterError("choose at least one selector to compare")
    m = get_measure(measure, **params)
    how = {"estimate": estimate, "folds": folds, "seed": seed}
    selections = {}
    for name in selectors:
        spec = SELECTORS.get(name)
        if spec is None:
            raise ParameterError(f"unknown selector '{name}'; choose one of: {', '.join(SELECTORS)}")
        # selectors with their own criterion take no measure parameters; s only where it applies
        selections[name] = select(src, k, selector=name, measure=measure, s=s if spec.supports_s else None,
                                  **how, **(params if spec.uses_measure else {}))
    everyone = sorted({j for sel in selections.values() for j in sel.features})
    ev, mi = m.on(src, **how), get_measure("mi").on(src, **how)
    criteria = ev.extensions([], everyone)
    features = pd.DataFrame({
        "name": [src.feature_names[j] for j in everyone],
        "bayes_value": ev.sign * criteria,
        "criterion": criteria,
        "mi_bits": mi.extensions([], everyone),
    }, index=pd.Index(everyone, name="feature"))
    subsets = pd.DataFrame({
        "selector": list(selections),
        "features": [", ".join(src.feature_names[j] for j in sel.features) for sel in selections.values()],
        "bayes_value": [ev.value(sel.features) for sel in selections.values()],
        "mi_bits": [mi.value(sel.features) for sel in selections.values()],
    })
    optimal = optimal_value = None
    if exact if exact is not None else not src.is_sample:
        try:
            best = select(src, k, selector="exhaustive", measure=measure, **how, **params)
            optimal = tuple(best.features)
            optimal_value = ev.value(optimal)
            subsets["optimal"] = ties_with(ev.sign * subsets["bayes_value"].to_numpy(), ev.criterion(optimal))
        except TooLargeError as err:
            notes.append(f"exact k-optimal subset not computed: {err}")
    return Comparison(selections=selections, k=int(k), measure=measure, measure_params=dict(params),
                      feature_names=tuple(src.feature_names), features=features, subsets=subsets,
                      optimal=optimal, optimal_value=optimal_value, note="; ".join(notes), estimate=estimate)
