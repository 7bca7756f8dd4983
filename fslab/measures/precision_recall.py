"""Precision and recall criteria of the greedy derivation notes (003): conjunction / disjunction of
per-feature predictors.

Reading of the notes. Each selected feature i carries its own predictor y_i with
P(y_i = 1 | x, f_i) = eta_i(x_i) = P(Y = 1 | X_i = x_i) (the plug-in class probability of feature i
alone; exact on a Distribution). Precision combines them by AND (eq. 7), recall by OR (eq. 13); the
notes' objectives are sums over the data D, reported here as means (divided by the total mass, so
the argmax is unchanged). With P_J = prod_{i in J} eta_i(X_i) and R_J = prod_{i in J} (1 - eta_i(X_i)):

    precision, approach 1 (eq. 11-12): E[ Y P_J + (1 - Y)(1 - P_J) ]
    precision, approach 2 (Sec. 2.1):  E[ Y sum_i ln eta_i(X_i) + (1 - Y) ln(1 - P_J) ]
    recall,    approach 1 (eq. 17-18): E[ (1 - Y) R_J + Y (1 - R_J) ]
    recall,    approach 2 (Sec. 2.2):  E[ (1 - Y) sum_i ln(1 - eta_i(X_i)) + Y ln(1 - R_J) ]

Approach 2's last lines in the extracted text are garbled (a "1 - prod log" term); the line before it,
log of the approach-1 summand split by the class, is what is implemented. Recall is precision with
the classes swapped (Y -> 1-Y, eta -> 1-eta), which is how the code computes both.

These are not functions of the subset's joint table (they need each feature's own predictor), so the
registry records bring their own evaluator (:class:`FactorEvaluator`): ``measure("precision",
approach=a).on(source)`` gives ``value(J)``, ``extensions(J, candidates)`` and ``removals(kept)``, used by
every selector, ``bayes_value``, the lattice and the other reports alike. On a bare JointTable the subset is read
as ONE compound feature (k = 1 in the notes): approach 1 gives E[eta^2 + (1-eta)^2] = 1 - 2E[eta(1-eta)]
and approach 2 gives -H(Y|X_J) in nats, for precision and recall alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import numpy as np

from ..counting.folds import assign_folds, check_estimate, check_seed
from ..errors import ParameterError, UnsupportedTargetError
from ..information import _sum_classes, conditional_entropy
from ..tables import CodedSource, JointTable, as_source
from ._folds import LOG_SMOOTHING
from .base import MeasureSpec, Param
from .cross_fit import require_sample
from .evaluator import Evaluator

# Bound on the (rows x candidates) floats one chunk of a greedy step may allocate (32 MiB).
_CHUNK_FLOATS = 1 << 22
_TINY = np.finfo(np.float64).tiny


_MATMUL_ARITY = 8  # up to this many values, per-value masses by one matmul per value; else bincount


def _class_mass(source) -> np.ndarray:
    """(r, 2) mass of each row in class 0 and class 1 (a sample's rows are one-hot)."""
    if source.weights is not None:
        return source.weights
    return np.stack([source.y == 0, source.y == 1], axis=1).astype(np.float64)


def _value_masses(codes: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """For features as rows of ``codes`` (c, r) and row weights (r, k): the summed weights of the rows
    taking each value, shape (c, values, k). Low arities: one BLAS matmul per value (no (c*r)-long
    weight copies as a batched bincount needs)."""
    n_feat, n_rows = codes.shape
    n_values = int(codes.max()) + 1 if codes.size else 1
    if n_values <= _MATMUL_ARITY:
        return np.stack([(codes == v).astype(np.float64) @ weights for v in range(n_values)], axis=1)
    flat = (codes + (np.arange(n_feat) * n_values)[:, None]).ravel()
    return np.stack([
        np.bincount(flat, weights=np.tile(weights[:, i], n_feat), minlength=n_feat * n_values)
        .reshape(n_feat, n_values) for i in range(weights.shape[1])
    ], axis=-1)


def _predictors(masses: np.ndarray, recall: bool) -> np.ndarray:
    """P(feature predictor says the target class | value): eta_j(v) (precision) or 1 - eta_j(v) (recall)."""
    pos, tot = masses[..., 0], masses[..., 1]
    eta = np.divide(pos, tot, out=np.zeros_like(pos), where=tot > 0)
    return 1.0 - eta if recall else eta


def _values(source, subset: Sequence[int] | np.ndarray, candidates: Sequence[int] | np.ndarray | None, approach: int,
            recall: bool) -> np.ndarray:
    source = as_source(source)
    if len(source.labels) != 2:
        raise UnsupportedTargetError(
            f"the {'recall' if recall else 'precision'} criterion needs a binary target; this one has "
            f"{len(source.labels)} classes. Pick a positive class (one-vs-rest).")
    if approach not in (1, 2):
        raise ParameterError(f"approach must be 1 (sum of probabilities) or 2 (log-likelihood); got {approach!r}")
    mass = _class_mass(source)
    eta_weights = np.stack([mass[:, 1], mass.sum(axis=1)], axis=1)  # per value: positive mass, total mass
    # recall is precision with the classes swapped: the 'target' class is 0 and predictors say 1 - eta
    target, other = (mass[:, 0], mass[:, 1]) if recall else (mass[:, 1], mass[:, 0])
    total = mass.sum()
    t_rows, o_rows = target > 0, other > 0
    subset = np.asarray(list(subset), dtype=np.int64)
    base, base_log = np.ones(source.n_rows), 0.0
    if subset.size:
        codes = np.ascontiguousarray(source.X[:, subset].T)
        rows_a = np.take_along_axis(_predictors(_value_masses(codes, eta_weights), recall), codes, axis=1)
        base = rows_a.prod(axis=0)
        base_log = float(np.log(np.maximum(rows_a[:, t_rows], _TINY)).sum(axis=0) @ target[t_rows])
    if candidates is None:
        if approach == 1:
            return np.array([(target @ base + other @ (1.0 - base)) / total])
        with np.errstate(divide="ignore"):
            return np.array([(base_log + other[o_rows] @ np.log(1.0 - base[o_rows])) / total])
    candidates = np.asarray(list(candidates), dtype=np.int64)
    weights = np.column_stack([eta_weights, (target - other) * base, target])
    out = np.empty(candidates.size)
    chunk = max(1, _CHUNK_FLOATS // max(source.n_rows, 1))
    for start in range(0, candidates.size, chunk):
        codes = np.ascontiguousarray(source.X[:, candidates[start:start + chunk]].T)
        masses = _value_masses(codes, weights)
        a = _predictors(masses, recall)  # (c, values)
        if approach == 1:
            # sum_d target P + other (1 - P) = other mass + sum_v a_j(v) sum_{x_dj = v} (target - other) base_d
            value = other.sum() + (a * masses[..., 2]).sum(axis=1)
        else:
            # a_j(v) > 0 wherever the target class has mass at v, and base * a < 1 wherever the other class
            # has mass (that row is in the cell), so the logs are finite; _TINY only guards rounding.
            gain_t = (masses[..., 3] * np.log(np.maximum(a, _TINY))).sum(axis=1)
            rows_a = np.take_along_axis(a, codes[:, o_rows], axis=1)
            gain_o = np.log(np.maximum(1.0 - base[o_rows] * rows_a, _TINY)) @ other[o_rows]
            value = base_log + gain_t + gain_o
        out[start:start + codes.shape[0]] = value / total
    return out


def precision_criterion(source, subset: Sequence[int], approach: int = 1) -> float:
    """Precision criterion of the conjunction of the features' predictors (003, eq. 12 / Sec. 2.1)."""
    return float(_values(source, subset, None, approach, recall=False)[0])


def recall_criterion(source, subset: Sequence[int], approach: int = 1) -> float:
    """Recall criterion of the disjunction of the features' predictors (003, eq. 18 / Sec. 2.2)."""
    return float(_values(source, subset, None, approach, recall=True)[0])


def precision_gain(source, selected: Sequence[int], candidates: Sequence[int], approach: int = 1) -> np.ndarray:
    """precision_criterion(selected + [j]) for every candidate j, shape (len(candidates),): one greedy step."""
    return _values(source, selected, candidates, approach, recall=False)


def recall_gain(source, selected: Sequence[int], candidates: Sequence[int], approach: int = 1) -> np.ndarray:
    """recall_criterion(selected + [j]) for every candidate j, shape (len(candidates),): one greedy step."""
    return _values(source, selected, candidates, approach, recall=True)


def compound_score(table: JointTable, approach: int = 1) -> np.ndarray:
    """The notes' criterion with the whole subset as one compound feature (k = 1; precision = recall).

    Approach 1: sum_x p(x,1) eta(x) + p(x,0) (1 - eta(x)); approach 2: sum_{x,y} p(x,y) ln p(y|x) = -H(Y|X).
    Tiny table: p = [[.4, .1], [.2, .3]] (eta .2, .6): approach 1 = .1*.2 + .4*.8 + .3*.6 + .2*.4 = 0.6.
    """
    if approach == 2:
        return -conditional_entropy(table, unit="nats")
    # sum_{x,y} p(x,y) p(y|x) = sum_x (sum_y n_xy^2) / n_x / n, on counts directly
    c = table.counts
    n_x = _sum_classes(c)
    ratio = np.divide(_sum_classes(c * c), n_x, out=np.zeros_like(n_x), where=n_x > 0)
    return ratio.sum(axis=-1) / n_x.sum(axis=-1)


def conjunction_factors(source, recall: bool) -> np.ndarray:
    """a_j(X_j) of every row for every feature, shape (n, rows): eta_j(v) = P(Y=1 | X_j=v) for precision,
    1 - eta_j(v) for recall (each feature's own predictor; it does not depend on the subset)."""
    mass = _class_mass(source)
    eta_weights = np.stack([mass[:, 1], mass.sum(axis=1)], axis=1)
    out = np.empty((source.n_features, source.n_rows))
    block = max(1, _CHUNK_FLOATS // max(source.n_rows, 1))
    for start in range(0, source.n_features, block):  # feature blocks bound the counting temporaries
        codes = np.ascontiguousarray(source.X[:, start:start + block].T)
        a = _predictors(_value_masses(codes, eta_weights), recall)
        out[start:start + block] = np.take_along_axis(a, codes, axis=1)
    return out


def removal_conjunction_criteria(source, factors: np.ndarray, kept: Sequence[int] | np.ndarray, approach: int,
                                 recall: bool) -> np.ndarray:
    """The precision (recall) criterion of kept \\ {kept[i]} for every i, as
    ``fslab.measures.precision_recall`` defines it for a subset (notes 003, eq. 11-12, 17-18, Sec. 2.1-2.2).

    ``factors`` = ``conjunction_factors(source, recall)``: a_i(X_i) per row; P = prod_{i in J'} a_i(X_i);
    'target' is class 1 (precision) or 0 (recall). Approach 1: E[target P + other (1 - P)];
    approach 2: E[target sum_i ln a_i(X_i) + other ln(1 - P)].
    """
    kept = np.asarray(kept, dtype=np.int64)
    mass = _class_mass(source)
    target, other = (mass[:, 0], mass[:, 1]) if recall else (mass[:, 1], mass[:, 0])
    total = mass.sum()
    t_rows, o_rows = target > 0, other > 0
    tiny = np.finfo(np.float64).tiny
    logs = np.zeros(kept.size)
    fit = np.zeros(kept.size)  # approach 1: sum target P + other (1 - P); approach 2: sum other ln(1 - P)
    step = max(1, _CHUNK_FLOATS // max(kept.size, 1))
    for start in range(0, source.n_rows, step):  # row blocks bound the (K, rows) temporaries
        rows = slice(start, start + step)
        a = factors[kept, rows]  # (K, block)
        left = np.ones_like(a)   # prod of a_0..a_{i-1}
        right = np.ones_like(a)  # prod of a_{i+1}..a_{K-1}
        np.cumprod(a[:-1], axis=0, out=left[1:])
        np.cumprod(a[:0:-1], axis=0, out=right[-2::-1])
        P = np.multiply(left, right, out=left)
        t, o = target[rows], other[rows]
        if approach == 1:  # sum target P + other (1 - P) = sum other + P (target - other)
            fit += P @ (t - o) + o.sum()
            continue
        logs += np.log(np.maximum(a[:, t_rows[rows]], tiny)) @ t[t_rows[rows]]
        with np.errstate(divide="ignore"):
            fit += np.log(1.0 - P[:, o_rows[rows]]) @ o[o_rows[rows]]
    if approach == 1:
        return fit / total
    return (logs.sum() - logs + fit) / total




class FactorEvaluator(Evaluator):
    """The precision (recall) criterion of a subset on a source with row codes, from each feature's own
    predictor: ``criterion`` and ``extensions`` by :func:`_values`, ``removals`` by prefix / suffix
    products of the per-feature factors (no division by a zero factor). Needs row codes (a sample or a
    Distribution); both engines give the same numbers (``engine="plain"`` removes one feature at a time)."""

    def __init__(self, measure, source, engine: str = "auto", *, recall: bool = False):
        super().__init__(measure, source, engine)
        if not isinstance(source, CodedSource):
            raise ParameterError(f"the {measure.name} criterion needs row codes (a sample or a Distribution); "
                                 f"got {type(source).__name__}")
        self.recall = recall
        self.approach = int(measure.params["approach"])
        self._factors: np.ndarray | None = None

    def criterion(self, subset: Sequence[int]) -> float:
        return float(_values(self.source, subset, None, self.approach, self.recall)[0])

    def extensions(self, subset: Sequence[int], candidates: Sequence[int] | np.ndarray) -> np.ndarray:
        return _values(self.source, subset, candidates, self.approach, self.recall)

    def removals(self, kept: Sequence[int] | np.ndarray) -> np.ndarray:
        if self.engine == "plain":
            return super().removals(kept)
        if self._factors is None:  # each feature's own predictor a_j(X_j): the same at every step
            self._factors = conjunction_factors(self.source, self.recall)
        return removal_conjunction_criteria(self.source, self._factors, kept, self.approach, self.recall)


class CrossFittedFactorEvaluator(FactorEvaluator):
    """The held-out (cross-fitted) precision (recall) criterion: each row's factor a_j(x_j) comes from feature j's
    predictor fitted on the OTHER folds, eta_j^(-f)(v) = n_-f(X_j = v, Y = 1) / n_-f(X_j = v) (a value unseen
    there: the training prior); approach 2 smooths it towards that prior by one pseudo-row (a log of 0 would be
    infinite), as the held-out log-loss does. The objective is then the notes' mean over all rows, each row held
    out exactly once (``fslab.measures.cross_fit`` gives the folds: ``folds`` and ``seed``, or one fold per row)."""

    estimate = "cross-fitted"
    _factors: np.ndarray  # set by __init__, never None here

    def __init__(self, measure, source, engine: str = "auto", *, recall: bool = False, folds=5, seed=0):
        _, folds = check_estimate("cross-fitted", folds)
        require_sample(source)
        super().__init__(measure, source, engine, recall=recall)
        fold, self.n_folds, self.notes = assign_folds(source.y, folds, seed, getattr(source, "class_names", None))
        self.seed = None if isinstance(folds, np.ndarray) else check_seed(seed)
        self.fold_of_row = fold
        self._factors = self._held_out_factors()

    def _held_out_factors(self) -> np.ndarray:
        """a_j(x_rj) of every feature j and row r from the predictor fitted without row r's fold: (n, rows)."""
        src, F = self.source, self.n_folds
        mass = _class_mass(src)
        one_hot = np.zeros((src.n_rows, F), dtype=np.float64)
        one_hot[np.arange(src.n_rows), self.fold_of_row] = 1.0
        weights = np.concatenate([one_hot * mass[:, 1:2], one_hot * mass.sum(axis=1, keepdims=True)], axis=1)
        fold_pos, fold_all = weights[:, :F].sum(axis=0), weights[:, F:].sum(axis=0)
        prior = (fold_pos.sum() - fold_pos) / np.maximum(fold_all.sum() - fold_all, 1e-300)   # (F,)
        smooth = LOG_SMOOTHING if self.approach == 2 else 0.0
        out = np.empty((src.n_features, src.n_rows))
        block = max(1, _CHUNK_FLOATS // max(src.n_rows * F, 1))
        for start in range(0, src.n_features, block):
            codes = np.ascontiguousarray(src.X[:, start:start + block].T)
            masses = _value_masses(codes, weights)                      # (c, values, 2F)
            pos, tot = masses[..., :F], masses[..., F:]
            pos, tot = pos.sum(axis=-1, keepdims=True) - pos, tot.sum(axis=-1, keepdims=True) - tot
            eta = np.divide(pos + smooth * prior, tot + smooth, out=np.broadcast_to(prior, pos.shape).copy(),
                            where=tot > 0)
            a = 1.0 - eta if self.recall else eta
            out[start:start + codes.shape[0]] = a[np.arange(codes.shape[0])[:, None], codes, self.fold_of_row]
        return out

    def _objective(self, P: np.ndarray, logs: np.ndarray) -> np.ndarray:
        """The notes' objective per candidate from P (c, rows) and sum_i ln a_i over J (c, rows)."""
        mass = _class_mass(self.source)
        target, other = (mass[:, 0], mass[:, 1]) if self.recall else (mass[:, 1], mass[:, 0])
        if self.approach == 1:
            return (P @ target + (1.0 - P) @ other) / mass.sum()
        return (logs @ target + np.log(np.maximum(1.0 - P, _TINY)) @ other) / mass.sum()

    def criterion(self, subset: Sequence[int]) -> float:
        a = self._factors[np.asarray(list(subset), dtype=np.int64)]
        P, logs = a.prod(axis=0)[None], np.log(np.maximum(a, _TINY)).sum(axis=0)[None]
        return float(self._objective(P, logs)[0])

    def extensions(self, subset: Sequence[int], candidates: Sequence[int] | np.ndarray) -> np.ndarray:
        a = self._factors[np.asarray(list(subset), dtype=np.int64)]
        base, base_log = a.prod(axis=0), np.log(np.maximum(a, _TINY)).sum(axis=0)
        candidates = np.asarray(list(candidates), dtype=np.int64)
        out = np.empty(candidates.size)
        chunk = max(1, _CHUNK_FLOATS // max(self.source.n_rows, 1))
        for start in range(0, candidates.size, chunk):
            c = self._factors[candidates[start:start + chunk]]
            out[start:start + c.shape[0]] = self._objective(base * c, base_log + np.log(np.maximum(c, _TINY)))
        return out

    def removals(self, kept: Sequence[int] | np.ndarray) -> np.ndarray:
        if self.engine == "plain":
            return Evaluator.removals(self, kept)
        return removal_conjunction_criteria(self.source, self._factors, kept, self.approach, self.recall)


def _check(params: dict) -> None:
    if params["approach"] not in (1, 2) or isinstance(params["approach"], bool):
        raise ParameterError(
            f"approach must be 1 (sum of probabilities) or 2 (log-likelihood); got {params['approach']!r}")


_REFERENCES = {
    "precision": "Greedy derivation notes (003), precision: eq. (11)-(12) and Sec. 2.1",
    "recall": "Greedy derivation notes (003), recall: eq. (17)-(18) and Sec. 2.2",
}


def _spec(name: str, recall: bool, formula: str) -> MeasureSpec:
    return MeasureSpec(
        name=name,
        label=f"{name} criterion",
        func=compound_score,
        greater_is_better=True,
        formula=formula,
        reference=_REFERENCES[name],
        parameters={"approach": Param(1, "1: sum of probabilities (eq. 11-12 / 17-18); 2: log-likelihood "
                                          "(Sec. 2.1 / 2.2)", choices=(1, 2))},
        check=_check,
        law_of_eta=False,
        evaluator=partial(FactorEvaluator, recall=recall),
        cross_fitted_evaluator=partial(CrossFittedFactorEvaluator, recall=recall),
        needs_rows=True,
    )


_P, _R = r"\textstyle\prod_{i\in J}\eta_i(X_i)", r"\textstyle\prod_{i\in J}(1-\eta_i(X_i))"
_ETA = r"\\&\text{with } \eta_i(x_i) = \mathbf{P}(Y=1\mid X_i=x_i)\text{ (feature } i\text{'s own predictor)}"
PRECISION = _spec("precision", False, (
    r"\begin{aligned}&\text{(1) } \mathbf{E}\big[Y" + _P + r" + (1-Y)\big(1-" + _P + r"\big)\big]\\"
    r"&\text{(2) } \mathbf{E}\big[Y\textstyle\sum_{i\in J}\ln\eta_i(X_i) + (1-Y)\ln\big(1-" + _P
    + r"\big)\big]" + _ETA + r"\end{aligned}"))
RECALL = _spec("recall", True, (
    r"\begin{aligned}&\text{(1) } \mathbf{E}\big[(1-Y)" + _R + r" + Y\big(1-" + _R + r"\big)\big]\\"
    r"&\text{(2) } \mathbf{E}\big[(1-Y)\textstyle\sum_{i\in J}\ln(1-\eta_i(X_i)) + Y\ln\big(1-" + _R
    + r"\big)\big]" + _ETA + r"\end{aligned}"))
