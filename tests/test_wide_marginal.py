"""The class marginals of wide data by byte sums (no value bits), and value bits packed only for the columns asked for
(issue 35: CMIM on 2,000 x 5,000 packed 5,000 columns' bits for the few hundred its pairs read). Checked against plain
counts and the full packing on small random shapes, 2-30 classes, 2-17 levels."""

import numpy as np
import pytest

import fslab
from fslab.counting import dense
from fslab.counting.dense import FastCounter
from fslab.data.encoded import EncodedDataset

SHAPES = [(300, 260, 2, 2), (257, 256, 3, 4), (520, 300, 10, 17), (400, 270, 30, 5), (90, 300, 7, 3)]


def _source(m, n, classes, levels, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(m) % classes
    rng.shuffle(y)
    X = rng.integers(0, levels, (m, n)).astype(np.uint8)
    X[:, ::7] = (y[:, None] * 3 + np.arange(0, n, 7)) % levels  # some columns tied to the class
    return EncodedDataset(X, y, arities=np.full(n, levels))


def _plain_marginal(X, y, L, A):
    """n(Y = l, X_j = v) as (L, n, A) from one bincount of (j L + y) A + X[r, j]."""
    m, n = X.shape
    keys = (np.arange(n)[None, :] * L + y[:, None]) * A + X
    return np.bincount(keys.ravel(), minlength=n * L * A).reshape(n, L, A).transpose(1, 0, 2)


@pytest.mark.parametrize("m,n,classes,levels", SHAPES)
def test_byte_sums_give_the_plain_class_marginals(m, n, classes, levels):
    d = _source(m, n, classes, levels)
    fc = FastCounter(d)
    assert fc._bits is None
    got = fc.marginal
    assert fc._bits is None  # no value bits were packed for it
    assert np.array_equal(got, _plain_marginal(np.asarray(d.X), np.asarray(d.y), classes, levels))
    assert np.array_equal(fc._marginal_by_value, got.transpose(0, 2, 1))


def test_a_hand_worked_marginal():
    # 3 rows of class 0 with codes 0, 2, 2 and 2 rows of class 1 with codes 1, 2 in column 0; column j = column 0
    X = np.zeros((5, 256), dtype=np.uint8)
    X[:, :] = np.array([0, 2, 2, 1, 2], dtype=np.uint8)[:, None]
    fc = FastCounter(EncodedDataset(X, np.array([0, 0, 0, 1, 1]), arities=np.full(256, 3)))
    assert fc.marginal[0, 0].tolist() == [1, 0, 2] and fc.marginal[1, 255].tolist() == [0, 1, 1]


def test_bits_are_packed_per_column_and_equal_the_full_packing():
    d = _source(700, 40, 3, 5, seed=1)
    full = FastCounter(d)._value_bits().copy()
    fc = FastCounter(d)
    asked = np.array([3, 17, 17, 39])
    bits = fc._value_bits(asked)
    rows = (np.arange(1, 5)[:, None] - 1) * 40
    assert np.array_equal(bits[(rows + asked).ravel()], full[(rows + asked).ravel()])
    others = np.setdiff1d(np.arange(40), asked)
    assert not bits[(rows + others).ravel()].any()  # not packed yet
    assert np.array_equal(fc._value_bits(), full)


@pytest.mark.parametrize("selector", ["cmim", "mrmr"])
def test_wide_lazy_selections_equal_the_plain_tables(selector, monkeypatch):
    d = _source(240, 260, 4, 4, seed=2)
    fast = fslab.select(d, 3, selector=selector)
    plain = fslab.select(d, 3, selector=selector, engine="plain")
    assert fast.features == plain.features
    # either run may be lazy (a candidate not brought up to date shows its bound): the winners' gains are exact
    chosen = fast.trace.merge(plain.trace, on=["step", "candidate"], suffixes=("", "_plain"))
    chosen = chosen[chosen["chosen"]]
    assert np.allclose(chosen["value"], chosen["value_plain"], rtol=0, atol=1e-12)
    assert chosen["n_tied"].tolist() == chosen["n_tied_plain"].tolist()
    monkeypatch.setattr(dense, "_SUMS_MIN_FEATURES", 10**9)  # the marginal from the value bits, as before
    assert fslab.select(d, 3, selector=selector).features == fast.features


@pytest.mark.parametrize(("m", "classes", "levels"), [(600, 2, 17), (700, 30, 5), (513, 10, 17), (900, 7, 2)])
def test_short_pair_keys_from_512_rows_equal_the_8_byte_keys(m, classes, levels, monkeypatch):
    """Pairs take 2-byte keys from _SHORT_ROWS (512) rows on: the same counts as the 8-byte keys, with and without the
    class (and the 4-row case: n(X_0 = u, Y = l, X_1 = v) by hand)."""
    d = _source(m, 40, classes, levels, seed=m)
    rng = np.random.default_rng(m)
    fs, js = rng.integers(0, 40, 25), rng.integers(0, 40, 25)
    assert FastCounter(d).m >= dense._SHORT_ROWS
    short = [FastCounter(d).pair_key_counts(fs, js, classes=c) for c in (True, False)]
    monkeypatch.setattr(dense, "_SHORT_ROWS", 10**9)
    long = [FastCounter(d).pair_key_counts(fs, js, classes=c) for c in (True, False)]
    for a, b in zip(short, long, strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert short[0].sum(axis=(1, 2, 3)).tolist() == [m] * 25


def test_short_pair_keys_by_hand(monkeypatch):
    monkeypatch.setattr(dense, "_SHORT_ROWS", 1)
    X = np.array([[0, 1], [1, 1], [1, 0], [2, 1]], dtype=np.uint8)
    fc = FastCounter(EncodedDataset(X, np.array([0, 1, 1, 0]), arities=np.array([5, 4])))  # 5 values: the key path
    got = fc.pair_key_counts(np.array([0]), np.array([1]))[0]  # (u, l, v)
    want = np.zeros((5, 2, 5), dtype=np.int64)
    for u, l, v in [(0, 0, 1), (1, 1, 1), (1, 1, 0), (2, 0, 1)]:
        want[u, l, v] += 1
    assert np.array_equal(got, want)
