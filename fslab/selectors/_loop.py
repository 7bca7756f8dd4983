"""The one search loop shared by every selector: forward, ranking and backward differ only in the scorer
and in which side of the membership mask the candidates come from (scikit-learn's SequentialFeatureSelector
inverts the mask the same way)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

TIE_TOLERANCE = 1e-12


class Scorer(Protocol):
    """``evaluate(candidates)``: each candidate's value at this step (the criterion of J with the
    candidate added, or removed when searching backward); ``commit(j)``: j was added (removed)."""

    def evaluate(self, candidates: np.ndarray) -> np.ndarray: ...

    def commit(self, j: int) -> None: ...


def pick_best(values: np.ndarray) -> tuple[int, int]:
    """Position of the winner among ``values`` (candidates in increasing index order) and the tie count.

    Candidates within 1e-12 * max(1, |best|) of the best tie (DESIGN.md); the first, i.e. the lowest
    feature index, wins. NaN never wins.
    """
    v = np.where(np.isnan(values), -np.inf, values)
    best = v.max()
    if np.isfinite(best):
        tied = v >= best - TIE_TOLERANCE * max(1.0, abs(best))
    else:
        tied = v == best
    return int(np.argmax(tied)), int(np.count_nonzero(tied))


@dataclass
class SearchLog:
    """What the loop saw: the order of decisions and every candidate's value at every step."""

    order: list[int]
    best: list[float]
    steps: list[np.ndarray]
    candidates: list[np.ndarray]
    values: list[np.ndarray]
    n_tied: list[int]


def run_search(n_features: int, n_steps: int, scorer: Scorer, *, backward: bool = False,
               progress: Callable[[int, int], None] | None = None) -> SearchLog:
    """Greedy search: at each of ``n_steps`` steps evaluate every candidate and commit the best.

    Forward (``backward=False``): candidates are the features not yet chosen, the winner is added.
    Backward: candidates are the features still in the set (initially all), the winner is removed.
    """
    member = np.full(n_features, backward, dtype=bool)
    log = SearchLog([], [], [], [], [], [])
    for t in range(1, n_steps + 1):
        candidates = np.flatnonzero(member if backward else ~member)
        values = np.asarray(scorer.evaluate(candidates), dtype=np.float64)
        pos, n_tied = pick_best(values)
        j = int(candidates[pos])
        member[j] = not backward
        scorer.commit(j)
        log.order.append(j)
        log.best.append(float(values[pos]))
        log.steps.append(np.full(candidates.size, t, dtype=np.int64))
        log.candidates.append(candidates)
        log.values.append(values)
        log.n_tied.append(n_tied)
        if progress is not None:
            progress(t, n_steps)
    return log
