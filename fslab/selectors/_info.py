"""Entropy-based quantities on batched count tables, in bits (DESIGN.md: MI is reported in bits).

Every function takes counts (or probabilities) of shape ``(..., a, b)`` and returns one value per
table; empty cells contribute 0 (``0 log 0 = 0``). Used by the MI-family selectors.
"""

from __future__ import annotations

import numpy as np

_LN2 = np.log(2.0)


def _nlogn(x: np.ndarray) -> np.ndarray:
    """x ln x with 0 ln 0 = 0."""
    out = np.zeros_like(x, dtype=np.float64)
    np.multiply(x, np.log(x, where=x > 0, out=np.ones_like(out)), out=out, where=x > 0)
    return out


def mutual_information_bits(counts: np.ndarray) -> np.ndarray:
    """I(A;B) of the joint counts n(a, b) in bits.

    I = [sum n_ab ln n_ab - sum n_a ln n_a - sum n_b ln n_b + N ln N] / (N ln 2),
    the plug-in MI of counts / N (Cover & Thomas, eq. 2.28).
    """
    counts = np.asarray(counts, dtype=np.float64)
    total = counts.sum(axis=(-2, -1))
    joint = _nlogn(counts).sum(axis=(-2, -1))
    rows = _nlogn(counts.sum(axis=-1)).sum(axis=-1)
    cols = _nlogn(counts.sum(axis=-2)).sum(axis=-1)
    value = (joint - rows - cols + _nlogn(total)) / np.where(total > 0, total, 1.0) / _LN2
    return np.maximum(value, 0.0)  # rounding can leave -1e-17 where I = 0


def entropy_bits(counts: np.ndarray) -> np.ndarray:
    """H of the counts over the last axis, in bits."""
    counts = np.asarray(counts, dtype=np.float64)
    total = counts.sum(axis=-1)
    return (_nlogn(total) - _nlogn(counts).sum(axis=-1)) / np.where(total > 0, total, 1.0) / _LN2
