"""Pairs of few rows counted a block at a time (issue 35.1, eighth session: below _PAIR_BLOCK_ROWS rows, one bincount
over 2-byte keys of the pairs of a block within _KEY_BLOCK keys and cells: a bincount's own cost is a pair's keys'
worth), popcount pairs from a first feature's kept planes bits(X_f = u, Y = l), and the tie rule's one-best path.
Checked against plain counts on small random shapes, 2-30 classes, 2-17 levels, and by hand."""

import numpy as np
import pytest

from fslab.counting import dense
from fslab.counting.dense import FastCounter
from fslab.data.encoded import EncodedDataset
from fslab.selectors.ties import TIE_TOLERANCE, tied_mask, ties_with
from tests.test_pair_heads import _source  # the same random codes, every other column tied to the class

# (rows, features, classes, levels): the 2-byte key path (fewer levels and classes take popcounts)
SHAPES = [(600, 12, 2, 17), (700, 10, 3, 9), (900, 9, 10, 17), (800, 8, 30, 5), (650, 11, 7, 8), (520, 7, 30, 3)]


def _plain(X, y, L, A, fs, js, classes):
    """n(X_f = u, Y = l, X_j = v) per pair, one pair at a time by np.add.at (no bincount, no keys shared)."""
    L = L if classes else 1
    yy = y if classes else np.zeros_like(y)
    out = np.zeros((fs.size, A, L, A), dtype=np.int64)
    for p, (f, j) in enumerate(zip(fs, js, strict=True)):
        np.add.at(out[p], (X[:, f], yy, X[:, j]), 1)
    return out if classes else out[:, :, 0]


def test_block_counts_worked_by_hand(monkeypatch):
    """8 rows (< _SHORT_ROWS lowered to 1): two pairs in one bincount, n(u, l, v) by hand."""
    X = np.array([[0, 1], [0, 0], [0, 1], [1, 1], [0, 0], [1, 0], [1, 1], [1, 0]], dtype=np.uint8)
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    monkeypatch.setattr(dense, "_SHORT_ROWS", 1)
    fc = FastCounter(EncodedDataset(X, y, arities=np.array([4, 4])))
    got = fc.pair_key_counts(np.array([0, 1]), np.array([1, 0]))[:, :2, :, :2]
    # (f, j) = (0, 1): class 0: X_j = 1 0 1 | 1 over u = 0 | 1; class 1: X_j = 0 | 0 1 0
    assert got[0].tolist() == [[[1, 2], [1, 0]], [[0, 1], [2, 1]]]
    # (1, 0): class 0: X_0 = 0 | 0 0 1 over X_1 = 0 | 1; class 1: X_0 = 0 1 1 | 1
    assert got[1].tolist() == [[[1, 0], [1, 2]], [[2, 1], [0, 1]]]


@pytest.mark.parametrize(("m", "n", "classes", "levels"), SHAPES)
@pytest.mark.parametrize("firsts", ["one", "many"])
def test_blocks_give_the_plain_pair_counts(m, n, classes, levels, firsts, monkeypatch):
    d = _source(m, n, classes, levels, seed=m + levels)
    X, y = np.asarray(d.X), np.asarray(d.y)
    rng = np.random.default_rng(n)
    js = rng.integers(0, n, 23)
    fs = np.full(23, n // 2) if firsts == "one" else rng.integers(0, n, 23)  # mRMR / JMI folds; lazy CMIM rounds
    monkeypatch.setattr(dense, "_SHORT_ROWS", 64)
    monkeypatch.setattr(dense, "_KEY_BLOCK", 5 * max(m, levels * classes * levels))  # 5 pairs a bincount: blocks
    fc = FastCounter(d)
    assert fc.pair_counting() == "short" and m < dense._PAIR_BLOCK_ROWS
    for classes_too in (True, False):
        want = _plain(X, y, classes, levels, fs, js, classes_too)
        assert np.array_equal(fc.pair_key_counts(fs, js, classes=classes_too), want)
        monkeypatch.setattr(dense, "_PAIR_BLOCK_ROWS", 0)  # a bincount a pair: the same counts
        assert np.array_equal(FastCounter(d).pair_key_counts(fs, js, classes=classes_too), want)
        monkeypatch.setattr(dense, "_PAIR_BLOCK_ROWS", 1536)


@pytest.mark.parametrize("selector", ["cmim", "mrmr", "jmi"])
def test_selections_equal_with_and_without_blocks(selector, monkeypatch):
    """Picks, scores and tie counts of a whole run on 1,000 rows with and without the block path."""
    import fslab

    d = _source(1000, 24, 2, 17, seed=3)
    got = fslab.select(d, 8, selector=selector)
    monkeypatch.setattr(dense, "_PAIR_BLOCK_ROWS", 0)
    want = fslab.select(d, 8, selector=selector)
    assert got.features == want.features
    assert np.allclose(got.scores, want.scores, rtol=0, atol=1e-12)
    assert list(got.trace.n_tied) == list(want.trace.n_tied)


# the popcount path: few values and classes
BIT_SHAPES = [(300, 9, 2, 2), (257, 7, 30, 2), (400, 8, 3, 3), (130, 6, 5, 2), (700, 10, 2, 3)]


@pytest.mark.parametrize(("m", "n", "classes", "levels"), BIT_SHAPES)
@pytest.mark.parametrize("planes", [0, 10**9])  # kept first planes broadcast / made for every pair
def test_popcount_pairs_give_the_plain_counts(m, n, classes, levels, planes, monkeypatch):
    d = _source(m, n, classes, levels, seed=m * levels)
    X, y = np.asarray(d.X), np.asarray(d.y)
    rng = np.random.default_rng(m)
    fs, js = rng.integers(0, n, 31), rng.integers(0, n, 31)
    monkeypatch.setattr(dense, "_PLANE_WORDS", planes)
    fc = FastCounter(d)
    assert fc.pair_counting() == "bits"
    for classes_too in (True, False, True):  # the third call reads the kept planes
        got = fc.pair_key_counts(fs, js, classes=classes_too)
        assert np.array_equal(got, _plain(X, y, classes, levels, fs, js, classes_too))
    one = fc.pair_key_counts(fs[:1], js[:1])  # a single pair
    assert np.array_equal(one, _plain(X, y, classes, levels, fs[:1], js[:1], True))
    kept = (False,) if fc.sliced_pays(classes) else (True, False)  # many classes: class-sliced bits
    assert set(fc._planes) == (set() if planes else {(int(f), levels, c) for f in fs for c in kept})


def test_class_layout_by_hand():
    """Classes 1, 0, 1, 2, 0 (class 1 empty of rows in a 4-class target): class 0's rows 1 and 4 at bits 0 and 1 of
    word 0, class 1's rows 0 and 2 at bits 64 and 65 (word 1), class 2's row 3 at bit 128 (word 2); class 3 none."""
    X = np.array([[1], [0], [1], [1], [1]], dtype=np.uint8)
    y = np.array([1, 0, 1, 2, 0])
    fc = FastCounter(EncodedDataset(X, y, labels=np.arange(4), arities=np.array([2])))
    pos, starts, words, present = fc._class_layout()
    assert pos.tolist() == [64, 0, 65, 128, 1] and starts.tolist() == [0, 1, 2] and words == 3
    assert present.tolist() == [0, 1, 2]
    # X = 1 on rows 0, 2, 3, 4: bits 64, 65, 128 and 1 (packbits: the first row is a byte's highest bit)
    assert fc._sliced_bits(np.array([0])).view(np.uint8)[0, [0, 8, 16]].tolist() == [0b01000000, 0b11000000, 0b10000000]


@pytest.mark.parametrize(("m", "n", "classes", "levels", "empty"),
                         [(300, 6, 3, 2, False), (517, 7, 20, 2, True), (64, 5, 4, 3, True), (1300, 6, 40, 2, False)])
def test_class_sliced_pairs_give_the_plain_counts(m, n, classes, levels, empty, monkeypatch):
    """Class sizes off word boundaries, classes without rows, 2-40 classes: the counts of every pair and path."""
    rng = np.random.default_rng(m)
    y = rng.integers(0, classes, m)
    if empty:
        y[y == 1] = 0  # class 1 has no row
    X = rng.integers(0, levels, (m, n)).astype(np.uint8)
    X[:, 0] = (y + rng.integers(0, 2, m)) % levels
    L = classes + empty  # and the last class has no row either
    d = EncodedDataset(X, y, labels=np.arange(L), arities=np.full(n, levels))
    fs, js = rng.integers(0, n, 29), rng.integers(0, n, 29)
    monkeypatch.setattr(dense, "_SLICED_ROWS", 1)
    monkeypatch.setattr(dense, "_KEY_MIN_CLASSES", 10**6)  # popcounts whatever the classes
    fc = FastCounter(d)
    assert fc.pair_counting() == "bits"
    for _ in range(2):  # the second call reads the packed columns
        assert np.array_equal(fc.pair_key_counts(fs, js), _plain(X, y, L, levels, fs, js, True))
    assert fc._sliced is not None and fc._sliced_packed.sum() == np.unique(np.concatenate([fs, js])).size


def test_kept_planes_stay_within_their_budget(monkeypatch):
    d = _source(640, 9, 3, 2)  # 10 words a plane row: a first feature's planes are 1 x 3 x 10 words, 240 bytes
    monkeypatch.setattr(dense, "_PLANE_WORDS", 0)
    monkeypatch.setattr(dense, "_COLUMN_CACHE", 3 * 240)
    fc = FastCounter(d)
    fs, js = np.arange(9), np.arange(9)[::-1].copy()
    assert np.array_equal(fc.pair_key_counts(fs, js), _plain(np.asarray(d.X), np.asarray(d.y), 3, 2, fs, js, True))
    assert list(fc._planes) == [(f, 2, True) for f in (6, 7, 8)] and fc._planes_held == 3 * 240


def _floor(best):
    """The rule's floor as the array path computes it: best - 1e-12 max(1, |best|), an infinite best itself."""
    return np.where(np.isfinite(best), best - TIE_TOLERANCE * np.maximum(1.0, np.abs(np.where(np.isfinite(best),
                                                                                         best, 0.0))), best)


@pytest.mark.parametrize("best", [0.0, 1.0, -3.5, 2e6, 1e-13, np.inf, -np.inf, np.nan])
def test_one_best_ties_as_the_array_rule(best):
    values = np.array([best, best - 1e-12, best - 0.9e-12, best - 2e-12 * max(1, abs(best)) if np.isfinite(best)
                       else 0.0, np.inf, -np.inf, np.nan, 5.0, -5.0])
    with np.errstate(invalid="ignore"):
        want = values >= _floor(np.array(best))
    assert ties_with(values, best).tolist() == want.tolist()
    assert ties_with(values, np.float64(best)).tolist() == want.tolist()


def test_tied_mask_by_hand():
    # best 1: 1 - 1e-12 ties (the floor), 1 - 2e-12 does not; NaN never ties
    assert tied_mask(np.array([1.0, 1 - 1e-12, 1 - 2e-12, np.nan, 0.5])).tolist() == [True, True, False, False, False]
    assert tied_mask(np.array([np.nan, np.nan])).tolist() == [False, False]
    assert tied_mask(np.array([-np.inf, -np.inf, np.nan])).tolist() == [True, True, False]
    assert tied_mask(np.array([])).tolist() == []


@pytest.mark.parametrize(("m", "asked"), [(4101, [0, 5, 5, 9]), (2049, list(range(0, 1100, 2)))])
def test_columns_packed_on_demand_equal_the_full_packing(m, asked):
    """A few columns are packed in one tile of every row (4,101 rows: three row tiles' worth), many by row tiles."""
    rng = np.random.default_rng(m)
    X = rng.integers(0, 3, (m, 1100)).astype(np.uint8)
    d = EncodedDataset(X, rng.integers(0, 2, m), arities=np.full(1100, 3))
    full = FastCounter(d)._value_bits().copy()
    fc = FastCounter(d)
    bits = fc._value_bits(np.array(asked))
    rows = (np.arange(2)[:, None] * 1100 + np.unique(asked)).ravel()
    assert np.array_equal(bits[rows], full[rows]) and full[rows].any()
    assert not np.delete(bits, rows, axis=0).any()  # the others not packed yet
    assert np.array_equal(fc._value_bits(), full)


@pytest.mark.parametrize("selector", ["jmi", "cmim", "mrmr"])
def test_many_class_selections_by_sliced_pairs_equal_the_plain_tables(selector, monkeypatch):
    """30 classes at 2 levels: JMI folds its steps as class-sliced pairs (one popcount row a pair), CMIM's lazy rounds
    count on them; picks, scores and tie counts as the plain tables'."""
    import fslab
    from fslab.selectors import _scorers

    rng = np.random.default_rng(7)
    y = rng.integers(0, 30, 700)
    X = rng.integers(0, 2, (700, 20)).astype(np.uint8)
    X[:, ::3] = np.where(rng.random((700, 7)) < 0.7, (y[:, None] >> np.arange(7)) & 1, X[:, ::3])
    d = EncodedDataset(X, y, arities=np.full(20, 2))
    assert FastCounter(d).sliced_pays(30) and not FastCounter(d).sliced_pays(20)
    calls = []
    count = _scorers.pair_extensions
    monkeypatch.setattr(_scorers, "pair_extensions", lambda *a: calls.append(1) or count(*a))
    got = fslab.select(d, 6, selector=selector)
    want = fslab.select(d, 6, selector=selector, engine="plain")
    assert got.features == want.features
    assert np.allclose(got.scores, want.scores, rtol=0, atol=1e-12)
    assert list(got.trace[got.trace.chosen].n_tied) == list(want.trace[want.trace.chosen].n_tied)
    assert (len(calls) > 0) == (selector != "mrmr")  # JMI and CMIM count pairs (mRMR's pairs have no class)


@pytest.mark.parametrize(("m", "n", "classes", "levels"), [(1500, 9, 2, 6), (3000, 6, 3, 5), (700, 10, 5, 4)])
def test_several_columns_a_key_give_the_plain_counts(m, n, classes, levels, monkeypatch):
    """Many rows, few cells (lowered here): pairs of one first feature share a key ((X_f L + y) A + X_j1) A + X_j2 ...
    and the group counts several columns' (g A + X_1) A + X_2 ...: each summed out of the joint."""
    d = _source(m, n, classes, levels, seed=m + n)
    X, y = np.asarray(d.X), np.asarray(d.y)
    rng = np.random.default_rng(m)
    fs = np.repeat(rng.integers(0, n, 4), [1, 2, 3, 7])  # runs of one first feature: 1, 2, 3 and 7 pairs
    js = rng.integers(0, n, fs.size)
    monkeypatch.setattr(dense, "_SHORT_ROWS", 64)
    monkeypatch.setattr(dense, "_PAIR_BLOCK_ROWS", 0)  # a pair at a time, not the small-row blocks
    monkeypatch.setattr(dense, "_KEY_BLOCK", 256)  # the group counts' 2-byte path from 256 rows on
    for packed in (1, 10**9):  # a row a cell: 2-4 columns a key; 10^9: one column a key
        monkeypatch.setattr(dense, "_PACK_ROWS", packed)
        fc = FastCounter(d)
        assert fc.pair_counting() == "short"
        for classes_too in (True, False):
            got = fc.pair_key_counts(fs, js, classes=classes_too)
            assert np.array_equal(got, _plain(X, y, classes, levels, fs, js, classes_too))
        marginal = np.zeros((classes, n, levels))
        for j in range(n):
            np.add.at(marginal, (y, j, X[:, j]), 1)
        assert np.array_equal(fc.marginal, marginal)
        group = (X[:, 0].astype(np.int64) * classes + y)  # groups (X_0, class): JMI's and MIGreedy's group counts
        want = np.zeros((n, levels * classes, levels), dtype=np.int64)
        for j in range(n):
            np.add.at(want[j], (group, X[:, j]), 1)
        assert np.array_equal(fc._value_group_counts(None, group, levels * classes), want)


def test_pairs_of_mixed_arities_are_as_wide_as_their_widest_first(monkeypatch):
    """Columns of 3 and 9 values: a block of pairs whose first features have 3 values is 3 wide, else 9."""
    rng = np.random.default_rng(5)
    y = rng.integers(0, 4, 800)
    arities = np.array([3, 9, 3, 9, 3, 9])
    X = (rng.integers(0, 9, (800, 6)) % arities).astype(np.uint8)
    d = EncodedDataset(X, y, arities=arities)
    monkeypatch.setattr(dense, "_SHORT_ROWS", 64)
    fc = FastCounter(d)
    for fs in (np.array([0, 2, 4, 2]), np.array([0, 1, 4, 3])):
        js = np.array([1, 3, 5, 0])
        got = fc.pair_key_counts(fs, js)
        a = int(arities[fs].max())
        assert got.shape == (4, a, 4, 9)
        assert np.array_equal(got, _plain(X, y, 4, 9, fs, js, True)[:, :a])


@pytest.mark.parametrize(("m", "n", "classes", "levels"), SHAPES[:4])
def test_many_pairs_of_one_first_feature_in_blocks_give_the_plain_counts(m, n, classes, levels, monkeypatch):
    """Beyond _PAIR_BLOCK_ROWS rows (lowered to 0 here), a pick's many pairs (JMI's steps) still go in blocks."""
    d = _source(m, n, classes, levels, seed=m * 3)
    X, y = np.asarray(d.X), np.asarray(d.y)
    js = np.random.default_rng(m).integers(0, n, 40)
    fs = np.full(40, 1)
    monkeypatch.setattr(dense, "_SHORT_ROWS", 64)
    monkeypatch.setattr(dense, "_PAIR_BLOCK_ROWS", 0)
    monkeypatch.setattr(dense, "_ONE_HEAD_PAIRS", 40)
    calls = []
    blocks = FastCounter._pair_key_blocks
    monkeypatch.setattr(FastCounter, "_pair_key_blocks", lambda self, *a: calls.append(1) or blocks(self, *a))
    fc = FastCounter(d)
    assert np.array_equal(fc.pair_key_counts(fs, js), _plain(X, y, classes, levels, fs, js, True))
    assert np.array_equal(fc.pair_key_counts(fs[:39], js[:39]), _plain(X, y, classes, levels, fs[:39], js[:39], True))
    assert len(calls) == 1  # 40 pairs of one first feature in blocks, 39 a pair at a time
