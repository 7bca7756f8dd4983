"""Greedy selection when k is unknown: stop when a step gains less than a tolerance.

Ahmed, Narasimhan & Agarwal (2015), footnote 3: "the proposed greedy method easily extends to settings where the
value of k is not available to us; for example, one can terminate this method based on an appropriate stopping
criterion (such as when the difference in feature criterion across two successive iterations falls below a
certain value) and use the features chosen up to that point". Here: run the greedy search up to ``k_max``, read
the criterion C(J_t) after each step t (greater is better: -error or +score, as the selectors maximise), and keep
the first t - 1 features, where t is the first step whose gain C(J_t) - C(J_{t-1}) is below ``tol``. The step
that gained too little is not kept: "the features chosen up to that point". C(J_0) is the criterion of the empty
set (the Bayes value of predicting from the prior alone), so a first feature that gains too little stops at k = 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .errors import ParameterError

# Selectors whose per-step scores are the criterion of the selected set, C(J_t) (greedy forward searches).
STOPPABLE = ("bayes-greedy", "mi-greedy")
NO_GAIN = 1e-12   # a gain within this relative tolerance of 0 is no gain (fslab.selectors.ties' tolerance)


@dataclass(frozen=True)
class StoppingResult:
    """``k``: features kept; ``features``/``names``: the first k of the greedy order; ``values``: C(J_t) for
    t = 0..k_max (t = 0 the empty set); ``gains``: C(J_t) - C(J_{t-1}) for t = 1..k_max; ``stopped_at``: the step
    whose gain fell below ``tol`` (None when every step up to k_max gained at least tol)."""

    k: int
    features: tuple[int, ...]
    names: tuple[str, ...]
    values: tuple[float, ...]
    gains: tuple[float, ...]
    tol: float
    stopped_at: int | None

    def summary(self) -> str:
        if self.stopped_at is None:
            return (f"every step up to k = {len(self.gains)} gained at least {self.tol:g}: keep all {self.k} (raise "
                    "k_max to look further)")
        return (f"step {self.stopped_at} gained {self.gains[self.stopped_at - 1]:.4g} < {self.tol:g}: keep the "
                f"{self.k} feature{'s' if self.k != 1 else ''} chosen before it")


def steps_to_keep(values: Sequence[float], tol: float) -> tuple[int, int | None]:
    """(k, stopped_at) from the criterion ``values`` = C(J_0), C(J_1), ..., C(J_K) (greater is better).

    stopped_at is the first t >= 1 whose gain g_t = C(J_t) - C(J_{t-1}) is below ``tol`` or is no gain at all
    (g_t <= 1e-12 * max(1, |C(J_{t-1})|), the selectors' tie tolerance), and k = t - 1; if there is none, k = K
    and stopped_at is None. ``tol`` must be >= 0; with tol = 0 a step is kept only when it gains something: a
    step with zero held-out gain (a constant column, a tie-break among useless columns) is never kept (issue 33.2;
    before, tol = 0 kept zero gains and stopped only at a loss). C(J_0) = -inf (a rule of no feature: precision /
    recall's conjunction, approach 2) gives g_1 = +inf: the first feature is always kept.
    """
    v = np.asarray(values, dtype=float)
    if v.ndim != 1 or v.size < 1 or not np.all(np.isfinite(v[1:])) or not (np.isfinite(v[0]) or v[0] == -np.inf):
        raise ParameterError("values must be criterion values C(J_0), ..., C(J_K), the empty set first: finite, but "
                             "C(J_0) may be -inf (precision / recall's conjunction rule of no feature)")
    if not np.isfinite(tol) or tol < 0:
        raise ParameterError(f"tol must be a number >= 0 (the smallest gain worth a feature); got {tol}")
    gains = np.diff(v)   # g_1 = +inf after C(J_0) = -inf: the rule needs a feature, the first is always kept
    scale = np.maximum(1.0, np.abs(np.where(np.isfinite(v[:-1]), v[:-1], 1.0)))
    below = np.flatnonzero((gains < tol) | (gains <= NO_GAIN * scale))
    if below.size == 0:
        return int(gains.size), None
    t = int(below[0]) + 1
    return t - 1, t


def select_until_gain_below(source, tol: float, k_max: int | None = None, selector: str = "bayes-greedy",
                            measure: str = "zero-one", *, estimate: str = "plug-in", folds: int = 5, seed=0,
                            **params) -> StoppingResult:
    """Greedy selection with footnote 3's stopping rule: the features chosen before the first step that gains
    less than ``tol`` in the criterion (units of the criterion: an error rate, bits of MI, ...).

    ``source``: a dataset or a distribution; ``k_max``: the longest search (default: every feature); ``selector``:
    one of STOPPABLE (their step scores are C(J_t)); ``params``: the measure's and selector's parameters
    (c, beta, s, ...), as for :func:`fslab.select`.
    """
    from .criteria import criterion
    from .selectors import SELECTORS, select

    if selector not in STOPPABLE:
        raise ParameterError(f"the stopping rule needs a greedy selector whose step scores are the criterion of the "
                             f"selected set: one of {', '.join(STOPPABLE)}; got {selector!r}")
    n = int(source.n_features)
    k_max = n if k_max is None else int(k_max)
    if not 1 <= k_max <= n:
        raise ParameterError(f"k_max must be between 1 and the number of features ({n}); got {k_max}")
    how = {"estimate": estimate, "folds": folds, "seed": seed}   # the criterion's estimate, select's
    sel = select(source, k_max, selector=selector, measure=measure, **how, **params)
    spec = SELECTORS[selector]
    crit_measure = measure if spec.uses_measure else "mi"
    measure_params = {key: params[key] for key in ("c", "beta", "approach") if key in params}
    empty = float(criterion(source, [], crit_measure, **how, **measure_params))
    values = [empty, *(float(x) for x in sel.scores)]
    k, stopped = steps_to_keep(values, tol)
    return StoppingResult(k=k, features=tuple(int(j) for j in sel.features[:k]), names=tuple(sel.names[:k]),
                          values=tuple(values), gains=tuple(np.diff(values).tolist()), tol=float(tol),
                          stopped_at=stopped)


__all__ = ["NO_GAIN", "STOPPABLE", "StoppingResult", "select_until_gain_below", "steps_to_keep"]
