"""The held-out row path's cheaper arithmetic (issue 35.2, third part): classes whose class-pure parts with training
rows lose nothing are skipped, other class-pure parts are scored per (class, training rows) times their test rows,
uint32 keys where a batch fits and int64 otherwise, and the rule that picks the row path counts its own rows."""

from __future__ import annotations

import numpy as np
import pytest

import fslab.measures.cross_fit as cross_fit
from fslab.data.encoded import EncodedDataset
from fslab.measures import measure

# the 8 rows of tests/test_heldout_rows.py: fold, class, x0, x1
FOLD = np.array([0, 0, 1, 1, 0, 1, 0, 0])
Y = np.array([0, 1, 0, 1, 1, 1, 0, 1])
X = np.array([[0, 0], [0, 1], [0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1]])


def _data(X, y, labels=(0, 1)):
    return EncodedDataset(np.asarray(X, dtype=np.uint8), np.asarray(y), labels=np.asarray(labels))


def test_free_classes_by_hand():
    """A class-pure part with training rows predicts its class under 0-1 and balanced (both classes free), costs a
    smoothed -ln p > 0 under log-loss (none free), and under a cost matrix whose diagonal charges class 0 (cost 1 a
    row of class 0 predicted 0) class 0 is not free."""
    def free(name, **params):
        ev = measure(name, **params).on(_data(X, Y, labels=tuple(range(len(set(Y.tolist()))))),
                                        estimate="cross-fitted", folds=FOLD)
        ev._zero_loss_classes(ev.mixed_cells)
        return ev._free.tolist()

    assert free("zero-one") == [True, True]
    assert free("balanced") == [True, True]
    assert free("log-loss") == [False, False]
    assert free("cost-sensitive", c=((1, 2), (3, 0))) == [False, True]


def test_pure_shares_scale_with_test_rows():
    """Log-loss, 8 rows, folds 0 (5 rows: 2 of class 0, 3 of class 1) and 1 (3 rows: 1 and 2): a class-1 part with
    t = 2 training rows costs each test row -ln((2 + prior_1) / 3) / rows of its fold, with the training prior of
    fold 0 = fold 1's classes (1/3, 2/3) and of fold 1 = fold 0's (2/5, 3/5). So 3 test rows in fold 0 cost
    3 ln(3 / (2 + 2/3)) / 5 and 1 test row in fold 1 ln(3 / (2 + 3/5)) / 3; the same numbers as the whole layouts."""
    ev = measure("log-loss").on(_data(X, Y), estimate="cross-fitted", folds=FOLD)
    cells = ev.mixed_cells
    got = ev._pure_shares(cells, np.array([1, 1]), np.array([2.0, 2.0]), np.array([3.0, 1.0]), np.array([0, 1]))
    np.testing.assert_allclose(got, [3 * np.log(3 / (2 + 2 / 3)) / 5, np.log(3 / (2 + 3 / 5)) / 3], rtol=1e-12)
    rows = ev._fold_rows()
    for (t, c, f), share in zip(((2, 3, 0), (2, 1, 1)), got, strict=True):
        train, test = np.zeros((1, 2, 2)), np.zeros((1, 2, 2))
        train[0, :, 1], test[0, f, 1] = t, c
        whole = np.asarray(cells.cell_loss(train, test, rows, ev._params))[0, f]
        assert share == pytest.approx(whole, rel=1e-12)


def _random(rng, L):
    m, n, A = int(rng.integers(60, 300)), int(rng.integers(4, 8)), int(rng.integers(2, 6))
    X = rng.integers(0, A, (m, n))
    y = rng.integers(0, L, m)
    y[:3 * L] = np.repeat(np.arange(L), 3)
    X[:, 0] = (y + (rng.random(m) < 0.15)) % A
    return _data(X, y, labels=tuple(range(L)))


@pytest.mark.parametrize("keys", ["uint32", "int64"])
@pytest.mark.parametrize("name,params,L", [("zero-one", {}, 2), ("balanced", {}, 3), ("mi", {}, 2),
                                           ("cost-sensitive", {"c": ((1, 2, 3), (1, 0, 2), (4, 1, 0))}, 3)])
def test_both_key_widths_equal_plain_tables(keys, name, params, L, monkeypatch):
    """Every step through the row path; uint32 keys (a batch's bits fit in 32) or, with one batch of 2^40 keys, int64
    keys: the plain tables' values either way."""
    monkeypatch.setattr(cross_fit, "ROW_RULE", -1)
    if keys == "int64":
        monkeypatch.setattr(cross_fit, "ROW_KEYS", 1 << 40)
    rng = np.random.default_rng(351 + L)
    for _ in range(3):
        data = _random(rng, L)
        folds, seed = int(rng.integers(2, 6)), int(rng.integers(0, 1000))
        rows = measure(name, **params).on(data, estimate="cross-fitted", folds=folds, seed=seed)
        plain = measure(name, **params).on(data, estimate="cross-fitted", folds=folds, seed=seed, engine="plain")
        for depth in (1, 3):
            J = [int(j) for j in rng.choice(data.n_features, depth, replace=False)]
            cand = np.array([j for j in range(data.n_features) if j not in J])
            np.testing.assert_allclose(rows.extensions(J, cand), plain.extensions(J, cand), rtol=1e-10, atol=1e-12)


def test_rule_counts_the_row_paths_rows(monkeypatch):
    """Under J = {x0} of the 8 rows, the row path keeps r0..r3 only (test_heldout_rows: one cell), the plain
    tables count all 8: a layout of 3 cells x 4 (fold x class) x 2 values = 24 takes the row path from 24 > R x 4,
    i.e. R < 6, where the bound on all 8 rows would need R < 3."""
    ev = measure("zero-one").on(_data(X, Y), estimate="cross-fitted", folds=FOLD, engine="auto")
    cells, cand = ev.mixed_cells, np.array([1])
    monkeypatch.setattr(cross_fit, "ROW_RULE", 5.9)
    assert ev._rows_pay(cells, [0], cand)
    monkeypatch.setattr(cross_fit, "ROW_RULE", 6)
    assert not ev._rows_pay(cells, [0], cand)
