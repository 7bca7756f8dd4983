"""Property tests of the selectors (hypothesis): invariants that hold on any input."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fslab.criteria import criterion
from fslab.data.distributions import Distribution
from fslab.data.encoded import EncodedDataset
from fslab.measures import MEASURES
from fslab.selectors import select


@st.composite
def samples(draw, max_features: int = 5):
    """A small random sample: binary target, features of arity 2-3, m rows."""
    seed = draw(st.integers(0, 2**31 - 1))
    n = draw(st.integers(2, max_features))
    m = draw(st.integers(8, 120))
    rng = np.random.default_rng(seed)
    arities = rng.integers(2, 4, n)
    X = (rng.random((m, n)) * arities).astype(int)
    noise = rng.random(m) < 0.3
    y = ((X[:, 0] + X[:, -1]) % 2 ^ noise).astype(int)
    y[:2] = [0, 1]  # both classes present
    return EncodedDataset(X, y, arities=arities)


@st.composite
def laws(draw):
    """A random exact distribution on 3 binary features and a binary class."""
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    states = np.array(list(itertools.product((0, 1), repeat=3)))
    return Distribution(states, rng.dirichlet(np.ones(16)).reshape(8, 2))


@pytest.mark.slow  # 0.93 s measured (inner loop: unit and not slow)
@pytest.mark.skipif("log-loss" not in MEASURES, reason="log-loss measure not registered")
@settings(max_examples=40, deadline=None)
@given(samples())
def test_log_loss_bayes_greedy_picks_what_mi_greedy_picks(ds):
    """Ahmed et al., Example 5: -H(Y|X_J) = I(X_J;Y) - H(Y), the same criterion up to a constant."""
    k = ds.n_features
    assert select(ds, k, "bayes-greedy", measure="log-loss").features == select(ds, k, "mi-greedy").features


@settings(max_examples=30, deadline=None)
@given(laws())
def test_exact_greedy_zero_one_criterion_never_decreases(law):
    """On an exact law, adding a feature never increases the Bayes 0-1 error (the criterion is monotone)."""
    scores = select(law, 3, "bayes-greedy").scores
    assert np.all(np.diff(scores) >= -1e-12)


@settings(max_examples=25, deadline=None)
@given(samples(), st.integers(1, 3))
def test_s_variate_value_is_the_average_over_s_subsets(ds, s):
    """Ahmed et al., Section 3.2: C(J) ~ mean over |A| = s, A in J of C(A); exact when |J| <= s."""
    k = ds.n_features
    sel = select(ds, k, "bayes-greedy", s=s)
    for t in range(1, k + 1):
        J = sel.features[:t]
        if t <= s:
            expected = criterion(ds, J, "zero-one")
        else:
            expected = np.mean([criterion(ds, A, "zero-one") for A in itertools.combinations(J, s)])
        assert sel.scores[t - 1] == pytest.approx(expected, abs=1e-12)


@pytest.mark.slow  # 0.39 s measured (inner loop: unit and not slow)
@settings(max_examples=25, deadline=None)
@given(samples())
def test_greedy_trace_values_are_the_subset_criteria(ds):
    """Every trace row of BayesGreedy is C(J_{t-1} + {candidate}); the chosen row is the best, lowest index on ties."""
    sel = select(ds, 2, "bayes-greedy")
    for row in sel.trace.itertuples():
        J = sel.features[: row.step - 1] + (row.candidate,)
        assert row.value == pytest.approx(criterion(ds, J, "zero-one"), abs=1e-12)
    for _, step in sel.trace.groupby("step"):
        best = step.value.max()
        tied = step[step.value >= best - 1e-12 * max(1, abs(best))]
        assert step.loc[step.chosen, "candidate"].item() == tied.candidate.min()
        assert (step.n_tied == len(tied)).all()


@settings(max_examples=25, deadline=None)
@given(samples())
def test_ranking_is_greedy_with_a_constant_score(ds):
    """BayesScore ranks by C({j}): its order sorts the first step of BayesGreedy by value (ties: lower index)."""
    n = ds.n_features
    first = select(ds, 1, "bayes-greedy").trace
    ranking = select(ds, n, "bayes-score").features
    order = sorted(range(n), key=lambda j: (-round(first.value[j], 10), j))
    assert list(ranking) == order


@settings(max_examples=20, deadline=None)
@given(samples(max_features=4))
def test_exhaustive_is_at_least_as_good_as_greedy_and_backward(ds):
    k = 2
    best = select(ds, k, "exhaustive").scores[-1]
    assert best >= select(ds, k, "bayes-greedy").scores[-1] - 1e-12
    back = select(ds, k, "backward")
    assert best >= criterion(ds, back.features, "zero-one") - 1e-12


TABLE_MEASURES = [name for name in ("zero-one", "cost-sensitive", "balanced", "log-loss", "mi", "f-beta", "auc")
                  if name in MEASURES]


@settings(max_examples=30, deadline=None)
@given(samples(max_features=4), st.integers(0, 2))
def test_fast_counting_gives_the_same_criteria_as_plain_tables(ds, depth):
    """The fast engine (group counts + merged pure cells) must give C(J + {j}) of the plain joint table."""
    from fslab.measures import measure

    subset = list(range(min(depth, ds.n_features - 1)))
    candidates = np.arange(len(subset), ds.n_features)
    for name in TABLE_MEASURES:
        m = measure(name)
        fast = m.on(ds)
        assert fast.counter is not None
        expected = m.criterion(ds.extension_tables(subset, candidates))
        np.testing.assert_allclose(fast.extensions(subset, candidates), expected, rtol=1e-9, atol=1e-12,
                                   err_msg=name)
