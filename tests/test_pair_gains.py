"""Pair counts of the MI-family gains (issue 35): mRMR's I(Xj;Xf) from the k ln k table, and the held-out pair count
of JMI and CMIM (n(X_f = u, fold-class, X_j = v) in one count), against the plain tables to 1e-12."""

from __future__ import annotations

import numpy as np
import pytest

from fslab.counting import dense
from fslab.counting.dense import FastCounter
from fslab.data.encoded import EncodedDataset
from fslab.information import mutual_information
from fslab.measures import measure
from fslab.selectors._counting import held_out_pairs, pair_extensions, pair_information
from fslab.selectors._loop import run_search
from fslab.selectors._scorers import MIGainScorer
from fslab.tables import JointTable

SHAPES = [(0, 2, 2), (1, 3, 17), (2, 10, 5), (3, 30, 3), (4, 5, 8)]  # (seed, classes, levels)


def data(seed: int, classes: int, levels: int, m: int = 400, n: int = 20) -> EncodedDataset:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, m)
    X = rng.integers(0, levels, (m, n))
    X[:, ::3] = np.where(rng.random((m, X[:, ::3].shape[1])) < 0.5, (y[:, None] * 7 + 3) % levels, X[:, ::3])
    X[:, 5] = X[:, 2]  # a duplicate: exact ties
    return EncodedDataset(X, y)


def pairs(n: int, seed: int, size: int = 40) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, size), rng.integers(0, n, size)


def test_pair_information_by_hand():
    # X_f = 0 0 1 1, X_j = 0 1 1 1: I = H(X_j) + H(X_f) - H(X_f, X_j) = 0.811278 + 1 - 1.5 bits
    ds = EncodedDataset(np.array([[0, 0], [0, 1], [1, 1], [1, 1]]), np.array([0, 1, 0, 1]))
    got = pair_information(measure("mi").on(ds), np.array([0]), np.array([1]))
    h = -(0.25 * np.log2(0.25) + 0.75 * np.log2(0.75))
    assert got == pytest.approx([h + 1.0 - 1.5], abs=1e-12)
    assert got[0] == pytest.approx(0.311278, abs=1e-6)


@pytest.mark.parametrize(("seed", "classes", "levels"), SHAPES)
def test_pair_information_equals_plain_tables(seed, classes, levels):
    ds = data(seed, classes, levels)
    fs, js = pairs(ds.n_features, seed)
    got = pair_information(measure("mi").on(ds), fs, js)
    X = ds.X.astype(np.int64)
    tables = np.stack([np.bincount(X[:, f] * levels + X[:, j], minlength=levels * levels).reshape(levels, levels)
                       for f, j in zip(fs, js, strict=True)])  # (P, X_f, X_j): X_j plays the class
    want = mutual_information(JointTable(tables, np.arange(levels)), unit="bits")
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", ["mi", "log-loss", "zero-one"])
@pytest.mark.parametrize(("seed", "classes", "levels"), [*SHAPES[:3], (3, 20, 3)])  # the engine: <= 128 fold-classes
def test_held_out_pair_count_equals_plain_tables(name, seed, classes, levels):
    ds = data(seed, classes, levels)
    ev = measure(name).on(ds, estimate="cross-fitted")
    assert held_out_pairs(ev)
    plain = measure(name).on(ds, "plain", estimate="cross-fitted")
    fs, js = pairs(ds.n_features, seed, size=12)
    got = pair_extensions(ev, fs, js)
    want = [plain.extensions([int(f)], [int(j)])[0] for f, j in zip(fs, js, strict=True)]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("kind", ["jmi", "cmim"])
@pytest.mark.parametrize(("seed", "classes", "levels"), [(5, 3, 4), (6, 10, 9)])
def test_held_out_jmi_cmim_as_plain_tables(kind, seed, classes, levels):
    """Held out, lazy CMIM counts its pairs by (fold, class) and JMI its steps on the engine: the picks, tie counts
    and gains of the plain tables' full evaluation."""
    ds = data(seed, classes, levels)
    ev = measure("mi").on(ds, estimate="cross-fitted")
    scorer = MIGainScorer(ev, kind)
    assert kind == "jmi" or scorer.lazy
    fast = run_search(ds.n_features, 5, scorer)
    slow = run_search(ds.n_features, 5, MIGainScorer(measure("mi").on(ds, "plain", estimate="cross-fitted"), kind,
                                                     lazy=False))
    assert fast.order == slow.order
    assert fast.n_tied == slow.n_tied
    np.testing.assert_allclose(fast.best, slow.best, rtol=0, atol=1e-12)


def test_cached_columns_give_the_counts_of_the_whole_copy(monkeypatch):
    """Codes over BLOCK_BYTES: lazy rounds' pair counts read their columns from a small cache (least recently used
    out first); the counts equal the whole column-major copy's through hits, misses, evictions and oversize asks."""
    rng = np.random.default_rng(7)
    m, n, L, A = 300, 12, 4, 6
    y = rng.integers(0, L, m)
    X = rng.integers(0, A, (m, n)).astype(np.uint8)
    src = EncodedDataset(X, y)
    asks = [(rng.integers(0, n, size), rng.integers(0, n, size)) for size in (1, 2, 2, 1, 2, 6, 2, 1, 2, 2)]
    whole = FastCounter(src)
    want = [whole.pair_key_counts(f, j, classes=c) for f, j in asks for c in (True, False)]
    monkeypatch.setattr(dense, "BLOCK_BYTES", 1)
    monkeypatch.setattr(dense, "MIN_BLOCK_BYTES", 3 * m)
    monkeypatch.setattr(dense, "_COLUMN_CACHE", 4 * m)  # 4 columns held
    cached = FastCounter(src)
    got = [cached.pair_key_counts(f, j, classes=c) for f, j in asks for c in (True, False)]
    assert cached._columns is None and cached._store is not None and cached._store.shape == (4, m)
    for a, b in zip(want, got, strict=True):
        assert np.array_equal(a, b)
    held = cached._owner[cached._owner >= 0]
    assert np.array_equal(cached._slot[held], np.flatnonzero(cached._owner >= 0))  # the maps agree
    assert all(np.array_equal(cached._store[cached._slot[f]], X[:, f]) for f in held)


@pytest.mark.parametrize(("seed", "classes", "levels"), SHAPES)
def test_short_keys_of_many_rows_give_the_same_pair_counts(seed, classes, levels, monkeypatch):
    """From _SHORT_ROWS rows on, a pair's keys are 2 bytes (the first feature's part made once): the counts of the
    8-byte keys and of the popcounts, with and without the class."""
    ds = data(seed, classes, levels)
    fs, js = pairs(ds.n_features, seed, size=9)
    want = [FastCounter(ds).pair_key_counts(fs, js, classes=c) for c in (True, False)]
    monkeypatch.setattr(dense, "_SHORT_ROWS", 64)  # 400 rows are "many"
    short = FastCounter(ds)
    got = [short.pair_key_counts(fs, js, classes=c) for c in (True, False)]
    for a, b in zip(want, got, strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)


@pytest.mark.parametrize(("seed", "classes", "levels"), SHAPES)
def test_short_keys_of_many_rows_give_the_same_group_counts(seed, classes, levels, monkeypatch):
    """From _KEY_BLOCK rows on, n(group, X_j = v) takes 2-byte keys a column at a time: the counts of the 8-byte keys,
    over every row or a subset, for every feature or a few."""
    ds = data(seed, classes, levels)
    rng = np.random.default_rng(seed)
    rows = np.sort(rng.choice(ds.n_rows, 300, replace=False))
    group = rng.integers(0, 7, rows.size)
    feats = rng.permutation(ds.n_features)[:6]
    asks = [(None, ds.y, classes, None), (rows, group, 7, None), (rows, group, 7, feats), (None, ds.y, classes, feats)]
    want = [FastCounter(ds)._value_group_counts(*ask) for ask in asks]
    monkeypatch.setattr(dense, "_KEY_BLOCK", 64)
    short = FastCounter(ds)
    got = [short._value_group_counts(*ask) for ask in asks]
    for a, b in zip(want, got, strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)
