"""One "Which k?" (issue 25): the app's worker job and the library's suggest_k are one function.

Before, fslab.ksuggest.suggest_k tested MIGreedy's steps with the 0-1 error (step-1 p = 2/50 = 0.04 on the data
below, B = 49) while the app's job (fslab.jobs.suggest_k, gone) tested the criterion MIGreedy maximises,
mutual information (p = 4/50 = 0.08); and the library's raised at k = n (NPFS's p0 = k/n = 1)
where the app's ran NPFS at n - 1.
"""

import numpy as np
import pytest

from fslab import ksuggest
from fslab.data.encoded import EncodedDataset


def _data():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    X = np.stack([np.where(rng.random(300) < 0.6, y, 1 - y)] + [rng.integers(0, 3, 300) for _ in range(5)], axis=1)
    return EncodedDataset(X, y, labels=[0, 1])


def test_the_app_runs_the_library_function():
    from ui import k_suggestion

    assert k_suggestion.suggest_k is ksuggest.suggest_k


@pytest.mark.parametrize("selector,criterion,p1", [("mi-greedy", "mi", 0.08), ("jmi", "mi", 0.08),
                                                   ("bayes-greedy", "zero-one", 0.04)])
def test_steps_are_tested_on_the_criterion_the_selector_maximises(selector, criterion, p1):
    # positional, as ui.k_suggestion calls it in the worker: source, selector, measure, params, k, B, n, alpha, seed
    result = ksuggest.suggest_k(_data(), selector, "zero-one", {}, 3, 49, 0, 0.05, 0)
    assert ksuggest.test_measure(selector, "zero-one") == criterion
    assert result.test.steps["p_value"].iloc[0] == pytest.approx(p1)


def test_k_equal_to_n_runs_npfs_at_n_minus_1():
    result = ksuggest.suggest_k(_data(), "jmi", "mi", k=6, n_permutations=9, n_bootstraps=5, seed=0)
    assert len(result.order) == 6 and result.npfs.k == 5


def test_the_records_auc_scorer_counts_ties_half_as_scikit_learn():
    """MeasureSpec.empirical of auc (Mann-Whitney with average ranks) = roc_auc_score, ties included."""
    from sklearn.metrics import roc_auc_score

    from fslab.learners import empirical_value

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    p1 = np.round(rng.random(200), 1)  # many tied scores
    proba = np.stack([1 - p1, p1], axis=1)
    assert empirical_value("auc", y, p1 > 0.5, proba) == pytest.approx(roc_auc_score(y, p1), abs=1e-12)
