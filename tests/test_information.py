"""Entropy / MI / conditional MI on tables and integer codes: hand values, units, batching, weights."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from fslab.data.distributions import example1
from fslab.errors import ParameterError
from fslab.information import (
    cell_entropy,
    class_entropy,
    conditional_entropy,
    conditional_mutual_information_codes,
    conditional_mutual_information_counts,
    entropy_codes,
    entropy_pmf,
    joint_codes,
    mutual_information,
    mutual_information_codes,
)
from fslab.tables import JointTable


def test_entropy_pmf_hand_values():
    """Uniform on 4 = 2 bits = ln 4 nats; (1/2, 1/4, 1/4) = 1.5 bits; counts are normalised; 0 log 0 = 0."""
    assert entropy_pmf([1, 1, 1, 1]) == pytest.approx(2.0)
    assert entropy_pmf([0.25] * 4, unit="nats") == pytest.approx(math.log(4))
    assert entropy_pmf([2, 1, 1, 0]) == pytest.approx(1.5)
    assert entropy_pmf([[1, 1], [1, 0]]) == pytest.approx([1.0, 0.0])


def test_table_quantities_on_example1():
    """Example 1, X1: H(Y) = H(.3) = 0.881291 bit; I(X1;Y) = 0.0819 bit;
    H(X1) = H(.19) = .19 * 2.395929 + .81 * 0.304006 = 0.701471 bit."""
    t = example1().table([0])
    assert class_entropy(t) == pytest.approx(0.881291, abs=1e-6)
    assert cell_entropy(t) == pytest.approx(0.701471, abs=1e-6)
    assert mutual_information(t) == pytest.approx(0.0819, abs=5e-5)
    assert conditional_entropy(t) == pytest.approx(class_entropy(t) - mutual_information(t))


def test_xor_conditional_mutual_information():
    """X, Z fair independent bits, Y = X xor Z: I(X;Y) = 0 but I(X;Y|Z) = 1 bit (= ln 2 nats)."""
    x = np.array([0, 0, 1, 1])
    z = np.array([0, 1, 0, 1])
    y = x ^ z
    assert mutual_information_codes(x, y) == pytest.approx(0.0, abs=1e-15)
    assert conditional_mutual_information_codes(x, y, z) == pytest.approx(1.0)
    assert conditional_mutual_information_codes(x, y, z, unit="nats") == pytest.approx(math.log(2))
    # the pair (X, Z) determines Y: I(XZ; Y) = H(Y) = 1 bit
    assert mutual_information_codes(joint_codes(x, z), y) == pytest.approx(1.0)
    counts = np.zeros((2, 2, 2))
    np.add.at(counts, (z, x, y), 1)
    assert conditional_mutual_information_counts(counts) == pytest.approx(1.0)


def test_codes_batched_over_columns_and_weighted_rows():
    """A (m, B) matrix gives one value per column; weighted rows equal the exact distribution."""
    d = example1()
    sample = d.sample(5000, seed=2)
    batched = mutual_information_codes(sample.X, sample.y)
    assert batched.shape == (2,)
    assert batched == pytest.approx([mutual_information_codes(sample.X[:, j], sample.y) for j in range(2)])
    assert entropy_codes(sample.X) == pytest.approx([entropy_codes(sample.X[:, j]) for j in range(2)])
    cmi = conditional_mutual_information_codes(sample.X, sample.y, sample.X[:, ::-1])
    assert cmi == pytest.approx([conditional_mutual_information_codes(sample.X[:, j], sample.y, sample.X[:, 1 - j])
                                 for j in range(2)])
    # exact: rows = (state, class) pairs weighted by their probability
    rows = np.repeat(d.states, 2, axis=0)
    y = np.tile([0, 1], len(d.states))
    w = d.probs.ravel()
    assert mutual_information_codes(rows, y, weights=w) == pytest.approx(
        [mutual_information(d.table([j])) for j in range(2)])
    # Naive Bayes: X1 and X2 are independent given Y, so I(X1; X2 | Y) = 0 exactly
    assert conditional_mutual_information_codes(rows[:, 0], rows[:, 1], y, weights=w) == pytest.approx(0, abs=1e-12)


@settings(max_examples=50, deadline=None)
@given(arrays(np.int64, st.tuples(st.integers(2, 5), st.integers(2, 4)), elements=st.integers(0, 9))
       .filter(lambda c: c.sum() > 0))
def test_mi_bounds_and_symmetry(counts):
    """0 <= I(X;Y) <= min(H(X), H(Y)); I is symmetric (transposed table); bits = nats / ln 2."""
    t = JointTable(counts, np.arange(counts.shape[1]))
    tt = JointTable(counts.T, np.arange(counts.shape[0]))
    mi = mutual_information(t)
    assert -1e-12 <= mi <= min(cell_entropy(t), class_entropy(t)) + 1e-12
    assert mutual_information(tt) == pytest.approx(mi, abs=1e-12)
    assert mutual_information(t, "nats") == pytest.approx(mi * math.log(2), abs=1e-12)


def test_errors_name_the_problem():
    with pytest.raises(ParameterError, match="unit"):
        entropy_pmf([1, 1], unit="bans")
    with pytest.raises(ParameterError, match="integer codes"):
        mutual_information_codes(np.array([0.5, 1.0]), np.array([0, 1]))
    with pytest.raises(ParameterError, match="weights"):
        entropy_codes(np.array([0, 1]), weights=[1.0])
    with pytest.raises(ParameterError, match="non-negative"):
        entropy_pmf([-1, 2])


def test_chunked_counting_matches_and_shapes_are_checked(monkeypatch):
    """Force a chunk of 3 columns: the batched values are the same; mismatched shapes are refused."""
    import fslab.information as info

    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(50, 8))
    y = rng.integers(0, 2, size=50)
    whole = mutual_information_codes(X, y)
    monkeypatch.setattr(info, "_CHUNK_CODES", 150)
    assert mutual_information_codes(X, y) == pytest.approx(whole, abs=1e-15)
    with pytest.raises(ParameterError, match="same number of rows"):
        mutual_information_codes(X, y[:-1])
    with pytest.raises(ParameterError, match="same B"):
        conditional_mutual_information_codes(X, y, X[:, :2])
