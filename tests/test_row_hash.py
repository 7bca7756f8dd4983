"""fslab.row_hash: the portable fold and bootstrap-weight hashes every engine computes to the same integer."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fslab import row_hash as rh


def reference_hash(*values: int) -> int:
    """The module docstring's definition in Python integers (no overflow possible)."""
    x = rh.START
    for v in values:
        x = ((x + v % rh.P) * rh.MULT) % rh.P
        x = (x * x + rh.ADD) % rh.P
        x = (((x * rh.MULT2) % rh.P) ** 2 + rh.ADD) % rh.P
    return x


ROWS = st.integers(1, 4).flatmap(lambda n: st.lists(st.tuples(*[st.integers(0, 2**63 - 1)] * n), min_size=1,
                                                     max_size=40))


@settings(max_examples=50, deadline=None)
@given(ROWS)
def test_numpy_hash_equals_the_integer_definition(rows):
    """Elementwise over arrays (as the engines call it), each row against the definition in Python integers: 50
    draws of up to 40 rows (200 single rows before, at the same cost per draw)."""
    columns = [np.array(c, dtype=np.int64) for c in zip(*rows, strict=True)]
    assert rh.row_hash(*columns).tolist() == [reference_hash(*row) for row in rows]


def test_products_stay_below_int64():
    # absorb: (x + v mod P) < 2P, times MULT; scramble: x*x + ADD with x < P
    assert (2 * rh.P) * rh.MULT < 2**63 and (rh.P - 1) ** 2 + rh.ADD < 2**63 and rh.P * rh.MULT2 < 2**63


def test_negative_values_are_refused():
    with pytest.raises(ValueError):
        rh.row_hash(-1)


def test_folds_are_stratified_and_depend_on_order_and_class_only():
    y = np.array([0] * 13 + [1] * 7 + [2] * 3)
    f = rh.folds(y, 5, seed=3)
    per = np.bincount(f * 3 + y, minlength=15).reshape(5, 3)
    assert per[:, 0].tolist().count(3) == 3 and sorted(per[:, 0]) == [2, 2, 3, 3, 3]   # 13 = 3+3+3+2+2
    assert sorted(per[:, 1]) == [1, 1, 1, 2, 2] and sorted(per[:, 2]) == [0, 0, 1, 1, 1]
    # a block of K rows of one class lands in K different folds
    assert sorted(f[:5]) == [0, 1, 2, 3, 4] and sorted(f[5:10]) == [0, 1, 2, 3, 4]
    # the rows of another class interleaved do not change a class's folds
    shuffled = np.concatenate([y[:13], y[13:]])[np.r_[0:5, 13:20, 5:13, 20:23]]
    g = rh.folds(shuffled, 5, seed=3)
    assert np.array_equal(g[shuffled == 0], f[y == 0]) and np.array_equal(g[shuffled == 1], f[y == 1])
    # worked by hand: row j of class c goes to (j mod K + hash(seed, c, j div K)) mod K
    assert f[6] == (1 + reference_hash(3, 0, 1)) % 5 and f[13] == (0 + reference_hash(3, 1, 0)) % 5


def test_seeds_give_different_folds():
    y = np.zeros(1000, dtype=np.int64)
    assert (rh.folds(y, 5, 0) != rh.folds(y, 5, 1)).mean() > 0.5


def test_poisson_weights_have_the_poisson_law():
    w = rh.poisson_weights(np.arange(200_000), key=2**63 + 12345, mean=1.0)
    share = np.bincount(w.astype(int), minlength=4)[:4] / w.size
    assert share == pytest.approx([np.exp(-1), np.exp(-1), np.exp(-1) / 2, np.exp(-1) / 6], abs=4e-3)
    assert w.mean() == pytest.approx(1.0, abs=0.01) and w.var() == pytest.approx(1.0, abs=0.02)
    other = rh.poisson_weights(np.arange(200_000), key=12346, mean=1.0)
    assert abs(np.corrcoef(w, other)[0, 1]) < 0.01
    half = rh.poisson_weights(np.arange(200_000), key=7, mean=0.5)
    assert half.mean() == pytest.approx(0.5, abs=0.01)


def test_poisson_weight_worked_by_hand():
    key = (5 << 32) + 9
    u = reference_hash(5, 9, 42)
    t = rh.poisson_thresholds(1.0)
    assert rh.poisson_weights(np.array([42]), key)[0] == int(np.sum(u >= t))
    assert t[0] == int(np.floor(np.exp(-1) * rh.P))


def test_no_rows_have_no_folds():
    assert rh.folds(np.zeros(0, dtype=np.int64), 5, 0).shape == (0,) and rh.class_ranks(np.zeros(0)).shape == (0,)


@pytest.mark.parametrize("n_classes", [3, 70_000])  # a table of (class, block) codes; np.unique's path beyond it
def test_folds_are_the_definition_row_by_row(n_classes):
    """folds() hashes each (class, block) once and gathers: every row still gets (j mod K + hash(seed, c, j div K))
    mod K, j its rank in its class, in Python integers; also from ranks offset as a partition's slice gives them."""
    rng = np.random.default_rng(5)
    y = rng.integers(0, n_classes, 400)
    j = np.array([int((y[:i] == y[i]).sum()) for i in range(y.size)])
    assert rh.class_ranks(y).tolist() == j.tolist()
    want = [(int(r) % 4 + reference_hash(7, int(c), int(r) // 4)) % 4 for r, c in zip(j, y, strict=True)]
    assert rh.folds(y, 4, seed=7).tolist() == want
    shifted = [(int(r + 10) % 4 + reference_hash(7, int(c), int(r + 10) // 4)) % 4 for r, c in zip(j, y, strict=True)]
    assert rh.folds_from_ranks(j + 10, y, 4, 7).tolist() == shifted
