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

Engines. ``engine="auto"`` uses the fast counting engine (:mod:`fslab.counting.dense`) on samples with small arities
(at most 16 values per feature, 128 classes), the measure's mixed-cell reducer when it declares one, and
the one-pass removal step (:mod:`fslab.counting.removal`) on sources with row codes. ``engine="plain"`` counts every
subset's table from scratch with ``source.table`` / ``source.extension_tables``: the oracle that the
differential test holds the fast engine to.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from ..counting.dense import FastCounter
from ..counting.engines import ENGINE_CELLS_PER_ROW, MAX_ENGINE_CLASSES, MAX_FAST_CLASSES, counter_of, fits_fast
from ..counting.removal import dense_ids, removal_table_criteria
from ..counting.sparse import SparseCounter
from ..errors import ParameterError
from ..tables import CodedSource, JointTable, check_subset

ENGINES = ("auto", "plain")
# Byte budget of one batch of plain extension tables (with the few float copies a measure makes of them):
# memory stays bounded by this, never proportional to the number of candidates.
BATCH_BYTES = 64 << 20
CELL_MEMO_BYTES = 64 << 20  # memoised subset prefixes per evaluator (one int64 per row each), at most 256
FAST_SHARE = 8  # the fast engine serves a batch of at least n / FAST_SHARE candidates (it counts all n features)
_TABLE_COPIES = 4


def check_engine(engine: str) -> str:
    if engine not in ENGINES:
        raise ParameterError(f"engine must be one of {', '.join(ENGINES)}; got {engine!r}")
    return engine


def _subset(subset: Sequence[int] | np.ndarray) -> list[int]:
    """The subset as a list of feature indices; a bare index, a name or a fraction is a ParameterError."""
    return list(check_subset(subset))


class Evaluator:
    """C(J) of one bound measure on one table source. Subclasses define ``criterion`` and may batch
    ``extensions`` and ``removals`` (the generic versions evaluate one subset at a time). ``counter`` is
    the fast counting engine when this evaluator uses one (None otherwise)."""

    estimate = "plug-in"

    @property
    def counter(self) -> FastCounter | SparseCounter | None:
        """The fast counting engine this evaluator uses, or None (a subclass with an engine says which)."""
        return None

    def __init__(self, measure, source, engine: str = "auto"):
        self.measure, self.source, self.engine = measure, source, check_engine(engine)
        self.sign = 1.0 if measure.greater_is_better else -1.0
        self._check_labels()

    def _check_labels(self) -> None:
        self.measure.check_labels(self.source.labels)

    @property
    def name(self) -> str:
        return self.measure.name

    def criterion(self, subset: Sequence[int]) -> float:
        raise NotImplementedError

    def value(self, subset: Sequence[int]) -> float:
        """The measure of the Bayes-optimal predictor on the features ``subset`` (the paper's quantity)."""
        return self.sign * self.criterion(subset)

    def extensions(self, subset: Sequence[int], candidates: Sequence[int] | np.ndarray) -> np.ndarray:
        """C(subset + [j]) for every candidate j, shape (len(candidates),)."""
        subset = _subset(subset)
        return np.array([self.criterion(subset + [int(j)]) for j in candidates], dtype=np.float64)

    def extension_values(self, subset: Sequence[int], candidates: Sequence[int]) -> np.ndarray:
        """The measure's value of subset + [j] for every candidate j."""
        return self.sign * self.extensions(subset, candidates)

    def removals(self, kept: Sequence[int] | np.ndarray) -> np.ndarray:
        """C(kept \\ {j}) for every j in ``kept``, in its order."""
        kept = np.asarray(_subset(kept), dtype=np.int64)
        return np.array([self.criterion(kept[kept != j]) for j in kept], dtype=np.float64)


class TableEvaluator(Evaluator):
    """Any measure that is a function of the joint table of (X_J, Y): one generic implementation."""

    def __init__(self, measure, source, engine: str = "auto"):
        super().__init__(measure, source, engine)
        self._params = dict(measure.params)
        self._counter: FastCounter | SparseCounter | None = None
        self._cells: OrderedDict[tuple[int, ...], tuple[np.ndarray, int]] = OrderedDict()
        self.has_rows = isinstance(source, CodedSource)
        self.sparse = counter_of(source) == "sparse"  # counted from its non-zeros (fslab.counting.sparse)
        self.fast = (self.engine == "auto" and (self.has_rows or self.sparse) and source.is_sample
                     and source.n_features > 0 and len(source.labels) <= MAX_ENGINE_CLASSES
                     and (self.sparse or fits_fast(source)))

    @property
    def mixed_cells(self):
        """The measure's mixed-cell reducer for the fast engine (None: the engine builds joint tables)."""
        return self.measure.spec.mixed_cells

    def table_criteria(self, table: JointTable) -> np.ndarray:
        """C of each table of a batch (the signed measure)."""
        return self.sign * np.asarray(self.measure.spec.func(table, **self._params), dtype=np.float64)

    @property
    def counter(self) -> FastCounter | SparseCounter | None:
        """The fast engine (built on first use) when this evaluator may use it, else None."""
        if self._counter is None and self.fast:
            engine = SparseCounter if self.sparse else FastCounter
            self._counter = engine(self.source, merge_pure=self.measure.spec.law_of_eta)
        return self._counter

    def criterion(self, subset: Sequence[int]) -> float:
        if not self.has_rows:
            return float(self.table_criteria(self.source.table(_subset(subset))))
        codes, n_cells = self.cells(_subset(subset))
        return float(self.table_criteria(JointTable(self.source._count(codes, n_cells), self.source.labels)))

    def cells(self, subset: Sequence[int]) -> tuple[np.ndarray, int]:
        """Dense cell ids of the rows for ``subset`` and their number, memoised for EVERY prefix on the way
        (a lexicographic enumeration then re-codes one feature per new subset, never the whole prefix).
        Codes are compressed to the occupied cells once there are more cells than rows."""
        key = tuple(int(j) for j in subset)
        hit = self._cells.get(key)
        if hit is not None:
            self._cells.move_to_end(key)
            return hit
        self.source._check_subset(key)
        start = max(len(key) - 1, 0)
        while start > 0 and key[:start] not in self._cells:
            start -= 1
        codes, n_cells = self._cells.get(key[:start], (np.zeros(self.source.n_rows, dtype=np.int64), 1))
        for i in range(start, len(key)):
            j = key[i]
            codes, n_cells = codes * self.source.arities[j] + self.source.X[:, j], n_cells * int(self.source.arities[j])
            if n_cells > max(self.source.n_rows, 1):
                codes, n_cells = dense_ids(codes, n_cells)
            self._cells[key[:i + 1]] = (codes, n_cells)
        while len(self._cells) > min(256, max(4, CELL_MEMO_BYTES // (8 * max(self.source.n_rows, 1)))):
            self._cells.popitem(last=False)
        return codes, n_cells

    def extension_tables(self, subset: Sequence[int], candidates: np.ndarray) -> JointTable:
        """Batched tables of subset + [j] (the fast engine's merged tables when it applies)."""
        if self.counter is not None:
            return JointTable(self.counter.extension_counts(_subset(subset), candidates), self.source.labels)
        return self.source.extension_tables(tuple(_subset(subset)), candidates)

    def extensions(self, subset: Sequence[int], candidates: Sequence[int] | np.ndarray) -> np.ndarray:
        candidates = np.asarray(candidates, dtype=np.int64)
        # the fast engine counts every feature at once: worth it when the candidates are a fair share of them
        if (self.counter is not None and FAST_SHARE * candidates.size >= self.source.n_features
                and self._fast_pays(subset)):
            reducer = self.mixed_cells
            if reducer is not None and self.counter.merge_pure:
                return self._from_mixed_cells(reducer, subset, candidates)
            batches = self.counter.extension_count_batches(_subset(subset), candidates, BATCH_BYTES // _TABLE_COPIES)
            return np.concatenate([np.atleast_1d(self.table_criteria(JointTable(c, self.source.labels)))
                                   for c in batches])
        if not self.has_rows:
            return np.atleast_1d(self.table_criteria(self.source.extension_tables(tuple(_subset(subset)),
                                                                                  candidates)))
        return self._plain_extensions(_subset(subset), candidates)

    def _fast_pays(self, subset: Sequence[int]) -> bool:
        """The engine counts (mixed cell, class, value) for every feature; the plain tables only the occupied cells
        (at most one a row). Held out beyond MAX_FAST_CLASSES class indices (fold x class) on deep subsets, the
        held-out losses of the engine's cells outgrow the rows: optdigits held out, 10 classes x 5 folds,
        BayesGreedy k = 10: 5.6 s through the engine, 1.9 s through the plain tables (issue 35.2). The plug-in's
        reducers stay cheaper than the plain tables' sort (30 classes, 20,000 x 200 binary, MIGreedy: 3.8 s vs
        31 s)."""
        counter = self.counter
        if not isinstance(counter, FastCounter) or counter.L <= MAX_FAST_CLASSES or self.estimate == "plug-in":
            return True
        cells = counter._state(tuple(int(j) for j in subset)).n_cells
        return cells * counter.L * counter.A <= ENGINE_CELLS_PER_ROW * counter.m

    def _plain_extensions(self, subset: list[int], candidates: np.ndarray) -> np.ndarray:
        """Tables of subset + [j] in batches of at most BATCH_BYTES. When the padded table (cells of the
        subset x values of the widest candidate) would be mostly empty (columns with many values, deep
        subsets), only the occupied cells are counted (at most one per row), so memory grows with
        rows x classes per table, never rows^2, and never with the number of candidates."""
        src = self.source
        base, n_base = self.cells(subset)
        n_labels = len(src.labels)
        dense_cells = n_base * int(src.arities[candidates].max())
        sparse = dense_cells > 2 * max(src.n_rows, 1)
        per_table = (min(dense_cells, src.n_rows) if sparse else dense_cells) * n_labels * 8 * _TABLE_COPIES
        chunk = max(1, BATCH_BYTES // max(per_table, 1))
        out = np.empty(candidates.size)
        for start in range(0, candidates.size, chunk):
            part = candidates[start:start + chunk]
            tables = (self._occupied_tables(base, n_base, part) if sparse
                      else self._padded_tables(base, n_base, part))
            out[start:start + part.size] = self.table_criteria(tables)
        return out

    def _padded_tables(self, base: np.ndarray, n_base: int, candidates: np.ndarray) -> JointTable:
        """Batched tables of (subset cell, X_j), cells padded to the widest candidate (padded cells empty)."""
        src = self.source
        width = int(src.arities[candidates].max())
        n_cells = n_base * width
        index = base[:, None] * width + src.X[:, candidates] + np.arange(candidates.size, dtype=np.int64) * n_cells
        counts = src._count(index, candidates.size * n_cells)
        return JointTable(counts.reshape(candidates.size, n_cells, len(src.labels)), src.labels)

    def _occupied_tables(self, base: np.ndarray, n_base: int, candidates: np.ndarray) -> JointTable:
        """Batched tables of (subset cell, X_j) over the occupied cells only: one ``np.unique`` over all
        candidates' codes (each candidate's codes offset into its own range), padded to the largest count."""
        src = self.source
        B = candidates.size
        arities = src.arities[candidates]
        stride = n_base * int(arities.max())
        codes = base[:, None] * arities[None, :] + src.X[:, candidates] + np.arange(B, dtype=np.int64) * stride
        uniques, inverse = np.unique(codes, return_inverse=True)
        starts = np.searchsorted(uniques, np.arange(B, dtype=np.int64) * stride)
        width = int(np.diff(np.append(starts, uniques.size)).max())
        index = inverse.reshape(codes.shape) - starts + np.arange(B, dtype=np.int64) * width
        return JointTable(src._count(index, B * width).reshape(B, width, len(src.labels)), src.labels)

    def _from_mixed_cells(self, reducer, subset: Sequence[int], candidates: np.ndarray) -> np.ndarray:
        """The measure's own reducer over the mixed-cell counts, without building the joint tables."""
        counter = self.counter
        assert counter is not None  # called only when the fast engine applies
        sums = counter.cell_sums(_subset(subset), reducer, self._params)
        class_counts = np.bincount(counter.y, minlength=counter.L).astype(np.float64)
        return self.sign * np.asarray(reducer.value(sums[candidates], counter.m, class_counts, self._params))

    def removals(self, kept: Sequence[int] | np.ndarray) -> np.ndarray:
        if self.engine == "auto" and self.has_rows:
            return removal_table_criteria(self.source, np.asarray(_subset(kept), dtype=np.int64),
                                          self.table_criteria)
        tables = getattr(self.source, "tables", None)   # a source that fetches many tables in one round trip (Dask)
        if tables is not None and not self.has_rows:
            kept = np.asarray(_subset(kept), dtype=np.int64)
            return np.array([float(self.table_criteria(t)) for t in tables([kept[kept != j] for j in kept])],
                            dtype=np.float64)
        return super().removals(kept)


__all__ = ["ENGINES", "Evaluator", "TableEvaluator", "check_engine"]
