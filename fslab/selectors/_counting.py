"""Feature-pair tables on any source (the generic path; samples use the fast engine in _fast.py).

The feature-pair counts n(X_j = u, X_f = v) that mRMR needs
are one ``np.bincount`` over ``offset_j + X_j * a_f + X_f`` for all candidates at once, weighted by
each row's mass for an exact distribution.
"""

from __future__ import annotations

import numpy as np

_BATCH_ENTRIES = 1 << 22


def row_mass(source) -> np.ndarray | None:
    """Mass of each row: None for a sample (every row counts 1), the row's total probability otherwise."""
    weights = getattr(source, "weights", None)
    return None if weights is None else weights.sum(axis=1)


def feature_pair_counts(source, f: int, candidates: np.ndarray) -> np.ndarray:
    """Counts n(X_j = u, X_f = v) for every candidate j: shape (B, max arity of candidates, a_f)."""
    X = source.X
    a_f = int(source.arities[f])
    width = int(source.arities[candidates].max())
    cells = width * a_f
    mass = row_mass(source)
    chunk = max(1, _BATCH_ENTRIES // max(X.shape[0], 1))
    parts = []
    for start in range(0, candidates.size, chunk):
        cand = candidates[start:start + chunk]
        index = X[:, cand] * a_f + X[:, f][:, None] + np.arange(cand.size) * cells
        weights = None if mass is None else np.broadcast_to(mass[:, None], index.shape).ravel()
        counts = np.bincount(index.ravel(), weights=weights, minlength=cand.size * cells)
        parts.append(counts.reshape(cand.size, width, a_f))
    return np.concatenate(parts, axis=0).astype(np.float64)

