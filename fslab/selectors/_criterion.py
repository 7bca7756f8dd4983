"""Subset criteria C(J) evaluated for a batch of extensions J + {j}: the one interface scorers call.

A criterion is either a function of the joint table of (X_J, Y) (Bayes criteria of table measures,
mutual information), counted by the fast engine on samples and by the source's own
``extension_tables`` on exact distributions, or a measure that needs each feature's own structure
(the precision/recall criteria), which brings its own ``extension_criteria``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..tables import JointTable
from ._fast import FastCounter
from ._info import mutual_information_bits

# Measures whose value depends on the joint table only through the law of P(Y | X_J), so pure cells may
# be merged (see _fast.py). Any other table measure is counted without merging.
LAW_OF_ETA = frozenset({"zero-one", "cost-sensitive", "balanced", "log-loss", "mi", "squared", "f-beta", "auc"})
_MAX_FAST_ARITY = 16


def mi_table(table: JointTable) -> np.ndarray:
    """I(X_J; Y) in bits of each table of a batch."""
    return mutual_information_bits(table.counts)


class Criterion:
    """C(J) on one source. ``measure`` is a bound Measure or None for mutual information (bits)."""

    def __init__(self, source, measure=None):
        self.source, self.measure = source, measure
        self.needs_source = bool(getattr(measure, "needs_source", False))
        self.table_fn: Callable[[JointTable], np.ndarray] = mi_table if measure is None else measure.criterion
        self.name = "mi" if measure is None else measure.name
        self.counter = None
        if (not self.needs_source and getattr(source, "y", None) is not None and source.n_features
                and int(source.arities.max()) <= _MAX_FAST_ARITY):
            self.counter = FastCounter(source, merge_pure=measure is None or measure.name in LAW_OF_ETA)

    def extension_tables(self, subset: Sequence[int], candidates: np.ndarray) -> JointTable:
        if self.counter is not None:
            return JointTable(self.counter.extension_counts(subset, candidates), self.source.labels)
        return self.source.extension_tables(tuple(subset), candidates)

    def extension(self, subset: Sequence[int], candidates: np.ndarray) -> np.ndarray:
        """C(subset + [j]) for every candidate j."""
        candidates = np.asarray(candidates, dtype=np.int64)
        if self.needs_source:
            return np.atleast_1d(self.measure.extension_criteria(self.source, list(subset), candidates))
        return np.atleast_1d(self.table_fn(self.extension_tables(subset, candidates))).astype(np.float64)

    def value(self, subset: Sequence[int]) -> float:
        """C(subset)."""
        subset = [int(j) for j in subset]
        if self.needs_source:
            return float(self.measure.subset_criterion(self.source, subset))
        return float(self.table_fn(self.source.table(subset)))

    def pair_counts(self, f: int, candidates: np.ndarray) -> np.ndarray:
        """Feature-pair counts n(X_j, X_f) for mRMR's redundancy terms."""
        if self.counter is not None:
            return self.counter.pair_counts(f, candidates)
        from ._counting import feature_pair_counts

        return feature_pair_counts(self.source, f, candidates)
