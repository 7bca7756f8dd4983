"""The one search loop shared by every selector: forward, ranking and backward differ only in the scorer
and in which side of the membership mask the candidates come from (scikit-learn's SequentialFeatureSelector
inverts the mask the same way)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from ..errors import FslabError
from .ties import TIE_TOLERANCE, pick_best, tied_mask

__all__ = ["TIE_TOLERANCE", "Hooks", "Scorer", "SearchLog", "SelectionCancelled", "pick_best", "run_search"]


class SelectionCancelled(FslabError):
    """The caller's ``progress`` returned False or its ``cancel`` returned True: the run stopped early."""


@dataclass
class Hooks:
    """Progress and cancellation for a run. ``progress(step, total)`` after every step (returning False
    stops the run, as in NPFS); ``cancel()`` is polled between steps and between the chunks of a long
    step (an s-variate update, a block of exhaustive subsets) and stops the run when it returns True."""

    progress: Callable[[int, int], object] | None = None
    cancel: Callable[[], bool] | None = None

    def check(self) -> None:
        if self.cancel is not None and self.cancel():
            raise SelectionCancelled("the selection was cancelled")

    def step(self, done: int, total: int) -> None:
        self.check()
        if self.progress is not None and self.progress(done, total) is False:
            raise SelectionCancelled("the selection was cancelled")


class Scorer(Protocol):
    """``evaluate(candidates)``: each candidate's value at this step (the criterion of J with the
    candidate added, or removed when searching backward); ``commit(j)``: j was added (removed)."""

    def evaluate(self, candidates: np.ndarray) -> np.ndarray: ...

    def commit(self, j: int) -> None: ...


@dataclass
class SearchLog:
    """What the loop saw: the order of decisions and every candidate's value at every step."""

    order: list[int] = field(default_factory=list)
    best: list[float] = field(default_factory=list)
    steps: list[np.ndarray] = field(default_factory=list)
    candidates: list[np.ndarray] = field(default_factory=list)
    values: list[np.ndarray] = field(default_factory=list)
    tied: list[np.ndarray] = field(default_factory=list)

    @property
    def n_tied(self) -> list[int]:
        return [int(t.sum()) for t in self.tied]


def run_search(n_features: int, n_steps: int, scorer: Scorer, *, backward: bool = False,
               hooks: Hooks | None = None) -> SearchLog:
    """Greedy search: at each of ``n_steps`` steps evaluate every candidate and commit the best
    (the tie rule of :mod:`fslab.selectors.ties`: the lowest feature index among tied candidates).

    Forward (``backward=False``): candidates are the features not yet chosen, the winner is added.
    Backward: candidates are the features still in the set (initially all), the winner is removed.
    """
    hooks = hooks or Hooks()
    member = np.full(n_features, backward, dtype=bool)
    log = SearchLog()
    for t in range(1, n_steps + 1):
        hooks.check()
        candidates = np.flatnonzero(member if backward else ~member)
        values = np.asarray(scorer.evaluate(candidates), dtype=np.float64)
        tied = tied_mask(values)
        pos = int(np.argmax(tied))
        j = int(candidates[pos])
        member[j] = not backward
        if t < n_steps:  # the last winner's bookkeeping would be thrown away
            scorer.commit(j)
        log.order.append(j)
        log.best.append(float(values[pos]))
        log.steps.append(np.full(candidates.size, t, dtype=np.int64))
        log.candidates.append(candidates)
        log.values.append(values)
        log.tied.append(tied)
        hooks.step(t, n_steps)
    return log
