"""The cross-fitted evaluator: held-out estimates of any table measure, at about the plug-in's counting cost.

``measure.on(source, estimate="cross-fitted", folds=F, seed=s)`` gives this evaluator. It counts a derived
sample of the same rows whose class index is ``fold * L + y`` (folds: :func:`fslab.counting.folds.assign_folds`,
i.e. :func:`fslab.row_hash.folds` over a safe number of folds), so every batched table the engines produce, fast or
plain, holds the counts of every fold at once; a table of shape (..., cells, F * L) is split into training (all
other folds) and test counts and scored by the measure's ``held_out`` function (see :mod:`fslab.measures._folds`
for the definition and the formulas).

**Safe folds.** F is the number asked, lowered to the row count of the smallest class present (a note in
``notes`` says so), so every fold holds a row of every class; a class with a single row is refused
(:class:`~fslab.counting.folds.TooFewRowsError`); a real-valued target only needs no empty fold. No held-out value
is ever ``nan``.

**Count-only sources (SQL, Dask): the seam.** A source whose rows stay in an engine declares
:class:`FoldCounting`, one method ``folded(n_folds, seed)``, and the evaluator then never sees a row. Contract:

- ``source.table([])`` gives the class counts (one cell, shape (1, L)); from them the evaluator computes the safe
  F with :func:`~fslab.counting.folds.fold_count` (every class in every fold; on ``task == "regression"`` no
  empty fold, from :func:`~fslab.counting.folds.fold_sizes`), so the refusal and the note are the same on every
  engine, and
  calls ``source.folded(F, seed)`` with ``2 <= F <= 20`` and ``0 <= seed < 2**63``.
- ``folded(F, seed)`` returns a count-only source of the same rows and features (same ``feature_names``,
  ``arities``, ``task``, ``target``, ``is_sample`` True) whose ``labels`` are ``np.tile(labels, F)`` and whose
  ``table(J)`` / ``extension_tables(J, candidates)`` return the counts of (cell, ``fold * L + y``), shapes
  (cells, F * L) and (candidates, cells, F * L), cells numbered exactly as the source's own tables number them.
  ``fold`` is :func:`fslab.row_hash.folds` of the class codes y (0..L-1, the source's ``labels`` order) with the
  rows in the source's row order (the order that ranks a row within its class: SQL ``row_number() OVER
  (PARTITION BY y ORDER BY row_id) - 1``; Dask per-partition class counts plus a running sum), computed in the
  engine: ``(j % F + row_hash(seed, y, j // F)) % F``.
- The evaluator counts nothing else: the rows of each (fold, class) are read off ``folded(...).table([])``.
  The held-out values then equal the in-memory ones for the same rows (``tests/test_folds_seam.py`` holds a
  reference implementation on an in-memory sample to this equality).

Why the fast engine's merging of pure cells stays exact: a cell pure in (fold, class) has rows in one fold
only, so for that fold it is unseen in training (the prior's rule, the same for the merged cell) and for
every other fold it has no test rows; merging such cells changes no held-out loss. Measures whose held-out
loss adds up over cells (0-1, cost-sensitive, balanced, log-loss, MI: ``spec.held_out_cells``) are summed straight
from the engine's mixed-cell counts, as their plug-in reducers are, with every pure row costing the loss of
the prior's rule, and from the occupied cells of batched tables elsewhere; F-beta, AUC and the squared error go
through their whole-table ``held_out`` functions.
"""

from __future__ import annotations

from typing import Protocol, cast, runtime_checkable

import numpy as np

from ..counting.dense import FastCounter
from ..counting.engines import counter_of
from ..counting.folds import assign_folds, check_estimate, check_seed, fold_count, split
from ..errors import ParameterError
from ..tables import CodedSource, JointTable, TableSource, readonly
from .evaluator import TableEvaluator


def fold_source(source, folds: np.ndarray, n_folds: int):
    """The same rows (codes shared, not copied) with class index ``fold * L + y`` and labels tiled per fold."""
    n_labels = len(source.labels)
    if counter_of(source) == "sparse":   # counted from its non-zeros whatever the classes
        return source.replace(y=folds * n_labels + source.y, labels=np.tile(source.labels, n_folds),
                              class_names=None, task="multiclass")
    derived = object.__new__(CodedSource)
    derived._set(X=source.X, arities=source.arities, labels=readonly(np.tile(source.labels, n_folds)),
                 y=readonly(folds * n_labels + source.y), weights=None, feature_names=source.feature_names,
                 task=source.task, target=source.target, _memo=type(source._memo)())
    return derived


@runtime_checkable
class FoldCounting(Protocol):
    """A count-only source that counts by (fold, class, cell) in its engine: see the module docstring's contract."""

    @property
    def is_sample(self) -> bool: ...

    def folded(self, n_folds: int, seed: int) -> TableSource: ...


def can_hold_out(source) -> bool:
    """True for a sample whose rows are here to split into folds, or a count-only source that counts folds in its
    engine (:class:`FoldCounting`); False for an exact Distribution."""
    return counter_of(source) == "sparse" or (isinstance(source, CodedSource) and source.is_sample) or (
        isinstance(source, FoldCounting) and bool(source.is_sample))


def require_sample(source, what: str = "the cross-fitted estimate") -> None:
    """Refuse a source without rows to hold out (an exact Distribution, a count-only source without
    :class:`FoldCounting`) with a ParameterError."""
    if not can_hold_out(source):
        raise ParameterError(f"{what} needs observed rows to hold out; a {type(source).__name__} "
                             + ("is an exact law: its plug-in values are exact (use estimate='plug-in')"
                                if isinstance(source, CodedSource) else
                                "gives only count tables: load the rows with Dataset.from_frame / from_arrays"))


def _class_names(source):
    names = getattr(source, "class_names", None)   # an encoded dataset's names; labels otherwise
    return names if names is not None and len(names) == len(source.labels) else source.labels


def _stratified(source) -> bool:
    """Folds need every class in every fold, except on a real-valued target (each value its own class)."""
    return getattr(source, "task", None) != "regression"


def usable_folds(source, folds: int, seed=0) -> tuple[int, tuple[str, ...]]:
    """(F, notes): the folds a cross-fitted estimate on ``source`` uses when ``folds`` are asked with split ``seed``
    (:func:`~fslab.counting.folds.fold_count` on its class counts: rows here, or one count of the engine); a
    :class:`~fslab.counting.folds.TooFewRowsError` when a class has a single row (a real-valued target: when
    the rows cannot fill 2 folds)."""
    require_sample(source)
    if counter_of(source) in ("dense", "sparse"):   # rows here
        assert source.y is not None   # require_sample: a sample
        counts = np.bincount(source.y, minlength=len(source.labels))
    else:
        counts = np.asarray(source.table([]).counts, dtype=np.float64).sum(axis=0)
    return fold_count(counts, check_estimate("cross-fitted", folds)[1], _class_names(source), seed=check_seed(seed),
                      stratified=_stratified(source))


class CrossFittedEvaluator(TableEvaluator):
    """C_cf(J) of a table measure (``spec.held_out``) on a sample: see the module docstring.

    ``folds`` (2 .. 20) and ``seed`` fix the stratified split (or ``folds`` gives each row's fold; ``seed`` is then
    None); ``original`` is the source as given; ``n_folds`` the folds used (fewer than asked on small classes, said
    in ``notes``), ``fold_of_row`` each row's fold (None on a count-only source: its engine assigns them).
    """

    estimate = "cross-fitted"

    def __init__(self, measure, source, engine: str = "auto", folds: int = 5, seed=0):
        _, folds = check_estimate("cross-fitted", folds)
        require_sample(source)
        if measure.spec.held_out is None:
            raise ParameterError(f"{measure.spec.label} has no cross-fitted estimate; use estimate='plug-in'")
        measure.check_labels(source.labels)
        self.original = source
        self.fold_of_row: np.ndarray | None
        if counter_of(source) in ("dense", "sparse"):   # rows here
            assert source.y is not None   # require_sample: a sample
            fold_of_row, self.n_folds, self.notes = assign_folds(source.y, folds, seed, _class_names(source),
                                                                 stratified=_stratified(source))
            self.seed = None if isinstance(folds, np.ndarray) else check_seed(seed)
            self.fold_of_row = readonly(fold_of_row)
            derived = fold_source(source, self.fold_of_row, self.n_folds)
            self._rows = np.bincount(derived.y, minlength=self.n_folds * len(source.labels)).astype(np.float64)
        else:   # count-only: the engine assigns the folds and counts by (fold, class, cell)
            if isinstance(folds, np.ndarray):
                raise ParameterError("fold indices per row need the rows here; a count-only source takes a number of "
                                     "folds")
            self.n_folds, self.notes = usable_folds(source, folds, seed)
            self.seed, self.fold_of_row = check_seed(seed), None
            derived = cast(FoldCounting, source).folded(self.n_folds, self.seed)
            self._rows = np.asarray(derived.table([]).counts, dtype=np.float64).sum(axis=0)
        self._rows = self._rows.reshape(self.n_folds, len(source.labels))
        super().__init__(measure, derived, engine)

    def _check_labels(self) -> None:
        pass   # checked on the original labels (the derived source tiles them per fold)

    @property
    def mixed_cells(self):
        # the sparse engine sums plug-in reducers its own way: held-out values come from its batched tables there
        return None if counter_of(self.source) == "sparse" else self.measure.spec.held_out_cells

    def _fold_rows(self) -> np.ndarray:
        """Rows of every (test fold, class): (F, L)."""
        return self._rows

    def _finish(self, cells, rule: np.ndarray, rows: np.ndarray, prior_loss: np.ndarray) -> np.ndarray:
        """Signed fold mean of per-fold values (F, B) (``cells.finish`` against the prior alone first)."""
        if cells.finish is not None:
            rule = cells.finish(rule, (rows * prior_loss).sum(axis=1)[:, None])
        return self.sign * rule.mean(axis=0)

    def _from_mixed_cells(self, cells, subset, candidates: np.ndarray) -> np.ndarray:
        """Per fold: the mixed cells' shares of the held-out loss (``cells.cell_loss``) plus every pure row's share
        under the prior's rule (``cells.prior_loss``); then ``cells.finish`` and the fold mean."""
        counter = cast(FastCounter, self.counter)  # only the dense engine merges pure cells for held-out losses
        rows = self._fold_rows()
        F, L = rows.shape
        sums, mixed = np.zeros((F, counter.n)), np.zeros((F, L))
        for block in counter.mixed_count_blocks([int(j) for j in subset]):
            test = block.reshape((block.shape[0], F, L) + block.shape[2:])
            train = test.sum(axis=1, keepdims=True) - test
            sums += cells.cell_loss(train, test, rows, self._params).sum(axis=(0, 2))
            mixed += test[..., 0].sum(axis=(0, 3))   # the mixed rows of each (fold, class), read off feature 0
        prior_loss = cells.prior_loss(rows, self._params)
        rule = sums[:, candidates] + ((rows - mixed) * prior_loss).sum(axis=1)[:, None]
        return self._finish(cells, rule, rows, prior_loss)

    def table_criteria(self, table: JointTable) -> np.ndarray:
        cells = self.measure.spec.held_out_cells
        if cells is None:   # F-beta, AUC, squared: the measure's held-out function on whole tables
            train, test = split(table.counts, self.n_folds)
            per_fold = self.measure.spec.held_out(train, test, self.original.labels, **self._params)
            return self.sign * np.asarray(per_fold, dtype=np.float64).mean(axis=-1)
        return self._occupied_criteria(cells, table.counts)

    def _occupied_criteria(self, cells, counts: np.ndarray) -> np.ndarray:
        """A loss that adds up over cells, from the occupied cells of every table only (batched tables are
        mostly empty cells: padded values, deep subsets): shares summed per (table, fold) by ``np.bincount``."""
        rows = self._fold_rows()
        F, L = rows.shape
        batch = counts.shape[:-2]
        flat = counts.reshape(-1, counts.shape[-2], counts.shape[-1])
        which, cell = np.nonzero(flat.sum(axis=-1) > 0)
        test = flat[which, cell].reshape(-1, F, L)
        train = test.sum(axis=1, keepdims=True) - test
        share = cells.cell_loss(train, test, rows, self._params)              # (occupied cells, F)
        n_tables = flat.shape[0]
        index = (which[:, None] * F + np.arange(F)).ravel()
        rule = np.bincount(index, weights=share.ravel(), minlength=n_tables * F).reshape(n_tables, F).T
        out = self._finish(cells, rule, rows, cells.prior_loss(rows, self._params))
        return out.reshape(batch) if batch else out[0]
