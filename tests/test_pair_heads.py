"""The first parts of the 2-byte pair keys kept across calls (issue 35.1: lazy rounds pair the same few picks again),
and the columns transposed by 8 x 8 byte blocks. Checked against plain counts on small random shapes, 2-30 classes,
4-17 levels (the key path), and by hand."""

import numpy as np
import pytest

from fslab.counting import dense
from fslab.counting.dense import FastCounter, byte_transpose
from fslab.data.encoded import EncodedDataset

SHAPES = [(600, 12, 2, 17), (700, 10, 3, 9), (900, 9, 10, 17), (800, 8, 30, 5), (650, 11, 7, 8)]  # the key path


def _source(m, n, classes, levels, seed=0):
    """Random codes, every other column tied to the class in 60 % of the rows."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, m)
    X = rng.integers(0, levels, (m, n)).astype(np.uint8)
    X[:, ::2] = np.where(rng.random((m, (n + 1) // 2)) < 0.6, (y[:, None] + np.arange(0, n, 2)) % levels, X[:, ::2])
    return EncodedDataset(X, y, arities=np.full(n, levels))


def _plain(X, y, L, A, fs, js, classes):
    """n(X_f = u, Y = l, X_j = v) per pair by one bincount of ((p A + X_f) L + y) A + X_j (without the class L = 1)."""
    L = L if classes else 1
    yy = y if classes else np.zeros_like(y)
    keys = ((np.arange(fs.size)[:, None] * A + X[:, fs].T) * L + yy[None, :]) * A + X[:, js].T
    out = np.bincount(keys.ravel(), minlength=fs.size * A * L * A).reshape(fs.size, A, L, A)
    return out if classes else out[:, :, 0]


def test_pair_counts_worked_by_hand(monkeypatch):
    """8 rows, X_f = 0 0 0 1 | 0 1 1 1 and X_j = 1 0 1 1 | 0 0 1 0 for classes 0 | 1: n(u, l, v) by hand."""
    X = np.array([[0, 1], [0, 0], [0, 1], [1, 1], [0, 0], [1, 0], [1, 1], [1, 0]], dtype=np.uint8)
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    monkeypatch.setattr(dense, "_SHORT_ROWS", 1)
    fc = FastCounter(EncodedDataset(X, y, arities=np.array([4, 4])))  # 4 levels (2 used): the key path
    for _ in range(2):  # the second call reads the kept first part (X_f L + y) A
        got = fc.pair_key_counts(np.array([0]), np.array([1]))[0, :2, :, :2]  # (u, l, v)
        # class 0: X_j = 1 0 1 | 1 over u = 0 | 1; class 1: X_j = 0 | 0 1 0 over u = 0 | 1
        assert got.tolist() == [[[1, 2], [1, 0]], [[0, 1], [2, 1]]]
        assert fc._heads[(0, 2)].tolist() == [0, 0, 0, 8, 4, 12, 12, 12]
    no_class = fc.pair_key_counts(np.array([0]), np.array([1]), classes=False)[0, :2, :2]  # X_j = 1 0 1 0 for both u
    assert no_class.tolist() == [[2, 2], [2, 2]]


@pytest.mark.parametrize(("m", "n", "classes", "levels"), SHAPES)
def test_kept_first_parts_give_the_plain_pair_counts(m, n, classes, levels, monkeypatch):
    d = _source(m, n, classes, levels, seed=m)
    X, y = np.asarray(d.X), np.asarray(d.y)
    rng = np.random.default_rng(n)
    fs, js = rng.integers(0, n, 15), rng.integers(0, n, 15)
    monkeypatch.setattr(dense, "_SHORT_ROWS", 64)
    fc = FastCounter(d)
    for classes_too in (True, False, True, False):  # the last two calls read the kept first parts
        got = fc.pair_key_counts(fs, js, classes=classes_too)
        assert np.array_equal(got, _plain(X, y, classes, levels, fs, js, classes_too))
    assert {(int(f), classes) for f in fs} <= set(fc._heads)


def test_kept_first_parts_stay_within_their_budget(monkeypatch):
    d = _source(900, 9, 10, 17)
    monkeypatch.setattr(dense, "_SHORT_ROWS", 64)
    monkeypatch.setattr(dense, "_COLUMN_CACHE", 3 * 900 * 2)  # three first features' parts
    fc = FastCounter(d)
    fs, js = np.arange(9), np.arange(9)[::-1].copy()
    got = fc.pair_key_counts(fs, js)
    assert np.array_equal(got, _plain(np.asarray(d.X), np.asarray(d.y), 10, 17, fs, js, True))
    assert len(fc._heads) == 3 and sum(h.nbytes for h in fc._heads.values()) <= 3 * 900 * 2
    assert list(fc._heads) == [(f, 10) for f in (6, 7, 8)]  # the newest kept


@pytest.mark.parametrize("shape", [(1, 1), (7, 3), (8, 8), (4097, 9), (1000, 67), (3, 4100)])
def test_byte_transpose_is_the_transpose(shape):
    X = np.random.default_rng(sum(shape)).integers(0, 256, shape).astype(np.uint8)
    for codes in (X, X[:, ::-1]):
        got = byte_transpose(codes)
        assert got.shape == codes.T.shape and np.array_equal(got, codes.T)


def test_lazy_rounds_follow_the_pair_counting_path():
    """Popcount pairs (binary, 2 classes) take _LAZY_BITS_* rounds; key-path pairs (17 levels) the default."""
    from fslab.measures import measure
    from fslab.selectors import _scorers

    for levels, bits in ((2, True), (17, False)):
        d = _source(900, 20, 2, levels)
        scorer = _scorers.CMIMScorer(measure("mi").on(d))
        assert scorer.ev.counter.pairs_by_popcount() is bits
        want = (_scorers._LAZY_BITS_BATCH, _scorers._LAZY_BITS_DEPTH) if bits else (_scorers._LAZY_BATCH,
                                                                                     _scorers._LAZY_DEPTH)
        assert (scorer.batch, scorer.depth) == want


@pytest.mark.parametrize(("m", "n", "classes", "levels"), SHAPES)
def test_jmi_by_short_pair_keys_equals_the_engine(m, n, classes, levels, monkeypatch):
    """JMI folds a pick's pairs by 2-byte keys (every row, a bincount a pair, in blocks of _PAIR_ENTRIES counts):
    the same I(X_j, X_f; Y) sums as the engine's per-step states, to 1e-12, and the same picks."""
    from fslab import select
    from fslab.measures import measure
    from fslab.selectors import _counting, _scorers

    d = _source(m, n, classes, levels, seed=m)
    monkeypatch.setattr(dense, "_SHORT_ROWS", 64)
    monkeypatch.setattr(_counting, "_PAIR_ENTRIES", 3 * levels * levels * classes)  # 3 pairs a block
    pairs, engine = _scorers.JMIScorer(measure("mi").on(d)), _scorers.JMIScorer(measure("mi").on(d))
    assert pairs.ev.counter.pair_counting() == "short"
    want = select(d, 4, selector="jmi").features
    for f in (0, 3, 5):
        pairs.commit(f)
        monkeypatch.setattr(FastCounter, "pair_counting", lambda self, classes=True: "keys")
        engine.commit(f)
        monkeypatch.undo()
        monkeypatch.setattr(dense, "_SHORT_ROWS", 64)
        monkeypatch.setattr(_counting, "_PAIR_ENTRIES", 3 * levels * levels * classes)
    others = np.flatnonzero(~pairs.members)
    assert np.allclose(pairs.acc[others], engine.acc[others], rtol=0, atol=1e-12) and pairs.acc[others].max() > 0
    monkeypatch.setattr(FastCounter, "pair_counting", lambda self, classes=True: "keys")
    assert list(select(d, 4, selector="jmi").features) == list(want)


@pytest.mark.parametrize("block", [7, 64, 1 << 16])
def test_short_bincount_in_blocks_is_the_bincount(block, monkeypatch):
    """Beyond _KEY_BLOCK keys the 2-byte keys are counted a block at a time: the same counts, and so the same pair
    counts (here 900 rows in blocks of 7 or 64)."""
    monkeypatch.setattr(dense, "_KEY_BLOCK", block)
    keys = np.random.default_rng(block).integers(0, 300, 1000).astype(np.uint16)
    assert np.array_equal(dense.short_bincount(keys, 310), np.bincount(keys, minlength=310))
    assert dense.short_bincount(keys[:0], 5).tolist() == [0] * 5
    d = _source(900, 9, 10, 17)
    monkeypatch.setattr(dense, "_SHORT_ROWS", 64)
    fs, js = np.arange(9), np.arange(9)[::-1].copy()
    for classes_too in (True, False):
        got = FastCounter(d).pair_key_counts(fs, js, classes=classes_too)
        assert np.array_equal(got, _plain(np.asarray(d.X), np.asarray(d.y), 10, 17, fs, js, classes_too))


def test_keys_pay_from_fewer_groups_beyond_a_block_of_rows(monkeypatch):
    """Beyond _KEY_BLOCK counted rows the keys cost _KEY_COST_MANY word operations a row, not _KEY_COST: 900 rows of
    6 levels (15 words a value), 2 groups: 2 x 5 x 15 = 150 word operations, under 2.0 x 900 but over 0.15 x 900."""
    d = _source(900, 9, 2, 6)
    fc = FastCounter(d)
    assert not fc._keys_pay(2, 900)  # 150 < 1,800
    monkeypatch.setattr(dense, "_KEY_BLOCK", 899)
    monkeypatch.setattr(dense, "_KEY_COST_MANY", 0.15)
    assert fc._keys_pay(2, 900) and not fc._keys_pay(2, 899)  # 150 >= 135; 899 rows are one block
    got = FastCounter(d).pair_key_counts(np.arange(9), np.arange(9)[::-1].copy())
    assert np.array_equal(got, _plain(np.asarray(d.X), np.asarray(d.y), 2, 6, np.arange(9), np.arange(9)[::-1], True))
