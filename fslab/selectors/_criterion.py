"""Subset criteria C(J) evaluated for a batch of extensions J + {j}: the one interface scorers call.

A criterion is either a function of the joint table of (X_J, Y) (Bayes criteria of table measures,
mutual information), counted by the fast engine on samples and by the source's own
``extension_tables`` on exact distributions, or a measure that needs each feature's own structure
(the precision/recall criteria), which brings its own ``extension_criteria``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from scipy.special import xlogy

from ..information import mutual_information
from ..tables import JointTable
from ._backward import conjunction_factors, removal_conjunction_criteria, removal_table_criteria
from ._fast import FastCounter

# Measures whose value depends on the joint table only through the law of P(Y | X_J), so pure cells may
# be merged (see _fast.py). Any other table measure is counted without merging.
LAW_OF_ETA = frozenset({"zero-one", "cost-sensitive", "balanced", "log-loss", "mi", "squared", "f-beta", "auc"})
_MAX_FAST_ARITY = 16
_MAX_FAST_CLASSES = 16  # its count arrays grow with L^2: a real-valued target with 1,000s of values takes plain tables


def _cell_sums(name: str, counts: np.ndarray, params, nlogn: np.ndarray) -> np.ndarray:
    """Sum over the mixed cells (c, v) of a cellwise loss, per feature; pure cells contribute 0 to all of these.

    ``counts``: (C, L, A, n); ``nlogn[k] = k ln k``. zero-one: n_cv - max_l n_cvl (Example 2); cost-sensitive:
    min((1-c) n_cv1, c n_cv0) (Example 3); entropy: n_cv ln n_cv - sum_l n_cvl ln n_cvl, which sums
    to m H(Y|X) in nats (Example 5).
    """
    if name == "zero-one":
        return (counts.sum(axis=1) - counts.max(axis=1)).sum(axis=(0, 1))
    if name == "cost-sensitive":
        c = float(params["c"])
        return np.minimum((1.0 - c) * counts[:, 1], c * counts[:, 0]).sum(axis=(0, 1))
    whole = counts.astype(np.intp)  # exact whole numbers (counts of a sample): k ln k from the lookup table
    return (nlogn[whole.sum(axis=1)] - nlogn[whole].sum(axis=1)).sum(axis=(0, 1))


_CELLWISE = frozenset({"zero-one", "cost-sensitive", "log-loss", "mi"})


def mi_table(table: JointTable) -> np.ndarray:
    """I(X_J; Y) in bits of each table of a batch."""
    return mutual_information(table, unit="bits")


class Criterion:
    """C(J) on one source. ``measure`` is a bound Measure or None for mutual information (bits)."""

    def __init__(self, source, measure=None):
        self.source, self.measure = source, measure
        self.needs_source = bool(getattr(measure, "needs_source", False))
        self.table_fn: Callable[[JointTable], np.ndarray] = mi_table if measure is None else measure.criterion
        self.name = "mi" if measure is None else measure.name
        self._counter: FastCounter | None = None
        self._factors: np.ndarray | None = None
        self.fast = (not self.needs_source and getattr(source, "y", None) is not None and source.n_features > 0
                     and int(source.arities.max()) <= _MAX_FAST_ARITY and len(source.labels) <= _MAX_FAST_CLASSES)

    @property
    def counter(self) -> FastCounter | None:
        """The fast engine for samples with small arities (built on first use), else None."""
        if self._counter is None and self.fast:
            merge = self.measure is None or self.measure.name in LAW_OF_ETA
            self._counter = FastCounter(self.source, merge_pure=merge)
        return self._counter

    def extension_tables(self, subset: Sequence[int], candidates: np.ndarray) -> JointTable:
        if self.counter is not None:
            return JointTable(self.counter.extension_counts(subset, candidates), self.source.labels)
        return self.source.extension_tables(tuple(subset), candidates)

    def extension(self, subset: Sequence[int], candidates: np.ndarray) -> np.ndarray:
        """C(subset + [j]) for every candidate j."""
        candidates = np.asarray(candidates, dtype=np.int64)
        if self.needs_source:
            return np.atleast_1d(self.measure.extension_criteria(self.source, list(subset), candidates))
        if self.name in _CELLWISE and self.counter is not None and self.counter.merge_pure:
            return self._cellwise(subset, candidates)
        return np.atleast_1d(self.table_fn(self.extension_tables(subset, candidates))).astype(np.float64)

    def _cellwise(self, subset: Sequence[int], candidates: np.ndarray) -> np.ndarray:
        """Cellwise measures straight from the mixed-cell counts, without building the joint tables."""
        if self.measure is not None:
            self.measure.check_labels(self.source.labels)  # e.g. cost-sensitive refuses a multiclass target
        counter = self.counter
        m = float(counter.m)
        params = getattr(self.measure, "params", {})
        sums = np.zeros(counter.n)
        for block in counter.mixed_count_blocks(subset):
            sums += _cell_sums(self.name, block, params, counter.nlogn)
        sums = sums[candidates]
        if self.name != "mi":  # errors: 0-1, cost-sensitive, log-loss = H(Y|X) in nats
            return -sums / m
        prior = np.bincount(counter.y, minlength=counter.L).astype(np.float64)
        h_y = (xlogy(m, m) - xlogy(prior, prior).sum()) / m
        return np.maximum(h_y - sums / m, 0.0) / np.log(2.0)

    def removal(self, kept: Sequence[int]) -> np.ndarray:
        """C(kept \\ {j}) for every j in ``kept``, in its order (one backward-elimination step)."""
        kept = np.asarray(kept, dtype=np.int64)
        if self.needs_source:
            name = self.measure.name
            if name not in ("precision", "recall") or not hasattr(self.source, "X"):
                return np.array([self.value(kept[kept != j]) for j in kept])
            self.measure.check_labels(self.source.labels)
            if self._factors is None:  # each feature's own predictor a_j(X_j): the same at every step
                self._factors = conjunction_factors(self.source, recall=name == "recall")
            return removal_conjunction_criteria(self.source, self._factors, kept,
                                                int(self.measure.params["approach"]), recall=name == "recall")
        if not hasattr(self.source, "X"):  # a source without row codes: one table per subset
            return np.array([self.value(kept[kept != j]) for j in kept])
        return removal_table_criteria(self.source, kept, self.table_fn)

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
