"""One evaluator per (source, measure): every number fslab reports for C(J) comes from here.

``measure.on(source)`` gives an :class:`Evaluator` with

- ``value(J)``: the paper's quantity for the Bayes classifier using the features J (an error or a score);
- ``criterion(J)``: what selectors maximise, ``-error`` or ``+score`` (Ahmed et al., equation (3));
- ``extensions(J, candidates)``: C(J + {j}) for every candidate j (one greedy step);
- ``removals(kept)``: C(kept \\ {j}) for every j in ``kept`` (one backward-elimination step).

Table measures (a pure function of the joint table of (X_J, Y)) share one implementation,
:class:`TableEvaluator`. Measures that are not (precision and recall, built from per-feature predictors)
bring their own through ``MeasureSpec.evaluator``. Selectors, ``bayes_value``, ``subset_risks``, the
lattice, convergence, compare and ksuggest all call these methods, so they report one number per J.

Engines. ``engine="auto"`` uses the fast counting engine (``_fast.py``) on samples with small arities
(at most 16 values per feature, 16 classes), the measure's mixed-cell reducer when it declares one, and
the one-pass removal step (``_removal.py``) on sources with row codes. ``engine="plain"`` counts every
subset's table from scratch with ``source.table`` / ``source.extension_tables``: the oracle that the
differential test holds the fast engine to.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import ParameterError
from ..tables import CodedSource, JointTable
from ._fast import FastCounter
from ._removal import removal_table_criteria

ENGINES = ("auto", "plain")
MAX_FAST_ARITY = 16     # always fast up to this many values per feature; beyond it (up to WIDE_FAST_ARITY) only
WIDE_FAST_ARITY = 64    # while the engine's value indicators (rows x features x (values-1) float32) fit in
INDICATOR_BYTES = 256 << 20
MAX_FAST_CLASSES = 16  # its count arrays grow with L^2: a real-valued target with 1,000s of values takes plain tables
# Byte budget of one batch of plain extension tables (with the few float copies a measure makes of them):
# memory stays bounded by this, never proportional to the number of candidates.
BATCH_BYTES = 64 << 20
_TABLE_COPIES = 4


def check_engine(engine: str) -> str:
    if engine not in ENGINES:
        raise ParameterError(f"engine must be one of {', '.join(ENGINES)}; got {engine!r}")
    return engine


def _fits_fast(source) -> bool:
    """Small arities always; up to WIDE_FAST_ARITY values while the value indicators fit INDICATOR_BYTES."""
    arity = int(source.arities.max())
    indicator = source.n_rows * source.n_features * (arity - 1) * 4
    return arity <= MAX_FAST_ARITY or (arity <= WIDE_FAST_ARITY and indicator <= INDICATOR_BYTES)


def _subset(subset: Sequence[int]) -> list[int]:
    return [int(j) for j in subset]


class Evaluator:
    """C(J) of one bound measure on one table source. Subclasses define ``criterion`` and may batch
    ``extensions`` and ``removals`` (the generic versions evaluate one subset at a time). ``counter`` is
    the fast counting engine when this evaluator uses one (None otherwise)."""

    counter: FastCounter | None = None

    def __init__(self, measure, source, engine: str = "auto"):
        self.measure, self.source, self.engine = measure, source, check_engine(engine)
        self.sign = 1.0 if measure.greater_is_better else -1.0
        measure.check_labels(source.labels)

    @property
    def name(self) -> str:
        return self.measure.name

    def criterion(self, subset: Sequence[int]) -> float:
        raise NotImplementedError

    def value(self, subset: Sequence[int]) -> float:
        """The measure of the Bayes-optimal predictor on the features ``subset`` (the paper's quantity)."""
        return self.sign * self.criterion(subset)

    def extensions(self, subset: Sequence[int], candidates: Sequence[int]) -> np.ndarray:
        """C(subset + [j]) for every candidate j, shape (len(candidates),)."""
        subset = _subset(subset)
        return np.array([self.criterion(subset + [int(j)]) for j in candidates], dtype=np.float64)

    def extension_values(self, subset: Sequence[int], candidates: Sequence[int]) -> np.ndarray:
        """The measure's value of subset + [j] for every candidate j."""
        return self.sign * self.extensions(subset, candidates)

    def removals(self, kept: Sequence[int]) -> np.ndarray:
        """C(kept \\ {j}) for every j in ``kept``, in its order."""
        kept = np.asarray(_subset(kept), dtype=np.int64)
        return np.array([self.criterion(kept[kept != j]) for j in kept], dtype=np.float64)


class TableEvaluator(Evaluator):
    """Any measure that is a function of the joint table of (X_J, Y): one generic implementation."""

    def __init__(self, measure, source, engine: str = "auto"):
        super().__init__(measure, source, engine)
        self._params = dict(measure.params)
        self._counter: FastCounter | None = None
        self.has_rows = isinstance(source, CodedSource)
        self.fast = (self.engine == "auto" and self.has_rows and source.is_sample and source.n_features > 0
                     and len(source.labels) <= MAX_FAST_CLASSES and _fits_fast(source))

    def table_criteria(self, table: JointTable) -> np.ndarray:
        """C of each table of a batch (the signed measure)."""
        return self.sign * np.asarray(self.measure.spec.func(table, **self._params), dtype=np.float64)

    @property
    def counter(self) -> FastCounter | None:
        """The fast engine (built on first use) when this evaluator may use it, else None."""
        if self._counter is None and self.fast:
            self._counter = FastCounter(self.source, merge_pure=self.measure.spec.law_of_eta)
        return self._counter

    def criterion(self, subset: Sequence[int]) -> float:
        return float(self.table_criteria(self.source.table(_subset(subset))))

    def extension_tables(self, subset: Sequence[int], candidates: np.ndarray) -> JointTable:
        """Batched tables of subset + [j] (the fast engine's merged tables when it applies)."""
        if self.counter is not None:
            return JointTable(self.counter.extension_counts(_subset(subset), candidates), self.source.labels)
        return self.source.extension_tables(tuple(_subset(subset)), candidates)

    def extensions(self, subset: Sequence[int], candidates: Sequence[int]) -> np.ndarray:
        candidates = np.asarray(candidates, dtype=np.int64)
        if self.counter is not None:
            reducer = self.measure.spec.mixed_cells
            if reducer is not None and self.counter.merge_pure:
                return self._from_mixed_cells(reducer, subset, candidates)
            return np.atleast_1d(self.table_criteria(self.extension_tables(subset, candidates)))
        if not self.has_rows:
            return np.atleast_1d(self.table_criteria(self.source.extension_tables(tuple(_subset(subset)),
                                                                                  candidates)))
        return self._plain_extensions(_subset(subset), candidates)

    def _plain_extensions(self, subset: list[int], candidates: np.ndarray) -> np.ndarray:
        """Tables of subset + [j] in batches of at most BATCH_BYTES. When the padded table (cells of the
        subset x values of the widest candidate) would be mostly empty or over the budget by itself (columns
        with many values, many classes), each candidate gets its own table of occupied cells only (at most
        one cell per row), so memory grows with rows x classes, never rows^2 or x candidates."""
        src = self.source
        _, n_base = src.cell_codes(subset)
        dense_cells = n_base * int(src.arities[candidates].max())
        per_table = dense_cells * len(src.labels) * 8 * _TABLE_COPIES
        if dense_cells > 2 * max(src.n_rows, 1) or per_table > BATCH_BYTES:
            return np.array([self.criterion(subset + [int(j)]) for j in candidates], dtype=np.float64)
        chunk = max(1, BATCH_BYTES // per_table)
        out = np.empty(candidates.size)
        for start in range(0, candidates.size, chunk):
            part = candidates[start:start + chunk]
            out[start:start + part.size] = self.table_criteria(src.extension_tables(tuple(subset), part))
        return out

    def _from_mixed_cells(self, reducer, subset: Sequence[int], candidates: np.ndarray) -> np.ndarray:
        """The measure's own reducer over the mixed-cell counts, without building the joint tables."""
        counter = self.counter
        sums = np.zeros(counter.n)
        for block in counter.mixed_count_blocks(_subset(subset)):
            sums += reducer.cell_sums(block, self._params, counter.nlogn)
        class_counts = np.bincount(counter.y, minlength=counter.L).astype(np.float64)
        return self.sign * np.asarray(reducer.value(sums[candidates], counter.m, class_counts, self._params))

    def removals(self, kept: Sequence[int]) -> np.ndarray:
        if self.engine == "auto" and self.has_rows:
            return removal_table_criteria(self.source, np.asarray(_subset(kept), dtype=np.int64),
                                          self.table_criteria)
        return super().removals(kept)


__all__ = ["ENGINES", "Evaluator", "TableEvaluator", "check_engine"]
