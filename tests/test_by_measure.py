"""fslab.by_measure: one selector under several measures (Ahmed et al., Example 1 numbers by hand)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fslab
from fslab.by_measure import by_measure
from fslab.errors import ParameterError


def test_example1_zero_one_and_mi_part_at_step_one():
    view = by_measure(fslab.example1(), 1, ["zero-one", "mi"])
    assert view.picks.loc[1].tolist() == ["X1", "X2"]
    assert not view.agree().iloc[0]
    table = view.table(1)
    # 0-1 errors: er({X1}) = 0.25, er({X2}) = 0.30 (Example 1); I(X1;Y) = 0.08 bit, I(X2;Y) = 0.17 bit
    assert table.loc["0-1 error", "0-1 error"] == pytest.approx(0.25)
    assert table.loc["mutual information", "0-1 error"] == pytest.approx(0.30)
    assert table.loc["0-1 error", "mutual information"] == pytest.approx(0.08, abs=0.005)
    assert table.loc["mutual information", "mutual information"] == pytest.approx(0.17, abs=0.005)
    best = view.best(1)
    assert best.loc["0-1 error", "0-1 error"] and not best.loc["mutual information", "0-1 error"]
    regret = view.cross.set_index(["chosen_by", "evaluated_by"])["regret"]
    assert regret[("mutual information", "0-1 error")] == pytest.approx(0.05)  # 0.30 - 0.25, an error
    assert regret[("0-1 error", "0-1 error")] == 0


def test_two_steps_reach_the_same_set_in_another_order():
    view = by_measure(fslab.example1(), 2, ["zero-one", "mi"])
    assert view.picks["0-1 error"].tolist() == ["X1", "X2"]
    assert view.picks["mutual information"].tolist() == ["X2", "X1"]
    assert view.same_set().tolist() == [False, True]
    table = view.table(2).to_numpy()  # the same two features: equal values in every column
    assert np.allclose(table, table[0])


def test_parameters_enter_the_label_and_the_value():
    view = by_measure(fslab.example1(), 1, [("cost-sensitive", {"c": 0.25}), ("cost-sensitive", {"c": 0.5})])
    assert view.labels == ["cost-sensitive error (c=0.25)", "cost-sensitive error (c=0.5)"]
    # c = 0.5: the cost-sensitive error is half the 0-1 error, so it picks X1 like the 0-1 error
    assert view.picks.loc[1, "cost-sensitive error (c=0.5)"] == "X1"
    assert view.table(1).loc["cost-sensitive error (c=0.5)", "cost-sensitive error (c=0.5)"] == pytest.approx(0.125)


def test_refuses_selectors_without_a_measure_and_bad_k():
    with pytest.raises(ParameterError, match="does not take a performance measure"):
        by_measure(fslab.example1(), 1, selector="mi-greedy")
    with pytest.raises(ParameterError, match="k must be between"):
        by_measure(fslab.example1(), 3)
    with pytest.raises(ParameterError, match="unknown measure"):
        by_measure(fslab.example1(), 1, ["nope"])


def test_multiclass_target_skips_binary_only_measures():
    rng = np.random.default_rng(0)
    data = fslab.Dataset.from_arrays(rng.integers(0, 3, (200, 3)), rng.integers(0, 3, 200))
    view = by_measure(data, 2, ["zero-one", "balanced", "mi", "f-beta"])   # balanced: K classes (issue 33.5)
    assert view.labels == ["0-1 error", "balanced error", "mutual information"]
    assert any(label.startswith("F") for label in view.skipped)


@pytest.mark.slow  # 0.44 s measured (inner loop: unit and not slow)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(1, 3))
def test_regret_is_nonnegative_and_every_column_has_a_best(seed, k):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, (120, 4))
    y = (X[:, 0] + rng.integers(0, 2, 120) > 1).astype(int)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    view = by_measure(fslab.Dataset.from_arrays(X, y), k, ["zero-one", "balanced", "auc", "mi"])
    assert (view.cross["regret"] >= -1e-12).all()
    assert view.cross.groupby(["step", "evaluated_by"])["best"].any().all()
    assert view.cross["regret"][view.cross["best"]].abs().max() < 1e-9
