"""Held-out log-loss and MI from the non-zero entries only (issue 35.2): ``HeldOutCells.entry_loss`` equals the dense
(cell, fold, class) form, by hand and on random counts, and every path of the cross-fitted evaluator (the engine's
blocks, the row path's parts spread over folds, the occupied cells of plain tables) gives the same values with the
entry form forced on or off."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fslab.measures.cross_fit as cross_fit
from fslab.data.encoded import EncodedDataset
from fslab.measures import measure
from fslab.measures.log_loss import held_out_cell_entropy, held_out_entry_entropy


def test_entry_entropy_by_hand():
    """One cell, 2 folds, 2 classes: fold 0 holds 2 rows of class 0, fold 1 one of each; every fold's rows (F, L)
    [[3, 1], [2, 2]]. Fold 0: training prior (2, 2)/4 = (1/2, 1/2), the cell's training counts (1, 1), so
    p_0 = (1 + 1/2)/(2 + 1) = 1/2 and the share is 2 ln 2 / 4. Fold 1: prior (3, 1)/4, training counts (2, 0):
    p_0 = (2 + 3/4)/3 = 11/12, p_1 = (1/4)/3 = 1/12, share (ln(12/11) + ln 12) / 4. A second, empty cell: 0."""
    rows = np.array([[3.0, 1.0], [2.0, 2.0]])
    got = held_out_entry_entropy(np.array([0, 0, 0]), np.array([0, 1, 1]), np.array([0, 0, 1]),
                                 np.array([2, 1, 1]), 2, rows, {})
    want = [[2 * math.log(2) / 4, (math.log(12 / 11) + math.log(12)) / 4], [0.0, 0.0]]
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)
    test = np.array([[[2.0, 0.0], [1.0, 1.0]]])   # (cell, fold, class)
    dense = held_out_cell_entropy(test.sum(axis=1, keepdims=True) - test, test, rows, {})
    np.testing.assert_allclose(dense, [want[0]], rtol=1e-14)


@pytest.mark.parametrize("F,L", [(2, 2), (5, 3), (3, 10)])
def test_entry_form_equals_dense_form(F, L):
    """Random sparse counts (40 cells): the entries' shares equal the dense layout's to 1e-12, a class absent from
    a fold's training rows (the add-1/2 prior) included."""
    rng = np.random.default_rng(F * L)
    test = rng.integers(0, 4, size=(40, F, L)) * (rng.random((40, F, L)) < 0.3)
    rows = test.sum(axis=0).astype(np.float64) + 1.0   # the other cells' rows: every (fold, class) holds one
    rows[0, 0] = test[:, 0, 0].sum()                   # ... except class 0 of fold 0
    rows[1:, 0] = test[:, 1:, 0].sum(axis=0)           # class 0 only in fold 0: absent from fold 0's training
    dense = held_out_cell_entropy(test.sum(axis=1, keepdims=True) - test, test, rows, {})
    cell, fold, cls = np.nonzero(test)
    got = held_out_entry_entropy(cell, fold, cls, test[cell, fold, cls], 40, rows, {})
    np.testing.assert_allclose(got, dense, rtol=1e-12, atol=1e-14)


def _sample(m=600, n=6, L=6, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(m, n))
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 2, size=m)) % L
    return EncodedDataset(X.astype(np.uint8), y, labels=np.arange(L))


@pytest.mark.parametrize("name", ["log-loss", "mi"])
@pytest.mark.parametrize("route", ["engine", "plain"])
def test_every_path_same_with_entries_on_or_off(name, route, monkeypatch):
    """6 classes x 5 folds, deep subsets: the entry form forced (ENTRY_SHARE 0) and never taken (a huge
    ENTRY_SHARE) give the same extensions to 1e-12 on the engine and the plain tables. (The row path scores
    log-loss and MI by its runs whatever ENTRY_SHARE says: tests/test_heldout_rows.py and
    tests/test_heldout_rules_inplace.py hold it to the plain tables and to the entry form.)"""
    source = _sample()
    monkeypatch.setattr(cross_fit, "ROW_RULE", 10**9)
    values = []
    for share in (0, 10**9):
        monkeypatch.setattr(cross_fit, "ENTRY_SHARE", share)
        ev = measure(name).on(source, estimate="cross-fitted", engine="plain" if route == "plain" else "auto")
        values.append(np.concatenate([ev.extensions(J, [2, 3, 4, 5]) for J in ([], [0], [0, 1], [1, 0, 2])]))
    np.testing.assert_allclose(values[0], values[1], rtol=1e-12, atol=1e-14)
    assert np.ptp(values[0]) > 0.01   # the candidates differ: a comparison that can fail


@pytest.mark.parametrize("name", ["log-loss", "mi", "zero-one"])
def test_pair_criteria_equal_the_pairs_tables(name, monkeypatch):
    """``pair_criteria`` on the engine's pair counts (P, a, F L, A) equals the pairs' own held-out values
    (``extensions([f], [j])``) to 1e-12, with the entry form forced on or off (0-1 has none: the tables)."""
    source = _sample()
    firsts, seconds = np.array([0, 0, 1, 4, 2]), np.array([1, 5, 3, 2, 2])
    want = None
    for share in (0, 10**9):
        monkeypatch.setattr(cross_fit, "ENTRY_SHARE", share)
        ev = measure(name).on(source, estimate="cross-fitted")
        got = ev.pair_criteria(ev.counter.pair_key_counts(firsts, seconds))
        if want is None:
            want = np.array([ev.extensions([f], [j])[0] for f, j in zip(firsts, seconds, strict=True)])
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    assert np.ptp(want) > 0.01


@pytest.mark.parametrize("name", ["zero-one", "mi"])
def test_engine_chunks_of_features_change_nothing(name, monkeypatch):
    """The engine's dense held-out rule runs on chunks of features (CACHE_BYTES): one feature a chunk gives the
    values of one chunk for all (to 1e-15: the sums over cells and values run in another order)."""
    source = _sample(L=3)
    values = []
    for size in (1, 1 << 30):
        monkeypatch.setattr(cross_fit, "CACHE_BYTES", size)
        ev = measure(name).on(source, estimate="cross-fitted")
        values.append(np.concatenate([ev.extensions(J, np.arange(6)) for J in ([], [0], [0, 1])]))
    np.testing.assert_allclose(values[0], values[1], rtol=1e-14, atol=1e-15)
    assert np.ptp(values[0]) > 0.01
