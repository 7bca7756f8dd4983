"""Which k? Two principled suggestions: NPFS's k* and a conditional permutation test of each greedy step.

The permutation test (fslab's own; the papers stop at heuristics). At greedy step t the selector has chosen
S = (j_1, ..., j_{t-1}) and adds j_t. The observed improvement is ``C(S + j_t) - C(S)`` for the criterion C of a
measure (plug-in, on the sample). Under H0_t "no remaining feature adds information about Y given X_S", the rows of
the remaining features may be permuted within each cell of X_S: that keeps the joint law of (X_S, Y) and of the
candidates given X_S, and breaks only the link between the candidates and Y given X_S. Each permutation gives the
best improvement any remaining candidate achieves, ``max_j C(S + j) - C(S)`` (the max accounts for greedy search
having picked the best of many candidates, like a Westfall-Young max-statistic). The p-value is
``(1 + #{null >= observed}) / (1 + B)`` and the suggested k is the number of steps before the first p > alpha.
Plug-in criteria always improve on a sample; the test asks whether the improvement beats what chance gives.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .counting.folds import DEFAULT_FOLDS
from .errors import ParameterError
from .measures import Measure
from .measures import measure as get_measure
from .selectors.ties import ties_with
from .tables import CodedSource, as_source


def within_cell_permutation(cells: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A row permutation that only exchanges rows with the same cell code: ``X[perm]`` shuffles within cells.

    Sorting on (cell, random key) lists each cell's rows in random order; the stable sort on the cell alone lists
    them in the original order; mapping one onto the other permutes inside every cell (no Python loop over rows).
    """
    shuffled = np.lexsort((rng.random(cells.size), cells))
    ordered = np.argsort(cells, kind="stable")
    perm = np.empty_like(ordered)
    perm[ordered] = shuffled
    return perm


@dataclass(frozen=True, eq=False)
class PermutationKTest:
    """Per-step p-values of the conditional permutation test and the suggested k (steps before the first p > alpha)."""

    steps: pd.DataFrame
    suggested_k: int
    alpha: float
    n_permutations: int
    measure: str

    @property
    def all_significant(self) -> bool:
        """True when every tested step was significant: the suggestion is only a lower bound, try a larger k."""
        return self.suggested_k == len(self.steps)


def permutation_k_test(dataset, order: Sequence[int], measure: str | Measure = "mi", n_permutations: int = 99,
                       alpha: float = 0.05, seed=None, measure_params: dict | None = None,
                       stop_early: bool = True, *, estimate: str = "plug-in", folds: int = DEFAULT_FOLDS,
                       split_seed: int = 0) -> PermutationKTest:
    """Test each step of the greedy ``order`` (feature indices in the order chosen) by within-cell permutation.

    ``measure`` gives the criterion C (its ``criterion`` = -error or +score, so improvements are positive when
    they help); a step from a subset whose C is not finite (precision / recall with no feature: -inf) is tested
    on C itself (its "improvement" column is then C); a step is significant when p <= alpha and it raises C;
    ``stop_early`` skips the steps after the first non-significant one (their rows get NaN p-values).
    Returns the steps table (step, feature, name, criterion, improvement, null_mean, null_q95, p_value,
    significant) and the suggested k. ``estimate``: the criterion's estimate, as the page shows it: "plug-in"
    (in-sample) or "cross-fitted" (held out over ``folds`` stratified folds split by ``split_seed``); each permuted
    sample is evaluated the same way, so observed and null improvements are the same kind of number.
    """
    source = as_source(dataset)
    if not source.is_sample:
        raise ParameterError("the permutation test permutes the rows of a sample; an exact distribution has none")
    order = [int(j) for j in order]
    if not order or len(set(order)) != len(order) or min(order) < 0 or max(order) >= source.n_features:
        raise ParameterError(f"order must list distinct feature indices in 0 .. {source.n_features - 1}; got {order}")
    if int(n_permutations) < 1:
        raise ParameterError(f"n_permutations must be at least 1; got {n_permutations}")
    if not 0 < alpha < 1:
        raise ParameterError(f"alpha must lie in (0, 1); got {alpha}")
    m = get_measure(measure, **(measure_params or {}))
    how: dict[str, Any] = {"estimate": estimate, "folds": folds, "seed": split_seed}
    ev = m.on(source, **how)
    rng = np.random.default_rng(seed)
    rows, suggested, stopped = [], None, False
    crit_prev = ev.criterion([])
    for t, j in enumerate(order, start=1):
        subset = order[:t - 1]
        crit = ev.criterion(subset + [j])
        # from a subset with no finite criterion (precision / recall's rule of no feature: -inf) the improvement is
        # not a number; the criterion itself is the statistic then: crit_prev is the same in every permuted sample,
        # so this ranks the candidates as the improvement does whenever it is finite
        base = crit_prev if np.isfinite(crit_prev) else 0.0
        observed = crit - base
        row = {"step": t, "feature": j, "name": source.feature_names[j], "criterion": crit,
               "improvement": observed, "null_mean": np.nan, "null_q95": np.nan, "p_value": np.nan,
               "significant": None}
        rest = [c for c in range(source.n_features) if c not in subset]
        if not stopped:
            null = _null_improvements(source, subset, rest, m, base, int(n_permutations), rng, how)
            p = (1 + np.count_nonzero(ties_with(null, observed))) / (1 + null.size)
            # a step that does not raise C is not worth taking, however rare its loss is under the null (precision
            # and recall fall as a rule takes more features: their best next step can lose less than chance)
            helps = observed > 0 or not np.isfinite(crit_prev)
            row.update(null_mean=float(null.mean()), null_q95=float(np.quantile(null, 0.95)), p_value=float(p),
                       significant=bool(p <= alpha and helps))
            if not row["significant"] and suggested is None:
                suggested = t - 1
                stopped = stop_early
        rows.append(row)
        crit_prev = crit
    steps = pd.DataFrame(rows)
    if suggested is None:
        suggested = len(order)
    return PermutationKTest(steps, int(suggested), float(alpha), int(n_permutations), m.label)


def _null_improvements(source, subset: list[int], rest: list[int], m: Measure, crit_base: float, n_perm: int,
                       rng: np.random.Generator, how: dict | None = None) -> np.ndarray:
    """Best improvement over ``rest`` after each of ``n_perm`` within-cell permutations of the rows, each permuted
    sample evaluated with the observed step's estimate (``how``: estimate, folds, seed of ``Measure.on``)."""
    cells, _ = source.cell_codes(subset)
    X, y = source.X, source.y
    out = np.empty(n_perm)
    for b in range(n_perm):
        perm = within_cell_permutation(cells, rng)
        # The subset's columns are constant inside a cell, so X[perm] leaves them unchanged; y is not permuted.
        permuted = CodedSource(X[perm], source.arities, source.labels, y=y)
        # the same evaluator class as the observed step (plain engine: one permuted source per draw)
        out[b] = float(np.max(m.on(permuted, engine="plain", **(how or {})).extensions(subset, rest))) - crit_base
    return out


@dataclass(frozen=True, eq=False)
class KSuggestion:
    """Both suggestions for k: the NPFS result (``npfs.k_star``) and the permutation test (``test.suggested_k``)."""

    npfs: object | None
    test: PermutationKTest | None
    order: tuple[int, ...]


def test_measure(selector: str, measure: str) -> str:
    """The criterion whose improvements the permutation test checks: the one the selector maximises (its fixed
    measure, else ``measure`` for a selector of the Bayes criterion), else mutual information (MI family, Fisher)."""
    from .selectors import SELECTORS

    spec = SELECTORS[selector]
    if spec.uses_measure:
        return spec.fixed_measure or measure
    return spec.criterion_measure or "mi"


def suggest_k(dataset, selector: str = "bayes-greedy", measure: str = "zero-one", measure_params: dict | None = None,
              k: int = 10, n_permutations: int = 99, n_bootstraps: int = 50, alpha: float = 0.05, seed=0,
              progress=None, *, npfs_alpha: float = 0.01, n_jobs: int = 1, **selector_params) -> KSuggestion:
    """"Which k?": ``selector``'s first k features, the within-cell permutation test of each step, and NPFS's k*.

    The one suggestion of the library, the command line and the app (which runs it in a worker process, positional
    arguments in this order). The test's criterion is the one the selector maximises (:func:`test_measure`: MI for
    the MI family and Fisher); ``measure_params`` go to the selector and the test only when they use ``measure``.
    NPFS runs with k' = min(k, n - 1) (its p0 = k'/n must stay below 1), ``npfs_alpha`` and ``n_bootstraps``
    bootstraps; ``n_bootstraps=0`` or one feature skips it. ``progress(done, total)`` reports the bootstraps.
    ``estimate`` (in ``selector_params``; default "plug-in"): the criterion estimate of the selection and of the
    permutation test (held out when "cross-fitted", over the default folds split with seed 0).
    """
    from .npfs.procedure import npfs
    from .selectors import SELECTORS, select

    if selector not in SELECTORS:
        raise ParameterError(f"unknown selector '{selector}'; choose one of: {', '.join(SELECTORS)}")
    source = as_source(dataset)
    extra = dict(measure_params or {}) if SELECTORS[selector].uses_measure else {}
    estimate = selector_params.pop("estimate", "plug-in")   # the page's estimate: the test follows it
    order = select(dataset, k, selector, measure=measure, estimate=estimate, **extra, **selector_params).features
    criterion = test_measure(selector, measure)
    test = permutation_k_test(dataset, order, criterion, n_permutations, alpha, seed,
                              extra if criterion == measure else None, estimate=estimate)
    result = None
    if n_bootstraps and source.n_features > 1:
        result = npfs(dataset, selector, min(int(k), source.n_features - 1), n_bootstraps=n_bootstraps,
                      alpha=npfs_alpha, seed=seed, n_jobs=n_jobs, progress=progress, measure=measure, **extra,
                      estimate=estimate,
                      **selector_params)
    return KSuggestion(result, test, tuple(int(j) for j in order))
