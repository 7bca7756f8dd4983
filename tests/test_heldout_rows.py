"""The cross-fitted evaluator's row path (issue 35.2): the held-out losses of every extension J + {j} from one sort of
the active rows' keys, with the cells of J that cannot change their loss left out. Exact: the same values as the
plain tables, worked by hand on 8 rows and held to the plain engine on random tables."""

from __future__ import annotations

import numpy as np
import pytest

import fslab.measures.cross_fit as cross_fit
from fslab.data.encoded import EncodedDataset
from fslab.measures import measure

# rows r0..r7: fold, class, x0, x1 (see test_hand_worked)
FOLD = np.array([0, 0, 1, 1, 0, 1, 0, 0])
Y = np.array([0, 1, 0, 1, 1, 1, 0, 1])
X = np.array([[0, 0], [0, 1], [0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1]])


def _data(X, y, labels=(0, 1)):
    return EncodedDataset(np.asarray(X, dtype=np.uint8), np.asarray(y), labels=np.asarray(labels))


@pytest.fixture
def rows_always(monkeypatch):
    monkeypatch.setattr(cross_fit, "ROW_RULE", -1)   # every step through the row path


@pytest.mark.parametrize("path", ["rows", "engine", "plain"])
def test_hand_worked(path, monkeypatch):
    """Fold 0 holds r0 r1 r4 r6 r7 (2 of class 0, 3 of class 1), fold 1 r2 r3 r5; each fold's training prior picks
    class 1. x0 alone: cell {r0..r3} ties 1:1 in both training folds (class 0), so r1 and r3 are wrong; {r4, r5}
    predicts 1; {r6, r7} has no training rows for fold 0 (the prior's class 1: r6 wrong). Errors 2/5 and 1/3: mean
    0.366667. x0 + x1: {r0, r2} and {r1, r3} are right in both folds, r4 and r5 are right (seen or not, class 1),
    r6 is still wrong: 1/5 and 0, mean 0.1."""
    if path == "rows":
        monkeypatch.setattr(cross_fit, "ROW_RULE", -1)
    ev = measure("zero-one").on(_data(X, Y), estimate="cross-fitted", folds=FOLD,
                                engine="plain" if path == "plain" else "auto")
    if path == "engine":
        monkeypatch.setattr(cross_fit, "ROW_RULE", 10**9)
    assert ev.value([0]) == pytest.approx((2 / 5 + 1 / 3) / 2)
    assert ev.extension_values([], [0]) == pytest.approx([(2 / 5 + 1 / 3) / 2])
    assert ev.extension_values([0], [1]) == pytest.approx([0.1])
    assert ev.value([0, 1]) == pytest.approx(0.1)


def test_dropped_cells_by_hand():
    """Under J = {x0}: {r6, r7} lies in fold 0 only (its rows keep the prior's loss: r6 costs 1/5 of fold 0), {r4, r5}
    is pure in class 1, the prior's class of both folds (0-1 loss 0 for good); only r0..r3 stay, in one cell."""
    ev = measure("zero-one").on(_data(X, Y), estimate="cross-fitted", folds=FOLD)
    cells = ev.mixed_cells
    assert ev._zero_loss_classes(cells).tolist() == [False, True]
    act, cell, n_cells, const = ev._active(cells, (0,))
    assert act.tolist() == [0, 1, 2, 3] and cell.tolist() == [0, 0, 0, 0] and n_cells == 1
    np.testing.assert_allclose(const, [1 / 5, 0.0])
    # balanced error: an unseen cell predicts the lowest class, so class 0's pure cells are the free ones
    bal = measure("balanced").on(_data(X, Y), estimate="cross-fitted", folds=FOLD)
    assert bal._zero_loss_classes(bal.mixed_cells).tolist() == [True, False]
    # log-loss: a pure cell's smoothed probability is below 1, so no class is free
    ll = measure("log-loss").on(_data(X, Y), estimate="cross-fitted", folds=FOLD)
    assert not ll._zero_loss_classes(ll.mixed_cells).any()


def _random(rng, L):
    m, n, A = int(rng.integers(30, 300)), int(rng.integers(3, 7)), int(rng.integers(2, 6))
    X = rng.integers(0, A, (m, n))
    y = rng.integers(0, L, m)
    y[:3 * L] = np.repeat(np.arange(L), 3)
    X[:, 0] = (y + (rng.random(m) < 0.15)) % A   # one informative column: pure cells appear
    return _data(X, y, labels=tuple(range(L)))


@pytest.mark.parametrize("name,params,L", [
    ("zero-one", {}, 2), ("zero-one", {}, 4), ("balanced", {}, 2), ("balanced", {}, 3),
    ("cost-sensitive", {"c": 0.3}, 2), ("cost-sensitive", {"c": ((1, 2, 3), (1, 0, 2), (4, 1, 0))}, 3),
    ("log-loss", {}, 3), ("mi", {}, 2)])
def test_rows_equal_plain_tables(name, params, L, rows_always):
    """The row path against the plain engine's tables (no pruning) on random tables, subsets of depth 0-3, folds
    2-5 and seeds drawn; a cost matrix whose diagonal is not 0 (class 0's pure cells cost 1 a row) included."""
    rng = np.random.default_rng(35 + L + len(name))
    for _ in range(6):
        data = _random(rng, L)
        folds, seed = int(rng.integers(2, 6)), int(rng.integers(0, 1000))
        rows = measure(name, **params).on(data, estimate="cross-fitted", folds=folds, seed=seed)
        plain = measure(name, **params).on(data, estimate="cross-fitted", folds=folds, seed=seed, engine="plain")
        for depth in range(min(4, data.n_features)):
            J = [int(j) for j in rng.choice(data.n_features, depth, replace=False)]
            cand = np.array([j for j in range(data.n_features) if j not in J])
            np.testing.assert_allclose(rows.extensions(J, cand), plain.extensions(J, cand), rtol=1e-10, atol=1e-12)


def test_default_rule_takes_rows_on_many_classes():
    """10 classes x 5 folds, 6 levels: the engine's (cells x 50 x 6) counts per feature outgrow 5x the rows after one
    feature, so deeper steps take the row path by default; the empty J keeps the engine. Same values as the plain
    tables either way."""
    rng = np.random.default_rng(7)
    X = rng.integers(0, 6, (400, 8))
    y = (X[:, 0] + X[:, 1] + (rng.random(400) < 0.2)) % 10
    data = _data(X, y, labels=tuple(range(10)))
    ev = measure("zero-one").on(data, estimate="cross-fitted")
    plain = measure("zero-one").on(data, estimate="cross-fitted", engine="plain")
    cand = np.arange(2, 8)
    assert not ev._rows_pay(ev.mixed_cells, [], np.arange(8))
    assert ev._rows_pay(ev.mixed_cells, [0, 1], cand)
    for J in ([], [0], [0, 1]):
        rest = np.array([j for j in range(8) if j not in J])
        np.testing.assert_allclose(ev.extensions(J, rest), plain.extensions(J, rest), rtol=1e-10, atol=1e-12)
