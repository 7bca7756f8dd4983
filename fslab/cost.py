"""Predicted cost of every job a link, a recipe, the command line or a widget can start, checked before it runs.

Every criterion fslab computes is a functional of joint tables of (X_J, Y) (Ahmed et al., Section 3), so the work
of a job is counted in **subset tables** (one table of J + {j} per candidate j; a batched call counts each of its
candidates) and **passes** (recodings of a subset's cells over the rows: one per evaluator call, per backward
step, per prefix of an exhaustive enumeration). Each costs one pass over the ``rows``, so

    work = (tables + passes) x rows        (row-table counts: the unit of ``max_work``)

One function per family predicts it from k, s, the number of features n, rows, levels (arities, classes) and the
selector: :func:`select_cost` (greedy, ranking, s-variate, exhaustive, backward), :func:`npfs_cost`,
:func:`ksuggest_cost`, :func:`lattice_cost`, :func:`minimal_cost` (BS, OS, S*, Markov boundary),
:func:`finite_cost` (FBS, FOS), :func:`curves_cost` (learning curves). Memory follows the counting path:
a plain table is ``cells x levels x classes`` floats per candidate (cells of J, at most the rows; levels of the
candidate), the fast engine keeps value indicators of ``rows x features x levels``. Seconds come from per-path
costs of one row-table measured on the 2-core machine of this project (``bench/bench_cost.py`` re-measures them).

:func:`check` raises :class:`WorkLimitError` naming the limit and what to change; :func:`needs_confirmation`
says when a job below the limit should run only on an explicit click (predicted time over
``confirm_seconds``). ``limits=None`` means the server's limits (:func:`fslab.limits.server_limits`, read when
called). The module never imports streamlit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from .errors import ParameterError, TooLargeError
from .limits import Limits, limits_or_server, server_limits
from .selectors._work import forward_tables
from .tables import CodedSource, TableSource

# Seconds per row-table on each counting path (medians of bench/bench_cost.py on this project's 2 shared cores,
# load average 2-7): the fast engine on a greedy path (samples, arities and classes <= 16), the fast engine over
# many distinct deep prefixes (exhaustive search, lattices), plain bincount tables (distributions, many levels,
# precision/recall, permutation tests), the one-pass backward removal step, and a learner fit per training row
# and feature (learning curves, FBS/FOS).
SECONDS_PER_ROW_TABLE = {"fast": 4e-9, "deep": 3e-8, "plain": 1.3e-7, "removal": 5e-8, "fit": 4e-7}
_FAST_LEVELS = 16            # the fast engine's bound on feature arities and classes (fslab.measures)
_BATCH_CELLS = 1 << 22       # cells of one batched plain count (fslab.tables)
_DEFAULTS = {"max_work": 10_000_000_000, "confirm_seconds": 5, "max_job_mb": 2_000}


class WorkLimitError(TooLargeError):
    """A job's predicted work or memory is over the server's limit; the message says what to change."""


@dataclass(frozen=True)
class Shape:
    """What the cost of a job depends on: features, rows (or states), classes, largest arity, a sample or not."""

    n_features: int
    n_rows: int
    n_classes: int
    max_arity: int
    sample: bool = True

    @classmethod
    def of(cls, source) -> Shape:
        """The shape of a coded source (sample or distribution) or a raw Dataset (levels from its columns)."""
        if isinstance(source, TableSource):
            arities = source.arities  # sample: rows in memory (the fast and removal paths need a CodedSource)
            # every fslab source has n_rows; the protocol does not ask it of others (AttributeError then, as before)
            return cls(int(source.n_features), int(source.n_rows), len(source.labels),  # type: ignore[attr-defined]
                       int(arities.max()) if len(arities) else 1,
                       isinstance(source, CodedSource) and source.is_sample)
        features = source.features  # a raw fslab.Dataset: binning keeps at most its distinct values
        levels = int(features.nunique().max()) if features.shape[1] else 1
        return cls(features.shape[1], features.shape[0], len(source.encoded_target.labels), levels, True)


@dataclass(frozen=True)
class Cost:
    """Predicted work of one job: counts, row-table work, seconds on this machine and peak memory (bytes)."""

    job: str
    tables: int
    passes: int
    work: int
    seconds: float
    bytes: int
    advice: str = "choose a smaller k"
    refusal: str | None = None  # a size limit the job's own code checks first (e.g. exhaustive subsets)

    def __add__(self, other: Cost) -> Cost:
        return Cost(f"{self.job}; {other.job}", self.tables + other.tables, self.passes + other.passes,
                    self.work + other.work, self.seconds + other.seconds, max(self.bytes, other.bytes), self.advice)

    def times(self, n: int, job: str, advice: str | None = None) -> Cost:
        """``n`` repetitions of this job (bootstraps, permutations, splits): memory is not multiplied."""
        return Cost(job, self.tables * n, self.passes * n, self.work * n, self.seconds * n, self.bytes,
                    advice or self.advice)

    def describe(self) -> str:
        return (f"{self.job}: about {self.tables:,} subset tables and {self.passes:,} count passes "
                f"({self.work:,} row-tables, {_duration(self.seconds)}, {self.bytes / 1e6:,.0f} MB)")


def _label(selector: str) -> str:
    """The selector's name as the pages and messages show it (JMI, BayesGreedy), not its registry key."""
    from .selectors import SELECTORS  # late: the selectors import the measures, which need nothing from here

    return SELECTORS[selector].label if selector in SELECTORS else str(selector)


def _duration(seconds: float) -> str:
    if seconds < 1:
        return "under a second"
    for unit, size in (("hours", 3600), ("minutes", 60)):
        if seconds >= 2 * size:
            return f"about {seconds / size:,.0f} {unit}"
    return f"about {seconds:,.0f} s"


def _cost(job: str, tables: int, passes: int, rows: int, path: str, n_bytes: int, advice: str) -> Cost:
    work = (int(tables) + int(passes)) * max(int(rows), 1)
    return Cost(job, int(tables), int(passes), work, work * SECONDS_PER_ROW_TABLE[path], int(n_bytes), advice)


def _path(shape: Shape, measure: str | None) -> str:
    """"fast" for a sample with small arities and classes, unless the measure brings its own evaluator (precision
    and recall count from each feature's own predictor: plain tables)."""
    from .measures import MEASURES

    own = measure is not None and measure in MEASURES and MEASURES[measure].evaluator is not None
    fast = shape.sample and shape.max_arity <= _FAST_LEVELS and shape.n_classes <= _FAST_LEVELS
    return "fast" if fast and not own else "plain"


def table_bytes(shape: Shape, subset_size: int, candidates: int, path: str) -> int:
    """Peak bytes of one batched count of ``candidates`` tables of J + {j}, |J| = ``subset_size``.

    Plain path: each table has cells(J) x levels(j) x classes float64 entries (cells(J) <= min(rows, prod of
    arities)), counted through an int64 index of rows x batch; batches hold about 4M cells but never less than one
    table, so a feature with one level per row makes one table rows^2 x classes. Fast path: the value indicators,
    rows x features x (levels - 1) float32, and count blocks of 16 MiB.
    """
    n, m, L, a = shape.n_features, max(shape.n_rows, 1), shape.n_classes, max(shape.max_arity, 1)
    if path == "fast":
        return 4 * m * n * max(a - 1, 1) + 3 * (1 << 24)
    cells = min(m, a ** min(subset_size, 64))
    per_table = cells * a * L
    batch = min(max(candidates, 1), max(1, _BATCH_CELLS // max(per_table, 1)))
    return 8 * batch * (3 * per_table + m)  # counts, their float copy and the table; the row index


def select_cost(source, k: int, selector: str = "bayes-greedy", measure: str | None = "zero-one",
                s: int | None = None, shape: Shape | None = None, max_subsets: int | None = None) -> Cost:
    """Predicted cost of ``fslab.select(source, k, selector, measure, s)``: the tables and passes its record
    declares (``SelectorSpec.work_of(n, k, s)``, :mod:`fslab.selectors._work`: forward greedy sum_{t<k} (n - t),
    rankings n, mRMR/JMI/CMIM n + sum_{t<k} (n - t), backward and exhaustive search, Fisher's one pass over the
    raw values) over the counting path of the criterion it evaluates. C(n, k) over ``max_subsets`` (a selector
    with its own size limit, exhaustive search) is refused with the selector's own message.
    """
    from .selectors import SELECTORS

    shape = shape or Shape.of(source)
    n, m = shape.n_features, shape.n_rows
    k = max(1, min(int(k), n))
    spec = SELECTORS.get(selector)
    if spec is None:
        raise ParameterError(f"unknown selector '{selector}'; choose one of: {', '.join(SELECTORS)}")
    path = _path(shape, spec.fixed_measure or (measure if spec.uses_measure else spec.criterion_measure or "mi"))
    work = spec.work_of(n, k, s)
    label = f"{spec.label}, k = {k}" + (f", s = {s}" if s else "") + f" on {m:,} rows x {n:,} features"
    n_bytes = work.fixed_bytes + work.row_bytes * m
    if work.path == "removal":
        n_bytes += 8 * 3 * _BATCH_CELLS + table_bytes(shape, work.depth, work.candidates, "plain")
        speed = "removal" if shape.sample else "plain"
    elif work.path == "values":
        speed = path
    else:
        n_bytes += table_bytes(shape, work.depth, work.candidates, path)
        speed = "deep" if work.path == "deep" and path == "fast" else path
    cost = _cost(label, work.tables, work.passes, m, speed, n_bytes, work.advice)
    max_subsets = server_limits().max_exhaustive_subsets if max_subsets is None else int(max_subsets)
    if work.subsets is not None and work.subsets > max_subsets:  # the selector's own limit, with its message
        from .selectors._exhaustive import too_many_subsets_message

        cost = replace(cost, refusal=too_many_subsets_message(n, k, max_subsets))
    return cost


def npfs_cost(source, selector: str, k: int, n_bootstraps: int, sample_fraction: float = 1.0,
              measure: str | None = "zero-one", s: int | None = None) -> Cost:
    """NPFS (Ditzler et al., Section III-B): n bootstraps of one selection on round(fraction x rows) rows."""
    shape = Shape.of(source)
    boot = replace(shape, n_rows=max(1, round(sample_fraction * shape.n_rows)))
    one = select_cost(None, k, selector, measure, s, shape=boot)
    cost = one.times(int(n_bootstraps), f"NPFS, {int(n_bootstraps):,} bootstraps of {one.job}",
                     "choose fewer bootstraps (n) or a smaller k")
    from .npfs import weighted as npfs_weighted  # the MI family's bootstraps as row weights, many per matrix product

    if s is None and npfs_weighted.supports(source, selector, {}):
        seconds = npfs_weighted.predicted_seconds(shape.n_rows, shape.n_features, shape.max_arity, shape.n_classes,
                                                  k, int(n_bootstraps))
        # the same subset tables, counted as matrix products: work in row-tables of the fast path's speed
        cost = replace(cost, seconds=seconds, work=min(cost.work, math.ceil(seconds / SECONDS_PER_ROW_TABLE["fast"])))
    return cost


def ksuggest_cost(source, selector: str, k: int, n_permutations: int, n_bootstraps: int = 0,
                  measure: str | None = "zero-one") -> Cost:
    """"Suggest k": one selection, then B within-cell permutations at each of the k steps (n - t + 1 tables each,
    the worst case without early stop) and NPFS with ``n_bootstraps`` bootstraps."""
    shape = Shape.of(source)
    n, m = shape.n_features, shape.n_rows
    k = max(1, min(int(k), n))
    path = _path(shape, None)
    base = select_cost(None, k, selector, measure, shape=shape)
    perm = _cost(f"permutation test, B = {int(n_permutations):,} at each of {k} steps",
                 int(n_permutations) * forward_tables(n, k) + k + 1, int(n_permutations) * k + k + 1, m, "plain",
                 8 * m * n + table_bytes(shape, k - 1, n, path),
                 "choose fewer permutations (B) or a smaller k")
    total = base + perm
    if n_bootstraps and n > 1:
        total = total + npfs_cost(source, selector, min(k, n - 1), n_bootstraps, measure=measure)
    return replace(total, job=f"Suggest k (k = {k}, B = {int(n_permutations):,}, NPFS n = {int(n_bootstraps):,})",
                   advice="choose fewer permutations (B), fewer bootstraps or a smaller k")


def lattice_cost(source, n_features: int | None = None) -> Cost:
    """Every subset's value (Pena & Nilsson's lattice): 2^n tables in 2^(n-1) batched calls; the subset table
    (one row per subset with its names) is kept."""
    shape = Shape.of(source)
    n = shape.n_features if n_features is None else int(n_features)
    path = "deep" if _path(shape, "zero-one") == "fast" else "plain"
    frame = 2 ** n * (n * 40 + 300)
    refusal, max_features = None, server_limits().max_lattice_features
    if n > max_features:  # the lattice's own limit, with its message (pick features)
        from .pena_nilsson.orderings import check_enumerable

        try:
            check_enumerable(n, max_features)
        except TooLargeError as err:
            refusal = str(err)
    return replace(_cost(f"lattice of 2^{n} subsets over {shape.n_rows:,} rows", 2 ** n, 2 ** max(n - 1, 0) + 1,
                         shape.n_rows, path, frame + table_bytes(replace(shape, n_features=n), n - 1, n, "plain"),
                         "choose fewer features (each one doubles the lattice)"), refusal=refusal)


def minimal_cost(source) -> Cost:
    """BS (at most n(n+1)/2 risk pairs), OS (n + 1), strongly relevant (n + 1), S* and the Markov boundary (each
    at most the 2^n subsets); every risk is one full table (Pena & Nilsson, Section 4)."""
    shape = Shape.of(source)
    n = shape.n_features
    tables = n * (n + 1) + 2 * (n + 1) + 2 * 2 ** n + 1  # + the full table the assumptions check reads
    return _cost(f"BS, OS, S* and the Markov boundary on {n} features", tables, tables, shape.n_rows,
                 "plain", table_bytes(shape, n, 1, "plain"), "choose fewer features")


def finite_cost(source, folds: int = 5, estimator: str = "holdout") -> Cost:
    """FBS (at most n^2 risk estimates) and FOS (n + 1), each a learner fit per fold on the training rows."""
    shape = Shape.of(source)
    n = shape.n_features
    fits = (n * n + n + 1) * (int(folds) if estimator != "holdout" else 1)
    return _cost(f"FBS and FOS on {n} features ({fits:,} learner fits)", fits * n, 0, shape.n_rows, "fit",
                 8 * shape.n_rows * n * 4, "choose fewer features or the holdout estimator")


def curves_cost(source, selectors, k_max: int, n_splits: int, train_size: float, subsample: int | None,
                grid: int = 1, measure: str | None = "zero-one") -> Cost:
    """Learning curves: per split and selector one selection at k_max on the training rows, then k_max learner
    fits (x the grid when tuning) on up to k_max features."""
    shape = Shape.of(source)
    rows = min(shape.n_rows, int(subsample)) if subsample else shape.n_rows
    train = replace(shape, n_rows=max(1, round(train_size * rows)))
    total = None
    for name in selectors:
        part = select_cost(None, k_max, name, measure, shape=train)
        total = part if total is None else total + part
    fits = int(n_splits) * len(selectors) * int(k_max) * max(int(grid), 1)
    fit = _cost(f"{fits:,} learner fits", fits * max(int(k_max), 1), 0, train.n_rows, "fit",
                8 * train.n_rows * int(k_max) * 4, "fewer splits or selectors, a smaller k, or a subsample")
    total = fit if total is None else total.times(int(n_splits), "selections") + fit
    return replace(total, job=f"learning curves ({int(n_splits)} splits x {len(selectors)} selectors, k <= {k_max})",
                   advice="choose fewer splits or selectors, a smaller k, or a subsample")


def compare_cost(source, k: int, selectors, measure: str | None = "zero-one", exact: bool | None = None) -> Cost:
    """Compare: each selector once at k, plus exhaustive search for the k-optimal subset when ``exact`` (default:
    on a distribution) and C(n, k) is within its limit (beyond it the comparison only notes it)."""
    shape = Shape.of(source)
    parts = [select_cost(None, k, name, measure, shape=shape) for name in selectors]
    if exact if exact is not None else not shape.sample:
        optimal = select_cost(None, k, "exhaustive", measure, shape=shape)
        if optimal.refusal is None:
            parts.append(optimal)
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return replace(total, job=f"{len(selectors)} selectors at k = {k}", advice="choose a smaller k or fewer selectors",
                   refusal=next((part.refusal for part in parts if part.refusal), None))


def by_measure_cost(source, k: int, selector: str, measures) -> Cost:
    """By measure: the selector once per measure, then every measure's k prefixes under every measure (one table
    each)."""
    shape = Shape.of(source)
    parts = [select_cost(None, k, selector, name, shape=shape) for name in measures] or [
        select_cost(None, k, selector, shape=shape)]
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    extra = _cost("prefix values", len(parts) ** 2 * int(k), len(parts) ** 2 * int(k), shape.n_rows, "plain", 0, "")
    return replace(total + extra, job=f"{_label(selector)} with {len(parts)} measures, k = {k}",
                   advice="choose a smaller k or fewer measures", refusal=parts[0].refusal)


def binning_cost(raw, k: int, selector: str, measure: str | None = "zero-one", n_binnings: int = 7,
                 max_bins: int = 10) -> Cost:
    """Binning sensitivity: one selection per binning (at most ``max_bins`` levels per feature)."""
    shape = Shape.of(raw)
    shape = replace(shape, max_arity=min(shape.max_arity, max_bins))
    one = select_cost(None, k, selector, measure, shape=shape)
    return replace(one.times(int(n_binnings), f"{n_binnings} binnings x {one.job}"), refusal=one.refusal)


def job_cost(job) -> Cost:
    """The cost of a command-line job (``fslab.cli.job.Job``: command, loaded.source, selector(s), k, s, n, ...)."""
    source = job.loaded.source
    measure = getattr(job, "measure", None)
    if job.command == "select":
        return select_cost(source, job.k, job.selector, measure, job.s)
    if job.command == "npfs":
        return npfs_cost(source, job.selector, job.k, job.n, getattr(job, "fraction", None) or 1.0, measure,
                         getattr(job, "s", None))
    if job.command == "lattice":
        features = getattr(job, "features", None)
        n = len(features) if features else None
        if (n or source.n_features) > server_limits().max_lattice_features:  # the command refuses at once, in its words
            return Cost("lattice", 0, 0, 0, 0.0, 0)
        return lattice_cost(source, n)
    if job.command == "compare":
        return compare_cost(source, job.k, job.selectors, measure)
    raise ValueError(f"no cost model for command {job.command!r}")


def _limit(limits: Limits, name: str) -> int:
    return int(getattr(limits, name, _DEFAULTS[name]))


def over_limit_message(cost: Cost, limits: Limits | None = None) -> str | None:
    """The refusal of ``cost`` under ``limits`` (None: the server's; work first, then memory), or None when it
    fits."""
    limits = limits_or_server(limits)
    max_work, max_mb = _limit(limits, "max_work"), _limit(limits, "max_job_mb")
    if cost.refusal is not None:
        return cost.refusal
    if cost.work > max_work:
        what = (f"{cost.describe()} is over the work limit of {max_work:,} row-tables (max_work: a server sets it "
                "with FSLAB_MAX_WORK)")
    elif cost.bytes > max_mb * 1e6:
        what = (f"{cost.describe()} is over the memory limit of {max_mb:,} MB per job (max_job_mb: a server sets "
                "it with FSLAB_MAX_JOB_MB)")
    else:
        return None
    return (f"{what}. Nothing was run. To run it, {cost.advice}; or run it with the library on your own machine "
            "(fslab.select, fslab.npfs, ... take no work limit), where it can take as long as it needs.")


def check(cost: Cost, limits: Limits | None = None) -> Cost:
    """Raise :class:`WorkLimitError` when ``cost`` is over the work or memory limit; return it otherwise."""
    message = over_limit_message(cost, limits)
    if message is not None:
        raise WorkLimitError(message)
    return cost


def preflight(cost: Cost, limits: Limits | None = None) -> str | None:
    """For callers that cannot ask (the command line): :func:`check`, then the estimate to print when the job is
    long enough that a click would be asked for in the app (None otherwise)."""
    check(cost, limits)
    return f"{cost.describe()}; starting now (Ctrl-C stops it)" if needs_confirmation(cost, limits) else None


def needs_confirmation(cost: Cost, limits: Limits | None = None) -> bool:
    """True when a job within the limits is predicted to take longer than ``limits.confirm_seconds`` (None: the
    server's)."""
    return cost.seconds > _limit(limits_or_server(limits), "confirm_seconds")


__all__ = ["SECONDS_PER_ROW_TABLE", "Cost", "Shape", "WorkLimitError", "binning_cost", "by_measure_cost", "check",
           "compare_cost",
           "curves_cost", "finite_cost",
           "job_cost", "ksuggest_cost", "lattice_cost", "minimal_cost", "needs_confirmation",
           "npfs_cost", "over_limit_message", "preflight", "select_cost", "table_bytes"]
