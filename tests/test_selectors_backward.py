"""Backward elimination: the one-pass removal step equals scoring every J \\ {j} from scratch; k = n is
well-formed; the exhaustive-search limit names the k that fits."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fslab.data.distributions import Distribution, example1
from fslab.data.encoded import EncodedDataset
from fslab.errors import TooLargeError
from fslab.measures import Evaluator, measure
from fslab.selectors import select
from fslab.selectors._exhaustive import largest_k

MEASURES = [("zero-one", {}), ("balanced", {}), ("log-loss", {}), ("f-beta", {"beta": 2.0}), ("auc", {}),
            ("mi", {}), ("squared", {}), ("cost-sensitive", {"c": 0.3}), ("precision", {"approach": 1}),
            ("precision", {"approach": 2}), ("recall", {"approach": 1}), ("recall", {"approach": 2})]


def _from_scratch(crit: Evaluator, kept: np.ndarray) -> np.ndarray:
    """The definition: C(kept minus j), one subset table (or subset criterion) per j."""
    return np.array([crit.criterion(kept[kept != j]) for j in kept])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), m=st.integers(5, 80), n=st.integers(1, 7), arity=st.integers(2, 4))
def test_removal_step_equals_scoring_each_subset(seed, m, n, arity):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, arity, (m, n))
    y = (X.sum(axis=1) + rng.integers(0, 2, m) > n * (arity - 1) / 2).astype(int)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    ds = EncodedDataset(X, y)
    kept = np.flatnonzero(rng.random(n) < 0.7)
    if kept.size == 0:
        kept = np.arange(n)
    for name, params in MEASURES:
        crit = measure(name, **params).on(ds)
        np.testing.assert_allclose(crit.removals(kept), _from_scratch(crit, kept), rtol=1e-12, atol=1e-12,
                                   err_msg=f"{name} {params}")


def test_removal_step_on_an_exact_distribution():
    law = Distribution.naive_bayes([0.3, 0.7], [[[0.9, 0.1], [0.2, 0.8]], [[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]],
                                                [[0.6, 0.4], [0.45, 0.55]]])
    kept = np.arange(3)
    for name, params in MEASURES:
        crit = measure(name, **params).on(law)
        np.testing.assert_allclose(crit.removals(kept), _from_scratch(crit, kept), rtol=1e-12, atol=1e-12)


def test_removal_cells_survive_many_binary_features():
    """70 binary features: 2^69 codes overflow a plain mixed radix; the ids must stay exact (re-densified)."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, (300, 70))
    ds = EncodedDataset(X, rng.integers(0, 2, 300))
    crit = measure("zero-one").on(ds)
    kept = np.arange(70)
    np.testing.assert_allclose(crit.removals(kept), _from_scratch(crit, kept), atol=1e-12)


def test_backward_with_k_equal_to_n_keeps_the_full_set():
    """Example 1 has two features: k = 2 removes nothing. The full set's 0-1 error is 0.22 (Example 1's
    table: the Bayes classifier on (X1, X2) errs on mass .22), no score per elimination, and a note."""
    sel = select(example1(), 2, "backward")
    assert sel.features == (0, 1) and sel.eliminated == ()
    assert sel.scores.size == 0 and sel.trace.empty
    assert sel.start_score == pytest.approx(-0.22)
    assert sel.notes and "removes nothing" in sel.notes[0]
    assert sel.to_dict()["start_score"] == pytest.approx(-0.22)


def test_backward_start_score_is_the_full_set_criterion():
    """Example 1, k = 1: start at C({X1, X2}) = -0.22; removing X2 leaves er(X1) = 0.25 (< er(X2) = 0.30)."""
    sel = select(example1(), 1, "backward")
    assert sel.features == (0,) and sel.eliminated == (1,)
    assert sel.start_score == pytest.approx(-0.22) and sel.scores.tolist() == pytest.approx([-0.25])
    assert sel.notes == ()


def test_exhaustive_limit_names_the_largest_k_that_fits():
    """C(116, 2) = 116 * 115 / 2 = 6,670 <= 200,000 < C(116, 3) = 253,460."""
    assert largest_k(116, 200_000) == 2
    law = Distribution.naive_bayes([0.5, 0.5], [[[0.9, 0.1], [0.1, 0.9]]] * 8)
    with pytest.raises(TooLargeError, match=r"k <= 2 fits \(C\(8, 2\) = 28 subsets; by symmetry so does k >= 6\)"):
        select(law, 3, "exhaustive", max_subsets=30)  # C(8, 3) = 56 > 30 >= 28
    assert "raise max_subsets" not in _message(law)


def _message(law) -> str:
    with pytest.raises(TooLargeError) as err:
        select(law, 4, "exhaustive", max_subsets=30)
    return str(err.value)
