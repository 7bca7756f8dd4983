"""Cells sorted by eta within each table, equal-eta cells grouped (shared by F-beta and AUC).

Both measures are ratios homogeneous in the table's mass, so they work on raw counts (no
normalisation pass); everything is vectorised over the batch: one argsort per table row and
cumulative sums, no Python loop over tables or cells.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..tables import JointTable

# Cells whose eta differ by at most this much are one group (one threshold cannot split them).
ETA_TOLERANCE = 1e-12


@dataclass(frozen=True, eq=False)
class RankedCells:
    """Cumulative positive / negative mass over cells sorted by eta, shape (..., cells).

    ``last`` marks the last cell of each equal-eta group: a threshold between two groups selects
    exactly the cells up to a ``last`` position.
    """

    cum_pos: np.ndarray
    cum_neg: np.ndarray
    last: np.ndarray


def rank_cells(table: JointTable, descending: bool) -> RankedCells:
    """Sort every table's cells by eta (vectorised over the batch) and mark equal-eta groups."""
    counts = table.counts
    pos = counts[..., 1]
    tot = counts[..., 0] + pos
    eta = np.divide(pos, tot, out=np.zeros_like(pos), where=tot > 0)
    order = np.argsort(-eta if descending else eta, axis=-1)
    eta = np.take_along_axis(eta, order, axis=-1)
    cum_pos = np.cumsum(np.take_along_axis(pos, order, axis=-1), axis=-1)
    cum_neg = np.cumsum(np.take_along_axis(tot, order, axis=-1), axis=-1) - cum_pos
    last = np.empty(eta.shape, dtype=bool)
    np.greater(np.abs(np.diff(eta, axis=-1)), ETA_TOLERANCE, out=last[..., :-1])
    last[..., -1] = True
    return RankedCells(cum_pos, cum_neg, last)
