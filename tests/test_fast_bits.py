"""The fast engine's value bits (issue 27.4): tiles packed from contiguous transposed copies give exactly the bits
of packing the strided transposed view, whatever the shape (rows and features not multiples of the tile)."""

from __future__ import annotations

import numpy as np
import pytest

from fslab.counting.dense import FastCounter
from fslab.data.encoded import EncodedDataset


def strided_bits(X: np.ndarray, A: int) -> np.ndarray:
    """The previous packing: bit r of row (v-1)*n + j is X[r, j] == v, from X.T directly."""
    m, n = X.shape
    out = np.zeros((n * (A - 1), -(-m // 64) * 8), dtype=np.uint8)
    for v in range(1, A):
        packed = np.packbits(X.T == v, axis=1)
        out[(v - 1) * n:v * n, :packed.shape[1]] = packed
    return out.view(np.uint64)


@pytest.mark.slow  # 0.28 s measured (inner loop: unit and not slow)
@pytest.mark.parametrize("m, n, A", [(1, 1, 2), (63, 5, 2), (2049, 513, 3), (5000, 1100, 4), (4096, 512, 2)])
def test_value_bits_identical(m, n, A):
    rng = np.random.default_rng(m + n)
    X = rng.integers(0, A, (m, n)).astype(np.uint8)
    y = rng.integers(0, 2, m)
    counter = FastCounter(EncodedDataset(X, y, arities=np.full(n, A)))
    np.testing.assert_array_equal(counter._value_bits(), strided_bits(X, A))
