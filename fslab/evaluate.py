"""scikit-learn adapter: a SelectorMixin transformer that runs any fslab selector inside a Pipeline.

Selection is a filter fitted on the rows ``fit`` receives, so in ``Pipeline([("select",
FeatureSelector(...)), ("learn", SVC())])`` under cross-validation the features are chosen anew on
each training fold and the test fold never influences them (Ahmed et al., Section 4: "the feature
selection methods and learning algorithms [are] applied on the training set").

The learning curves of Section 4 live in :mod:`fslab.curves` (re-exported here, where DESIGN.md
places them) and the measure-matched learners in :mod:`fslab.learners`.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .curves import CurveResult, learning_curves
from .data.dataset import Dataset, encode_target
from .data.discretize import DISCRETE_MAX, bin_edges, check_method
from .data.encoded import EncodedDataset
from .data.sparse import is_sparse, sparse_sample
from .errors import DataError, ParameterError
from .measures import measure as get_measure
from .selectors import select

__all__ = ["CurveResult", "FeatureSelector", "encode_columns", "learning_curves"]


def _as_table(X) -> pd.DataFrame | None:
    """X as a DataFrame when it needs the library's table reading (text or categorical columns, missing values),
    else None (numeric arrays and sparse matrices take the array paths)."""
    if is_sparse(X):
        return None
    if isinstance(X, pd.DataFrame):
        numeric = all(isinstance(t, np.dtype) and t.kind in "biuf" for t in X.dtypes)
        return X if not numeric or X.isna().to_numpy().any() else None
    array = np.asarray(X)
    if array.dtype.kind == "O" or (array.dtype.kind == "f" and np.isnan(array).any()):
        return pd.DataFrame(array)
    return None


def _single_scores(data, selection, selector: str, measure: str, how: dict, params: dict) -> np.ndarray:
    """Each feature's criterion on its own: the trace's first step for forward and ranking selectors (every feature
    is a candidate there), else C({j}) of the measure."""
    trace = selection.trace
    first = trace[trace["step"] == 1] if "step" in trace else trace.iloc[:0]
    scores = np.full(data.n_features, np.nan)
    if len(first) == data.n_features:
        scores[first["candidate"].to_numpy()] = first["value"].to_numpy()
        return scores
    ev = get_measure(measure, **params).on(data, estimate=how["estimate"], folds=how["folds"], seed=how["seed"])
    return ev.extensions([], np.arange(data.n_features))

def encode_columns(X: np.ndarray, method: str = "mean-std", bins: int = 3, codes: str = "auto"):
    """Integer codes (m x n) and arities of a numeric matrix, column by column.

    ``codes="auto"``: integer columns with few distinct values (fslab.discretize's rule) are kept as codes,
    the others binned by ``method``; ``"always"``: every column is taken as codes; ``"never"``: every column binned.
    Codes are compressed to the occupied values, so arities count the values seen in X.
    """
    if codes not in ("auto", "always", "never"):
        raise ParameterError(f"codes must be 'auto', 'always' or 'never'; got {codes!r}")
    method, bins = check_method(method, int(bins))
    out = np.empty(X.shape, dtype=np.int64)
    arities = np.empty(X.shape[1], dtype=np.int64)
    for j in range(X.shape[1]):  # a loop over columns, each step vectorised over rows
        x = X[:, j]
        discrete = codes == "always" or (
            codes == "auto" and np.all(x == np.round(x)) and np.unique(x).size <= max(bins, DISCRETE_MAX)
        )
        raw = x if discrete else np.digitize(x, bin_edges(x, method, bins))  # left-closed, as fslab.discretize
        uniques, out[:, j] = np.unique(raw, return_inverse=True)
        arities[j] = uniques.size
    return out, arities


class FeatureSelector(SelectorMixin, BaseEstimator):
    """Select ``k`` features with an fslab selector, refitted on every training set it sees.

    Parameters
    ----------
    selector, measure, k, s : as in ``fslab.selectors.select`` (``s`` the s-variate approximation); ``k="all"``
        keeps every feature (in the order the selector ranks them).
    c, beta : measure parameters (cost for ``cost-sensitive``, beta for ``f-beta``); None keeps the default.
    method, bins : discretisation of real-valued training columns (mean-std, quantile, uniform).
    codes : "auto" (integer columns with few values kept as codes), "always" (X already holds codes), "never".
    pos_label : the positive class of a binary target (one-vs-rest for more classes). None: the rule of
        ``fslab.Dataset`` (a value that reads as "yes": 1, true, yes, +1, positive; else the less frequent class).
    estimate, folds, seed : the criterion's estimate, as in ``select``: ``"plug-in"`` (the papers') or
        ``"cross-fitted"`` (held out over ``folds`` stratified folds of the training rows, split by ``seed``).

    Notes
    -----
    ``X`` may be a numeric array, a scipy.sparse matrix (counted from its non-zeros), or a table with missing values
    or text / categorical columns (a pandas DataFrame or an object array): those are read as the library reads a
    user's table (``Dataset.from_frame`` with every column kept; missing values a level of their own).

    Measure parameters are named arguments, not ``**params``: scikit-learn's ``get_params``/``clone`` need every
    parameter in the signature. If ``k`` exceeds the number of columns all columns are kept, with a warning
    (as ``SelectKBest`` does). Fitted attributes: ``selection_`` (the Selection), ``features_`` (ordered indices),
    ``scores_`` (each feature's criterion on its own, C({j}), in the estimate used: what ``SelectKBest`` calls
    scores), ``classes_``, ``pos_label_`` (binary targets), ``n_features_in_``.
    """

    def __init__(self, selector: str = "bayes-greedy", measure: str = "zero-one", k: int | str = 5, *, s=None,
                 c: float | None = None, beta: float | None = None, method: str = "mean-std", bins: int = 3,
                 codes: str = "auto", pos_label=None, estimate: str = "plug-in", folds: int = 5, seed: int = 0):
        self.selector = selector
        self.measure = measure
        self.k = k
        self.s = s
        self.c = c
        self.beta = beta
        self.method = method
        self.bins = bins
        self.codes = codes
        self.pos_label = pos_label
        self.estimate = estimate
        self.folds = folds
        self.seed = seed

    def measure_params(self) -> dict:
        """The measure parameters that were set (c, beta)."""
        return {name: value for name, value in (("c", self.c), ("beta", self.beta)) if value is not None}

    def fit(self, X, y):
        table = _as_table(X)
        if table is None:
            X, y = validate_data(self, X, y, dtype=np.float64, accept_sparse=("csr", "csc"))
        else:
            _, y = validate_data(self, X, y, dtype=None, ensure_all_finite="allow-nan")
        check_classification_targets(y)
        k = self._k()
        self.classes_ = np.unique(y)
        if self.classes_.size < 2:
            raise DataError(f"the training target has one class ({self.classes_[0]!r}); selection needs two")
        target = encode_target(pd.Series(np.asarray(y, dtype=object)).astype(str), "y",
                               None if self.pos_label is None else str(self.pos_label))
        if target.task == "binary":
            self.pos_label_ = self.classes_[np.flatnonzero(self.classes_.astype(str) == target.positive)[0]]
            y_index, labels, names = target.y, np.array([0, 1]), target.class_names
        else:
            y_index = np.searchsorted(self.classes_, y)
            labels, names = np.arange(self.classes_.size), [str(v) for v in self.classes_]
        if table is not None:
            frame = table.set_axis([f"x{j}" for j in range(table.shape[1])], axis=1).reset_index(drop=True)
            frame["__target__"] = y_index
            data = Dataset.from_frame(frame, "__target__", positive=1 if target.task == "binary" else None,
                                      near_unique="keep", constant="keep").discretize(self.method, self.bins)
            data = data.replace(labels=labels, class_names=names)
        elif is_sparse(X):  # counted from its non-zeros, never densified; codes="always" reads values as codes
            data = sparse_sample(X, y_index, np.asarray(names), "codes" if self.codes == "always" else self.method)
        else:
            codes, arities = encode_columns(X, self.method, self.bins, self.codes)
            data = EncodedDataset(codes, y_index, labels=labels, arities=arities, class_names=names, values=X)
        n = self.n_features_in_
        if k > n:
            warnings.warn(f"k = {k} is larger than the {n} features; all features are kept", UserWarning,
                          stacklevel=2)
        how = {"estimate": self.estimate, "folds": self.folds, "seed": self.seed}
        self.selection_ = select(data, min(k, n), selector=self.selector, measure=self.measure, s=self.s, **how,
                                 **self.measure_params())
        self.features_ = np.asarray(self.selection_.features, dtype=np.int64)
        self.scores_ = _single_scores(data, self.selection_, self.selector, self.measure, how,
                                      self.measure_params())
        return self

    def _k(self) -> int:
        if isinstance(self.k, str) and self.k == "all":
            return self.n_features_in_
        if isinstance(self.k, bool) or not isinstance(self.k, int | np.integer) or self.k < 1:
            raise ParameterError(f"k must be a positive integer or 'all'; got {self.k!r}")
        return int(self.k)

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "features_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.features_] = True
        return mask

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True  # selection is supervised: fit needs y
        tags.input_tags.string = True     # text and categorical columns are read as the library reads tables
        tags.input_tags.allow_nan = True  # missing values are a level of their own
        # scipy.sparse input is counted from its non-zeros: mean-std bins of counts, not the raw-value Fisher score
        tags.input_tags.sparse = self.method == "mean-std" and self.selector != "fisher"
        return tags
