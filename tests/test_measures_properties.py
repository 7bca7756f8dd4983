"""Property tests of every table measure: independent refinement, monotonicity, symmetry, empty cells,
batching, log-loss = H(Y) - I(X;Y), and plug-in values converging to the exact ones.

Precision / recall are checked here through their table reading (the subset as one compound feature);
their per-feature-predictor path has its own tests in test_measures_precision_recall.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from fslab.criteria import bayes_value
from fslab.data.distributions import Distribution, example1
from fslab.information import class_entropy, mutual_information
from fslab.measures import MEASURES, measure
from fslab.tables import JointTable

LABELS = np.array([0, 1])
NAMES = sorted(MEASURES)
TOL = 1e-10


def positive_probs(shape):
    """Probabilities with every class present (so p is in (0, 1) and all measures are defined)."""
    return arrays(np.float64, shape, elements=st.floats(0.0, 1.0)).filter(
        lambda a: np.all(a.sum(axis=tuple(range(a.ndim - 1))) > 0.05))


def _value(name, table):
    return measure(name).value(table)


@settings(max_examples=40, deadline=None)
@given(positive_probs(st.tuples(st.integers(1, 5), st.just(2))),
       arrays(np.float64, st.integers(2, 3), elements=st.floats(0.05, 1.0)))
def test_refining_by_an_independent_feature_changes_nothing(probs, q):
    """X2 independent of (X1, Y): p(x1, x2, y) = p(x1, y) q(x2); the table of {X1, X2} is X1's table
    with each cell split in proportion q, so eta per cell is unchanged and every measure is too."""
    q = q / q.sum()
    states = np.array([(a, b) for a in range(len(probs)) for b in range(len(q))])
    joint = np.array([probs[a] * q[b] for a, b in states])
    d = Distribution(states, joint, arities=[len(probs), len(q)])
    for name in NAMES:
        assert _value(name, d.table([0, 1])) == pytest.approx(_value(name, d.table([0])), abs=TOL), name


@pytest.mark.slow  # 0.54 s measured (inner loop: unit and not slow)
@settings(max_examples=40, deadline=None)
@given(positive_probs(st.tuples(st.just(12), st.just(2))))
def test_adding_a_feature_never_makes_the_bayes_value_worse(joint):
    """X = (X1, X2, X3) with arities (2, 3, 2); any law. C(J + {j}) >= C(J) for every measure: each is the
    Bayes-optimal value over predictors of X_J, and those of X_J are also predictors of X_{J+j}."""
    states = np.array([(a, b, c) for a in range(2) for b in range(3) for c in range(2)])
    d = Distribution(states, joint, arities=[2, 3, 2])
    for name in NAMES:
        m = measure(name)
        for subset, bigger in (([], [1]), ([0], [0, 1]), ([1], [1, 2]), ([0, 2], [0, 1, 2])):
            assert m.criterion(d.table(bigger)) >= m.criterion(d.table(subset)) - TOL, (name, subset)


@pytest.mark.slow  # 0.36 s measured (inner loop: unit and not slow)
@settings(max_examples=40, deadline=None)
@given(positive_probs(st.tuples(st.integers(2, 8), st.just(2))), st.randoms(use_true_random=False))
def test_permuting_cells_and_adding_empty_cells_changes_nothing(probs, rnd):
    perm = list(range(len(probs)))
    rnd.shuffle(perm)
    padded = np.insert(probs, [rnd.randrange(len(probs) + 1) for _ in range(3)], 0.0, axis=0)
    base, shuffled, with_empty = (JointTable(a, LABELS) for a in (probs, probs[perm], padded))
    for name in NAMES:
        v = _value(name, base)
        assert _value(name, shuffled) == pytest.approx(v, abs=TOL), name
        assert _value(name, with_empty) == pytest.approx(v, abs=TOL), name


def test_permuting_features_leaves_subset_values_unchanged():
    d = example1()
    swapped = Distribution(d.states[:, ::-1], d.probs, arities=d.arities[::-1])
    for name in NAMES:
        assert bayes_value(d, [0, 1], name) == pytest.approx(bayes_value(swapped, [1, 0], name), abs=TOL)
        assert bayes_value(d, [0], name) == pytest.approx(bayes_value(swapped, [1], name), abs=TOL)


@settings(max_examples=30, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(2, 8), st.just(2)),
              elements=st.floats(0.0, 5.0)).filter(lambda a: np.all(a.sum(axis=(1, 2)) > 0)))
def test_batched_values_equal_per_table_values(counts):
    batch = JointTable(counts, LABELS)
    for name in NAMES:
        together = measure(name).value(batch)
        assert together.shape == (len(counts),)
        singles = [measure(name).value(batch[i]) for i in range(len(counts))]
        assert together == pytest.approx(singles, abs=1e-12, nan_ok=False), name


@settings(max_examples=40, deadline=None)
@given(positive_probs(st.tuples(st.integers(1, 6), st.integers(2, 4))))
def test_log_loss_is_entropy_minus_information_in_nats(probs):
    """Example 5: H(Y|X) = H(Y) - I(X;Y); the log-loss is in nats and MI in bits (x ln 2). Multiclass too."""
    t = JointTable(probs, np.arange(probs.shape[1]))
    mi_bits = measure("mi").value(t)
    assert measure("log-loss").value(t) == pytest.approx(class_entropy(t, "nats") - mi_bits * math.log(2),
                                                         abs=1e-12)
    assert mutual_information(t, "nats") == pytest.approx(mi_bits * math.log(2), abs=1e-12)


@pytest.mark.slow  # 0.41 s measured (inner loop: unit and not slow)
def test_plug_in_values_approach_the_exact_ones():
    """Sample m = 200,000 rows from a 3-feature distribution; every measure's plug-in value on the
    sample's table lies within a few standard errors (here 0.01) of the exact value."""
    d = Distribution.naive_bayes([0.65, 0.35], [
        [[0.9, 0.1], [0.6, 0.4]],
        [[0.5, 0.3, 0.2], [0.1, 0.3, 0.6]],
        [[0.7, 0.3], [0.4, 0.6]],
    ])
    sample = d.sample(200_000, seed=11)
    for name in NAMES:
        for subset in ([0], [1, 2], [0, 1, 2]):
            exact, plug_in = bayes_value(d, subset, name), bayes_value(sample, subset, name)
            assert plug_in == pytest.approx(exact, abs=0.01), (name, subset)
            m = measure(name)
            assert m.on(sample).value(subset) == pytest.approx(m.on(d).value(subset), abs=0.01)
