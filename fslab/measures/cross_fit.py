"""The cross-fitted evaluator: held-out estimates of any table measure, at about the plug-in's counting cost.

``measure.on(source, estimate="cross-fitted", folds=F, seed=s)`` gives this evaluator. It counts a derived
sample of the same rows whose class index is ``fold * L + y`` (stratified folds, :func:`stratified_folds`),
so every batched table the engines produce, fast or plain, holds the counts of every fold at once; a table
of shape (..., cells, F * L) is split into training (all other folds) and test counts and scored by the
measure's ``held_out`` function (see :mod:`fslab.measures._folds` for the definition and the formulas).

Why the fast engine's merging of pure cells stays exact: a cell pure in (fold, class) has rows in one fold
only, so for that fold it is unseen in training (the prior's rule, the same for the merged cell) and for
every other fold it has no test rows; merging such cells changes no held-out loss. The measures' mixed-cell
reducers (plug-in sums) are not used.
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from ..tables import CodedSource, JointTable, readonly
from ._folds import check_estimate, split, stratified_folds
from .evaluator import TableEvaluator


def fold_source(source: CodedSource, folds: np.ndarray, n_folds: int) -> CodedSource:
    """The same rows (codes shared, not copied) with class index ``fold * L + y`` and labels tiled per fold."""
    n_labels = len(source.labels)
    derived = object.__new__(CodedSource)
    derived._set(X=source.X, arities=source.arities, labels=readonly(np.tile(source.labels, n_folds)),
                 y=readonly(folds * n_labels + source.y), weights=None, feature_names=source.feature_names,
                 task=source.task, target=source.target, _memo=type(source._memo)())
    return derived


def require_sample(source, what: str = "the cross-fitted estimate") -> None:
    """Refuse a source without rows to hold out (an exact Distribution, a Dask source) with a ParameterError."""
    if not (isinstance(source, CodedSource) and source.is_sample):
        raise ParameterError(f"{what} needs observed rows to hold out; a {type(source).__name__} "
                             + ("is an exact law: its plug-in values are exact (use estimate='plug-in')"
                                if isinstance(source, CodedSource) else
                                "gives only count tables: load the rows with Dataset.from_frame / from_arrays"))


class CrossFittedEvaluator(TableEvaluator):
    """C_cf(J) of a table measure (``spec.held_out``) on a sample: see the module docstring.

    ``folds`` (2 .. 20) and ``seed`` fix the stratified split; ``original`` is the source as given.
    """

    estimate = "cross-fitted"

    def __init__(self, measure, source, engine: str = "auto", folds: int = 5, seed=0):
        _, folds = check_estimate("cross-fitted", folds)
        require_sample(source)
        if measure.spec.held_out is None:
            raise ParameterError(f"{measure.spec.label} has no cross-fitted estimate; use estimate='plug-in'")
        measure.check_labels(source.labels)
        self.original, self.n_folds, self.seed = source, folds, seed
        self.fold_of_row = readonly(stratified_folds(source.y, folds, seed))
        super().__init__(measure, fold_source(source, self.fold_of_row, folds), engine)

    def _check_labels(self) -> None:
        pass   # checked on the original labels (the derived source tiles them per fold)

    @property
    def mixed_cells(self):
        return None

    def table_criteria(self, table: JointTable) -> np.ndarray:
        train, test = split(table.counts, self.n_folds)
        labels = self.original.labels
        per_fold = self.measure.spec.held_out(train, test, labels, **self._params)
        return self.sign * np.asarray(per_fold, dtype=np.float64).mean(axis=-1)
