"""Comparing methods over several data sets: average ranks and the Wilcoxon signed-rank test.

Ditzler, Polikar & Rosen (2015), Table II: each classifier's error on every data set and its rank (Demšar 2006:
rank the methods on each data set, 1 = lowest error, ties get the average of the ranks they span; the method
with the lowest average rank over data sets is best), and a Wilcoxon signed-rank test of CART-NPFS against
CART-JMI over the data sets (significant at alpha = 0.1). Ranks are taken on the untruncated errors, as the
table's caption says.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .errors import ParameterError


@dataclass(frozen=True, eq=False)
class RankAnalysis:
    """``ranks``: data sets x methods (1 = best; ties averaged); ``average``: mean rank per method."""

    methods: tuple[str, ...]
    ranks: np.ndarray
    average: dict[str, float]

    def best(self) -> list[str]:
        """The method(s) with the lowest average rank (several when tied)."""
        low = min(self.average.values())
        return [m for m in self.methods if abs(self.average[m] - low) <= 1e-12]


def _iv_table(values, methods: Sequence[str] | None) -> tuple[np.ndarray, tuple[str, ...]]:
    table = np.asarray(values, dtype=float)
    if table.ndim != 2 or table.shape[0] < 1 or table.shape[1] < 2:
        raise ParameterError(f"values must be a data sets x methods table with at least 2 methods; got shape "
                             f"{table.shape}")
    if not np.all(np.isfinite(table)):
        raise ParameterError("values must be finite numbers (an error or a score per data set and method)")
    names = tuple(methods) if methods is not None else tuple(f"method {i + 1}" for i in range(table.shape[1]))
    if len(names) != table.shape[1]:
        raise ParameterError(f"methods names {len(names)} methods; the table has {table.shape[1]} columns")
    return table, names


def rank_analysis(values, methods: Sequence[str] | None = None, *, lower_is_better: bool = True) -> RankAnalysis:
    """Rank the methods on each data set (row of ``values``) and average the ranks over data sets.

    ``values``: data sets x methods (errors by default; ``lower_is_better=False`` for scores). Ties take the
    average of the ranks they span (scipy.stats.rankdata, method="average").
    """
    from scipy.stats import rankdata

    table, names = _iv_table(values, methods)
    ranks = rankdata(table if lower_is_better else -table, axis=1, method="average")
    return RankAnalysis(names, ranks, {m: float(ranks[:, i].mean()) for i, m in enumerate(names)})


@dataclass(frozen=True)
class WilcoxonResult:
    """Two-sided Wilcoxon signed-rank test of paired samples a and b; ``mean_difference`` = mean(a - b)."""

    statistic: float
    pvalue: float
    mean_difference: float
    n_nonzero: int


def wilcoxon_signed_rank(a, b) -> WilcoxonResult:
    """Two-sided Wilcoxon signed-rank test of a - b (scipy.stats.wilcoxon; zero differences dropped, the
    Wilcox convention). All differences zero: no evidence either way, p = 1."""
    from scipy.stats import wilcoxon

    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape or x.ndim != 1 or x.size < 1:
        raise ParameterError(f"a and b must be paired 1-d samples of the same length; got {x.shape} and {y.shape}")
    d = x - y
    nonzero = int(np.count_nonzero(d))
    if nonzero == 0:
        return WilcoxonResult(0.0, 1.0, 0.0, 0)
    res = wilcoxon(x, y, zero_method="wilcox", alternative="two-sided")
    return WilcoxonResult(float(res.statistic), float(res.pvalue), float(d.mean()), nonzero)


__all__ = ["RankAnalysis", "WilcoxonResult", "rank_analysis", "wilcoxon_signed_rank"]
