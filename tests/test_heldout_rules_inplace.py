"""Held-out rules computed in place, on the engine's counts as they lie and per sorted entry (issue 35.2, eighth
session): the log-loss rule on whole-number (int64) counts equals its float form and a hand computation; held-out
pairs scored straight from (P, a, F L, A) counts equal the pairs' own extensions for every measure that adds up over
cells (balanced included, which the entry-form tests do not reach); the row path's per-entry shares
(``held_out_run_entropy``) add up to the entry form's (part, fold) shares, by hand and on random counts."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fslab.measures.cross_fit as cross_fit
from fslab.data.encoded import EncodedDataset
from fslab.measures import measure
from fslab.measures.log_loss import held_out_cell_entropy, held_out_entry_entropy, held_out_run_entropy


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


def test_run_entropy_by_hand():
    """Part 0 of test_cell_entropy_on_whole_counts_by_hand (fold 0: 2 rows of class 0; fold 1: one of each; every
    fold's rows [[3, 1], [2, 2]]) as three sorted entries, and part 1 with one class-1 row in fold 1 only: unseen in
    training, it costs the prior's loss -ln(1/4) / 4 (fold 1's training prior (3, 1) / 4, N = t: ln(1) = 0)."""
    rows = np.array([[3.0, 1.0], [2.0, 2.0]])
    part, fold, cls = np.array([0, 0, 0, 1]), np.array([0, 1, 1, 1]), np.array([0, 0, 1, 1])
    share = held_out_run_entropy(part, fold, cls, np.array([2, 1, 1, 1]), 2, rows, {})
    # entries: -t ln(N_l - t + pi_l) / m_f, plus t ln(N - t + 1) / m_f on the first entry of a (part, fold) run
    want = [(-2 * math.log(1 + 0.5) + 2 * math.log(3)) / 4, (-math.log(2 + 0.75) + 2 * math.log(3)) / 4,
            -math.log(0.25) / 4, -math.log(0.25) / 4]
    np.testing.assert_allclose(share, want, rtol=1e-14)
    np.testing.assert_allclose([share[0], share[1] + share[2]],
                               [2 * math.log(2) / 4, (math.log(12 / 11) + math.log(12)) / 4], rtol=1e-14)


@pytest.mark.parametrize("F,L", [(2, 2), (5, 3), (3, 10)])
def test_run_entropy_adds_up_to_entry_form(F, L):
    """Random sparse counts of 60 parts, entries sorted by (part, fold, class) as the row path sorts them: the shares
    summed by (part, fold) equal ``held_out_entry_entropy``'s to 1e-12, with a class absent from fold 0's training
    rows (the add-1/2 prior) and parts in one fold."""
    rng = np.random.default_rng(F * L + 1)
    test = rng.integers(0, 4, size=(60, F, L)) * (rng.random((60, F, L)) < 0.25)
    test[:10, 1:] = 0                                  # parts in fold 0 only
    rows = test.sum(axis=0).astype(np.float64) + 1.0
    rows[0, 0] = test[:, 0, 0].sum()
    rows[1:, 0] = test[:, 1:, 0].sum(axis=0)           # class 0 only in fold 0: absent from fold 0's training
    part, fold, cls = np.nonzero(test)                 # row-major: sorted by (part, fold, class)
    count = test[part, fold, cls]
    want = held_out_entry_entropy(part, fold, cls, count, 60, rows, {})
    share = held_out_run_entropy(part, fold, cls, count, 60, rows, {})
    got = np.bincount(part * F + fold, weights=share, minlength=60 * F).reshape(60, F)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    assert np.ptp(want) > 0.01
