"""The conditional permutation test of greedy steps (fslab's k suggestion) and suggest_k."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fslab.data.encoded import EncodedDataset
from fslab.data.synthetic import uniform_dataset
from fslab.errors import ParameterError
from fslab.ksuggest import permutation_k_test, suggest_k, within_cell_permutation


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=60), st.integers(0, 1000))
def test_within_cell_permutation_keeps_cells(cells, seed):
    cells = np.array(cells)
    perm = within_cell_permutation(cells, np.random.default_rng(seed))
    assert sorted(perm.tolist()) == list(range(cells.size))  # a permutation
    assert np.array_equal(cells[perm], cells)  # only exchanges rows of the same cell


def test_within_cell_permutation_shuffles_inside_cells():
    cells = np.zeros(50, dtype=int)
    perm = within_cell_permutation(cells, np.random.default_rng(0))
    assert not np.array_equal(perm, np.arange(50))


def _duni():
    return uniform_dataset(m=1000, n_features=25, k_star=5, seed=0).discretize(method="uniform", bins=3)


@pytest.mark.slow  # 0.34 s measured (inner loop: unit and not slow)
@pytest.mark.parametrize("selector,measure", [("jmi", "mi"), ("bayes-greedy", "zero-one")])
def test_duni_stops_at_the_five_relevant_features(selector, measure):
    """D_uni has k* = 5: the steps adding X1..X5 are significant; the sixth (noise) step is not.
    Measured: the first five p-values are 0.01 (= 1/(1+99), no permutation beat them), the sixth 1.0."""
    result = suggest_k(_duni(), selector, k=8, measure=measure, n_permutations=99, n_bootstraps=0, seed=0)
    assert set(result.order[:5]) == {0, 1, 2, 3, 4}
    assert result.test.suggested_k == 5
    steps = result.test.steps
    assert steps["p_value"].iloc[:5].max() == pytest.approx(0.01)
    assert steps["p_value"].iloc[5] > 0.05 and steps["p_value"].iloc[6:].isna().all()
    assert not result.test.all_significant


@pytest.mark.parametrize("seed", range(4))
def test_pure_noise_stops_at_zero_or_one(seed):
    rng = np.random.default_rng(100 + seed)
    noise = EncodedDataset(rng.integers(0, 3, (800, 20)), rng.integers(0, 2, 800), labels=[0, 1])
    result = suggest_k(noise, "jmi", k=4, measure="mi", n_permutations=99, n_bootstraps=0, seed=seed)
    assert result.test.suggested_k <= 1


def test_all_steps_significant_and_full_table():
    """Two informative features tested as a 2-step order: both significant, suggestion = 2 = all tested."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 600)
    X = np.stack([np.where(rng.random(600) < 0.85, y, 1 - y), np.where(rng.random(600) < 0.8, y, 1 - y),
                  rng.integers(0, 2, 600)], axis=1)
    data = EncodedDataset(X, y, labels=[0, 1])
    test = permutation_k_test(data, [0, 1, 2], "mi", n_permutations=49, seed=1, stop_early=False)
    assert test.suggested_k == 2 and test.steps["p_value"].notna().all()
    assert test.steps["improvement"].iloc[0] > test.steps["null_q95"].iloc[0]


def test_suggest_k_runs_npfs_too():
    result = suggest_k(_duni(), "jmi", k=8, measure="mi", n_permutations=19, n_bootstraps=20, seed=0)
    assert result.npfs is not None and set(result.npfs.relevant.tolist()) >= {0, 1, 2, 3, 4}


def test_errors():
    data = _duni()
    with pytest.raises(ParameterError, match="order"):
        permutation_k_test(data, [0, 0])
    with pytest.raises(ParameterError, match="n_permutations"):
        permutation_k_test(data, [0], n_permutations=0)
    from fslab.data.distributions import example1

    with pytest.raises(ParameterError, match="sample"):
        permutation_k_test(example1(), [0])


@pytest.mark.slow
def test_held_out_test_follows_the_page_estimate():
    """estimate="cross-fitted": the observed criteria are the held-out ones (5 folds, split seed 0), and a noise
    step's held-out improvement is not significant (held out, noise loses information instead of gaining it)."""
    from fslab.measures import measure

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 600)
    X = np.stack([np.where(rng.random(600) < 0.85, y, 1 - y), rng.integers(0, 3, 600)], axis=1)
    data = EncodedDataset(X, y, labels=[0, 1])
    test = permutation_k_test(data, [0, 1], "mi", n_permutations=19, seed=1, stop_early=False,
                              estimate="cross-fitted")
    held = measure("mi").on(data, estimate="cross-fitted", folds=5, seed=0)
    assert test.steps["criterion"].tolist() == pytest.approx([held.criterion([0]), held.criterion([0, 1])])
    plug = permutation_k_test(data, [0, 1], "mi", n_permutations=19, seed=1, stop_early=False)
    assert plug.steps["criterion"].iloc[1] > test.steps["criterion"].iloc[1]   # in-sample MI is the larger
    assert test.suggested_k == 1


@pytest.mark.slow
def test_suggest_k_passes_estimate_to_the_test():
    result = suggest_k(_duni(), "jmi", k=3, measure="mi", n_permutations=9, n_bootstraps=0, seed=0,
                       estimate="cross-fitted")
    from fslab.measures import measure

    held = measure("mi").on(_duni(), estimate="cross-fitted", folds=5, seed=0)
    assert result.test.steps["criterion"].iloc[0] == pytest.approx(held.criterion([result.order[0]]))


@pytest.mark.parametrize("name", ["precision", "recall"])
def test_a_rule_of_no_feature_and_a_step_that_lowers_the_criterion(name):
    """Precision / recall's conjunction rule (approach 2) has C = -inf with no feature: step 1 used to show an
    improvement of +inf against a null of +inf everywhere (p = 1, "stop at k = 0"). It is tested on C itself now.
    Then X2 (noise) lowers C: that step is not significant however rare its loss is under the null."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (400, 3))
    y = np.where(rng.random(400) < 0.9, X[:, 0], 1 - X[:, 0])   # X1 is y 90 % of the time
    test = permutation_k_test(EncodedDataset(X.astype(np.uint8), y), [0, 1], name, n_permutations=19, seed=0,
                              measure_params={"approach": 2}, stop_early=False)
    first, second = test.steps.iloc[0], test.steps.iloc[1]
    assert np.isfinite(first["improvement"]) and first["improvement"] == first["criterion"]
    assert first["p_value"] == pytest.approx(1 / 20) and first["significant"]   # beats all 19 permuted samples
    assert second["improvement"] < 0 and not second["significant"]
    assert test.suggested_k == 1
