"""Measure records: a Bayes quantity of a JointTable, its direction, parameters (with one default each),
reference, and the capabilities its evaluator uses."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from ..counting.engines import counter_of
from ..counting.folds import check_estimate
from ..errors import ParameterError, UnsupportedTargetError
from ..tables import CodedSource, JointTable, as_source
from .cross_fit import CrossFittedEvaluator
from .evaluator import Evaluator, TableEvaluator


class PositiveClassError(UnsupportedTargetError, ParameterError):
    """A measure that needs a positive class (F-beta, AUC, precision, recall) on a target with more than 2 classes."""


@dataclass(frozen=True)
class Param:
    """One measure parameter: its single ``default`` (library, command line, recipes and pages all start
    there), the range ``low .. high`` (with ``step``) that the app, recipes and the command line offer, or
    the allowed ``choices``, and a one-line ``help``. The library itself accepts any value ``check`` allows."""

    default: object
    help: str
    low: float | None = None
    high: float | None = None
    step: float | None = None
    choices: tuple | None = None


@dataclass(frozen=True)
class MixedCellReducer:
    """A measure computed by the fast engine from the counts of the MIXED cells only (fslab.counting.dense).

    ``cell_sums(counts, params, nlogn)``: counts (C, L, A, n) of (mixed cell c, class l, value v of
    feature j) -> per feature j the sum over the cells (c, v) of a cellwise loss that is 0 on pure cells;
    ``nlogn[k] = k ln k`` for whole counts. ``finish(sums, m, class_counts, params)``: the measure's value
    from those sums over m rows (default ``sums / m``: an error that pure cells do not add to).
    """

    cell_sums: Callable[[np.ndarray, Mapping, np.ndarray], np.ndarray]
    finish: Callable[[np.ndarray, int, np.ndarray, Mapping], np.ndarray] | None = None

    def value(self, sums: np.ndarray, m: int, class_counts: np.ndarray, params: Mapping) -> np.ndarray:
        return sums / m if self.finish is None else self.finish(sums, m, class_counts, params)


@dataclass(frozen=True)
class HeldOutCells:
    """A held-out loss that adds up over cells, for the fast engine's mixed cells (fslab.measures.cross_fit).

    ``cell_loss(train, test, rows, params)``: counts (C, F, L, ...) of (cell, fold, class, ...) with the training
    counts ``train`` (the other folds) and ``rows`` (F, L), the test folds' class counts -> each cell's share of
    its fold's loss, (C, F, ...) (normalised: the shares of all cells add up to the fold's value);
    ``prior_loss(rows, params)``: the share (F, L) of one held-out row of each class under the prior's rule (a
    cell unseen in training, as every row of a cell pure in (fold, class) is). ``finish(rule, prior)``: the
    measure from the per-fold values of the rule and of the prior alone (default: ``rule``).
    ``entry_loss(group, fold, cls, count, n_groups, rows, params)`` (optional): the same shares, (n_groups, F), from
    the non-zero entries only (count > 0 of cell ``group``, ``fold``, class ``cls``), for a loss whose rule needs no
    dense class axis (log-loss and MI: a log per non-zero entry instead of one per (cell, fold, class)).
    ``run_loss(part, fold, cls, count, n_parts, rows, params)`` (optional): the same loss as one share per non-zero
    entry, for entries sorted by (part, fold): the shares summed over any set of parts give those parts' loss per
    fold (the row path sums them by (candidate, fold) without a (part, fold) layout; log-loss and MI).
    """

    cell_loss: Callable[..., np.ndarray]
    prior_loss: Callable[..., np.ndarray]
    finish: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
    entry_loss: Callable[..., np.ndarray] | None = None
    run_loss: Callable[..., np.ndarray] | None = None


@dataclass(frozen=True)
class MeasureSpec:
    """Registry record of one performance measure.

    ``func(table, **params)`` returns the paper's quantity for the Bayes classifier, one value per
    table of a batch (a float for a single table). ``parameters`` maps each parameter name to its
    :class:`Param` (one default, the offered range, help); ``params`` is the derived name -> default
    mapping. ``check(params)`` raises ParameterError on bad values; ``check_target(labels, params)`` on parameters
    that do not fit the target's classes (a cost matrix of the wrong size).

    Capabilities the evaluator reads (no branches on the name anywhere):
    ``law_of_eta``: the value depends on the joint table only through the law of P(Y | X_J), so the fast
    engine may merge pure cells; ``mixed_cells``: a :class:`MixedCellReducer` that computes the value from
    the mixed cells' counts without building tables; ``evaluator(measure, source, engine)``: a
    criterion that is not a function of the subset's joint table (precision / recall, built from
    per-feature predictors) brings its own :class:`~fslab.measures.evaluator.Evaluator`; ``func`` then
    reads a bare table as ONE compound feature; ``needs_rows``: that evaluator reads the rows' codes, so a
    source that only gives count tables (a Dask source) is refused with :func:`require_rows`.
    ``held_out(train, test, labels, **params)``: the cross-fitted estimate (:mod:`fslab.measures._folds`): the
    plug-in rule fitted on ``train`` counts scored on ``test`` counts, both (..., F, cells, L), one value per fold
    (..., F). With ``train == test`` it is the plug-in value (log-loss and MI: up to their stated smoothing).
    ``held_out_cells``: the same held-out value as a :class:`HeldOutCells` sum over the fast engine's mixed cells.
    ``empirical(y, pred, proba, **params)``: the measure of a fitted classifier's predictions on a test sample
    (:mod:`fslab.measures.empirical`); None: the measure is not offered where a test sample is scored (learning
    curves, Compare).
    """

    name: str
    label: str
    func: Callable[..., np.ndarray | float]
    greater_is_better: bool
    formula: str
    reference: str
    binary_only: bool = True
    real_target: bool = False
    parameters: Mapping[str, Param] = field(default_factory=lambda: MappingProxyType({}))
    check: Callable[[dict], None] | None = None
    check_target: Callable[[np.ndarray, Mapping], None] | None = None
    law_of_eta: bool = True
    mixed_cells: MixedCellReducer | None = None
    evaluator: Callable[..., Evaluator] | None = None
    needs_rows: bool = False
    held_out: Callable[..., np.ndarray] | None = None
    held_out_cells: HeldOutCells | None = None
    cross_fitted_evaluator: Callable[..., Evaluator] | None = None
    empirical: Callable[..., float] | None = None

    def __post_init__(self) -> None:
        # registry records are shared by every session: keep the parameter records read-only
        object.__setattr__(self, "parameters", MappingProxyType(dict(self.parameters)))

    @property
    def params(self) -> Mapping[str, object]:
        """Parameter name -> its one default (read-only)."""
        return MappingProxyType({name: p.default for name, p in self.parameters.items()})


@dataclass(frozen=True)
class Measure:
    """A measure with its parameters bound: ``value(table)`` is the Bayes quantity, ``criterion`` the
    quantity selectors maximise (``-error`` or ``+score``, Ahmed et al. equation (3))."""

    spec: MeasureSpec
    params: Mapping[str, object]

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def greater_is_better(self) -> bool:
        return self.spec.greater_is_better

    @property
    def label(self) -> str:
        extra = ", ".join(f"{k}={shown(v)}" for k, v in self.params.items())
        return f"{self.spec.label} ({extra})" if extra else self.spec.label

    def check_labels(self, labels) -> None:
        """Refuse a target this measure does not support (UnsupportedTargetError, with what to do instead)."""
        labels = np.asarray(labels)
        if self.spec.binary_only and labels.shape[0] != 2:
            raise PositiveClassError(
                f"{self.spec.label} needs a positive class (a binary target); this target has {labels.shape[0]} "
                "classes. Pick a positive class, one-vs-rest (positive= in the library, --positive on the command "
                "line), or use a measure for many classes (0-1, balanced or cost-sensitive error with a cost matrix, "
                "log-loss, MI).")
        if self.spec.check_target is not None:
            self.spec.check_target(labels, self.params)
        if self.spec.real_target and not np.issubdtype(labels.dtype, np.number):
            raise UnsupportedTargetError(
                f"{self.spec.label} needs a numeric target; this target's classes are text "
                f"({', '.join(map(str, labels[:5]))}{', ...' if labels.shape[0] > 5 else ''}). "
                "Use the 0-1 error, log-loss or mutual information, or pick a positive class.")

    def check_table(self, table: JointTable) -> None:
        self.check_labels(table.labels)

    def value(self, table: JointTable):
        """The measure of the Bayes-optimal predictor on ``table`` (a float, or one per batched table).

        A table is one (compound) feature; for the value of a feature SUBSET on a source use
        ``self.on(source).value(J)`` (the two differ only for precision / recall)."""
        self.check_table(table)
        out = self.spec.func(table, **self.params)
        return float(out) if np.ndim(out) == 0 else np.asarray(out, dtype=np.float64)

    def criterion(self, table: JointTable):
        """``value`` if greater is better, else ``-value``: what selectors maximise."""
        v = self.value(table)
        return v if self.greater_is_better else -v


    def on(self, source, engine: str = "auto", *, estimate: str = "plug-in", folds: int = 5, seed=0) -> Evaluator:
        """The one evaluator of this measure on ``source`` (a Dataset, encoded dataset or Distribution):
        ``value(J)``, ``criterion(J)``, ``extensions(J, candidates)``, ``removals(kept)``. Every number
        fslab reports for C(J) comes from here. ``engine="plain"`` turns the fast counting engine off.

        ``estimate="plug-in"`` (the papers' in-sample estimate, the default) or ``"cross-fitted"`` (held out:
        the plug-in rule fitted on F - 1 stratified folds and scored on the remaining one, averaged over the
        ``folds``; seeded by ``seed``; :mod:`fslab.measures.cross_fit`). The evaluator's ``estimate`` says which.
        """
        estimate, folds = check_estimate(estimate, folds)
        source = as_source(source)
        if self.spec.needs_rows:
            require_rows(self.spec.label, source)
        if estimate == "cross-fitted":
            make = self.spec.cross_fitted_evaluator or CrossFittedEvaluator
            return make(self, source, engine, folds=folds, seed=seed)
        make = self.spec.evaluator or TableEvaluator
        return make(self, source, engine)


def shown(value) -> str:
    """A parameter value in a label: a matrix as its --cost-matrix text ('0,1,2;1,0,1;4,1,0'), anything else as is."""
    if np.ndim(value) == 2:
        return ";".join(",".join(f"{v:g}" for v in row) for row in np.asarray(value, dtype=np.float64))
    return str(value)


def require_rows(what: str, source) -> None:
    """Refuse a source without row codes (only count tables, e.g. a Dask source) for a criterion declared
    ``needs_rows``: a ParameterError saying how to get the rows, never an AttributeError from deep inside."""
    if counter_of(source) == "sparse":
        raise ParameterError(f"{what} reads every row's dense codes or values; sparse data are counted from their "
                             "non-zeros only. Pass a dense array to Dataset.from_arrays (if it fits in memory), or "
                             "use another criterion (BayesGreedy, MIGreedy, JMI, mRMR, CMIM).")
    if not isinstance(source, CodedSource):
        raise ParameterError(f"{what} needs the rows in memory; this {type(source).__name__} gives only count "
                             "tables. Load the data with Dataset.from_frame / from_arrays (or use another criterion).")


def bind(spec: MeasureSpec, **params) -> Measure:
    """Bind parameters (defaults filled in, unknown names refused) to a measure record."""
    unknown = set(params) - set(spec.params)
    if unknown:
        known = ", ".join(spec.params) or "none"
        raise ParameterError(f"measure '{spec.name}' has no parameter {sorted(unknown)}; its parameters: {known}")
    bound = {**spec.params, **params}
    if spec.check is not None:
        spec.check(bound)
    return Measure(spec, MappingProxyType(bound))
