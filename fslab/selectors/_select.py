"""select(): validate once, build the scorer of the chosen selector, run the shared loop, return a Selection."""

from __future__ import annotations

import operator
from collections.abc import Callable
from math import comb
from typing import Any, cast

import numpy as np

from ..alerts import code_alerts
from ..counting.folds import DEFAULT_FOLDS, DEFAULT_SEED, check_estimate
from ..errors import ParameterError
from ..measures import measure as get_measure
from ..measures.base import require_rows
from ..measures.evaluator import Evaluator, check_engine
from ..tables import as_source
from ._exhaustive import exhaustive_search
from ._loop import Hooks, run_search
from ._registry import SELECTORS, Run, SelectorSpec
from ._result import Selection, build_trace, deferred
from ._scorers import SVariateScorer


def _spec(selector: str) -> SelectorSpec:
    try:
        return SELECTORS[selector]
    except KeyError:
        raise ParameterError(f"unknown selector '{selector}'; choose one of: {', '.join(SELECTORS)}") from None


def _validate(k, n: int, s, spec: SelectorSpec) -> tuple[int, int | None]:
    try:
        k = operator.index(k)
    except TypeError:
        raise ParameterError(f"k must be a whole number of features; got {k!r}") from None
    if not 1 <= k <= n:
        raise ParameterError(f"k={k} is out of range: the data have {n} features, so choose 1 <= k <= {n}")
    if s is not None:
        if not spec.supports_s:
            raise ParameterError(f"the s-variate approximation does not apply to selector '{spec.name}'; use s=None")
        try:
            s = operator.index(s)
        except TypeError:
            raise ParameterError(f"s must be a whole number >= 1; got {s!r}") from None
        if s < 1:
            raise ParameterError(f"s must be at least 1 (s=2 is the paper's bivariate approximation); got s={s}")
    return k, s


def select(source, k: int, selector: str = "bayes-greedy", measure="zero-one", s: int | None = None,
           progress: Callable[[int, int], object] | None = None, *, engine: str = "auto",
           cancel: Callable[[], bool] | None = None, estimate: str = "plug-in", folds: int = DEFAULT_FOLDS,
           seed=DEFAULT_SEED, **params) -> Selection:
    """Select k features of ``source`` (a Dataset, an encoded dataset or a Distribution).

    ``measure`` (name or bound Measure) defines the Bayes criterion C(J) = -error or +score
    (Ahmed et al., eq. (3)) for selectors that use one; ``s`` turns on the s-variate approximation;
    ``progress(step, total)`` is called after every step (returning False stops the run);
    ``cancel()`` is polled between steps and inside long steps (True stops the run): a stopped run raises
    :class:`SelectionCancelled`. ``engine="plain"`` turns the fast counting engine off (same results; the
    oracle of the differential test). Other keyword arguments go to the selector (``max_subsets`` for
    exhaustive) or else to the measure (``c``, ``beta``, ``approach``).
    ``estimate``: ``"plug-in"`` (the papers' in-sample estimate of every criterion, the default) or
    ``"cross-fitted"`` (held out: ``folds`` stratified folds split by ``seed``; see
    :mod:`fslab.measures.cross_fit`), recorded in ``Selection.estimate``. The Fisher score has no held-out
    version (it reads raw values); it records ``"in-sample"`` and says so in ``notes``.
    Raises ParameterError on an unknown selector, k outside 1..n_features, a bad s, or a selector declared
    ``needs_rows`` on a source without rows (a Dask source).
    """
    spec = _spec(selector)
    check_engine(engine)
    estimate, folds = check_estimate(estimate, folds)
    how = {"estimate": estimate, "folds": folds, "seed": seed}
    src = as_source(source)
    if spec.needs_rows:
        require_rows(spec.label, src)
    n = src.n_features
    k, s = _validate(k, n, s, spec)
    sel_params = {key: params.pop(key) for key in list(params) if key in spec.params}
    sel_params = {**spec.params, **sel_params}
    ev: Evaluator | None  # None: a selector with a statistic of its own and no measure (Fisher)
    if spec.uses_measure:
        m = get_measure(spec.fixed_measure or measure, **params)
        ev, measure_name, used = m.on(src, engine, **how), m.name, {**sel_params, **m.params}
    else:
        if params:
            raise ParameterError(
                f"selector '{spec.name}' has its own criterion ({spec.criterion_name}) and takes no parameter "
                f"{sorted(params)}"
            )
        own = spec.criterion_measure
        assert spec.criterion_name is not None  # a selector with its own criterion names it (all registered ones do)
        ev, measure_name, used = (get_measure(own).on(src, engine, **how) if own else None), spec.criterion_name, dict(
            sel_params)
    hooks = Hooks(progress, cancel)
    names = src.feature_names
    recorded = ev.estimate if ev is not None else "in-sample"
    crossed = recorded == "cross-fitted"
    held: Any = ev  # when crossed: a cross-fitted evaluator, with its folds and split seed
    record: dict[str, Any] = {"estimate": recorded, "folds": held.n_folds if crossed else None,
                              "split_seed": held.seed if crossed else None}
    # the evaluator's own notes (held out over fewer folds than asked on a small class, ...) travel with the result
    extra_notes = tuple(getattr(ev, "notes", ())) if ev is not None else () if estimate == "plug-in" else (
        f"The {spec.label} is a statistic of the raw values of all rows with no held-out version: the estimate "
        "setting does not apply to it.",)

    if spec.scorer is None:  # exhaustive search: the best k-subset, scored in lexicographic order
        assert ev is not None  # exhaustive search scores subsets under a measure
        best, _, trace = exhaustive_search(src, k, ev, max_subsets=sel_params["max_subsets"], hooks=hooks)
        scores = np.array([ev.criterion(best[:t]) for t in range(1, k + 1)])
        return Selection(tuple(best), tuple(names[j] for j in best), scores, trace, spec.name, measure_name, k, s,
                         used, notes=extra_notes, alerts=deferred(code_alerts, src, best), **record)

    backward = spec.kind == "backward"
    scorer = spec.scorer(Run(src, ev, s, backward, hooks))
    if backward:  # C of the full set the elimination starts from (the s-variate average when s applies)
        assert ev is not None  # backward elimination scores subsets under a measure
        # with s, the scorer is an SVariateScorer, which keeps the total of the s-subsets' criteria
        start = (cast(SVariateScorer, scorer).total / comb(n, s)) if s is not None and n > s \
            else ev.criterion(range(n))
    log = run_search(n, n - k if backward else k, scorer, backward=backward, hooks=hooks)
    trace = deferred(build_trace, log, names)  # built when read (a third of a small run's fixed cost)
    if backward:
        features = tuple(int(j) for j in np.setdiff1d(np.arange(n), log.order))
        notes = extra_notes + (() if log.order else (
            f"k = {k} equals the number of features, so backward elimination removes nothing: the selection is "
            f"the full set of {n} features.",))
        return Selection(features, tuple(names[j] for j in features), np.array(log.best), trace,
                         spec.name, measure_name, k, s, used, eliminated=tuple(log.order), start_score=start,
                         notes=notes, alerts=deferred(code_alerts, src, features), **record)
    features = tuple(log.order)
    return Selection(features, tuple(names[j] for j in features), np.array(log.best), trace, spec.name,
                     measure_name, k, s, used, notes=extra_notes, alerts=deferred(code_alerts, src, features),
                     **record)
