"""Learning curves: the test measure of a learner on the first k selected features, for each selector.

The protocol of Ahmed et al., Section 4: random train/test splits (5 in the paper; 70/30, Adult
20/80), selection and learning on the training part only, the measure on the test part, averaged
over splits (Figures 1-4). Hyper-parameters are tuned on a held-out 20% of the training part when
``tune=True``, fixed defaults otherwise.

Selection per split is computed once at ``k_max`` and truncated to each k for greedy and ranking
selectors (forward greedy and top-k ranking are prefix-consistent: their k-subset is the first k of
the k_max run). Exhaustive and backward search are rerun for every k. Subsets two selectors share are
fitted once per split.

Selection on each training part uses ``estimate``: the papers' in-sample plug-in criterion (the default), or
the cross-fitted one (``"cross-fitted"``: stratified folds of the TRAINING rows only, seeded), with which a
many-level column that merely fits the training rows cannot be picked. The test rows never enter the
selection either way.

Selection uses the codes of the encoded dataset as given, so real columns keep the bin edges computed
on all rows (as the paper's pre-discretised data sets); learners see raw values. For binning fitted
on the training rows only, put :class:`fslab.evaluate.FeatureSelector` in a scikit-learn Pipeline.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import cast

import joblib
import numpy as np
import pandas as pd

from .data.dataset import Dataset
from .data.encoded import EncodedDataset
from .errors import DataError, ParameterError, TooLargeError
from .learners import EVAL_MEASURES, empirical_value, paper_learner
from .learners import learner as get_learner
from .limits import Limits, limits_or_server, over_limit
from .measures import DEFAULT_C, DEFAULT_FOLDS, MEASURES, PARAM_DEFAULTS, check_estimate, describe_estimate
from .npfs.procedure import close_early
from .selectors import SELECTORS, select

Progress = Callable[[int, int, str], bool | None]
# the measure records' defaults (c: DEFAULT_C = 0.25, Ahmed et al. Sec. 4.1)
DEFAULT_BETA = cast(float, PARAM_DEFAULTS["beta"])
DEFAULT_CURVE_SELECTORS = ("bayes-greedy", "mi-greedy", "mrmr", "fisher")


@dataclass(frozen=True, eq=False)
class CurveResult:
    """``scores``: one row per (split, selector, k) with the test ``value``; ``selections``: the features
    each selector chose on each split (step, feature, name). ``complete`` is False when progress stopped it."""

    scores: pd.DataFrame
    selections: pd.DataFrame
    measure: str
    learner: str
    greater_is_better: bool
    complete: bool
    seconds: float
    estimate: str = "plug-in"  # the criterion every selection on a training part used
    folds: int = DEFAULT_FOLDS

    @property
    def estimate_label(self) -> str:
        """The selections' estimate in words (:func:`fslab.measures.describe_estimate`)."""
        return describe_estimate(self.estimate, self.folds)

    def summary(self) -> pd.DataFrame:
        """Mean, standard deviation (ddof=1; 0 for one split) and number of splits per (selector, k)."""
        g = self.scores.groupby(["selector", "k"], sort=False)["value"]
        out = g.agg(mean="mean", std="std", splits="count").reset_index()
        out["std"] = out["std"].fillna(0.0)
        return out


def design_blocks(data: EncodedDataset) -> list[np.ndarray]:
    """Learner input of each feature: its raw value when numeric and complete, its code when binary,
    else a one-hot block of its codes (an SVM should not read category codes as magnitudes)."""
    blocks = []
    for j in range(data.n_features):
        raw = None if data.values is None else data.values[:, j]
        if raw is not None and np.all(np.isfinite(raw)):
            blocks.append(raw[:, None].astype(np.float64))
        elif data.arities[j] <= 2:
            blocks.append(data.X[:, j:j + 1].astype(np.float64))
        else:
            blocks.append(np.eye(int(data.arities[j]))[data.X[:, j]])
    return blocks


def _split(y: np.ndarray, train_size: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rows = np.arange(y.size)
    counts = np.bincount(y)
    n_classes, n_train = np.count_nonzero(counts), int(np.floor(train_size * y.size))
    # stratify when every class can go both ways (scikit-learn refuses a part smaller than the class count)
    ok = counts[counts > 0].min() >= 2 and n_classes <= n_train <= y.size - n_classes
    stratify = y if ok else None
    from sklearn.model_selection import train_test_split  # on use: scikit-learn takes 0.5-2 s to import

    return train_test_split(rows, train_size=train_size, random_state=seed, stratify=stratify)


MIN_TRAIN_ROWS = 2  # rows of every class each training part must hold (a classifier needs two classes)
TUNE_FIT = 0.8  # tuning fits on 80% of the training part and scores the other 20%


def check_class_rows(y: np.ndarray, class_names, train_size: float, tune: bool) -> None:
    """Refuse splits whose training parts cannot hold MIN_TRAIN_ROWS rows of every class.

    A stratified split gives class c about n_c * train_size training rows (n_c * train_size * 0.8 when tuning
    fits on 80% of them), so n_c must be at least ceil(MIN_TRAIN_ROWS / fraction); a class with one row
    cannot be stratified at all. Without this check scikit-learn fails mid-run ("got 1 class").
    """
    counts = np.bincount(y)
    present = np.flatnonzero(counts)
    if present.size < 2:
        name = class_names[present[0]] if present.size else "none"
        raise DataError(f"the target has a single class ({name!r}) in these rows; learning curves need two classes")
    fraction = train_size * (TUNE_FIT if tune else 1.0)
    need = max(int(np.ceil(MIN_TRAIN_ROWS / fraction - 1e-9)), 2)
    short = [c for c in present if counts[c] < need]
    if short:
        c = min(short, key=lambda c: counts[c])
        split = f"{round(100 * train_size)}/{round(100 * (1 - train_size))}"
        raise DataError(
            f"too few rows of class {class_names[c]!r} for {split} train/test splits"
            f"{' with tuning' if tune else ''}: it has {counts[c]} row(s), need at least {need} so that every "
            f"training part holds {MIN_TRAIN_ROWS}. Use more rows (a larger subsample or dataset) or a larger "
            "training fraction."
        )


def _fit_predict(spec, params: dict, Xtr, ytr, Xte, arities, hyper: dict):
    if np.unique(ytr).size < 2:  # backstop for a split that still lost a class to rounding
        raise DataError(f"a training part of {ytr.size} rows holds a single class; use more rows or a larger "
                        "training fraction")
    est = spec.build(c=params["c"], beta=params["beta"], p=params["p"], **hyper)  # the learners' cost / weight
    if spec.input == "codes":
        est.set_params(min_categories=arities)
    est.fit(Xtr, ytr)
    pred = est.predict(Xte)
    if hasattr(est, "predict_proba"):  # False for an SVC without probability=True (available_if)
        proba = est.predict_proba(Xte)
    elif hasattr(est, "decision_function"):
        s = est.decision_function(Xte)
        proba = np.c_[-s, s] if s.ndim == 1 else None  # a score for the AUC, not a probability
    else:
        proba = None
    return pred, proba


def _evaluate(spec, measure, params, Xtr, ytr, Xte, yte, arities, tune: bool, seed: int) -> float:
    """Test measure of the learner fitted on (Xtr, ytr); hyper-parameters chosen on a held-out 20% if tune."""
    hyper = {}
    if tune and len(spec.grid) > 1:
        fit_rows, held = _split(ytr, 0.8, seed)
        sign = 1.0 if EVAL_MEASURES[measure] else -1.0
        best = -np.inf
        for h in spec.grid:
            pred, proba = _fit_predict(spec, params, Xtr[fit_rows], ytr[fit_rows], Xtr[held], arities, dict(h))
            v = sign * empirical_value(measure, ytr[held], pred, proba, **params_for(measure, params))
            if v > best:  # strict: the first grid point wins ties
                best, hyper = v, dict(h)
    pred, proba = _fit_predict(spec, params, Xtr, ytr, Xte, arities, hyper)
    return empirical_value(measure, yte, pred, proba, **params_for(measure, params))


class _Stopped(Exception):
    """The progress callback returned False."""


def _selections(train_data: EncodedDataset, name: str, ks: list[int], measure: str, params: dict,
                how: dict | None = None) -> dict:
    """Features of each k in ``ks`` chosen by ``name`` on the training part (with ``how``: estimate, folds, seed):
    one run at max(ks), truncated, for prefix-consistent selectors; one run per k for exhaustive and backward
    search."""
    spec = SELECTORS.get(name)
    # selectors with their own criterion (MI, mRMR, Fisher) take no measure parameters
    kwargs = (params_for(measure, params) if spec is None or spec.uses_measure else {}) | (how or {})
    if spec is not None and not spec.returns_path:  # rerun per k: its k-subset is not the k_max one's prefix
        return {k: list(select(train_data, k, selector=name, measure=measure, **kwargs).features) for k in ks}
    order = list(select(train_data, ks[-1], selector=name, measure=measure, **kwargs).features)
    return {k: order[:k] for k in ks}


def params_for(measure: str, params: dict) -> dict:
    """The parameters ``measure`` takes (its record's ``parameters``: c for cost-sensitive, beta for f-beta) out
    of ``params``."""
    spec = MEASURES.get(measure)
    return {name: params[name] for name in (spec.parameters if spec is not None else ()) if name in params}


def count_fits(n_splits: int, n_selectors: int, n_ks: int, grid_size: int = 1) -> int:
    """Learner fits of one run: one per (split, selector, k), plus one per grid point when tuning."""
    per_point = 1 + grid_size if grid_size > 1 else 1
    return n_splits * n_selectors * n_ks * per_point


def _in_process(n_jobs: int | None) -> bool:
    """True when the splits should run here, one after another: one job and no cluster backend configured."""
    backend, _ = joblib.parallel.get_active_backend()
    return joblib.effective_n_jobs(n_jobs) == 1 and "dask" not in type(backend).__name__.lower()


def _run_split(data, blocks, spec, selectors, ks, measure, measure_params, train_size, tune, how, split: int,
               split_seed: int, tick: Callable[[str], None] | None, score_rows: list | None = None,
               selection_rows: list | None = None) -> tuple[list, list]:
    """Score rows (split, selector, k, value) and selection rows of one train/test split, appended to the lists
    given (so that rows finished before a stop are kept) or to new ones."""
    tick = tick or (lambda message: None)
    score_rows = [] if score_rows is None else score_rows
    selection_rows = [] if selection_rows is None else selection_rows
    train, test = _split(data.y, train_size, split_seed)
    train_data = data.subsample(train)
    # the learners' class shares: p = P(Y=1) for two classes, every class's share for more (svm-balanced weighs 1/p_y)
    shares = np.bincount(train_data.y, minlength=len(data.labels)) / max(len(train_data.y), 1)
    params = {**measure_params, "p": float(shares[1]) if len(shares) == 2 else shares}
    fitted: dict[frozenset, float] = {}  # learners ignore column order: shared subsets are fitted once
    for name in selectors:
        per_k = _selections(train_data, name, ks, measure, params, how)
        order = per_k[ks[-1]]
        selection_rows += [(split, name, step + 1, j, data.feature_names[j]) for step, j in enumerate(order)]
        tick(f"split {split + 1}: selected with {name}")
        for k in ks:
            key = frozenset(per_k[k])
            if key not in fitted:
                feats = per_k[k]
                if spec.input == "codes":
                    X, arities = data.X[:, feats], data.arities[feats]
                else:
                    X, arities = np.hstack([blocks[j] for j in feats]), None
                fitted[key] = _evaluate(spec, measure, params, X[train], data.y[train], X[test], data.y[test],
                                        arities, tune, split_seed)
            score_rows.append((split, name, k, fitted[key]))
            tick(f"split {split + 1}: {name}, k = {k}")
    return score_rows, selection_rows


def learning_curves(data, selectors: Sequence[str] = DEFAULT_CURVE_SELECTORS, measure: str = "zero-one",
                    k_max: int = 10, *, ks: Sequence[int] | None = None, c: float = DEFAULT_C,
                    beta: float = DEFAULT_BETA, measure_params: Mapping[str, object] | None = None,
                    learner: str | None = None, n_splits: int = 5,
                    train_size: float = 0.7, tune: bool = False,
                    subsample: int | None = None, seed: int = 0, progress: Progress | None = None,
                    limits: Limits | None = None, n_jobs: int | None = 1, estimate: str = "plug-in",
                    folds: int = DEFAULT_FOLDS) -> CurveResult:
    """Test ``measure`` vs number of selected features for each selector, over ``n_splits`` random splits.

    ``data``: an encoded dataset (or a Dataset, discretised with its defaults). ``c`` and ``beta`` (the paper's
    cost-sensitive and F-beta learners use them too) and ``measure_params`` (any other measure's parameters, from
    its record; they win over ``c`` and ``beta``) reach the selectors and the test-sample scorer of ``measure``.
    ``learner`` defaults to the paper's learner for the measure (:func:`fslab.learners.paper_learner`).
    ``estimate`` (``"plug-in"``, the papers', or ``"cross-fitted"``) is the criterion each selection on a training
    part uses; held out, ``folds`` stratified folds of the training rows with seed 0 (``select``'s default), so
    a training part's folds depend only on its rows and their classes.
    ``subsample`` draws that many rows (stratified, seeded) before splitting. The learner fits
    (:func:`count_fits`) are at most ``limits.max_curve_fits`` (None: the server's limits).
    ``progress(done, total, message)`` is called after every unit of work; returning False
    stops early and the result has ``complete=False``.

    ``n_jobs``: splits run as joblib tasks when it is not 1, or under a Dask backend
    (``with joblib.parallel_config(backend="dask"): learning_curves(...)``); progress then comes after each
    split. Each split's seed is drawn up front, so the result is the same however many workers run it.
    """
    if isinstance(data, Dataset):
        data = data.discretize()
    if not isinstance(data, EncodedDataset):
        raise ParameterError("learning curves need a data sample (a dataset); sample a distribution first")
    if measure not in EVAL_MEASURES:
        raise ParameterError(f"learning curves support the measures {', '.join(EVAL_MEASURES)}; got '{measure}'")
    spec = get_learner(learner or paper_learner(measure))
    if not 0 < train_size < 1:
        raise ParameterError(f"train_size must lie strictly between 0 and 1; got {train_size}")
    if int(n_splits) < 1:
        raise ParameterError(f"n_splits must be at least 1; got {n_splits}")
    estimate, folds = check_estimate(estimate, folds)
    if not isinstance(folds, int):
        raise ParameterError("learning curves take a number of folds (each training part is split anew)")
    k_max = min(int(k_max), data.n_features)
    ks = sorted({int(k) for k in (ks if ks is not None else range(1, k_max + 1)) if 1 <= int(k) <= k_max})
    if not ks or not selectors:
        raise ParameterError("choose at least one selector and one k between 1 and the number of features")
    fits = count_fits(int(n_splits), len(selectors), len(ks), len(spec.grid) if tune else 1)
    limits = limits_or_server(limits)
    if fits > limits.max_curve_fits:
        raise TooLargeError(over_limit(
            "max_curve_fits", f"{int(n_splits)} splits x {len(selectors)} selectors x {len(ks)} values of k"
            + (f" x {len(spec.grid) + 1} fits per tuned point" if tune and len(spec.grid) > 1 else "")
            + f" = {fits:,} learner fits", limits) + "; use fewer splits, selectors or values of k")
    rng = np.random.default_rng(seed)
    if subsample is not None and int(subsample) < 2:
        raise ParameterError(f"subsample must be at least 2 rows (or None for every row); got {subsample}")
    if subsample is not None and int(subsample) < data.n_rows:
        rows, _ = _split(data.y, int(subsample) / data.n_rows, int(rng.integers(2**31)))
        data = data.subsample(np.sort(rows))
    check_class_rows(data.y, data.class_names, train_size, tune)
    blocks = design_blocks(data)
    per_split = len(selectors) * (1 + len(ks))
    total = int(n_splits) * per_split
    split_seeds = [int(rng.integers(2**31)) for _ in range(int(n_splits))]  # the same seeds however it runs
    measure_params = {**PARAM_DEFAULTS, "c": c, "beta": beta, **(measure_params or {})}
    how = {"estimate": estimate, "folds": folds} if estimate != "plug-in" else {}
    job = (data, blocks, spec, tuple(selectors), ks, measure, measure_params, train_size, tune, how)
    done, start = 0, time.perf_counter()
    score_rows: list[dict] = []
    selection_rows: list[dict] = []

    def tick(message: str) -> None:
        nonlocal done
        done += 1
        if progress is not None and progress(done, total, message) is False:
            raise _Stopped

    complete = True
    if _in_process(n_jobs):  # one split after another here: progress after every unit of work
        try:
            for split, split_seed in enumerate(split_seeds):
                _run_split(*job, split, split_seed, tick, score_rows, selection_rows)
        except _Stopped:
            complete = False
    else:  # one task per split on joblib's workers (loky, or a Dask cluster under parallel_config)
        results = joblib.Parallel(n_jobs=n_jobs, return_as="generator")(
            joblib.delayed(_run_split)(*job, split, split_seed, None) for split, split_seed in enumerate(split_seeds))
        try:
            for split, (scores, chosen) in enumerate(results):
                score_rows += scores
                selection_rows += chosen
                done += per_split
                if progress is not None and progress(done, total, f"split {split + 1} done") is False:
                    complete = split + 1 == len(split_seeds)
                    break
        finally:
            close_early(results)  # abandons the splits not yet started
    return CurveResult(
        scores=pd.DataFrame(score_rows, columns=["split", "selector", "k", "value"]),
        selections=pd.DataFrame(selection_rows, columns=["split", "selector", "step", "feature", "name"]),
        measure=measure, learner=spec.name, greater_is_better=EVAL_MEASURES[measure], complete=complete,
        seconds=time.perf_counter() - start, estimate=estimate, folds=folds,
    )
