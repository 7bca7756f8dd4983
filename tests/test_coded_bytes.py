"""Codes keep their bytes (issue 35.4): non-negative int8 / int16 / int32 codes are viewed as the unsigned type of
their size by CodedSource (an int8 array was copied to int64, 8 bytes a cell), with the same tables and picks."""

from __future__ import annotations

import numpy as np
import pytest

from fslab.errors import DataError
from fslab.measures import measure
from fslab.tables import CodedSource


@pytest.mark.parametrize("dtype,unsigned", [(np.int8, np.uint8), (np.int16, np.uint16), (np.int32, np.uint32)])
def test_signed_codes_are_viewed_not_copied(dtype, unsigned):
    """4 rows, x0 = (0, 0, 1, 2), y = (0, 1, 1, 1): the cell x0 = 0 holds one row of each class, so the plug-in 0-1
    error of {x0} is 1/4; the same number from the int64 copy of the codes."""
    X = np.array([[0, 1], [0, 0], [1, 1], [2, 0]], dtype=dtype)
    y = np.array([0, 1, 1, 1])
    source = CodedSource(X, [3, 2], [0, 1], y=y)
    assert source.X.dtype == unsigned and np.shares_memory(source.X, X) and X.flags.writeable
    wide = CodedSource(X.astype(np.int64), [3, 2], [0, 1], y=y)
    assert measure("zero-one").on(source).value([0]) == pytest.approx(0.25)
    assert measure("zero-one").on(wide).value([0]) == pytest.approx(0.25)
    np.testing.assert_array_equal(source.table([0, 1]).counts, wide.table([0, 1]).counts)


def test_negative_signed_codes_are_refused():
    with pytest.raises(DataError, match=r"0 \.\. arity-1"):
        CodedSource(np.array([[-1, 0]], dtype=np.int8), [3, 2], [0, 1], y=[0])
