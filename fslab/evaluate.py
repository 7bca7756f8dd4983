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
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .curves import CurveResult, learning_curves
from .data.discretize import DISCRETE_MAX, bin_edges, check_method
from .data.encoded import EncodedDataset
from .data.sparse import is_sparse, sparse_sample
from .errors import DataError, ParameterError
from .selectors import select

__all__ = ["CurveResult", "FeatureSelector", "encode_columns", "learning_curves"]

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
    selector, measure, k, s : as in ``fslab.selectors.select`` (``s`` the s-variate approximation).
    c, beta : measure parameters (cost for ``cost-sensitive``, beta for ``f-beta``); None keeps the default.
    method, bins : discretisation of real-valued training columns (mean-std, quantile, uniform).
    codes : "auto" (integer columns with few values kept as codes), "always" (X already holds codes), "never".

    Measure parameters are named arguments, not ``**params``: scikit-learn's ``get_params``/``clone`` need every
    parameter in the signature. If ``k`` exceeds the number of columns all columns are kept, with a warning
    (as ``SelectKBest`` does). Fitted attributes: ``selection_`` (the Selection), ``features_`` (ordered indices),
    ``classes_``, ``n_features_in_``.
    """

    def __init__(self, selector: str = "bayes-greedy", measure: str = "zero-one", k: int = 5, *, s=None,
                 c: float | None = None, beta: float | None = None, method: str = "mean-std", bins: int = 3,
                 codes: str = "auto"):
        self.selector = selector
        self.measure = measure
        self.k = k
        self.s = s
        self.c = c
        self.beta = beta
        self.method = method
        self.bins = bins
        self.codes = codes

    def measure_params(self) -> dict:
        """The measure parameters that were set (c, beta)."""
        return {name: value for name, value in (("c", self.c), ("beta", self.beta)) if value is not None}

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64, accept_sparse=("csr", "csc"))
        check_classification_targets(y)
        if not isinstance(self.k, int | np.integer) or self.k < 1:
            raise ParameterError(f"k must be a positive integer; got {self.k!r}")
        self.classes_, y_index = np.unique(y, return_inverse=True)
        if self.classes_.size < 2:
            raise DataError(f"the training target has one class ({self.classes_[0]!r}); selection needs two")
        if is_sparse(X):  # counted from its non-zeros, never densified; codes="always" reads values as codes
            data = sparse_sample(X, y_index, self.classes_, "codes" if self.codes == "always" else self.method)
        else:
            codes, arities = encode_columns(X, self.method, self.bins, self.codes)
            data = EncodedDataset(codes, y_index, labels=np.arange(self.classes_.size), arities=arities,
                                  class_names=[str(v) for v in self.classes_], values=X)
        k = int(self.k)
        if k > X.shape[1]:
            warnings.warn(f"k = {k} is larger than the {X.shape[1]} features; all features are kept",
                          UserWarning, stacklevel=2)
            k = X.shape[1]
        self.selection_ = select(data, k, selector=self.selector, measure=self.measure, s=self.s,
                                 **self.measure_params())
        self.features_ = np.asarray(self.selection_.features, dtype=np.int64)
        return self

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "features_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.features_] = True
        return mask

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True  # selection is supervised: fit needs y
        return tags
