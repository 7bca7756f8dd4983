"""Edge cases found in review: real target values for the squared error, exact zeros for pure cells, very large
subsets (no recursion limit), Fisher on text columns, many-valued targets."""

import numpy as np
import pandas as pd
import pytest

from fslab.criteria import bayes_value
from fslab.data import Dataset
from fslab.data.encoded import EncodedDataset
from fslab.errors import UnsupportedTargetError
from fslab.selectors import select


def test_squared_error_uses_the_target_values_not_class_numbers():
    # Y in {0, 1, 100}; A = 1[Y = 0], B = 1[Y = 100]. Knowing B removes the large value's spread, so B must win:
    # E[Var(Y|B)] = P(B=0) Var(Y | Y in {0,1}) = (2/3)(1/4) = 1/6; E[Var(Y|A)] = (2/3) Var(Y | Y in {1,100}) = 1633.5.
    y = np.array([0, 1, 100] * 40)
    df = pd.DataFrame({"A": (y == 0).astype(int), "B": (y == 100).astype(int), "Y": y})
    enc = Dataset.from_frame(df, "Y").discretize()
    assert enc.task == "multiclass"
    assert bayes_value(enc, [1], "squared") == pytest.approx(1 / 6)
    assert bayes_value(enc, [0], "squared") == pytest.approx(1633.5)
    assert select(enc, 1, measure="squared").names == ("B",)


def test_squared_error_refuses_a_text_target():
    df = pd.DataFrame({"A": [0, 1, 0, 1, 1, 0], "Y": ["a", "b", "c", "a", "b", "c"]})
    with pytest.raises(UnsupportedTargetError, match="numeric target"):
        bayes_value(Dataset.from_frame(df, "Y").discretize(), [0], "squared")


def test_pure_cells_give_exactly_zero_squared_error_and_ties_go_to_the_lowest_index():
    # Y takes values up to 9.1e6; X1 is noise, X2 and X3 each determine Y: E[Var(Y | X1, Xj)] = 0 for j = 2, 3.
    rng = np.random.default_rng(0)
    values = np.array([0.0, 3.3e6, 9.1e6])
    y = rng.integers(0, 3, 600)
    X = np.column_stack([rng.integers(0, 2, 600), y, (y + 1) % 3])
    ds = EncodedDataset(X, y, labels=values, task="regression")
    assert bayes_value(ds, [0, 1], "squared") == 0.0
    sel = select(ds, 2, measure="squared")
    assert sel.features == (1, 0)          # step 1: X2 and X3 tie at 0 -> X2 (lowest index); step 2: X1 before X3
    assert sel.trace.query("step == 1")["n_tied"].iloc[0] == 2


@pytest.mark.slow  # 0.70 s measured (inner loop: unit and not slow)
def test_criteria_of_subsets_with_thousands_of_features():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(50, 1200))
    ds = EncodedDataset(X, X[:, 0])
    assert bayes_value(ds, range(1200), "zero-one") == 0.0
    assert select(ds, 1200, "exhaustive").features == tuple(range(1200))   # the fast path's subset states too


def test_fisher_scores_text_columns_by_their_codes():
    # 'color' predicts y perfectly but is text (no real values): its Fisher score must use its codes, not be 0.
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    df = pd.DataFrame({"noise": rng.normal(size=200), "color": np.where(y == 1, "red", "blue"), "y": y})
    enc = Dataset.from_frame(df, "y").discretize()
    assert select(enc, 1, "fisher").names == ("color",)


def test_a_target_with_many_values_uses_plain_tables_and_agrees():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(600, 8))
    labels = np.sort(rng.normal(size=500))
    y = np.clip(X[:, 0] * 160 + rng.integers(0, 160, 600), 0, 499)
    ds = EncodedDataset(X, y, labels=labels, task="regression")
    sel = select(ds, 3, measure="squared")
    assert sel.features[0] == 0
    for t in range(1, 4):
        assert sel.scores[t - 1] == pytest.approx(-bayes_value(ds, sel.features[:t], "squared"))
