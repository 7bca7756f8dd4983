"""Downstream learners matched to each performance measure, and the measures on a test sample.

Ahmed et al., Section 4 evaluate the selected features with a learner suited to the measure: RBF SVM
for the 0-1 error (Figure 1), cost-sensitive SVM for the cost-sensitive error (Figure 2), balanced
SVM with weights 1/p and 1/(1-p) for the balanced error and logistic regression plus a threshold
chosen on the training sample for F1 (Figure 4), logistic regression for the log-loss (Figure 3).
Naive Bayes, a decision tree and k-NN are fast alternatives. The paper's logistic regression uses an
RBF kernel: ``logistic-rbf`` (and ``logistic-rbf-threshold`` for F-beta) approximates it with scikit-learn's
Nystroem map (up to 300 RBF basis functions on training rows, gamma as SVC's "scale" on standardised
columns unless tuned) followed by a linear logistic regression; ``logistic`` is the faster linear one the app
uses by default (said in the app).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.kernel_approximation import Nystroem
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import CategoricalNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier

from .errors import ParameterError
from .measures import MEASURES, SCORABLE

# Measures a test sample can be scored on, with their direction: the records with a test-sample scorer (read on use).
EVAL_MEASURES: Mapping[str, bool] = SCORABLE


def empirical_value(measure: str, y: np.ndarray, pred: np.ndarray, proba: np.ndarray | None = None,
                    **params) -> float:
    """The measure of predictions on a test sample (y: class index, 1 = positive): its record's ``empirical``
    scorer (:mod:`fslab.measures.empirical`) with its parameters (defaults filled in; names it does not take are
    ignored, so one dict of c, beta, ... serves every measure)."""
    spec = MEASURES.get(measure)
    if spec is None or spec.empirical is None:
        raise ParameterError(
            f"cannot score measure '{measure}' on a test sample; choose one of: {', '.join(EVAL_MEASURES)}")
    bound = {**spec.params, **{name: value for name, value in params.items() if name in spec.parameters}}
    return spec.empirical(np.asarray(y), np.asarray(pred), proba, **bound)


def best_threshold(y: np.ndarray, score: np.ndarray, beta: float = 1.0) -> float:
    """The threshold t maximising F_beta of 1(score >= t) on (y, score): tried at every distinct score."""
    order = np.argsort(-score, kind="stable")
    s, yy = score[order], y[order]
    tp = np.cumsum(yy == 1)
    fp = np.cumsum(yy != 1)
    last = np.r_[s[1:] != s[:-1], True]  # equal scores go together
    n_pos = tp[-1]
    f = (1 + beta**2) * tp / np.maximum((1 + beta**2) * tp + beta**2 * (n_pos - tp) + fp, 1e-300)
    f = np.where(last, f, -1.0)
    return float(s[int(np.argmax(f))])


class ThresholdedClassifier(ClassifierMixin, BaseEstimator):
    """A probabilistic classifier whose positive threshold maximises F_beta on its own training sample.

    The plug-in F-measure learner of Ahmed et al., Section 4.3 (logistic regression then empirical thresholding).
    """

    def __init__(self, estimator=None, beta: float = 1.0):
        self.estimator = estimator
        self.beta = beta

    def fit(self, X, y):
        self.estimator_ = clone(self.estimator if self.estimator is not None else LogisticRegression())
        self.estimator_.fit(X, y)
        self.classes_ = self.estimator_.classes_
        self.threshold_ = best_threshold(np.asarray(y), self.estimator_.predict_proba(X)[:, 1], self.beta)
        return self

    def predict_proba(self, X):
        return self.estimator_.predict_proba(X)

    def predict(self, X):
        return self.classes_[(self.predict_proba(X)[:, 1] >= self.threshold_).astype(int)]


@dataclass(frozen=True)
class LearnerSpec:
    """A learner: ``build(c, beta, p, **hyper)`` returns an unfitted estimator on the design matrix
    (``input="design"``) or on the integer codes (``input="codes"``); ``grid`` lists hyper-parameters
    tried on a held-out 20% of the training part when tuning is asked for."""

    name: str
    label: str
    build: Callable[..., BaseEstimator]
    input: str = "design"
    grid: tuple[Mapping[str, object], ...] = field(default=({},))


def _svm(weights: Callable[[float, float], dict | None]):
    def build(c=0.5, beta=1.0, p=0.5, C=1.0, gamma="scale"):
        return make_pipeline(StandardScaler(), SVC(C=C, gamma=gamma, class_weight=weights(c, p)))
    return build


_SVM_GRID = tuple({"C": C, "gamma": g} for C in (0.1, 1.0, 10.0) for g in ("scale", 0.1))
_LR_GRID = tuple({"C": C} for C in (0.01, 0.1, 1.0, 10.0))


def _logistic(c=0.5, beta=1.0, p=0.5, C=1.0):
    return make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=500))


def _logistic_threshold(c=0.5, beta=1.0, p=0.5, C=1.0):
    return ThresholdedClassifier(_logistic(C=C), beta=beta)


RBF_COMPONENTS = 300  # Nystroem basis functions (at most the training rows); fixed seed: the map is reproducible
_RBF_LR_GRID = tuple({"C": C, "gamma": g} for C in (0.1, 1.0, 10.0) for g in (None, 0.1))


def _logistic_rbf(c=0.5, beta=1.0, p=0.5, C=1.0, gamma=None):
    """Kernel logistic regression with an RBF kernel, approximated: standardise, Nystroem features, then a linear
    logistic regression on them. gamma=None is 1 / n_features (SVC's "scale" on standardised columns)."""
    return make_pipeline(StandardScaler(), _Nystroem(gamma=gamma), LogisticRegression(C=C, max_iter=1000))


class _Nystroem(Nystroem):
    """Nystroem with n_components capped at the number of training rows (scikit-learn warns otherwise)."""

    def __init__(self, gamma=None, n_components=RBF_COMPONENTS, random_state=0):
        super().__init__(kernel="rbf", gamma=gamma, n_components=n_components, random_state=random_state)

    def fit(self, X, y=None):
        requested = self.n_components
        self.n_components = min(requested, len(X))
        try:
            try:
                super().fit(X, y)
            except np.linalg.LinAlgError:  # LAPACK's SVD can fail on the kernel of many repeated (one-hot) rows
                jitter = np.random.default_rng(0).normal(scale=1e-6, size=np.shape(X))
                super().fit(np.asarray(X, dtype=float) + jitter, y)
        finally:  # a parameter keeps the value it was given (scikit-learn's convention; clone copies it)
            self.n_components = requested
        return self


def _logistic_rbf_threshold(c=0.5, beta=1.0, p=0.5, C=1.0, gamma=None):
    return ThresholdedClassifier(_logistic_rbf(C=C, gamma=gamma), beta=beta)


def _cost_weights(c, p) -> dict:
    """Class weights of the cost-sensitive SVM (Example 3): a false positive costs c, a false negative 1 - c; a K x K
    cost matrix C: class y weighs its mean extra cost of a wrong prediction, mean_{k != y} (C[y, k] - C[y, y])
    ([[0, c], [1 - c, 0]] gives the binary weights c, 1 - c)."""
    if np.ndim(c) == 0:
        return {1: 1 - c, 0: c}
    C = np.asarray(c, dtype=np.float64)
    K = C.shape[0]
    return {y: float((C[y].sum() - K * C[y, y]) / (K - 1)) for y in range(K)}


def _balanced_weights(c, p) -> dict:
    """Class weights of the balanced SVM (Example 4): 1/p and 1/(1-p) for p = P(Y = 1); K classes (``p`` the K class
    shares): 1/p_y."""
    if np.ndim(p) == 0:
        return {1: 1 / max(p, 1e-12), 0: 1 / max(1 - p, 1e-12)}
    return {y: 1 / max(float(share), 1e-12) for y, share in enumerate(np.ravel(p))}


LEARNERS: Mapping[str, LearnerSpec] = MappingProxyType({spec.name: spec for spec in (
    LearnerSpec("svm", "RBF SVM", _svm(lambda c, p: None), grid=_SVM_GRID),
    LearnerSpec("svm-cost", "cost-sensitive RBF SVM (weights 1-c, c)", _svm(_cost_weights), grid=_SVM_GRID),
    LearnerSpec("svm-balanced", "balanced RBF SVM (weights 1/p, 1/(1-p))", _svm(_balanced_weights), grid=_SVM_GRID),
    LearnerSpec("logistic", "logistic regression", _logistic, grid=_LR_GRID),
    LearnerSpec("logistic-threshold", "logistic regression + F-beta threshold", _logistic_threshold, grid=_LR_GRID),
    LearnerSpec("logistic-rbf", "RBF-kernel logistic regression (Nystroem approximation)", _logistic_rbf,
                grid=_RBF_LR_GRID),
    LearnerSpec("logistic-rbf-threshold", "RBF-kernel logistic regression (Nystroem) + F-beta threshold",
                _logistic_rbf_threshold, grid=_RBF_LR_GRID),
    LearnerSpec("naive-bayes", "naive Bayes (categorical)",
                lambda c=0.5, beta=1.0, p=0.5, alpha=1.0: CategoricalNB(alpha=alpha), input="codes",
                grid=({"alpha": 0.1}, {"alpha": 1.0})),
    LearnerSpec("tree", "decision tree", lambda c=0.5, beta=1.0, p=0.5, max_depth=8:
                DecisionTreeClassifier(max_depth=max_depth, random_state=0),
                grid=({"max_depth": 4}, {"max_depth": 8}, {"max_depth": None})),
    LearnerSpec("knn", "k-nearest neighbours", lambda c=0.5, beta=1.0, p=0.5, n_neighbors=15:
                make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=n_neighbors)),
                grid=({"n_neighbors": 5}, {"n_neighbors": 15}, {"n_neighbors": 45})),
)})

# The paper's learner for each measure (Section 4).
PAPER_LEARNER: Mapping[str, str] = MappingProxyType({
    "zero-one": "svm", "cost-sensitive": "svm-cost", "balanced": "svm-balanced", "log-loss": "logistic",
    "f-beta": "logistic-threshold", "auc": "logistic",
})


def paper_learner(measure: str) -> str:
    """The paper's learner for ``measure`` (Section 4), else logistic regression (it gives the probabilities every
    test-sample scorer can use)."""
    return PAPER_LEARNER.get(measure, "logistic")


def learner(name: str) -> LearnerSpec:
    """The learner record called ``name``."""
    try:
        return LEARNERS[name]
    except KeyError:
        raise ParameterError(f"unknown learner '{name}'; choose one of: {', '.join(LEARNERS)}") from None
