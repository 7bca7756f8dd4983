"""Feature-pair tables n(X_j = u, X_f = v) for mRMR's redundancy terms.

The fast engine counts them from its value indicators on samples; any other source with row codes
gets one ``np.bincount`` over ``offset_j + X_j * a_f + X_f`` for all candidates at once, weighted by
each row's mass for an exact distribution.
"""

from __future__ import annotations

import numpy as np

_BATCH_ENTRIES = 1 << 22


def feature_pair_counts(ev, f: int, candidates: np.ndarray) -> np.ndarray:
    """Counts n(X_j = u, X_f = v) for every candidate j: shape (B, max arity of candidates, a_f)."""
    if ev.counter is not None:  # the fast engine of a table evaluator on a sample
        return ev.counter.pair_counts(f, candidates)
    source = ev.source
    X = source.X
    a_f = int(source.arities[f])
    width = int(source.arities[candidates].max())
    cells = width * a_f
    mass = None if source.is_sample else source.weights.sum(axis=1)
    chunk = max(1, _BATCH_ENTRIES // max(X.shape[0], 1))
    parts = []
    for start in range(0, candidates.size, chunk):
        cand = candidates[start:start + chunk]
        index = X[:, cand] * a_f + X[:, f][:, None] + np.arange(cand.size) * cells
        weights = None if mass is None else np.broadcast_to(mass[:, None], index.shape).ravel()
        counts = np.bincount(index.ravel(), weights=weights, minlength=cand.size * cells)
        parts.append(counts.reshape(cand.size, width, a_f))
    return np.concatenate(parts, axis=0).astype(np.float64)
