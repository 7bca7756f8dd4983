"""Bayes cost-sensitive error (Ahmed et al., Example 3): a binary cost c, or a K x K cost matrix for K classes.

``c`` is the paper's cost of a false positive (a false negative costs 1 - c), or a cost matrix C (K x K, entries
>= 0, any diagonal): C[y, k] is the cost of predicting class k when the truth is y. The binary c is the matrix
[[0, c], [1 - c, 0]].
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from ..tables import JointTable
from ._folds import along_folds, binary_eta, test_total
from .base import HeldOutCells, MeasureSpec, MixedCellReducer, Param


def cost_matrix(c) -> np.ndarray | None:
    """The cost matrix C (K, K) that ``c`` gives, or None for the binary cost c (a number)."""
    return None if np.ndim(c) == 0 else np.asarray(c, dtype=np.float64)


def cost_sensitive_error(table: JointTable, c=0.25) -> np.ndarray:
    """er^{c,*} = E_X[min((1-c) eta(X), c (1-eta(X)))] = sum_x min((1-c) p(x,1), c p(x,0)).

    Example 3's loss costs c for a false positive (y=0, yhat=1) and 1-c for a false negative. At a
    cell x, predicting 1 costs c (1-eta(x)) in expectation and predicting 0 costs (1-c) eta(x); the
    Bayes classifier takes the smaller. At c = 1/2 this is half the 0-1 error.
    A cost matrix C: er^{C,*} = sum_x min_k sum_y C[y, k] p(x, y) (the Bayes rule argmin_k sum_y C[y, k] p(y|x)).
    Tiny table, c = 0.25: p = [[.4, .1], [.2, .3]] -> min(.75*.1, .25*.4) + min(.75*.3, .25*.2)
    = .075 + .05 = 0.125.
    """
    p = table.probabilities()
    C = cost_matrix(c)
    if C is not None:
        return (p @ C).min(axis=-1).sum(axis=-1)
    return np.minimum((1.0 - c) * p[..., 1], c * p[..., 0]).sum(axis=-1)


def held_out_cost_sensitive(train: np.ndarray, test: np.ndarray, labels, c=0.25, **_) -> np.ndarray:
    """Held-out cost of the plug-in rule 1((1-c) eta_train(x) > c (1 - eta_train(x))) (ties: 0):
    (c FP + (1-c) FN) / m_test, per fold. A cost matrix: the rule argmin_k sum_y C[y, k] n_train(x, y) (ties: the
    lower label; an unseen cell: the training class counts), scored sum_x sum_y C[y, rule(x)] n_test(x, y) / m_test."""
    C = cost_matrix(c)
    if C is not None:
        risk = np.where(train.sum(axis=-1, keepdims=True) > 0, train, train.sum(axis=-2, keepdims=True)) @ C
        cost = np.take_along_axis(test @ C, risk.argmin(axis=-1)[..., None], axis=-1)[..., 0]
        return cost.sum(axis=-1) / test_total(test)
    eta = binary_eta(train)[0]
    positive = (1.0 - c) * eta > c * (1.0 - eta)
    fp = np.where(positive, test[..., 0], 0.0).sum(axis=-1)
    fn = np.where(positive, 0.0, test[..., 1]).sum(axis=-1)
    return (c * fp + (1.0 - c) * fn) / test_total(test)


def _by_class(counts: np.ndarray, C: np.ndarray) -> np.ndarray:
    """sum_y counts[:, :, y, ...] C[y, k] for every k: class axis 2 -> the K predictions on axis 2."""
    return np.moveaxis(np.tensordot(C.T, counts, axes=([1], [2])), 0, 2)


def _held_out_cells(train: np.ndarray, test: np.ndarray, rows: np.ndarray, params) -> np.ndarray:
    """Each cell's held-out cost over its fold's rows: counts (C, F, L, ...), class axis 2 -> (C, F, ...)."""
    c = params["c"]
    n = train.sum(axis=2)
    class_train = rows.sum(axis=0) - rows
    C = cost_matrix(c)
    if C is not None:
        risk = np.where(n[:, :, None] > 0, _by_class(train, C),
                        along_folds(class_train @ C, train.ndim))
        cost = np.take_along_axis(_by_class(test, C), risk.argmin(axis=2)[:, :, None], axis=2)[:, :, 0]
        return cost / along_folds(rows.sum(axis=1), cost.ndim)
    c = float(c)
    pi = along_folds(class_train[:, 1] / class_train.sum(axis=-1), n.ndim)
    eta = np.divide(train[:, :, 1], n, out=np.broadcast_to(pi, n.shape).copy(), where=n > 0)
    positive = (1.0 - c) * eta > c * (1.0 - eta)
    cost = np.where(positive, c * test[:, :, 0], (1.0 - c) * test[:, :, 1])
    return cost / along_folds(rows.sum(axis=1), cost.ndim)


def _held_out_prior(rows: np.ndarray, params) -> np.ndarray:
    """Cost (F, L) of one held-out row of each class under the prior's rule 1((1-c) pi > c (1 - pi)) (a matrix:
    argmin_k sum_y C[y, k] N_train(y)), over the fold's rows."""
    c = params["c"]
    class_train = rows.sum(axis=0) - rows
    C = cost_matrix(c)
    if C is not None:
        return C.T[(class_train @ C).argmin(axis=-1)] / rows.sum(axis=1, keepdims=True)
    c = float(c)
    pi = class_train[:, 1] / class_train.sum(axis=-1)
    positive = (1.0 - c) * pi > c * (1.0 - pi)
    cost = np.stack([np.where(positive, c, 0.0), np.where(positive, 0.0, 1.0 - c)], axis=-1)
    return cost / rows.sum(axis=1, keepdims=True)


def parse_cost_matrix(text: str) -> tuple[tuple[float, ...], ...]:
    """A cost matrix from text: rows split by ';', entries by ',' ("0,1,2;1,0,1;4,1,0"), or JSON ([[0, 1], ...])."""
    import json

    try:
        rows = json.loads(text) if text.lstrip().startswith("[") else \
            [[float(v) for v in row.split(",")] for row in text.strip().strip(";").split(";")]
        matrix = tuple(tuple(float(v) for v in row) for row in rows)
    except (ValueError, TypeError) as err:
        raise ParameterError(f"cannot read the cost matrix {text!r}: write rows separated by ';' and entries by ',', "
                             "e.g. '0,1,2;1,0,1;4,1,0' (row y = the true class, column k = the prediction)") from err
    _check({"c": matrix})
    return matrix


def _check(params: dict) -> None:
    c = params["c"]
    if isinstance(c, (int, float, np.number)) and not isinstance(c, bool):
        if not 0.0 < float(c) < 1.0:
            raise ParameterError(f"the cost c must lie strictly between 0 and 1 (cost of a false positive), or be a "
                                 f"K x K cost matrix; got {c!r}")
        return
    try:
        C = np.asarray(c, dtype=np.float64)
    except (ValueError, TypeError):
        raise ParameterError(f"a cost matrix must be square, K rows of K numbers each; got {c!r}") from None
    if C.ndim == 0 or isinstance(c, (str, bytes, bool)):
        raise ParameterError(f"the cost c must be a number strictly between 0 and 1 (cost of a false positive) or a "
                             f"K x K cost matrix; got {c!r}")
    if C.ndim != 2 or C.shape[0] != C.shape[1] or C.shape[0] < 2:
        raise ParameterError(f"a cost matrix must be square, K x K with K >= 2 classes (row y = the true class, "
                             f"column k = the prediction); got shape {' x '.join(map(str, C.shape))}")
    if not np.isfinite(C).all() or (C < 0).any():
        bad = np.argwhere(~(C >= 0) | ~np.isfinite(C))
        raise ParameterError("a cost matrix must hold finite, non-negative costs; got "
                             + ", ".join(f"C[{y}, {k}] = {C[y, k]}" for y, k in bad))


def _check_target(labels: np.ndarray, params) -> None:
    """A cost matrix has one row and column per class of the target; the binary c needs two classes."""
    K = len(labels)
    C = cost_matrix(params["c"])
    if C is None and K != 2:
        raise ParameterError(
            f"the cost c is for a binary target; this target has {K} classes. Give a {K} x {K} cost matrix "
            f"(c=[[...], ...] in the library, --cost-matrix '0,1,...;...' on the command line: row y = the true class, "
            "column k = the prediction), or pick a positive class (one-vs-rest: positive= / --positive)")
    if C is not None and C.shape[0] != K:
        raise ParameterError(f"the cost matrix is {C.shape[0]} x {C.shape[0]} but the target has {K} classes "
                             f"({', '.join(map(str, labels[:6]))}{', ...' if K > 6 else ''}); give {K} x {K} costs")


def _mixed_cell_costs(counts: np.ndarray, params, nlogn) -> np.ndarray:
    """Per feature j: sum over mixed cells (c, v) of min((1-c) n_cv1, c n_cv0) (pure cells cost nothing). A cost
    matrix: min_k sum_y C'[y, k] n_cvy with C' = C minus each row's minimum (a pure cell then costs 0; ``_finish``
    adds back sum_y N_y min_k C[y, k])."""
    C = cost_matrix(params["c"])
    if C is not None:
        return _by_class(counts[:, None], C - C.min(axis=1, keepdims=True))[:, 0].min(axis=1).sum(axis=(0, 1))
    c = float(params["c"])
    return np.minimum((1.0 - c) * counts[:, 1], c * counts[:, 0]).sum(axis=(0, 1))


def _finish(sums: np.ndarray, m: int, class_counts: np.ndarray, params) -> np.ndarray:
    C = cost_matrix(params["c"])
    floor = 0.0 if C is None else float(class_counts @ C.min(axis=1))
    return (sums + floor) / m


# c's one default. The paper's cost-sensitive experiments (Ahmed et al., Section 4.1, Table 2: "Adult
# (c = 0.25)") run at c = 0.25, and at c = 1/2 the cost-sensitive error is exactly half the 0-1 error, so
# that default would select the same features as the 0-1 error and teach nothing about costs.
DEFAULT_C = 0.25

SPEC = MeasureSpec(
    name="cost-sensitive",
    label="cost-sensitive error",
    func=cost_sensitive_error,
    greater_is_better=False,
    binary_only=False,
    formula=(r"\mathrm{er}^{c,*}_{D_J} = \mathbf{E}_X\big[\min\big((1-c)\,\eta_J(X_J),\; c\,(1-\eta_J(X_J))\big)"
             r"\big];\ \text{a cost matrix: } \mathbf{E}_X\big[\min_k \textstyle\sum_y C_{yk}\, p(y \mid X_J)\big]"),
    reference="Ahmed et al., Example 3 (c = cost of a false positive, 1-c of a false negative; a K x K matrix C: "
              "C[y, k] = cost of predicting k when the truth is y)",
    parameters={"c": Param(DEFAULT_C, "cost of a false positive (a false negative costs 1 - c); the paper's "
                                      "experiments use c = 0.25 (Section 4.1, Table 2); c = 0.5 gives half the "
                                      "0-1 error", low=0.05, high=0.95, step=0.05)},
    check=_check,
    check_target=_check_target,
    mixed_cells=MixedCellReducer(_mixed_cell_costs, _finish),
    held_out=held_out_cost_sensitive,
    held_out_cells=HeldOutCells(_held_out_cells, _held_out_prior),
)
