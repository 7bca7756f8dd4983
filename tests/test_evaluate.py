"""FeatureSelector: scikit-learn's estimator checks, no leakage inside a Pipeline, discretisation by hand."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import KFold, cross_val_score, cross_validate
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from fslab.errors import DataError, ParameterError
from fslab.evaluate import FeatureSelector, encode_columns


@pytest.mark.slow  # 0.89 s measured (inner loop: unit and not slow)
@parametrize_with_checks([
    FeatureSelector(k=2),
    FeatureSelector(selector="mi-greedy", k=1, codes="never", method="quantile", bins=4),
    FeatureSelector(selector="fisher", k=1),
])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_mean_std_bins_by_hand():
    """x = 0..4: mean 2, sample sd sqrt(2.5) = 1.581; edges 0.419 and 3.581 (footnote 6).

    0 < 0.419 -> bin 0; 1, 2, 3 in [0.419, 3.581) -> bin 1; 4 >= 3.581 -> bin 2.
    """
    X = np.array([[0.5], [1.5], [2.5], [3.5], [4.5]]) - 0.5
    codes, arities = encode_columns(X + 0.01, "mean-std", codes="never")
    assert codes[:, 0].tolist() == [0, 1, 1, 1, 2]
    assert arities.tolist() == [3]


def test_codes_auto_keeps_small_integer_columns():
    X = np.array([[10.0, 0.1], [20.0, 0.2], [10.0, 0.3], [30.0, 0.4]])
    codes, arities = encode_columns(X, "quantile", bins=2)
    assert codes[:, 0].tolist() == [0, 1, 0, 2]  # rank of the value
    assert arities[0] == 3 and arities[1] == 2


def test_selects_the_informative_feature_and_reports_order():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    X = np.c_[rng.integers(0, 3, 400), y ^ (rng.random(400) < 0.05), rng.integers(0, 2, 400)].astype(float)
    sel = FeatureSelector(k=1).fit(X, y)
    assert sel.features_.tolist() == [1]
    assert sel.get_support().tolist() == [False, True, False]
    assert sel.transform(X).shape == (400, 1)


def _leaky_data(m: int = 400):
    """y alternates 0, 1. Feature 0 is 0 on rows 0..299 and y + 1 on rows 300..399: predictive only there.
    Feature 1 is y flipped on the rows with i % 10 in {0, 1, 2}: Bayes 0-1 error exactly 0.3 on any block of 10."""
    i = np.arange(m)
    y = i % 2
    f0 = np.where(i >= 300, y + 1, 0)
    f1 = np.where(i % 10 < 3, 1 - y, y)
    return np.c_[f0, f1].astype(float), y


def test_leakage_feature_predictive_only_on_test_rows_is_not_selected():
    """Fold 4 of an unshuffled 4-fold CV tests rows 300..399 and trains on rows 0..299, where feature 0 is
    constant (error 0.5 > 0.3): its selector must pick feature 1. A fit that does see rows 300..399, e.g. on
    rows 200..399, picks feature 0: cell 0 holds 100 rows half/half (50 errors), cells 1 and 2 are pure,
    error 50/200 = 0.25 < 0.3. So only leakage could make the fold pick feature 0."""
    X, y = _leaky_data()
    assert FeatureSelector(k=1).fit(X[200:], y[200:]).features_.tolist() == [0]
    pipe = make_pipeline(FeatureSelector(k=1), GaussianNB())
    out = cross_validate(pipe, X, y, cv=KFold(4), return_estimator=True)
    assert out["estimator"][3][0].features_.tolist() == [1]


def test_leakage_selector_receives_only_training_rows():
    X, y = _leaky_data()
    seen = []

    class Spy(FeatureSelector):
        def fit(self, X, y):
            seen.append(np.asarray(X).copy())
            return super().fit(X, y)

    cross_val_score(make_pipeline(Spy(k=1), GaussianNB()), X, y, cv=KFold(4))
    assert len(seen) == 4
    for fold, Xs in enumerate(seen):  # every fit saw exactly the 300 training rows of its fold
        train = np.r_[0:fold * 100, fold * 100 + 100:400]
        assert np.array_equal(Xs, X[train])


def test_k_larger_than_features_keeps_all_with_warning():
    X = np.array([[0, 1], [1, 0], [0, 0], [1, 1]], dtype=float)
    with pytest.warns(UserWarning, match="all features are kept"):
        sel = FeatureSelector(k=5).fit(X, [0, 1, 0, 1])
    assert sel.get_support().all()


def test_errors_name_the_parameter():
    X = np.array([[0, 1], [1, 0], [0, 0], [1, 1]], dtype=float)
    with pytest.raises(ParameterError, match="k must be a positive integer"):
        FeatureSelector(k=0).fit(X, [0, 1, 0, 1])
    with pytest.raises(ParameterError, match="unknown discretisation method .kmeans."):
        FeatureSelector(method="kmeans", codes="never").fit(X, [0, 1, 0, 1])
    with pytest.raises(DataError, match="one class"):
        FeatureSelector(k=1).fit(X, [1, 1, 1, 1])


def test_measure_parameters_change_the_selection():
    """100 rows, p = 1/2. A: P(Y=1 | A=1) = .8, P(Y=1 | A=0) = .2 (50 rows each). B: B=1 on 25 rows, all positive;
    B=0 on 75 rows, 25 positive. 0-1 (Example 2): A .5*.2 + .5*.2 = .20 < B .75 * 1/3 = .25, so A.
    Cost-sensitive c = .9 (Example 3: sum_x min((1-c) p(x,1), c p(x,0))): A min(.04, .09) + min(.01, .36) = .05;
    B 0 + min(.025, .45) = .025, so B."""
    rows = [(1, 1, 1)] * 25 + [(1, 0, 1)] * 15 + [(0, 0, 1)] * 10 + [(1, 0, 0)] * 10 + [(0, 0, 0)] * 40
    data = np.array(rows, dtype=float)
    X, y = data[:, :2], data[:, 2].astype(int)
    assert FeatureSelector(k=1).fit(X, y).features_.tolist() == [0]
    sel = FeatureSelector(measure="cost-sensitive", c=0.9, k=1).fit(X, y)
    assert sel.features_.tolist() == [1] and sel.selection_.params == {"c": 0.9}
    assert FeatureSelector(selector="exhaustive", k=2).fit(X, y).features_.tolist() == [0, 1]
