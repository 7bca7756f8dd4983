"""FeatureSelector agrees with the library: the same positive class rule, estimate=, scores_, k="all", and tables
with text and missing values read as the library reads them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fslab
from fslab.errors import DataError
from fslab.evaluate import FeatureSelector


def _diagnosis_table(seed: int = 0, m: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 6))
    malignant = X[:, 0] + 0.7 * X[:, 3] + rng.normal(0, 0.8, m) > 0.9   # the less frequent class
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(6)])
    frame["diagnosis"] = np.where(malignant, "M", "B")
    return frame


@pytest.mark.parametrize("measure", ["f-beta", "cost-sensitive", "balanced"])
def test_transformer_and_select_use_the_same_positive_class(measure):
    frame = _diagnosis_table()
    X, y = frame.drop(columns="diagnosis").to_numpy(), frame["diagnosis"].to_numpy()
    fit = FeatureSelector(measure=measure, k=3).fit(X, y)
    data = fslab.Dataset.from_frame(frame, "diagnosis")
    assert data.positive == "M" and fit.pos_label_ == "M"
    assert tuple(fit.features_) == fslab.select(data, 3, measure=measure).features


def test_pos_label_overrides_the_rule_and_must_exist():
    frame = _diagnosis_table()
    X, y = frame.drop(columns="diagnosis").to_numpy(), frame["diagnosis"].to_numpy()
    fit = FeatureSelector(measure="f-beta", k=2, pos_label="B").fit(X, y)
    assert fit.pos_label_ == "B"
    data = fslab.Dataset.from_frame(frame, "diagnosis", positive="B")
    assert tuple(fit.features_) == fslab.select(data, 2, measure="f-beta").features
    with pytest.raises(DataError, match="does not occur"):
        FeatureSelector(pos_label="X").fit(X, y)


def test_estimate_scores_and_k_all():
    frame = _diagnosis_table(1)
    X, y = frame.drop(columns="diagnosis").to_numpy(), frame["diagnosis"].to_numpy()
    fit = FeatureSelector(measure="balanced", k="all", estimate="cross-fitted", folds=4, seed=3).fit(X, y)
    assert fit.selection_.estimate == "cross-fitted" and fit.selection_.folds == 4
    assert sorted(fit.features_) == list(range(6)) and fit.transform(X).shape == (400, 6)
    data = fslab.Dataset.from_frame(frame, "diagnosis")
    singles = [fslab.criterion(data, [j], "balanced", estimate="cross-fitted", folds=4, seed=3) for j in range(6)]
    np.testing.assert_allclose(fit.scores_, singles, rtol=1e-12)
    assert int(np.argmax(fit.scores_)) == fit.features_[0] == 0


def test_tables_with_text_and_missing_values_are_read_like_the_library():
    frame = _diagnosis_table(2)
    frame["plan"] = np.where(frame["f3"] > 0, "gold", "basic")
    frame.loc[::7, "f0"] = np.nan
    X, y = frame.drop(columns="diagnosis"), frame["diagnosis"]
    fit = FeatureSelector(selector="mi-greedy", k=2).fit(X, y)
    data = fslab.Dataset.from_frame(frame, "diagnosis", near_unique="keep")
    assert tuple(fit.features_) == fslab.select(data, 2, selector="mi-greedy").features
    assert list(fit.get_feature_names_out()) == [X.columns[j] for j in sorted(fit.features_)]
