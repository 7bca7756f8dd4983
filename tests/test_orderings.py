"""Subset risks, monotonicity, greedy vs k-optimal, and Pena-Nilsson's Theorem 1 construction.

How we read the proof of Theorem 1: p(X=0, Y=0) = alpha > 1/2, no other Y=0 mass and no Y=1 mass at
X=0, so R(S) = p(S=0, Y=1) = the Y=1 mass of states whose zero set contains S (eq. 4). Masses are
assigned to exact zero sets in the order of the ordering so each risk exceeds the previous one.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fslab.data.distributions import Distribution, example1
from fslab.errors import ParameterError, TooLargeError
from fslab.pena_nilsson.minimal import check_assumptions
from fslab.pena_nilsson.orderings import (
    all_subsets,
    check_ordering,
    distribution_from_ordering,
    follows_ordering,
    greedy_bad_distribution,
    greedy_bad_ordering,
    greedy_gaps,
    greedy_path,
    is_monotone,
    k_optimal,
    monotonicity_violations,
    ordering_risks,
    random_valid_ordering,
    subset_risks,
)
from fslab.pena_nilsson.toy import random_dirichlet
from fslab.selectors import select


def test_subset_risks_of_example1_by_hand():
    """Cells of (X1, X2) with p(x, 0), p(x, 1): 00 .378/.018, 01 .252/.162, 10 .042/.012, 11 .028/.108,
    so R(X1, X2) = .018 + .162 + .012 + .028 = 0.22; R(X1) = 0.25, R(X2) = 0.30, R(∅) = min(.7, .3) = 0.30."""
    risks = subset_risks(example1())
    assert list(risks["subset"]) == [(), (0,), (1,), (0, 1)]
    assert list(risks["names"]) == ["∅", "{X1}", "{X2}", "{X1, X2}"]
    assert risks["value"].to_numpy() == pytest.approx([0.30, 0.25, 0.30, 0.22])
    assert risks["criterion"].to_numpy() == pytest.approx([-0.30, -0.25, -0.30, -0.22])
    assert list(risks["rank"]) == [3, 2, 3, 1]  # ∅ and {X2} tie at 0.30


def test_subset_risks_refuses_too_many_features_naming_the_count():
    dist = Distribution(np.zeros((1, 13), dtype=int), [[0.5, 0.5]], arities=[2] * 13)
    with pytest.raises(TooLargeError, match="13 features have 2\\^13 = 8,192 subsets"):
        subset_risks(dist)


def test_subset_risks_score_measure_and_sample():
    risks = subset_risks(example1(), "mi")
    assert risks.attrs["greater_is_better"] and risks.set_index("subset").at[(1,), "value"] == pytest.approx(
        0.1724, abs=1e-3)
    plug_in = subset_risks(example1().sample(5000, seed=0))
    assert plug_in["value"].to_numpy() == pytest.approx([0.30, 0.25, 0.30, 0.22], abs=0.03)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 4), seed=st.integers(0, 10**6),
       measure=st.sampled_from(["zero-one", "mi", "balanced", "log-loss", "auc", "squared"]))
def test_exact_bayes_values_are_monotone(n, seed, measure):
    assert is_monotone(subset_risks(random_dirichlet(n, 2, 2, 0.7, seed), measure))


def test_monotonicity_violation_is_reported():
    fake = pd.DataFrame({"subset": [(), (0,)], "criterion": [-0.2, -0.3]})
    viol = monotonicity_violations(fake)
    assert len(viol) == 1 and viol["superset"].iloc[0] == (0,)
    assert not is_monotone(fake)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(2, 5), seed=st.integers(0, 10**6))
def test_greedy_path_and_k_optimal_agree_with_the_selectors(n, seed):
    dist = random_dirichlet(n, 2, 2, 0.5, seed)
    risks = subset_risks(dist)
    path, best = greedy_path(risks), k_optimal(risks)
    k = max(1, n // 2)
    assert path[k] == tuple(sorted(select(dist, k, "bayes-greedy").features))
    opt = risks.set_index("subset").at[best[k][0], "value"]
    assert opt == pytest.approx(risks.set_index("subset").at[tuple(sorted(select(dist, k, "exhaustive").features)),
                                                             "value"])
    assert (greedy_gaps(risks)["gap"] >= -1e-12).all()


# --- Theorem 1 ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("arity1", [2, 3])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_theorem1_reproduces_random_orderings_exactly(n, arity1, seed):
    ordering = random_valid_ordering(n, seed)
    dist = distribution_from_ordering(ordering, arities=[arity1] + [2] * (n - 1))
    risks = ordering_risks(dist, ordering)
    assert np.all(np.diff(risks) > 0), "risks must increase strictly along the ordering"
    assert follows_ordering(dist, ordering)
    assert risks[0] == pytest.approx(0.0, abs=1e-12)  # R(X) = 0
    assert risks[-1] == pytest.approx(0.4)  # R(∅) = 1 - alpha
    ranks = subset_risks(dist).set_index("subset")["rank"]
    assert [int(ranks[s]) for s in ordering] == list(range(1, 2 ** n + 1))
    assert check_assumptions(dist).hold  # the proof's remark after Theorem 5
    assert dist.states.shape[0] == arity1 * 2 ** (n - 1)


def test_theorem1_construction_by_hand_for_two_features():
    """Ordering {X1,X2}, {X2}, {X1}, ∅ with unit gaps, m(T) = Y=1 mass on the states with zero set T:
    {X2}: no assigned superset mass, R = 0 + 1, m = 1 (state x = 10);
    {X1}: R = max(1, 0) + 1 = 2, m = 2 (state 01);
    ∅: supersets hold 0 + 1 + 2 = 3, R = max(2, 3) + 1 = 4, m = 1 (state 11).
    Total Y=1 mass 4 scaled to 1 - alpha = 0.4: risks 0, 0.1, 0.2, 0.4."""
    ordering = [(0, 1), (1,), (0,), ()]
    dist = distribution_from_ordering(ordering)
    assert ordering_risks(dist, ordering) == pytest.approx([0, 0.1, 0.2, 0.4])
    p = dist.table([0, 1]).probabilities()  # cells 00, 01, 10, 11
    assert p[:, 0] == pytest.approx([0.6, 0, 0, 0])
    assert p[:, 1] == pytest.approx([0, 0.2, 0.1, 0.1])


def test_invalid_ordering_names_the_offending_pair():
    ordering = [(0, 1, 2), (0, 1), (0,), (0, 2), (1, 2), (1,), (2,), ()]
    with pytest.raises(ParameterError, match=r"\{X1\} \(position 3\) comes before its superset \{X1, X3\} "
                                             r"\(position 4\)"):
        distribution_from_ordering(ordering)


def test_ordering_must_list_every_subset_once():
    with pytest.raises(ParameterError, match="misses"):
        check_ordering([(0, 1), (0,), (0,), ()])
    with pytest.raises(ParameterError, match="2\\^n"):
        check_ordering([(0, 1), (0,), ()])


def test_ordering_with_names_lists_missing_and_repeated_subsets_by_name():
    # n = 2 from the names: "X1 X2" and "X1" leave out {X2} and ∅ (QA: the old message spoke of indices)
    with pytest.raises(ParameterError, match=r"all 2\^2 = 4 subsets .* has 2 line\(s\) and misses ∅, \{X2\}"):
        check_ordering([(0, 1), (0,)], ["X1", "X2"])
    with pytest.raises(ParameterError, match=r"misses \{X2\} and repeats \{X1\}"):
        check_ordering([(0, 1), (0,), (0,), ()], ["X1", "X2"])
    # 16 subsets of 4 features, only the full set given: 15 missing, 8 named and "7 more"
    with pytest.raises(ParameterError, match=r"misses ∅, \{A\}, .* and 7 more"):
        check_ordering([(0, 1, 2, 3)], ["A", "B", "C", "D"])
    assert check_ordering([(0, 1), (1,), (0,), ()], ["X1", "X2"]) == [(0, 1), (1,), (0,), ()]


def test_distribution_from_ordering_parameters():
    ordering = random_valid_ordering(3, 0)
    with pytest.raises(ParameterError, match="alpha"):
        distribution_from_ordering(ordering, alpha=0.5)
    with pytest.raises(ParameterError, match="arity"):
        distribution_from_ordering(ordering, arities=[2, 1, 2])
    with pytest.raises(ParameterError, match="gaps"):
        distribution_from_ordering(ordering, gaps=[1.0] * 3)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 6), seed=st.integers(0, 10**6))
def test_random_valid_orderings_are_valid_and_seeded(n, seed):
    a = random_valid_ordering(n, seed)
    assert check_ordering(a) == a and a == random_valid_ordering(n, seed)
    assert sorted(a) == sorted(all_subsets(n))


@pytest.mark.parametrize("n", [3, 4])
def test_greedy_bad_ordering_traps_greedy(n):
    ordering = greedy_bad_ordering(n)
    check_ordering(ordering)
    dist = greedy_bad_distribution(n)
    risks = subset_risks(dist)
    path = greedy_path(risks)
    assert path[1] == (0,) and 0 in path[2]
    assert k_optimal(risks)[2][0] == (1, 2)
    gaps = greedy_gaps(risks).set_index("k")
    # the step of 10 after the best pair: greedy's pair is 11x (n=3) and 3.4x (n=4) worse than the best pair
    assert gaps.at[2, "greedy_value"] > 3 * gaps.at[2, "optimal_value"]
    assert tuple(select(dist, 2, "bayes-greedy").features) == (0, 1)
    with pytest.raises(ParameterError):
        greedy_bad_ordering(2)


def test_subset_enumeration_order():
    assert all_subsets(3) == [(), (0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2)]
    assert len(list(itertools.chain(all_subsets(5)))) == 32
