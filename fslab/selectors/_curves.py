"""Criterion curves: C(J_t) of the first t features of any ordering, under one measure (for overlays)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..measures import measure as get_measure
from ..tables import as_source


def prefix_criteria(source, features: Sequence[int], measure="zero-one", *, estimate: str = "plug-in",
                    folds: int = 5, seed=0, **params) -> np.ndarray:
    """[C(f_1), C(f_1, f_2), ..., C(f_1..f_k)] for the ordering ``features`` (exact joint criterion).

    Each prefix is one batched extension of the previous one, so the whole curve costs one greedy step
    per point. ``measure`` is a name or bound Measure; the value is -error or +score (eq. (3)), estimated as
    ``estimate`` says (``select``'s).
    """
    src = as_source(source)
    ev = get_measure(measure, **params).on(src, estimate=estimate, folds=folds, seed=seed)
    features = [int(j) for j in features]
    return np.array([ev.extensions(features[:t], [features[t]])[0] for t in range(len(features))])
