"""The one tie rule (DESIGN.md): values within ``1e-12 * max(1, |best|)`` of the best tie, and the first
of them in the caller's order (the lowest feature index, or the lexicographically first subset) wins.
NaN never wins and never ties. Used by the selector loop, exhaustive search, orderings, compare, ksuggest
and, through the trace's ``tied`` column, the plots.
"""

from __future__ import annotations

import math

import numpy as np

TIE_TOLERANCE = 1e-12


def tolerance(best) -> np.ndarray | float:
    """How far below ``best`` a value still ties with it: 1e-12 * max(1, |best|) (elementwise)."""
    return TIE_TOLERANCE * np.maximum(1.0, np.abs(best))


def ties_with(values, best) -> np.ndarray:
    """True where ``values`` tie with (or beat) ``best``; an infinite ``best`` ties only with itself."""
    values = np.asarray(values, dtype=np.float64)
    if np.ndim(best) == 0:  # one best (the search loop's case, several times a step): the floor in Python floats
        b = float(best)
        return values >= (b - TIE_TOLERANCE * max(1.0, abs(b)) if math.isfinite(b) else b)
    best = np.asarray(best, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        floor = np.where(np.isfinite(best), best - tolerance(np.where(np.isfinite(best), best, 0.0)), best)
        return values >= floor


def tied_mask(values) -> np.ndarray:
    """True on every value that ties with the best of ``values`` (False for NaN; all False if all NaN)."""
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        return np.zeros(0, dtype=bool)
    best = v.max()  # NaN if any value is NaN: then the best of the others
    if best != best:
        nan = np.isnan(v)
        return ties_with(np.where(nan, -np.inf, v), np.where(nan, -np.inf, v).max()) & ~nan
    return ties_with(v, best)


def pick_best(values) -> tuple[int, int]:
    """Position of the winner (the first tied value) and the number of tied values.

    All-NaN input: position 0 and 0 tied (nothing can win; callers never pass that in a search)."""
    tied = tied_mask(values)
    return int(np.argmax(tied)), int(np.count_nonzero(tied))


def ranks(criteria) -> np.ndarray:
    """1 + the number of values better than each one beyond the tie tolerance (ties share a rank)."""
    c = np.asarray(criteria, dtype=np.float64)
    finite = np.isfinite(c)
    # c_j beats c_i iff c_i < c_j - tol(c_j); that threshold grows with c_j, so one sort counts them all
    floors = np.sort(np.where(finite, c - tolerance(np.where(finite, c, 0.0)), c))
    return 1 + c.size - np.searchsorted(floors, c, side="right")


__all__ = ["TIE_TOLERANCE", "pick_best", "ranks", "tied_mask", "ties_with", "tolerance"]
