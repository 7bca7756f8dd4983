"""The cross-fitted evaluator: held-out estimates of any table measure, at about the plug-in's counting cost.

``measure.on(source, estimate="cross-fitted", folds=F, seed=s)`` gives this evaluator. It counts a derived
sample of the same rows whose class index is ``fold * L + y`` (stratified folds, :func:`stratified_folds`),
so every batched table the engines produce, fast or plain, holds the counts of every fold at once; a table
of shape (..., cells, F * L) is split into training (all other folds) and test counts and scored by the
measure's ``held_out`` function (see :mod:`fslab.measures._folds` for the definition and the formulas).

Why the fast engine's merging of pure cells stays exact: a cell pure in (fold, class) has rows in one fold
only, so for that fold it is unseen in training (the prior's rule, the same for the merged cell) and for
every other fold it has no test rows; merging such cells changes no held-out loss. Measures whose held-out
loss adds up over cells (0-1, cost-sensitive, balanced, log-loss, MI: ``spec.held_out_cells``) are summed straight
from the engine's mixed-cell counts, as their plug-in reducers are, with every pure row costing the loss of
the prior's rule, and from the occupied cells of batched tables elsewhere; F-beta, AUC and the squared error go
through their whole-table ``held_out`` functions.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from ..data.sparse import SparseDataset
from ..errors import ParameterError
from ..tables import CodedSource, JointTable, readonly
from ._fast import FastCounter
from ._folds import check_estimate, split, stratified_folds
from .evaluator import TableEvaluator


def fold_source(source, folds: np.ndarray, n_folds: int):
    """The same rows (codes shared, not copied) with class index ``fold * L + y`` and labels tiled per fold."""
    n_labels = len(source.labels)
    if isinstance(source, SparseDataset):   # counted from its non-zeros whatever the classes
        return source.replace(y=folds * n_labels + source.y, labels=np.tile(source.labels, n_folds),
                              class_names=None, task="multiclass")
    derived = object.__new__(CodedSource)
    derived._set(X=source.X, arities=source.arities, labels=readonly(np.tile(source.labels, n_folds)),
                 y=readonly(folds * n_labels + source.y), weights=None, feature_names=source.feature_names,
                 task=source.task, target=source.target, _memo=type(source._memo)())
    return derived


def can_hold_out(source) -> bool:
    """True for a sample whose rows are here to split into folds (not an exact Distribution, not a Dask source)."""
    return isinstance(source, SparseDataset) or (isinstance(source, CodedSource) and source.is_sample)


def require_sample(source, what: str = "the cross-fitted estimate") -> None:
    """Refuse a source without rows to hold out (an exact Distribution, a Dask source) with a ParameterError."""
    if not can_hold_out(source):
        raise ParameterError(f"{what} needs observed rows to hold out; a {type(source).__name__} "
                             + ("is an exact law: its plug-in values are exact (use estimate='plug-in')"
                                if isinstance(source, CodedSource) else
                                "gives only count tables: load the rows with Dataset.from_frame / from_arrays"))


class CrossFittedEvaluator(TableEvaluator):
    """C_cf(J) of a table measure (``spec.held_out``) on a sample: see the module docstring.

    ``folds`` (2 .. 20) and ``seed`` fix the stratified split (or ``folds`` gives each row's fold; ``seed`` is then
    None); ``original`` is the source as given; ``n_folds`` and ``fold_of_row`` the split used.
    """

    estimate = "cross-fitted"

    def __init__(self, measure, source, engine: str = "auto", folds: int = 5, seed=0):
        _, folds = check_estimate("cross-fitted", folds)
        require_sample(source)
        if measure.spec.held_out is None:
            raise ParameterError(f"{measure.spec.label} has no cross-fitted estimate; use estimate='plug-in'")
        measure.check_labels(source.labels)
        if isinstance(folds, np.ndarray):   # one fold index per row, given by the caller
            if folds.shape != (source.n_rows,):
                raise ParameterError(f"need one fold index per row: {source.n_rows} rows, {folds.size} indices")
            fold_of_row, seed = folds.astype(np.int64), None
        else:
            fold_of_row = stratified_folds(source.y, folds, seed)
        self.original, self.n_folds, self.seed = source, int(fold_of_row.max()) + 1, seed
        self.fold_of_row = readonly(fold_of_row)
        super().__init__(measure, fold_source(source, self.fold_of_row, self.n_folds), engine)

    def _check_labels(self) -> None:
        pass   # checked on the original labels (the derived source tiles them per fold)

    @property
    def mixed_cells(self):
        # the sparse engine sums plug-in reducers its own way: held-out values come from its batched tables there
        return None if isinstance(self.source, SparseDataset) else self.measure.spec.held_out_cells

    def _fold_rows(self) -> np.ndarray:
        """Rows of every (test fold, class): (F, L)."""
        F, L = self.n_folds, len(self.original.labels)
        return np.bincount(self.source.y, minlength=F * L).reshape(F, L).astype(np.float64)

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
