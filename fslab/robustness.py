"""Does a pick hold up? Held-out value against in-sample, selection across folds, NPFS and binnings.

Checks of one selection (same selector, measure and k) that the in-sample criterion cannot give:

- **Held out** (:func:`holdout_check`): the in-sample (plug-in) and the held-out (cross-fitted) value of every
  prefix J_t of the selection, beside the held-out value of no feature at all (the class prior): a pick whose
  in-sample gain mostly vanishes on held-out rows fits this sample, not the problem. And **selection across
  folds** (Weka's cross-validation mode of attribute selection): the selector rerun on each training fold (all
  rows but one fold) and how often each chosen feature comes back: in memory, and on a SQL engine from the same
  folds (``SqlSource.training_folds``); a source that cannot rerun (Dask) says so in the verdict.

- **NPFS** (Ditzler et al. 2015, Section III-B): rerun the selector on n bootstrap resamples; feature j's count
  z_j is Binomial(n, p0 = k/K) if it were picked by chance, and it is *relevant* when z_j exceeds the critical value
  zeta of equation (3), P(Z > zeta | H0) <= alpha. The frequency z_j / n is shown beside the test's verdict.
- **Binning** (:mod:`fslab.binning`): rerun the selector after each of seven discretisations of the raw table
  (mean +- one standard deviation, quantile and equal-width with 3, 5 and 10 bins) and count the binnings whose
  selection contains the feature.

:func:`robustness_table` composes results computed elsewhere (the app caches them); :func:`pick_robustness` runs
both for library users.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np
import pandas as pd

from .binning import DEFAULT_BINNINGS, BinningResult, binning_sensitivity
from .counting.folds import TooFewRowsError, assign_folds
from .data.sparse import SparseDataset
from .errors import ParameterError
from .measures import DEFAULT_FOLDS
from .measures import measure as get_measure
from .measures.cross_fit import CrossFittedEvaluator, require_sample, usable_folds
from .npfs import npfs
from .selectors import SELECTORS, select
from .tables import CodedSource, as_source

if TYPE_CHECKING:
    from .npfs import NPFSResult

COLUMNS = ("feature", "NPFS frequency", "relevant (NPFS test)", "picked under binnings")


def robustness_table(names: Sequence[str], npfs_result: NPFSResult | None = None,
                     binnings: BinningResult | None = None) -> pd.DataFrame:
    """One row per chosen feature (in the order given): its NPFS frequency z_j / n, whether equation (3) declares it
    relevant, and "b of B" binnings whose selection contains it. A check not run (None), or a feature it does not
    know (e.g. a column left out of the raw table), gives an empty cell."""
    names = [str(n) for n in names]
    table = pd.DataFrame({"feature": names})
    freq = pd.Series([np.nan] * len(names), dtype=float)
    relevant = pd.Series([pd.NA] * len(names), dtype="boolean")
    if npfs_result is not None:
        index = {str(n): j for j, n in enumerate(npfs_result.feature_names)}
        mask = npfs_result.relevant_mask
        for i, name in enumerate(names):
            if name in index:
                freq[i] = npfs_result.counts[index[name]] / npfs_result.n_bootstraps
                relevant[i] = bool(mask[index[name]])
    table["NPFS frequency"] = freq.to_numpy()
    table["relevant (NPFS test)"] = relevant.to_numpy()
    picked = pd.Series([None] * len(names), dtype=object)
    if binnings is not None:
        total = len(binnings.selections)
        index = {str(n): j for j, n in enumerate(binnings.feature_names)}
        chosen = [set(s) for s in binnings.selections.values()]
        for i, name in enumerate(names):
            if name in index:
                picked[i] = f"{sum(index[name] in s for s in chosen)} of {total}"
    table["picked under binnings"] = picked.to_numpy()
    return table


def pick_robustness(encoded, names: Sequence[str], selector: str, k: int, measure: str = "zero-one", *,
                    raw=None, n_bootstraps: int = 50, alpha: float = 0.01, seed: int = 0,
                    binnings: Sequence[tuple[str, int]] = DEFAULT_BINNINGS, **params) -> pd.DataFrame:
    """:func:`robustness_table` of the chosen features ``names`` after running NPFS (``n_bootstraps`` resamples of
    ``selector`` with ``k`` and ``measure`` on ``encoded``) and, when the raw Dataset ``raw`` is given, binning
    sensitivity of the same selection."""
    extra = {"measure": measure, **params} if SELECTORS[selector].uses_measure else {}
    result = npfs(encoded, selector, k, n_bootstraps=n_bootstraps, alpha=alpha, seed=seed, **extra)
    bins = None if raw is None else binning_sensitivity(raw, k, selector, measure, binnings, **params)
    return robustness_table(names, result, bins)


# Verdict thresholds of :func:`holdout_check` (the share of the in-sample gain over the prior kept held out, and the
# share of training folds whose selection contains a chosen feature).
KEPT_RED, KEPT_AMBER = 0.5, 0.8
STABLE_SHARE = 0.6


@dataclass(frozen=True, eq=False)
class HoldoutCheck:
    """In-sample against held-out values of a selection, and its selection across folds, with a verdict.

    ``steps``: one row per prefix J_t (step, feature, in-sample, held-out, gap = in-sample minus held-out in the
    direction of "better", held-out gain of the step); ``prior``: the held-out value of no feature (the training
    folds' class prior), ``prior_in``: its in-sample value; ``frequency``: for each chosen feature, the share of the
    ``folds`` training folds whose selection (same selector, measure, k and estimate) contains it; ``level``: "green",
    "amber" or "red"; ``reasons``: plain sentences saying why.
    """

    steps: pd.DataFrame
    prior: float
    prior_in: float
    frequency: pd.Series
    measure: str
    greater_is_better: bool
    folds: int
    seed: int
    level: str
    reasons: tuple[str, ...]

    @property
    def has_baseline(self) -> bool:
        """Whether "no feature" has a finite value in-sample and held out (the gain over it is then a number)."""
        return bool(np.isfinite(self.prior) and np.isfinite(self.prior_in))

    @property
    def kept(self) -> float:
        """Share of the in-sample gain over no feature that survives on held-out rows (1: all of it, <= 0: none);
        NaN when the measure has no finite value for no feature (precision / recall's conjunction rule: -inf)."""
        if not self.has_baseline:
            return float("nan")
        sign = 1.0 if self.greater_is_better else -1.0
        gain_in = sign * (self.steps["in-sample"].iloc[-1] - self.prior_in)
        gain_out = sign * (self.steps["held-out"].iloc[-1] - self.prior)
        return float(gain_out / gain_in) if gain_in > 1e-12 else (1.0 if gain_out >= -1e-12 else 0.0)


class NotRerunError(ParameterError):
    """The source cannot rerun a selection on its training folds."""


def training_sources(source, n_folds: int = DEFAULT_FOLDS, split_seed: int = 0) -> Iterator:
    """Each training fold's rows (all rows but one stratified fold, :func:`fslab.counting.folds.assign_folds`'s folds
    over the safe number of folds) as a source, one at a time: in memory the rows ``fold != f``; on an engine that
    offers ``training_folds(F, seed)`` (a SQL source) the same rows counted there. A :class:`NotRerunError` for a
    source that offers neither (Dask, an exact law)."""
    src = as_source(source)
    if isinstance(src, CodedSource | SparseDataset) and src.is_sample:
        assert src.y is not None  # a sample
        fold, used, _ = assign_folds(src.y, n_folds, split_seed, stratified=src.task != "regression")
        return (src.subsample(np.flatnonzero(fold != f)) for f in range(used))
    trainer = getattr(src, "training_folds", None)
    if callable(trainer) and src.is_sample:
        used, _ = usable_folds(src, n_folds, split_seed)   # the same safe F, from the engine's class counts
        return iter(trainer(used, split_seed))
    raise NotRerunError(f"a {type(src).__name__} cannot rerun the selector on its training folds (in memory and on "
                        "SQL engines it can)")


def cv_selections(source, selector: str, k: int, n_folds: int = DEFAULT_FOLDS, split_seed: int = 0,
                  **params) -> np.ndarray:
    """(folds x features) bools: feature j picked by ``select(training rows, k, selector, **params)`` on training
    fold f (all rows but one stratified fold, split by ``split_seed``; Weka's cross-validation attribute selection;
    ``params`` may ask for a cross-fitted estimate inside each training fold). The same on a SQL source, whose
    training folds are counted in the engine (:func:`training_sources`)."""
    src = as_source(source)
    require_sample(src, "selection across folds")
    hits = []
    for train in training_sources(src, n_folds, split_seed):
        try:
            picked = list(select(train, k, selector, **params).features)
        finally:   # an engine's training fold drops the tables it stored
            if callable(getattr(train, "close", None)):
                train.close()
        hits.append(np.isin(np.arange(src.n_features), picked))
    return np.array(hits, dtype=bool)


def cv_frequency(source, selector: str, k: int, n_folds: int = DEFAULT_FOLDS, split_seed: int = 0,
                 **params) -> np.ndarray:
    """For every feature, the share of the training folds whose selection picks it (:func:`cv_selections`)."""
    return cv_selections(source, selector, k, n_folds, split_seed, **params).mean(axis=0)


def replacements(hits: np.ndarray, chosen: Sequence[int], names: Sequence[str]) -> dict[str, str]:
    """For each chosen feature missing from some training folds' selections, a sentence naming the feature those
    folds picked instead most often (outside the full-data selection): "tenure was picked on 3 of 5 folds;
    signup_date took its place on the other 2". ``hits``: :func:`cv_selections`' matrix."""
    chosen = [int(j) for j in chosen]
    outside = np.ones(hits.shape[1], dtype=bool)
    outside[chosen] = False
    out = {}
    for j in chosen:
        missing = ~hits[:, j]
        if not missing.any():
            continue
        per = (hits[missing] & outside).sum(axis=0)   # the other folds' picks outside the selection
        text = f"{names[j]} was picked on {int((~missing).sum())} of {hits.shape[0]} folds"
        if per.max() > 0:
            r, other = int(np.argmax(per)), int(missing.sum())
            where = f"the other {other}" if per[r] == other else f"{int(per[r])} of the other {other}"
            text += f"; {names[r]} took its place on {where}"
        out[names[j]] = text
    return out


def holdout_check(source, selection, folds: int = DEFAULT_FOLDS, seed: int = 0,
                  frequency: bool | str = True) -> HoldoutCheck:
    """The held-out check of ``selection`` (a :class:`~fslab.selectors.Selection` made on ``source``).

    Values are the selection's measure for selectors that use one (the MI family and the Fisher score: I(X_J; Y)
    in bits), in-sample (plug-in) and held out (cross-fitted over ``folds`` stratified folds split by ``seed``).
    The verdict is red when held out the chosen features do no better than no feature at all, or keep less than
    half of their in-sample gain over it; amber when they keep less than 80 %, when a step adds nothing held out, or
    when a chosen feature comes back on fewer than 60 % of the training folds (``frequency=False`` skips that rerun;
    a text instead of False skips it and says why: "Selection across folds not run: <text>."),
    naming the feature those folds picked in its place. The reasons end with one next step (``NEXT_STEP``), after
    a plain reading of a held-out MI below zero (``NEGATIVE_MI``) when one shows.
    """
    src = as_source(source)
    require_sample(src, "the held-out check")
    spec = SELECTORS[selection.selector]
    params = {key: v for key, v in selection.params.items() if key != "max_subsets"}
    name = selection.measure if spec.uses_measure else "mi"
    m = get_measure(name, **(params if spec.uses_measure else {}))
    inside, outside = m.on(src), m.on(src, estimate="cross-fitted", folds=folds, seed=seed)
    feats = list(selection.features)
    if spec.kind not in ("forward", "ranking"):   # a set: one row for the whole subset
        prefixes = [feats]
    else:
        prefixes = [feats[:t] for t in range(1, len(feats) + 1)]
    ins = np.array([inside.value(p) for p in prefixes])
    outs = np.array([outside.value(p) for p in prefixes])
    prior_in, prior = inside.value([]), outside.value([])
    sign = 1.0 if m.greater_is_better else -1.0
    gains = sign * np.diff(np.concatenate([[prior], outs]))
    if not (np.isfinite(prior) and np.isfinite(prior_in)):   # no value for no feature: step 1 gains nothing defined
        gains[0] = np.nan
    names = [selection.names[len(p) - 1] if len(prefixes) > 1 else ", ".join(selection.names) for p in prefixes]
    steps = pd.DataFrame({"step": np.arange(1, len(prefixes) + 1), "feature": names, "in-sample": ins,
                          "held-out": outs, "gap": sign * (ins - outs), "held-out gain": gains})
    freq = pd.Series(dtype=float)
    swaps: dict[str, str] = {}
    skipped: tuple[str, ...] = ()
    if isinstance(frequency, str):   # the caller's reason for not rerunning, said rather than dropped
        skipped = (f"Selection across folds not run: {frequency}.",)
    elif frequency:   # reruns on training rows: in memory, or counted in a SQL engine
        extra = {"measure": selection.measure, **params} if spec.uses_measure else {}
        if selection.s is not None:
            extra["s"] = selection.s
        if selection.estimate == "cross-fitted":   # the same estimate, nested inside each training fold
            extra |= {"estimate": "cross-fitted", "folds": selection.folds, "seed": selection.split_seed or 0}
        try:
            hits = cv_selections(src, selection.selector, selection.k, folds, seed, **extra)
            freq = pd.Series(hits.mean(axis=0)[feats], index=list(selection.names), name="share of training folds")
            swaps = replacements(hits, feats, src.feature_names)
        except TooFewRowsError as err:   # a training fold too small to hold out inside it
            skipped = (f"Selection across folds not run: inside a training fold, {err.reason}.",)
        except NotRerunError as err:   # said, never dropped: the verdict did not check the picks across folds
            skipped = (f"Selection across folds not run: {err}.",)
    used = cast(CrossFittedEvaluator, outside).n_folds   # fewer than ``folds`` on a small class (fold_count)
    check = HoldoutCheck(steps, float(prior), float(prior_in), freq, m.label, m.greater_is_better, used, seed,
                         "green", ())
    level, reasons = _verdict(check, spec.kind in ("forward", "ranking"), swaps)
    negative = name == "mi" and bool(np.any(outs < -1e-12))
    words = (NEGATIVE_MI,) if negative else ()
    return HoldoutCheck(steps, float(prior), float(prior_in), freq, m.label, m.greater_is_better, used, seed,
                        level, reasons + skipped + words + (NEXT_STEP[level],))


NEGATIVE_MI = ("A held-out mutual information below zero: the held-out rows disagree with the training rows; no "
               "evidence of information.")
# every verdict ends with one next step, in plain words
NEXT_STEP = {
    "red": "Next step: keep only the steps with a held-out gain (or fewer features), or get more rows.",
    "amber": "Next step: keep the features up to the last step that improves the held-out value, and treat the "
             "ones that come and go across folds as interchangeable.",
    "green": "Next step: use these features; check the alerts for columns known only after the outcome.",
}


def _verdict(check: HoldoutCheck, stepwise: bool, swaps: dict[str, str] | None = None) -> tuple[str, tuple[str, ...]]:
    kept = check.kept
    red, amber = [], []
    sign = 1.0 if check.greater_is_better else -1.0
    last_in, last_out = check.steps["in-sample"].iloc[-1], check.steps["held-out"].iloc[-1]
    if not check.has_baseline:   # precision / recall's conjunction rule: no value for no feature, no share of gain
        pass
    elif sign * (last_out - check.prior) <= 1e-12:
        red.append(f"On held-out rows the chosen features predict no better than no feature at all ({check.measure} "
                   f"{check.steps['held-out'].iloc[-1]:.4g} held out vs {check.prior:.4g} for the class prior): the "
                   "in-sample value fits this sample, not the problem.")
    elif kept < KEPT_RED:
        red.append(f"Overfitting: only {kept:.0%} of the in-sample gain over no feature survives on held-out rows.")
    elif kept < KEPT_AMBER:
        amber.append(f"{kept:.0%} of the in-sample gain over no feature survives on held-out rows.")
    if stepwise and not red:
        idle = [f for f, g in zip(check.steps["feature"], check.steps["held-out gain"], strict=True)
                if g <= 1e-12]   # NaN (step 1 without a baseline) is not idle
        if idle:
            amber.append(f"Adding {', '.join(idle)} does not improve the held-out value.")
    unstable = [str(f) for f, share in check.frequency.items() if share < STABLE_SHARE]
    if unstable:
        amber.append(f"Picked on fewer than {STABLE_SHARE:.0%} of the {check.folds} training folds: "
                     f"{', '.join(unstable)}.")
        amber += [f"{swaps[f]}." for f in unstable if swaps and f in swaps]
    if not check.has_baseline:
        said = (f"{check.measure[:1].upper()}{check.measure[1:]} has no value for no feature (the rule needs one), "
                f"so no share of gain is measured: the chosen features score {last_out:.4g} held out against "
                f"{last_in:.4g} in-sample.")
        if red or amber:
            return ("red" if red else "amber"), tuple(red + amber) + (said,)
        return "green", (said + (f" Every chosen feature comes back on at least {STABLE_SHARE:.0%} of the training "
                                 "folds." if len(check.frequency) else ""),)
    if red:
        return "red", tuple(red + amber)
    if amber:
        return "amber", tuple(amber)
    return "green", (f"Held out, the pick keeps {kept:.0%} of its in-sample gain and every chosen feature comes back "
                     f"on at least {STABLE_SHARE:.0%} of the training folds." if len(check.frequency) else
                     f"Held out, the pick keeps {kept:.0%} of its in-sample gain.",)


__all__ = ["COLUMNS", "NEGATIVE_MI", "NEXT_STEP", "HoldoutCheck", "NotRerunError", "cv_frequency", "cv_selections",
           "holdout_check", "pick_robustness", "replacements", "robustness_table", "training_sources"]
