"""Does a pick hold up? Each chosen feature's NPFS selection frequency and its stability across binnings.

Two checks of one selection (same selector, measure and k) that the in-sample criterion cannot give:

- **NPFS** (Ditzler et al. 2015, Section III-B): rerun the selector on n bootstrap resamples; feature j's count
  z_j is Binomial(n, p0 = k/K) if it were picked by chance, and it is *relevant* when z_j exceeds the critical value
  zeta of equation (3), P(Z > zeta | H0) <= alpha. The frequency z_j / n is shown beside the test's verdict.
- **Binning** (:mod:`fslab.binning`): rerun the selector after each of seven discretisations of the raw table
  (mean +- one standard deviation, quantile and equal-width with 3, 5 and 10 bins) and count the binnings whose
  selection contains the feature.

:func:`robustness_table` composes results computed elsewhere (the app caches them); :func:`pick_robustness` runs
both for library users.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .binning import DEFAULT_BINNINGS, BinningResult, binning_sensitivity
from .npfs import npfs
from .selectors import SELECTORS

if TYPE_CHECKING:
    from .npfs import NPFSResult

COLUMNS = ("feature", "NPFS frequency", "relevant (NPFS test)", "picked under binnings")


def robustness_table(names: Sequence[str], npfs_result: NPFSResult | None = None,
                     binnings: BinningResult | None = None) -> pd.DataFrame:
    """One row per chosen feature (in the order given): its NPFS frequency z_j / n, whether equation (3) declares it
    relevant, and "b of B" binnings whose selection contains it. A check not run (None), or a feature it does not
    know (e.g. a column left out of the raw table), gives an empty cell."""
    names = [str(n) for n in names]
    table = pd.DataFrame({"feature": names})
    freq = pd.Series([np.nan] * len(names), dtype=float)
    relevant = pd.Series([pd.NA] * len(names), dtype="boolean")
    if npfs_result is not None:
        index = {str(n): j for j, n in enumerate(npfs_result.feature_names)}
        mask = npfs_result.relevant_mask
        for i, name in enumerate(names):
            if name in index:
                freq[i] = npfs_result.counts[index[name]] / npfs_result.n_bootstraps
                relevant[i] = bool(mask[index[name]])
    table["NPFS frequency"] = freq.to_numpy()
    table["relevant (NPFS test)"] = relevant.to_numpy()
    picked = pd.Series([None] * len(names), dtype=object)
    if binnings is not None:
        total = len(binnings.selections)
        index = {str(n): j for j, n in enumerate(binnings.feature_names)}
        chosen = [set(s) for s in binnings.selections.values()]
        for i, name in enumerate(names):
            if name in index:
                picked[i] = f"{sum(index[name] in s for s in chosen)} of {total}"
    table["picked under binnings"] = picked.to_numpy()
    return table


def pick_robustness(encoded, names: Sequence[str], selector: str, k: int, measure: str = "zero-one", *,
                    raw=None, n_bootstraps: int = 50, alpha: float = 0.01, seed: int = 0,
                    binnings: Sequence[tuple[str, int]] = DEFAULT_BINNINGS, **params) -> pd.DataFrame:
    """:func:`robustness_table` of the chosen features ``names`` after running NPFS (``n_bootstraps`` resamples of
    ``selector`` with ``k`` and ``measure`` on ``encoded``) and, when the raw Dataset ``raw`` is given, binning
    sensitivity of the same selection."""
    extra = {"measure": measure, **params} if SELECTORS[selector].uses_measure else {}
    result = npfs(encoded, selector, k, n_bootstraps=n_bootstraps, alpha=alpha, seed=seed, **extra)
    bins = None if raw is None else binning_sensitivity(raw, k, selector, measure, binnings, **params)
    return robustness_table(names, result, bins)


__all__ = ["COLUMNS", "pick_robustness", "robustness_table"]
