"""Held-out rules computed in place and on the engine's counts as they lie (issue 35.2, eighth session): the
log-loss rule on whole-number (int64) counts equals its float form and a hand computation, and held-out pairs
scored straight from (P, a, F L, A) counts equal the pairs' own extensions for every measure that adds up over
cells (balanced included, which the entry-form tests do not reach)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fslab.measures.cross_fit as cross_fit
from fslab.data.encoded import EncodedDataset
from fslab.measures import measure
from fslab.measures.log_loss import held_out_cell_entropy


def test_cell_entropy_on_whole_counts_by_hand():
    """One cell, 2 folds, 2 classes, counts as int64 (the engine's pair counts): fold 0 holds 2 rows of class 0,
    fold 1 one of each; every fold's rows [[3, 1], [2, 2]]. Fold 0: prior (1/2, 1/2), training counts (1, 1):
    p_0 = (1 + 1/2)/3 = 1/2, share 2 ln 2 / 4. Fold 1: prior (3/4, 1/4), training counts (2, 0): p_0 = 11/12,
    p_1 = 1/12, share (ln(12/11) + ln 12) / 4. The int64 counts must not be overwritten or truncated."""
    rows = np.array([[3.0, 1.0], [2.0, 2.0]])
    test = np.array([[[2, 0], [1, 1]]], dtype=np.int64)
    train = test.sum(axis=1, keepdims=True) - test
    kept = (train.copy(), test.copy())
    got = held_out_cell_entropy(train, test, rows, {})
    np.testing.assert_allclose(got, [[2 * math.log(2) / 4, (math.log(12 / 11) + math.log(12)) / 4]], rtol=1e-14)
    np.testing.assert_array_equal(train, kept[0])
    np.testing.assert_array_equal(test, kept[1])
    np.testing.assert_allclose(held_out_cell_entropy(train.astype(float), test.astype(float), rows, {}), got,
                               rtol=1e-15)


def test_cell_entropy_equals_minus_sum_t_ln_p():
    """Random (cells, folds, classes, values) counts: the rule equals -sum_l t_l ln p_l / m_f with
    p_l = (n_l + pi_l) / (n + 1), the smoothed probability written out, to 1e-12."""
    rng = np.random.default_rng(5)
    test = rng.integers(0, 5, size=(7, 4, 3, 2)) * (rng.random((7, 4, 3, 2)) < 0.5)
    train = test.sum(axis=1, keepdims=True) - test
    rows = test.sum(axis=(0, 3)).astype(float) + 2.0
    pi = (rows.sum(axis=0) - rows) / (rows.sum(axis=0) - rows).sum(axis=1, keepdims=True)   # every class trains
    p = (train + pi[None, :, :, None]) / (train.sum(axis=2, keepdims=True) + 1.0)
    want = -(test * np.log(p)).sum(axis=2) / rows.sum(axis=1)[None, :, None]
    np.testing.assert_allclose(held_out_cell_entropy(train, test, rows, {}), want, rtol=1e-12, atol=1e-15)


def _sample(m=600, n=6, L=4, seed=7):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(m, n))
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 2, size=m)) % L
    return EncodedDataset(X.astype(np.uint8), y, labels=np.arange(L))


@pytest.mark.parametrize("name", ["balanced", "zero-one", "mi"])
def test_dense_pairs_equal_extensions(name, monkeypatch):
    """``pair_criteria`` on the dense counts (the entry form never taken) equals ``extensions([f], [j])`` per pair
    to 1e-12, 4 classes x 5 folds."""
    monkeypatch.setattr(cross_fit, "ENTRY_SHARE", 10**9)
    source = _sample()
    firsts, seconds = np.array([0, 0, 1, 4, 2, 5]), np.array([1, 5, 3, 2, 3, 0])
    ev = measure(name).on(source, estimate="cross-fitted")
    got = ev.pair_criteria(ev.counter.pair_key_counts(firsts, seconds))
    want = [measure(name).on(source, estimate="cross-fitted").extensions([f], [j])[0]
            for f, j in zip(firsts, seconds, strict=True)]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    assert np.ptp(want) > 0.01
