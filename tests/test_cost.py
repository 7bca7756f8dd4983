"""fslab.cost: predicted work equals the work jobs really do, and the issue's unbounded jobs are refused or need a
click before anything runs (issue 18). Each refusal test only predicts: no job runs."""

from __future__ import annotations

from functools import cache
from math import comb

import numpy as np
import pytest

from bench.work_count import measure_work
from fslab.cost import (
    Shape,
    WorkLimitError,
    check,
    ksuggest_cost,
    lattice_cost,
    minimal_cost,
    needs_confirmation,
    npfs_cost,
    over_limit_message,
    select_cost,
)
from fslab.data.distributions import example1
from fslab.data.encoded import EncodedDataset
from fslab.data.samples import load_sample
from fslab.errors import TooLargeError
from fslab.ksuggest import permutation_k_test
from fslab.limits import LIMITS, Limits
from fslab.npfs import npfs
from fslab.pena_nilsson.orderings import subset_risks
from fslab.pena_nilsson.toy import xor_distribution
from fslab.selectors import select


@cache
def sample(name: str):
    return load_sample(name).discretize()


def small(n: int = 12, m: int = 300, arity: int = 3, seed: int = 0) -> EncodedDataset:
    rng = np.random.default_rng(seed)
    X = rng.integers(0, arity, (m, n))
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 2, m)) % 2
    return EncodedDataset(X, y, labels=[0, 1])


# --- predicted = measured (tables counted by wrapping every evaluator while the job runs) ----------------------

@pytest.mark.parametrize(("selector", "k", "s"), [
    ("bayes-greedy", 6, None), ("mi-greedy", 5, None), ("jmi", 6, None), ("mrmr", 4, None), ("cmim", 5, None),
    ("bayes-score", 4, None), ("mi-score", 3, None), ("precision-greedy", 4, None), ("backward", 3, None),
    ("backward", 11, None), ("bayes-greedy", 8, 3), ("bayes-greedy", 7, 5), ("mi-greedy", 6, 2),
    ("exhaustive", 2, None), ("exhaustive", 10, None), ("exhaustive", 11, None),
])
def test_select_tables_predicted_equal_measured(selector, k, s):
    source = small()
    predicted = select_cost(source, k, selector, "zero-one", s)
    with measure_work() as work:
        select(source, k, selector, measure="zero-one", s=s)
    assert work.tables == predicted.tables


def test_exhaustive_beyond_half_counts_the_prefix_enumeration():
    """k > n/2: C(n, k) is small again, but the (k-1)-prefixes number C(n, k-1), the real work."""
    cost = select_cost(small(), 10, "exhaustive")
    assert cost.tables == comb(12, 10) + 10 and cost.passes == comb(12, 9)
    assert cost.passes > cost.tables


@pytest.mark.slow  # 0.55 s measured (inner loop: unit and not slow)
def test_shipped_sample_greedy_and_backward_match():
    mushroom = sample("mushroom")
    for selector, k in (("bayes-greedy", 10), ("backward", 112)):
        with measure_work() as work:
            select(mushroom, k, selector)
        assert work.tables == select_cost(mushroom, k, selector).tables


def test_lattice_npfs_and_permutation_test_match():
    source = small(n=8)
    with measure_work() as work:
        subset_risks(source)
    assert work.tables == lattice_cost(source).tables == 2 ** 8
    with measure_work() as work:
        npfs(source, "bayes-greedy", 3, n_bootstraps=4, seed=0, counting="resample")
    assert work.tables == npfs_cost(source, "bayes-greedy", 3, 4).tables
    with measure_work() as work:
        order = select(source, 3, "bayes-greedy").features
        permutation_k_test(source, order, "zero-one", 5, 0.05, 0, stop_early=False)
    assert work.tables == ksuggest_cost(source, "bayes-greedy", 3, 5, 0).tables


def test_minimal_cost_is_an_upper_bound_on_distributions():
    from fslab.pena_nilsson.minimal import (
        backward_search,
        markov_boundary,
        minimal_optimal,
        one_shot,
        strongly_relevant,
    )

    for law in (example1(), xor_distribution(6, 2, 0.1)):
        with measure_work() as work:
            for job in (backward_search, one_shot, minimal_optimal, strongly_relevant, markov_boundary):
                job(law)
        assert 0 < work.tables <= minimal_cost(law).tables


# --- the examples: refused, or a click with an estimate, before any work -----------------------------

def test_s6_bayes_greedy_k123_on_adult_is_refused():
    cost = select_cost(sample("adult"), 123, "bayes-greedy", s=6)
    with pytest.raises(WorkLimitError, match=r"work limit .*FSLAB_MAX_WORK.*smaller s") as err:
        check(cost)
    assert isinstance(err.value, TooLargeError)
    assert "hours" in str(err.value) and "Nothing was run" in str(err.value)


def test_backward_to_k1_on_adult_asks_first():
    cost = select_cost(sample("adult"), 1, "backward")
    assert check(cost) is cost and needs_confirmation(cost)
    assert cost.seconds > 10 and cost.tables == 1 + sum(123 - i for i in range(122))


@pytest.mark.parametrize(("name", "k"), [("waveform", 36), ("semeion", 254), ("adult", 121)])
def test_exhaustive_beyond_half_is_refused_or_asks(name, k):
    cost = select_cost(sample(name), k, "exhaustive")
    refused = over_limit_message(cost) is not None
    assert refused or needs_confirmation(cost)
    if name == "adult":
        assert refused


def test_suggest_k_with_999_permutations_on_adult_is_refused():
    with pytest.raises(WorkLimitError, match="fewer permutations"):
        check(ksuggest_cost(sample("adult"), "bayes-greedy", 10, 999, 30))
    assert needs_confirmation(ksuggest_cost(sample("adult"), "bayes-greedy", 10, 20, 0))  # the 28 s run


def test_npfs_with_5000_bootstraps_is_refused_or_asks_first():
    """5,000 bootstraps of BayesGreedy on Adult are refused; of JMI (counted as row weights, many bootstraps per
    matrix product: fslab.npfs_weighted) they are legal work but run only on a click, with the estimate shown."""
    with pytest.raises(WorkLimitError, match="fewer bootstraps"):
        check(npfs_cost(sample("adult"), "bayes-greedy", 10, 5_000))
    weighted = check(npfs_cost(sample("adult"), "jmi", 10, 5_000))
    assert needs_confirmation(weighted)
    assert not needs_confirmation(npfs_cost(sample("mushroom"), "jmi", 10, 100))  # the page's default run


def test_weighted_npfs_is_predicted_from_its_own_engine():
    """The MI family's bootstraps cost npfs_weighted.predicted_seconds, far below one resampled selection each."""
    from fslab.npfs import weighted as npfs_weighted

    adult = sample("adult")
    cost = npfs_cost(adult, "jmi", 10, 10_000)
    assert cost.seconds == pytest.approx(npfs_weighted.predicted_seconds(
        adult.n_rows, adult.n_features, int(adult.arities.max()), len(adult.labels), 10, 10_000))
    assert cost.seconds < npfs_cost(adult, "bayes-greedy", 10, 10_000).seconds / 10
    assert "bootstraps of JMI, k = 10" in cost.describe()  # the selector as the pages name it, not its key


def test_rows_squared_memory_is_refused():
    """Two distinct-per-row text columns: one plain table of J + {j} is rows x rows x classes (issue: 7.8 GB)."""
    m = 20_000
    shape = Shape(n_features=2, n_rows=m, n_classes=2, max_arity=m)
    cost = select_cost(None, 2, "bayes-greedy", shape=shape)
    assert cost.bytes > 8 * m * m * 2
    with pytest.raises(WorkLimitError, match="memory limit .*FSLAB_MAX_JOB_MB"):
        check(cost)


def test_default_jobs_run_without_a_click():
    for name in ("mushroom", "adult", "splice"):
        cost = select_cost(sample(name), 10, "bayes-greedy")
        assert over_limit_message(cost) is None and not needs_confirmation(cost)


def test_limits_come_from_the_limits_object():
    cost = select_cost(small(), 5, "bayes-greedy")
    assert over_limit_message(cost, Limits()) is None
    tight = Limits(**{"max_work": 10}) if hasattr(LIMITS, "max_work") else None
    if tight is not None:
        with pytest.raises(WorkLimitError, match="10 row-tables"):
            check(cost, tight)
