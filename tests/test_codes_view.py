"""A caller's 1-byte array that already holds codes 0 .. a-1 becomes the codes without a copy (issue 35.4)."""

import numpy as np

import fslab
from fslab.data.dataset import Dataset


def _dataset(X, y):
    return Dataset.from_arrays(X, y).discretize()


def test_codes_of_a_one_byte_code_array_are_a_view_with_the_same_tables():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 4, size=(400, 6)).astype(np.uint8)
    X[:4] = np.arange(4)[:, None]   # every code present in every column
    y = (X[:, 0] + X[:, 2] > 3).astype(int)
    enc = _dataset(X, y)
    assert np.shares_memory(enc.X, X)
    copied = _dataset(X.astype(np.int16), y)   # 2-byte values: codes are made, not viewed
    assert not np.shares_memory(copied.X, X)
    np.testing.assert_array_equal(enc.X, copied.X)
    assert fslab.select(enc, 3).features == fslab.select(copied, 3).features


def test_a_code_array_with_a_gap_is_recoded_not_viewed():
    X = np.array([[0, 0], [2, 1], [0, 1], [2, 0]], dtype=np.uint8)   # column 0 has no 1: its codes are 0, 1
    enc = _dataset(X, np.array([0, 1, 0, 1]))
    assert not np.shares_memory(enc.X, X)
    np.testing.assert_array_equal(enc.X[:, 0], [0, 1, 0, 1])
