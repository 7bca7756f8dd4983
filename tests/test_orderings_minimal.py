"""Minimal-optimal subset: BS (Table 1), OS (Table 2), strongly relevant features, Markov boundary,
and their finite-sample versions FBS/FOS (Pena and Nilsson, Sections 4-5)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fslab.data.distributions import Distribution, example1
from fslab.errors import ParameterError, TooLargeError
from fslab.pena_nilsson.finite import fbs, fos
from fslab.pena_nilsson.minimal import (
    backward_search,
    check_assumptions,
    markov_boundary,
    minimal_optimal,
    one_shot,
    strongly_relevant,
)
from fslab.pena_nilsson.toy import pena_nilsson_example1, preset, s_star_vs_markov_boundary


def _with_irrelevant(seed: int, n_rel: int, n_irr: int, arity: int) -> Distribution:
    """p(x_R, y) ~ Dirichlet over the relevant features, times q(x_I | x_R) (irrelevant features that depend
    on X_R but not on Y), with the columns shuffled. Positive by construction."""
    rng = np.random.default_rng(seed)
    rel = np.array(list(itertools.product(range(arity), repeat=n_rel)), dtype=np.int64)
    irr = np.array(list(itertools.product(range(arity), repeat=n_irr)), dtype=np.int64)
    p_rel = rng.dirichlet(np.full(len(rel) * 2, 0.6)).reshape(len(rel), 2)
    q = rng.dirichlet(np.ones(len(irr)), size=len(rel))  # q[r, i] = p(x_I = irr[i] | x_R = rel[r])
    states = np.array([np.concatenate([rel[r], irr[i]]) for r in range(len(rel)) for i in range(len(irr))])
    probs = np.array([p_rel[r] * q[r, i] for r in range(len(rel)) for i in range(len(irr))])
    perm = rng.permutation(n_rel + n_irr)
    return Distribution(states[:, perm], probs, arities=[arity] * (n_rel + n_irr))


@pytest.mark.slow  # 0.66 s measured (inner loop: unit and not slow)
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n_rel=st.integers(1, 3), n_irr=st.integers(0, 2), arity=st.integers(2, 3))
def test_bs_and_os_equal_the_exhaustive_minimal_optimal_subset(seed, n_rel, n_irr, arity):
    """Theorems 5 and 6 on random positive distributions with a unique most probable class."""
    assume(n_rel + n_irr <= 4)
    dist = _with_irrelevant(seed, n_rel, n_irr, arity)
    assume(check_assumptions(dist).hold)
    bs, os_ = backward_search(dist), one_shot(dist)
    exhaustive = minimal_optimal(dist)
    assert bs.selected == os_.selected == exhaustive
    strong = strongly_relevant(dist)
    assert set(exhaustive) <= set(strong)  # every feature of S* is strongly relevant
    assert markov_boundary(dist) == strong  # positivity: Markov boundary = strongly relevant features


def test_pena_nilsson_example1_s_star_empty_while_x_strongly_relevant():
    dist = pena_nilsson_example1()
    assert check_assumptions(dist).hold
    assert backward_search(dist).selected == () == one_shot(dist).selected == minimal_optimal(dist)
    assert strongly_relevant(dist) == (0,) and markov_boundary(dist) == (0,)


def test_s_star_vs_markov_boundary_preset_and_theorem8_eta():
    """R(X1,X2) = (.1+.2+.3+.15)/4 = .1875; dropping X1 gives .3375 (+.15), dropping X2 .2875 (+.10)."""
    dist = s_star_vs_markov_boundary()
    bs = backward_search(dist)
    assert bs.selected == (0, 1) and bs.names == "{X1, X2}"
    assert bs.eta == pytest.approx(0.10)
    assert strongly_relevant(dist) == (0, 1, 2)
    last = bs.steps.iloc[-2:]
    assert last["risk_with"].to_numpy() == pytest.approx([0.1875, 0.1875])
    assert last["risk_without"].to_numpy() == pytest.approx([0.3375, 0.2875])
    assert list(bs.steps["removed"]) == [False, False, True, False, False, True, False, False]
    assert one_shot(dist).steps.shape[0] == 4


def test_assumption_report_when_positivity_fails():
    dist = preset("redundant-copies")  # the copy never disagrees with X1: 4 of 8 states have p(x) = 0
    a = backward_search(dist).assumptions
    assert (a.n_states, a.n_zero_states, a.positive, a.unique_max) == (8, 4, False, True)
    assert "positivity fails" in a.messages()[0]
    tie = Distribution([[0], [1]], [[0.25, 0.25], [0.4, 0.1]])
    assert check_assumptions(tie).n_tied_states == 1 and "tie" in check_assumptions(tie).messages()[1]


def test_markov_boundary_limit():
    dist = Distribution(np.zeros((1, 13), dtype=int), [[0.5, 0.5]], arities=[2] * 13)
    with pytest.raises(TooLargeError):
        markov_boundary(dist)


@pytest.mark.slow  # 0.77 s measured (inner loop: unit and not slow)
@pytest.mark.parametrize("inducer,estimator", [("tree", "holdout"), ("tree", "cv"), ("knn", "holdout"),
                                               ("naive-bayes", "holdout")])
def test_fbs_and_fos_recover_s_star_from_20000_rows(inducer, estimator):
    """S* = {X1, X2}, eta = 0.10 (exact). tau = 0.02 sits between the paired-difference noise (<= 0.01 at
    10,000 evaluation rows) and eta. Naive Bayes is not consistent in general, but here the Bayes decision
    (Y=1 only at x1 = x2 = 1) is one that a naive-Bayes log-odds threshold on X1 and X2 can represent."""
    data = s_star_vs_markov_boundary().sample(20_000, seed=11)
    a, b = fbs(data, inducer, estimator, tau=0.02), fos(data, inducer, estimator, tau=0.02)
    assert a.selected == (0, 1) == b.selected
    row = b.steps.set_index("feature").loc["X1"]
    assert row["risk_without"] > row["risk_with"] + 0.02 and not row["removed"]
    assert row["risk_with"] == pytest.approx(0.1875, abs=0.02)  # near the Bayes risk
    assert b.steps.set_index("feature").loc["X3", "removed"]


def test_fbs_records_every_decision_with_both_estimates():
    data = example1().sample(4000, seed=2)
    res = fbs(data, "tree", "holdout", tau=0.5)  # a huge tau removes everything, one check at a time
    assert res.selected == ()
    assert list(res.steps.columns) == ["check", "S", "feature", "risk_with", "risk_without", "threshold", "removed"]
    assert (res.steps["threshold"] == res.steps["risk_with"] + 0.5).all()


def test_fbs_validation():
    data = example1().sample(500, seed=0)
    with pytest.raises(ParameterError, match="tau"):
        fbs(data, tau=0)
    with pytest.raises(ParameterError, match="unknown inducer"):
        fbs(data, inducer="forest")
    with pytest.raises(ParameterError, match="risk estimator"):
        fos(data, estimator="bootstrap")
    with pytest.raises(ParameterError, match="folds"):
        fos(data, estimator="cv", folds=1)
    wide = Distribution(np.zeros((1, 31), dtype=int), [[0.5, 0.5]], arities=[2] * 31).sample(50, seed=0)
    with pytest.raises(TooLargeError, match="FBS"):
        fbs(wide)
