"""Binning sensitivity: does the selected set depend on how real-valued columns were discretised?

Ahmed et al. discretise real features by mean +- one standard deviation (footnote 6); quantile and
equal-width bins with 3, 5 or 10 bins are the usual alternatives. The same selector and k are run
on each discretisation of one Dataset; the grid (features x binnings, the step at which each was
picked) and the pairwise overlap (Jaccard, rank correlation as in :mod:`fslab.compare`) show
whether the answer is a property of the data or of the binning.

Every rerun selects with the same estimate (plug-in or cross-fitted, folds, seed) as the selection it
checks: a many-level column that the held-out criterion would never pick cannot win a plug-in rerun and
make a pick look binning-dependent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .compare import overlap_matrix, overlap_table, step_grid
from .counting.folds import DEFAULT_SEED, check_estimate, describe_estimate
from .data.dataset import Dataset
from .errors import ParameterError
from .measures import DEFAULT_FOLDS
from .selectors import select

DEFAULT_BINNINGS: tuple[tuple[str, int], ...] = (
    ("mean-std", 3), ("quantile", 3), ("quantile", 5), ("quantile", 10),
    ("uniform", 3), ("uniform", 5), ("uniform", 10),
)


def binning_label(method: str, bins: int) -> str:
    """'mean-std' (always three bins) or 'quantile-5', 'uniform-10', ..."""
    return method if method == "mean-std" else f"{method}-{bins}"


@dataclass(frozen=True, eq=False)
class BinningResult:
    """Selections of one selector under several discretisations (``selections``: label -> feature order)."""

    selections: dict[str, list[int]]
    feature_names: tuple[str, ...]
    numeric: tuple[str, ...]  # names of the real-valued columns the binning acts on
    k: int
    selector: str
    measure: str
    estimate: str = "plug-in"  # the estimate every rerun selected with
    folds: int = DEFAULT_FOLDS

    @property
    def estimate_label(self) -> str:
        """The reruns' estimate in words (:func:`fslab.measures.describe_estimate`)."""
        return describe_estimate(self.estimate, self.folds)

    def grid(self) -> pd.DataFrame:
        return step_grid(self.selections, self.feature_names)

    def overlap(self) -> pd.DataFrame:
        return overlap_table(self.selections)

    def jaccard_matrix(self) -> pd.DataFrame:
        return overlap_matrix(self.selections, "jaccard")

    def stable(self) -> list[str]:
        """Features every binning selected."""
        common = set.intersection(*(set(f) for f in self.selections.values()))
        return [self.feature_names[j] for j in sorted(common)]


def binning_sensitivity(dataset, k: int, selector: str = "bayes-greedy", measure: str = "zero-one",
                        binnings: Sequence[tuple[str, int]] = DEFAULT_BINNINGS, *, s: int | None = None,
                        estimate: str = "plug-in", folds: int = DEFAULT_FOLDS, seed=DEFAULT_SEED,
                        **params) -> BinningResult:
    """Run ``selector`` for ``k`` features on ``dataset.discretize(method, bins)`` for each binning.

    ``dataset`` is a ``fslab.data.Dataset`` (raw values kept); categorical and few-valued integer columns
    keep their own codes under every binning, so only real-valued columns move. ``estimate``, ``folds`` and
    ``seed`` are :func:`fslab.select`'s, the same for every binning (the folds depend only on the rows' classes,
    so every binning is held out on the same folds).
    """
    if not isinstance(dataset, Dataset):
        raise ParameterError("binning sensitivity needs the raw Dataset (an encoded one has lost its values)")
    if not binnings:
        raise ParameterError("choose at least one binning")
    estimate, folds = check_estimate(estimate, folds)
    selections: dict[str, list[int]] = {}
    names: tuple[str, ...] = ()
    arities = []
    used = folds if isinstance(folds, int) else int(folds.max()) + 1
    for method, bins in binnings:
        encoded = dataset.discretize(method=method, bins=int(bins))
        names = tuple(encoded.feature_names)
        sel = select(encoded, k, selector=selector, measure=measure, s=s, estimate=estimate, folds=folds, seed=seed,
                     **params)
        selections[binning_label(method, int(bins))] = list(sel.features)
        used = sel.folds or used  # fewer folds than asked on a small class (a note on the selection)
        arities.append(np.asarray(encoded.arities))
    # a column the binning acts on changes its number of bins between binnings; codes kept as they are do not
    moved = np.ptp(np.vstack(arities), axis=0) > 0
    numeric = tuple(n for n, r in zip(names, moved, strict=True) if r)
    return BinningResult(selections, names, numeric, int(k), selector, measure, estimate, int(used))
