"""FBS and FOS: BS and OS on a finite sample (Pena and Nilsson, Section 5).

The exact test R(S \\ X_i) = R(S) becomes  R^(I(D_{S \\ X_i})) <= R^(I(D_S)) + tau, with I a
scikit-learn inducer trained on the columns of the subset and R^ a hold-out or cross-validated error
estimate. With a universally consistent inducer and a consistent estimator, both recover S* as the
sample grows, for any tau in (0, eta) (Theorem 8).

Choosing tau. It must exceed the noise of a *paired* difference of two risk estimates computed on
the same evaluation rows (the split or folds are fixed for the whole run, so differences are paired):
its standard error is at most sqrt(q / m_eval) with q the fraction of rows on which the two classifiers
disagree. Dropping an irrelevant feature changes few predictions (small q); even q = 1 gives 0.01 at
m_eval = 10,000. And tau must stay below eta, the smallest increase of the Bayes risk caused by dropping
a feature of S* (Theorem 8), which we compute exactly for toy distributions (``MinimalResult.eta``).
The default 0.02 is two worst-case standard errors at m_eval = 10,000 (a 20,000-row sample split in
half) and suits distributions whose features of S* each carry at least a few points of risk.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ParameterError, TooLargeError
from ..tables import as_source
from .minimal import backward_checks, one_shot_checks
from .orderings import subset_label


# scikit-learn is imported when an estimator is made, not with this module: the Orderings page's first draw (and
# `import fslab`) needs none of it, and it is 0.5-2 s of a cold import on two cores.
def _knn(m: int, seed: int):
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    return make_pipeline(OneHotEncoder(handle_unknown="ignore", sparse_output=False),
                         KNeighborsClassifier(n_neighbors=max(1, int(np.sqrt(m)))))


def _naive_bayes(m: int, seed: int):
    from sklearn.naive_bayes import CategoricalNB

    return CategoricalNB(min_categories=None)


def _tree(m: int, seed: int):
    from sklearn.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(random_state=seed)


def _svm(m: int, seed: int):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder
    from sklearn.svm import SVC

    return make_pipeline(OneHotEncoder(handle_unknown="ignore", sparse_output=False), SVC(random_state=seed))


# Inducers on integer feature codes. k-NN and SVM see one-hot codes (distances between category
# codes mean nothing); the tree and categorical naive Bayes use the codes directly.
INDUCERS: dict[str, tuple[str, Callable[[int, int], Any]]] = {  # (label, (rows, seed) -> estimator)
    "knn": ("k-nearest neighbours", _knn),
    "naive-bayes": ("naive Bayes", _naive_bayes),
    "tree": ("decision tree", _tree),
    "svm": ("SVM (RBF)", _svm),
}
INDUCER_NOTES = {"knn": "k = sqrt(m) neighbours on one-hot codes.",
                 "naive-bayes": "categorical naive Bayes: one class-conditional table per feature.",
                 "tree": "grown fully, so it is a lookup table of the cells of the subset.",
                 "svm": "RBF kernel on one-hot codes; slow beyond ~5,000 rows."}
MAX_FBS_FEATURES = 30
ESTIMATORS = {"holdout": "hold-out", "cv": "cross-validation"}
ESTIMATOR_NOTES = {"holdout": "train on half of the rows, count errors on the other half.",
                   "cv": "stratified folds: every row is counted once, by a model trained without it."}


@dataclass(frozen=True)
class FiniteResult:
    """Output of FBS or FOS: the kept features and every removal decision with its two risk estimates."""

    method: str
    selected: tuple[int, ...]
    names: str
    steps: pd.DataFrame
    inducer: str
    estimator: str
    tau: float


class _RiskEstimator:
    """R^(I(D_T)) for feature subsets T, with one fixed split (or fixed folds) and a memo."""

    def __init__(self, data, inducer: str, estimator: str, folds: int, seed):
        if inducer not in INDUCERS:
            raise ParameterError(f"unknown inducer '{inducer}'; choose one of: {', '.join(INDUCERS)}")
        if estimator not in ESTIMATORS:
            raise ParameterError(f"unknown risk estimator '{estimator}'; choose one of: {', '.join(ESTIMATORS)}")
        if estimator == "cv" and not 2 <= int(folds) <= 20:
            raise ParameterError(f"folds must be between 2 and 20; got {folds}")
        self.X, self.y, self.arities = data.X, data.y, data.arities
        class_sizes = np.bincount(self.y)
        class_sizes = class_sizes[class_sizes > 0]
        if class_sizes.size < 2:
            raise ParameterError("the sample has a single class; FBS/FOS need at least two")
        needed = 2 if estimator == "holdout" else int(folds)
        if class_sizes.min() < needed:
            raise ParameterError(
                f"the smallest class has {class_sizes.min()} row(s); the {ESTIMATORS[estimator].split(' (')[0]} "
                f"estimate needs at least {needed} per class. Draw a larger sample or use fewer folds."
            )
        from sklearn.model_selection import StratifiedKFold, train_test_split

        seed = 0 if seed is None else int(seed)
        idx = np.arange(len(self.y))
        if estimator == "holdout":
            train, test = train_test_split(idx, test_size=0.5, random_state=seed, stratify=self.y)
            self.splits = [(train, test)]
        else:
            self.splits = list(StratifiedKFold(int(folds), shuffle=True, random_state=seed).split(idx, self.y))
        self.inducer, self.seed = inducer, seed
        self.memo: dict[tuple[int, ...], float] = {}

    def __call__(self, subset) -> float:
        from sklearn.base import clone
        from sklearn.dummy import DummyClassifier
        from sklearn.naive_bayes import CategoricalNB

        key = tuple(sorted(subset))
        if key not in self.memo:
            errors = 0
            for train, test in self.splits:
                model = (DummyClassifier(strategy="most_frequent") if not key
                         else INDUCERS[self.inducer][1](len(train), self.seed))
                if isinstance(model, CategoricalNB):  # every code seen or not, so predict never fails
                    model = clone(model).set_params(min_categories=self.arities[list(key)])
                Xs = self.X[:, key] if key else np.zeros((len(self.y), 1))
                model.fit(Xs[train], self.y[train])
                # Discrete features: predict each distinct row once (k-NN on 10,000 rows gets ~100x faster).
                cells, inverse = np.unique(Xs[test], axis=0, return_inverse=True)
                errors += int(np.sum(model.predict(cells)[inverse.ravel()] != self.y[test]))
            self.memo[key] = errors / sum(len(t) for _, t in self.splits)
        return self.memo[key]


def _check_tau(tau: float) -> float:
    if not 0 < float(tau) < 1:
        raise ParameterError(f"tau must be in (0, 1) (Theorem 8 needs tau > 0); got {tau}")
    return float(tau)


def tolerance_note(tau: float, eta: float | None) -> str | None:
    """A warning when ``tau`` is not inside Theorem 8's (0, eta): FBS/FOS then remove features of S* whatever the
    sample size (``eta``: the exact distribution's smallest risk step, ``BackwardResult.eta``; None or 0 when
    unknown or when S* is empty). None when the tolerance fits."""
    if eta is None or not eta > 0 or tau < eta:
        return None
    return (f"τ = {tau:g} is not below η = {eta:.4g}, the smallest rise of the Bayes risk caused by removing a "
            f"feature of S* from this distribution: Theorem 8 needs 0 < τ < η, and with τ ≥ η FBS and FOS can drop "
            f"features of S* however many rows they get. Use τ < {eta:.4g} (and enough rows m that the risk "
            "estimates' noise stays below τ).")


def _result(method: str, kept, steps: pd.DataFrame, names, inducer: str, estimator: str, tau: float):
    steps.insert(steps.columns.get_loc("removed"), "threshold", steps["risk_with"] + tau)
    return FiniteResult(method, kept, subset_label(kept, names), steps, inducer, estimator, tau)


def fbs(dataset, inducer: str = "tree", estimator: str = "holdout", tau: float = 0.02, folds: int = 5,
        seed=0) -> FiniteResult:
    """FBS: Table 1 with R(S \\ X_i) = R(S) replaced by R^(I(D_{S \\ X_i})) <= R^(I(D_S)) + tau.

    Fewer than n^2 risk comparisons; each row of ``steps`` is one decision with both estimates.
    """
    data, tau = as_source(dataset), _check_tau(tau)
    if data.n_features > MAX_FBS_FEATURES:
        raise TooLargeError(f"FBS makes up to n^2 = {data.n_features ** 2:,} risk comparisons for {data.n_features} "
                            f"features; it is limited to {MAX_FBS_FEATURES} features here. FOS needs only n.")
    risk = _RiskEstimator(data, inducer, estimator, folds, seed)
    kept, steps = backward_checks(data.feature_names, risk, lambda w, wo: wo <= w + tau)
    return _result("FBS", kept, steps, data.feature_names, inducer, estimator, tau)


def fos(dataset, inducer: str = "tree", estimator: str = "holdout", tau: float = 0.02, folds: int = 5,
        seed=0) -> FiniteResult:
    """FOS: Table 2 with R(¬X_i) = R(X) replaced by R^(I(D_{¬X_i})) <= R^(I(D)) + tau; n comparisons."""
    data, tau = as_source(dataset), _check_tau(tau)
    risk = _RiskEstimator(data, inducer, estimator, folds, seed)
    kept, steps = one_shot_checks(data.feature_names, risk, lambda w, wo: wo <= w + tau)
    return _result("FOS", kept, steps, data.feature_names, inducer, estimator, tau)
