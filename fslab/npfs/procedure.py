"""NPFS: the bootstrap Neyman-Pearson test of feature relevance over any selector (Ditzler, Polikar, Rosen 2015).

Run a base selector F with a fixed k on n bootstrap resamples of the rows, giving the K x n selection matrix
X (X[i, l] = 1 when bootstrap l selected feature i). Under H0 a feature is picked by chance with probability
p0 = k/K, so its count z_i = sum_l X[i, l] is Binomial(n, p0). The Neyman-Pearson test of p1 > p0 rejects when
z_i > zeta, zeta the (1 - alpha) quantile of Binomial(n, p0) (Section III-B, equation (3)); the relevant
features are those rejections and k* is their number, which may differ from k (Section III-C).
``rule="at-least"`` uses z_i >= zeta instead, as the authors' released MATLAB code does (see ``fslab.npfs.result``).

Running on a cluster: bootstraps go through joblib, so any joblib backend works, e.g. with dask.distributed
(``pip install dask distributed``)::

    from dask.distributed import Client
    client = Client("scheduler-address:8786")
    with joblib.parallel_config(backend="dask"):
        result = npfs(dataset, "jmi", k=10, n_bootstraps=10_000, n_jobs=-1)

The seeds of the bootstraps do not depend on the backend, the number of jobs or the batching, so the matrix is
the same wherever it is computed.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Callable, Sequence
from typing import cast

import joblib
import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from ..counting.folds import DEFAULT_FOLDS, DEFAULT_SEED, assign_folds, check_estimate
from ..data.encoded import EncodedDataset
from ..data.sparse import SparseDataset
from ..errors import ClusterError, FslabError, ParameterError, TooLargeError, UnsupportedTargetError
from ..limits import Limits, check_memory, over_limit
from ..measures.cross_fit import require_sample
from ..selectors._registry import SelectorSet
from ..tables import CodedSource, as_source
from .partitioned import BootstrapCounting, partitioned_bootstraps
from .result import (
    PICKED,
    RULES,
    TIED_PICK,
    NPFSResult,
    check_rule,
    hoeffding_bound,
    hoeffding_n,
    min_bootstraps,
    npfs_p_values,
    npfs_threshold,
    split_picks,
)
from .weighted import CountedBootstraps, WeightedBootstraps, bootstrap_weights, engine, supports

ProgressCallback = Callable[[int, int], "bool | None"]
AUTO_PROCESSES_CELLS = 1_000_000  # below this, starting worker processes costs more than the GIL does
# Selectors whose criterion treats each distinct target value as a class: their records' ``counts_classes``.
CLASS_SELECTORS = SelectorSet(lambda spec: spec.counts_classes)  # read from the registry on every use


def close_early(results) -> None:
    """Close a joblib result generator early: the tasks not yet started are dropped (joblib's warning that some
    finished results go unused is expected here, so it is silenced)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", r".*(successfully executed|still being processed)", UserWarning)
        results.close()


class NPFSCancelled(FslabError):
    """The progress callback asked to stop before a single bootstrap finished."""


def in_engine(source) -> bool:
    """Rows kept in an engine that counts Poisson-weighted bootstraps (:class:`BootstrapCounting`)."""
    return not isinstance(source, CodedSource | SparseDataset) and isinstance(source, BootstrapCounting)


def _check(source, k: int, n_bootstraps: int, alpha: float, sample_fraction: float, p0, epsilon: float,
           limits: Limits | None = None) -> None:
    if not (isinstance(source, CodedSource | SparseDataset) or in_engine(source)) or not source.is_sample:
        raise ParameterError(
            "NPFS resamples the rows of a sample; an exact distribution has no rows to resample (draw a sample from "
            "it first: Distribution.sample(m, seed))" + ("" if isinstance(source, CodedSource) else
                                                          f", and a {type(source).__name__} gives count tables "
                                                          "without Poisson-weighted bootstrap views") + "."
        )
    K = source.n_features
    if not 1 <= int(k) < K:
        raise ParameterError(f"k must lie in 1 .. K-1 = {K - 1} (K = {K} features); got k={k}")
    if int(n_bootstraps) < 1:
        raise ParameterError(f"n_bootstraps must be at least 1; got {n_bootstraps}")
    if limits is not None and int(n_bootstraps) > limits.max_bootstraps:
        raise TooLargeError(over_limit("max_bootstraps", f"n_bootstraps={int(n_bootstraps):,}", limits))
    if not 0 < alpha < 1:
        raise ParameterError(f"alpha must lie in (0, 1); got {alpha}")
    if not 0 < sample_fraction <= 1:
        raise ParameterError(f"sample_fraction must lie in (0, 1]; got {sample_fraction}")
    if p0 is not None and not 0 < p0 < 1:
        raise ParameterError(f"p0 must lie in (0, 1); got {p0}")
    if not epsilon > 0:
        raise ParameterError(f"epsilon must be positive; got {epsilon}")


SEED_BYTES = 400  # a spawned SeedSequence and its share of the bookkeeping, per bootstrap (measured: ~350)


def _check_run(n_bootstraps, seed, n_jobs, n_features: int) -> None:
    """The run's own arguments, before any allocation: a whole number of bootstraps whose seeds and matrix fit in
    memory, a seed numpy accepts, a joblib n_jobs (never 0)."""
    if isinstance(n_bootstraps, bool) or not isinstance(n_bootstraps, int | np.integer):
        if not (isinstance(n_bootstraps, float | np.floating) and float(n_bootstraps).is_integer()):
            raise ParameterError(f"n_bootstraps must be a whole number; got {n_bootstraps!r}")
    if seed is not None and not isinstance(seed, np.random.Generator) and (
            isinstance(seed, bool) or not isinstance(seed, int | np.integer) or int(seed) < 0):
        raise ParameterError(f"seed must be a non-negative integer, a numpy Generator or None; got {seed!r}")
    if n_jobs is not None and (isinstance(n_jobs, bool) or not isinstance(n_jobs, int | np.integer)
                               or int(n_jobs) == 0):
        raise ParameterError(f"n_jobs must be a non-zero integer (1: no parallelism, -1: every core); got {n_jobs!r}")
    n = int(n_bootstraps)
    check_memory(n * (SEED_BYTES + n_features), f"{n:,} bootstraps (their seeds and the {n:,} x {n_features} "
                 "selection matrix)")


def check_base_selector(source, selector) -> None:
    """Refuse a selector that would read a real-valued target's values as classes.

    On a regression target with m distinct values, I(X; Y) and Fisher's class means see m classes of about one row
    each: every feature that splits the rows finely "explains" y, so a noise column can be relevant in every
    bootstrap. The Bayes selectors with the squared error use the values themselves.
    """
    if source.task == "regression" and isinstance(selector, str) and selector in CLASS_SELECTORS:
        n_values = len(as_source(source).labels)  # a raw Dataset declares task and target, its codes the labels
        raise UnsupportedTargetError(
            f"The base selector '{selector}' treats each of the {n_values} distinct values of the real-valued "
            f"target '{source.target or 'y'}' as a class, so its choices say nothing about the "
            "target. Use bayes-greedy (or bayes-score) with the squared error, or make the target categorical "
            "before loading (for example a column 'price > median') and name a positive class on the Data page."
        )


def _select_features(boot, k: int, selector, params: dict) -> tuple[Sequence[int], np.ndarray]:
    """The features picked on ``boot`` and, per pick, whether the tie rule alone made it (a forward or ranking
    step with several candidates tied for the best, Selection.trace's n_tied; never for a callable selector)."""
    if callable(selector):
        out = selector(boot, k, **params)
    else:
        from ..selectors import select  # late import: selectors is a sibling package built on the same tables

        out = select(boot, k, selector, **params)
    picked = getattr(out, "features", out)
    trace = None if callable(selector) else out.trace
    tied = np.zeros(len(picked), dtype=bool)
    if trace is not None and "subset" not in trace.columns and not getattr(out, "eliminated", ()) and len(trace):
        steps = trace.loc[trace["chosen"].to_numpy(), ["step", "n_tied"]].sort_values("step")
        if len(steps) == len(picked):
            tied = steps["n_tied"].to_numpy() > 1
    return picked, tied


def _lean(source, selector):
    """The source without its raw value matrix unless the selector reads it (Fisher): bootstraps copy less."""
    if not (isinstance(source, EncodedDataset) and source.has_values) or selector == "fisher" or callable(selector):
        return source
    return source.replace(values=None)


COUNTING = ("auto", "weights", "resample")


class Shared:
    """The data every bootstrap task reads, sized for joblib's Dask backend.

    The backend scatters an argument to the workers once, instead of pickling it into every task, when
    ``dask.sizeof`` finds it larger than 1 kB; for a plain object that is ``sys.getsizeof``, which calls
    ``__sizeof__``: here the bytes of the wrapped object's arrays.
    """

    def __init__(self, data) -> None:
        self.data = data

    def __sizeof__(self) -> int:
        values = vars(self.data).values()
        arrays = [v for v in values if isinstance(v, np.ndarray)]
        arrays += [a for v in values if sp.issparse(v)  # sparse codes (issparse does not narrow for mypy)
                   for a in (v.data, v.indices, v.indptr)]  # type: ignore[attr-defined]
        return object.__sizeof__(self) + sum(int(a.nbytes) for a in arrays)


def _run_batch(shared: Shared, seeds: Sequence[np.random.SeedSequence], n_draw: int, k: int, selector,
               params: dict) -> np.ndarray:
    """Pick codes (len(seeds) x K: 0, PICKED or TIED_PICK) of the bootstraps drawn from ``seeds``, one stream each."""
    source = shared.data
    if isinstance(source, WeightedBootstraps | CountedBootstraps):  # row weights over the shared encoded rows
        step = source.batch_size()
        return np.concatenate([source.select(bootstrap_weights(seeds[i:i + step], source.m, n_draw), k, selector)
                               for i in range(0, len(seeds), step)], axis=0)
    out = np.zeros((len(seeds), source.n_features), dtype=np.int8)   # pick codes (fslab.npfs.result.split_picks)
    for b, seq in enumerate(seeds):
        # Sorted rows: the same multiset (count-based selectors see the same tables), better memory locality.
        rows = np.sort(np.random.default_rng(seq).integers(0, source.n_rows, size=n_draw))
        given = params.get("folds")   # cross-fitted: each drawn row keeps its original row's fold
        drawn = params if not isinstance(given, np.ndarray) else {**params, "folds": given[rows]}
        if isinstance(given, np.ndarray) and given[rows].min() == given[rows].max():   # a tiny sample's draw: 1 fold
            drawn = {**params, "estimate": "plug-in", "folds": DEFAULT_FOLDS}             # nothing to hold out
        picked, tied = _select_features(source.subsample(rows), k, selector, drawn)
        out[b, np.asarray(picked, dtype=np.int64)] = np.where(tied, TIED_PICK, PICKED)
    return out


def _collect(parallel, work, batches, n_draw: int, k: int, selector, params: dict, progress, n: int):
    """Run the batches, report progress, stop early when the callback returns False: (blocks, cancelled)."""
    blocks, done, cancelled = [], 0, False
    results = parallel(joblib.delayed(_run_batch)(work, b, n_draw, k, selector, params) for b in batches)
    try:
        if progress is not None and progress(0, n) is False:
            cancelled = True
        for block in ([] if cancelled else results):
            blocks.append(block)
            done += block.shape[0]
            if progress is not None and progress(done, n) is False and done < n:
                cancelled = True
                break
    except Exception as err:
        if type(err).__module__.split(".")[0] == "distributed":  # e.g. KilledWorker: a task's workers kept dying
            raise ClusterError(f"the Dask cluster could not finish the NPFS bootstraps: {err}") from err
        raise
    finally:
        close_early(results)  # abandons the tasks not yet started when we stop early or the callback raised
    return blocks, cancelled


def npfs(dataset, selector: str | Callable = "jmi", k: int = 10, n_bootstraps: int = 100, alpha: float = 0.01,
         seed: int | np.random.Generator | None = None, n_jobs: int = 1, progress: ProgressCallback | None = None,
         sample_fraction: float = 1.0, p0: float | None = None, epsilon: float = 0.1,
         prefer: str | None = "auto", batch_size: int | None = None, limits: Limits | None = None,
         rule: str = "strict", counting: str = "auto", estimate: str = "plug-in", folds: int = DEFAULT_FOLDS,
         **selector_params) -> NPFSResult:
    """Neyman-Pearson feature selection over ``selector`` (Ditzler et al., Section III-B).

    Parameters
    ----------
    dataset : a Dataset (discretised with its defaults) or an encoded dataset; or rows kept in an engine
        (a ``DaskSource``, a ``SqlSource``, a registered source: :class:`BootstrapCounting`): its bootstraps weigh
        each row by a Poisson(sample_fraction) weight computed there (:func:`fslab.row_hash.poisson_weights` of the
        row's index: the same rows get the same weights on Dask and in SQL, so the same matrix), the standard
        large-data approximation of resampling (:mod:`fslab.npfs.partitioned`), so its matrix is not the in-memory
        one of the same seed; ``counting``, ``estimate``, ``n_jobs``, ``prefer`` and ``batch_size`` do not apply
        there.
    selector : a name in ``SELECTORS`` run through ``select(boot, k, selector, **selector_params)`` (pass
        ``measure=``, ``s=`` and the selector's parameters as keywords), or a callable
        ``f(boot, k, **selector_params)`` returning feature indices (or anything with ``.features``).
    k : features the base selector picks on every bootstrap; p0 = k/K unless ``p0`` is given (a selector whose
        set size varies needs an explicit p0).
    n_bootstraps, alpha : n resamples and the size of the test. ``limits``: None (the library's default, as for
        the loaders in ``fslab.limits``) takes any n, e.g. the paper's 10,000; the server side passes
        ``limits=server_limits()`` to cap n at ``max_bootstraps`` (``FSLAB_MAX_BOOTSTRAPS``).
    seed : bootstrap l draws its rows from ``SeedSequence(seed).spawn(n)[l]``: the same seed gives the same matrix
        whatever ``n_jobs``, ``prefer`` and ``batch_size`` are (``result.seed`` holds the entropy used, also when
        seed=None).
    n_jobs, prefer, batch_size : joblib parallelism and bootstraps per task. ``prefer="auto"`` picks threads on the
        weighted path (its products and array loops release the GIL; BLAS is held to one thread per worker) and,
        when resampling, worker processes for data of at least ``AUTO_PROCESSES_CELLS`` (rows x features) values.
        Any joblib backend works, e.g. ``with joblib.parallel_config(backend="dask")`` on a Dask cluster.
        Timings: bench/bench_npfs.py.
    progress : ``progress(done, total)`` is called once with done=0 before the first bootstrap, then as results
        arrive. Returning ``False`` cancels the run: the result then covers the bootstraps finished so far (the
        first ones, as with a smaller n; ``result.cancelled`` is True), or :class:`NPFSCancelled` is raised when
        none had finished. An exception raised in the callback propagates
        after the pending tasks are abandoned.
    sample_fraction : each bootstrap draws ``round(fraction * m)`` rows with replacement.
    epsilon : the deviation of the Hoeffding bound (equation (5)) reported with the result.
    rule : ``"strict"`` (default): relevant iff z > zeta, equation (3); ``"at-least"``: z >= zeta, the authors'
        released code (the two differ only for a count exactly at zeta; see Fig. 1(d), where zeta = n = 100).
    counting : how a bootstrap is counted. ``"weights"``: as row multiplicities over the encoded rows (the
        multinomial counts of the drawn rows), for mi-score, jmi, mrmr and cmim on class targets: many bootstraps
        per matrix product for small arities, a bincount per step for many levels and classes
        (``fslab.npfs.weighted``); ``"resample"``: a new data set per bootstrap, for any selector; ``"auto"``
        (default): weights where they apply. Both draw the same rows from the same seeds and give the same matrix.
    estimate, folds : the base selector's criterion estimate (``select``'s): ``"plug-in"`` (default, the paper's)
        or ``"cross-fitted"``: each bootstrap is selected with held-out estimates over ``folds`` stratified folds of
        the ORIGINAL rows (split with seed 0), so the copies of one row in a resample stay in one fold and never
        score each other; fewer folds on a small class (:func:`fslab.counting.folds.fold_count`), and a resample
        of a tiny sample that drew rows of one fold only is selected with the plug-in (nothing to hold out).
        Cross-fitted runs resample (``counting="resample"``).
    """
    check_rule(rule)
    if counting not in COUNTING:
        raise ParameterError(f"counting must be one of {', '.join(COUNTING)}; got {counting!r}")
    # rows to resample: a CodedSource sample or a SparseDataset (_check refuses anything else)
    source = cast("CodedSource | SparseDataset", as_source(dataset))
    if isinstance(source, EncodedDataset):
        source = _lean(source, selector)
    _check_run(n_bootstraps, seed, n_jobs, source.n_features)
    _check(source, k, n_bootstraps, alpha, sample_fraction, p0, epsilon, limits)
    check_base_selector(source, selector)
    n, K = int(n_bootstraps), source.n_features
    n_draw = max(1, round(sample_fraction * source.n_rows))
    if isinstance(seed, np.random.Generator):  # one draw from the caller's generator roots the bootstrap streams
        seed = int(seed.integers(2**63))
    root = np.random.SeedSequence(seed)  # seed=None draws fresh entropy; the result records it for a rerun
    seeds = root.spawn(n)
    estimate, folds = check_estimate(estimate, folds)
    if in_engine(source):  # rows in an engine: Poisson bootstraps counted there
        blocks, cancelled = partitioned_bootstraps(source, selector, int(k), seeds, sample_fraction=sample_fraction,
                                                   progress=progress, counting=counting, estimate=estimate,
                                                   selector_params=selector_params, folds=folds)
    else:
        if estimate == "cross-fitted":
            if callable(selector):
                raise ParameterError("estimate='cross-fitted' applies to a named selector; a callable chooses its own")
            require_sample(source)
            assert source.y is not None  # a sample
            selector_params = {**selector_params, "estimate": estimate,
                               "folds": assign_folds(source.y, folds, DEFAULT_SEED,
                                                     getattr(source, "class_names", None),
                                                     stratified=source.task != "regression")[0]}
        weighted = counting != "resample" and supports(source, selector, selector_params)
        if counting == "weights" and not weighted:
            raise ParameterError(
                "counting='weights' covers the selectors mi-score, jmi, mrmr and cmim (no extra parameters) on a class "
                "target; use counting='resample' or 'auto'")
        workers = joblib.effective_n_jobs(n_jobs)
        size = batch_size or max(1, math.ceil(n / (8 * workers)))
        if not weighted and workers == 1 and not batch_size:
            size = 1  # one bootstrap per task: progress after each
        if weighted and not batch_size:  # a product of 64 bootstraps costs ~3x less per bootstrap than one of 8
            size = min(64, math.ceil(n / workers))
        work = Shared(engine(source) if weighted else source)  # built once, shared by the tasks
        batches = [seeds[i:i + size] for i in range(0, n, size)]
        if prefer == "auto":  # the weighted path spends its time in BLAS and numpy loops, which release the GIL
            prefer = "processes" if source.n_rows * K >= AUTO_PROCESSES_CELLS and not weighted else "threads"
        parallel = joblib.Parallel(n_jobs=n_jobs, prefer=prefer, return_as="generator")
        # One BLAS thread per worker: several BLAS threads per product gain little on these products and, on a busy
        # machine, spin (measured: 100 bootstraps of Adult 2 s with one BLAS thread, 17-25 s with two, load 7).
        with threadpool_limits(1, user_api="blas") if weighted else contextlib.nullcontext():
            blocks, cancelled = _collect(parallel, work, batches, n_draw, int(k), selector, selector_params, progress,
                                         n)
    if not blocks:
        raise NPFSCancelled("NPFS was cancelled before any bootstrap finished")
    codes = np.concatenate(blocks, axis=0).T
    sizes = (codes != 0).sum(axis=0)   # every pick, counted or not: the selector's set size
    if p0 is None:
        if np.any(sizes != int(k)):
            raise ParameterError(
                f"the selector returned sets of {int(sizes.min())}..{int(sizes.max())} features, not k={k}; "
                "give p0 explicitly (for example the mean set size divided by K)"
            )
        p0 = int(k) / K
    # tied picks and picks of a column with one value on all rows count for no feature (split_picks)
    X = getattr(source, "X", None)
    constant = np.ptp(X, axis=0) == 0 if isinstance(X, np.ndarray) and X.ndim == 2 and X.shape[0] else None
    reports_ties = codes.dtype != bool or constant is not None
    matrix, tied = split_picks(codes, constant)
    return NPFSResult.from_matrix(
        matrix, tied_picks=tied if reports_ties else None, p0=float(p0), alpha=float(alpha),
        epsilon=float(epsilon), k=int(k),
        feature_names=tuple(source.feature_names), selector=selector if isinstance(selector, str) else
        getattr(selector, "__name__", "custom"), seed=root.entropy, sample_fraction=float(sample_fraction),
        n_requested=n, cancelled=cancelled, rule=rule,
        selector_params={key: v for key, v in selector_params.items() if not isinstance(v, np.ndarray)},
    )


__all__ = ["CLASS_SELECTORS", "RULES", "NPFSCancelled", "NPFSResult", "check_base_selector", "hoeffding_bound",
           "hoeffding_n", "min_bootstraps", "npfs", "npfs_p_values", "npfs_threshold"]
