"""select(): validate once, build the scorer of the chosen selector, run the shared loop, return a Selection."""

from __future__ import annotations

import operator
from collections.abc import Callable
from math import comb

import numpy as np

from ..errors import ParameterError
from ..measures import measure as get_measure
from ..tables import as_source
from ._criterion import Criterion
from ._exhaustive import exhaustive_search
from ._fisher import fisher_scores
from ._loop import run_search
from ._registry import SELECTORS, SelectorSpec
from ._result import Selection, build_trace
from ._scorers import FixedScorer, MIGainScorer, SubsetScorer, SVariateScorer


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
           progress: Callable[[int, int], None] | None = None, **params) -> Selection:
    """Select k features of ``source`` (a Dataset, an encoded dataset or a Distribution).

    ``measure`` (name or bound Measure) defines the Bayes criterion C(J) = -error or +score
    (Ahmed et al., eq. (3)) for selectors that use one; ``s`` turns on the s-variate approximation;
    ``progress(step, total)`` is called after every step. Other keyword arguments go to the selector
    (``max_subsets`` for exhaustive) or else to the measure (``c``, ``beta``, ``approach``).
    Raises ParameterError on an unknown selector, k outside 1..n_features or a bad s.
    """
    spec = _spec(selector)
    src = as_source(source)
    n = src.n_features
    k, s = _validate(k, n, s, spec)
    sel_params = {key: params.pop(key) for key in list(params) if key in spec.params}
    sel_params = {**spec.params, **sel_params}
    if spec.uses_measure:
        m = get_measure(spec.fixed_measure or measure, **params)
        crit, measure_name, used = Criterion(src, m), m.name, {**sel_params, **m.params}
    else:
        if params:
            raise ParameterError(
                f"selector '{spec.name}' has its own criterion ({spec.criterion_name}) and takes no parameter "
                f"{sorted(params)}"
            )
        crit, measure_name, used = Criterion(src, None), spec.criterion_name, dict(sel_params)

    if spec.kind == "exhaustive":
        best, _, trace = exhaustive_search(src, k, crit, max_subsets=int(sel_params["max_subsets"]),
                                           progress=progress)
        scores = np.array([crit.value(best[:t]) for t in range(1, k + 1)])
        return Selection(tuple(best), tuple(src.feature_names[j] for j in best), scores, trace, spec.name,
                         measure_name, k, s, used)

    backward = spec.kind == "backward"
    if spec.kind == "ranking":
        if spec.name == "fisher":
            scorer = FixedScorer(fisher_scores(src))
        elif spec.name == "mi-score":
            scorer = FixedScorer(MIGainScorer(crit, "mim").relevance)
        else:
            scorer = FixedScorer(crit.extension([], np.arange(n)))
    elif spec.name in ("mrmr", "jmi", "cmim"):
        scorer = MIGainScorer(crit, spec.name)
    elif s is not None:
        scorer = SVariateScorer(crit, s, backward=backward)
    else:
        scorer = SubsetScorer(crit, backward=backward)

    if backward:  # C of the full set the elimination starts from (the s-variate average when s applies)
        start = (scorer.total / comb(n, s)) if s is not None and n > s else crit.value(range(n))
    log = run_search(n, n - k if backward else k, scorer, backward=backward, progress=progress)
    trace = build_trace(log.steps, log.candidates, log.values, log.order, log.n_tied, src.feature_names)
    if backward:
        features = tuple(int(j) for j in np.setdiff1d(np.arange(n), log.order))
        notes = () if log.order else (
            f"k = {k} equals the number of features, so backward elimination removes nothing: the selection is "
            f"the full set of {n} features.",)
        return Selection(features, tuple(src.feature_names[j] for j in features), np.array(log.best), trace,
                         spec.name, measure_name, k, s, used, eliminated=tuple(log.order), start_score=start,
                         notes=notes)
    features = tuple(log.order)
    return Selection(features, tuple(src.feature_names[j] for j in features), np.array(log.best), trace, spec.name,
                     measure_name, k, s, used)
