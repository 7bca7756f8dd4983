"""The Select page's "Does this pick hold up?" section: NPFS frequency and binning stability of the chosen features.

The table is :func:`fslab.robustness.robustness_table`; this module only decides when to run and where results live.
NPFS (n = 50 bootstraps of the page's selector, measure and k, seed 0) goes through the NPFS page's server-wide
store (``ui.cache.shared_results``, the same key as ``ui.npfs.run``), so the NPFS page with the same settings
finds it and a class runs it once. Binning sensitivity uses the Compare page's cached ``ui.compare.binnings``.
Both start by themselves only when predicted (``fslab.cost``) under :data:`AUTO_SECONDS`; otherwise on a click,
with the estimate shown first, a progress bar, in a worker process under a heavy-work slot.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from fslab.cost import npfs_cost, over_limit_message, select_cost
from fslab.errors import FslabError
from fslab.measures import ESTIMATES, describe_estimate
from fslab.npfs import check_base_selector, npfs
from fslab.robustness import KEPT_AMBER, KEPT_RED, HoldoutCheck, holdout_check, robustness_table
from fslab.selectors import SELECTORS
from fslab.tables import CodedSource

from . import compare as uc
from . import heavy, theme
from . import npfs as un
from .cache import result_key, shared_results
from .memo import remember, session_memo
from .text import md

N_BOOTSTRAPS = 50
ALPHA = 0.01
SEED = 0
# the cost model over-predicts these small runs (Mushroom, BayesGreedy k = 5: 1.06 s predicted, 0.28 s measured)
AUTO_SECONDS = 1.5
ASKED = "fslab.robustness.asked"
_ASKED_SIZE = 16


def npfs_result(source_name: str, source, selector: str, measure: str | None, params: dict, k: int, progress=None,
                in_worker: bool = False, estimate: str = "plug-in"):
    """NPFS with the section's settings: the shared result if any session ran it, else a run stored there."""
    shared, shared_key = shared_results(), _npfs_key(source_name, source, selector, measure, params, k, estimate)
    found = shared.get(shared_key)
    if found is None:
        extra = {"measure": measure, **params} if measure is not None else {}
        if estimate != "plug-in":
            extra["estimate"] = estimate
        if in_worker:  # identical runs (several tabs on one link) wait for the first one's result
            return heavy.computed_once(shared, shared_key, lambda: heavy.run_in_worker(
                npfs, source, selector, k, n_bootstraps=N_BOOTSTRAPS, alpha=ALPHA, seed=SEED, progress=progress,
                **extra), keep=lambda r: not getattr(r, "cancelled", False))
        found = npfs(source, selector, k, n_bootstraps=N_BOOTSTRAPS, alpha=ALPHA, seed=SEED, **extra)  # small
        shared.put(shared_key, found)
    return found


def _npfs_key(source_name: str, source, selector: str, measure: str | None, params: dict, k: int,
              estimate: str) -> str:
    key = un.run_key(source_name, source, selector, measure, params, k, N_BOOTSTRAPS, ALPHA, SEED, 1.0)
    return result_key("npfs", *key[1:]) if estimate == "plug-in" else result_key("npfs", *key[1:], estimate)


def holdout_result(source, result, frequency: bool) -> HoldoutCheck:
    """:func:`fslab.robustness.holdout_check` of the page's selection, shared server-wide by content."""
    shared = shared_results()
    shared_key = result_key("holdout", uc.token(source), result.selector, result.measure,
                            tuple(sorted(result.params.items())), result.k, result.s, result.estimate,
                            tuple(result.features), frequency)
    found = shared.get(shared_key)
    if found is None:
        found = holdout_check(source, result, frequency=frequency)
        shared.put(shared_key, found)
    return found


_LEVELS = {"green": (st.success, ":material/check_circle:"), "amber": (st.warning, ":material/warning:"),
           "red": (st.error, ":material/error:")}


def _show_verdict(level: str, reasons: list[str]) -> None:
    show, icon = _LEVELS[level]
    head = {"green": "Holds up.", "amber": "Partly holds up.", "red": "Does not hold up."}[level]
    show(md(" ".join([head, *reasons])), icon=icon)


def render_robustness(kind: str, source_name: str, source, selector: str, measure: str, params: dict, k: int,
                      names: list[str], s: int | None = None, result=None) -> None:
    """The section: a sentence, the verdict, the table of the chosen features, a caption with the references."""
    st.subheader("Does this pick hold up?")
    st.markdown("Checks that the criterion on one sample cannot give. **Held out**: the value of the first t chosen "
                "features in-sample and on held-out rows (5-fold cross-fitted), against no feature at all; "
                "**training folds**: the selector rerun on each 4-of-5 folds of the rows, and how often each feature "
                "comes back; **NPFS** reruns the selector on "
                f"{N_BOOTSTRAPS} bootstrap resamples and counts how often each feature is picked; **binning** reruns "
                "it after seven discretisations of the real-valued columns.")
    if kind != "dataset" or not (isinstance(source, CodedSource) and source.is_sample):
        st.caption("An exact distribution has no sampling noise to resample: these checks need a dataset.")
        return
    spec = SELECTORS[selector]
    estimate = "plug-in" if result is None or result.estimate not in ESTIMATES else result.estimate
    holdout = None
    if result is not None and spec.kind != "backward":
        try:
            holdout = holdout_result(source, result, frequency=False)
        except FslabError as err:
            st.caption(md(err))
    if spec.kind in un.SLOW_KINDS or s is not None:
        why = f"{spec.label} reruns the whole search" if spec.kind in un.SLOW_KINDS else "the s-variate search is slow"
        if holdout is not None:
            _render_holdout(holdout, None)
        st.caption(f"Resampling checks not run here: {why} on every resample. Use a greedy selector, or the **NPFS** "
                   "page.")
        return
    if k >= source.n_features:
        st.caption(f"k = {k} keeps every feature: no choice to check (NPFS needs k < K).")
        return
    try:
        check_base_selector(source, selector)
    except FslabError as err:
        st.caption(md(err))
        return
    measure_used = measure if spec.uses_measure else None
    params_used = params if spec.uses_measure else {}
    raw = uc.raw_dataset(source_name)
    cost = npfs_cost(source, selector, k, N_BOOTSTRAPS, 1.0, measure_used or "zero-one")
    cost = cost + select_cost(source, k, selector, measure_used or "zero-one", None).times(5, "5 training folds")
    if raw is not None:
        cost = cost + uc.raw_binning_cost(uc.token(raw), raw, k, selector, measure)
    refusal = over_limit_message(cost)
    if refusal is not None:
        if holdout is not None:
            _render_holdout(holdout, None)
        st.error(md(refusal), icon=":material/block:")
        return
    request = repr((uc.token(source), selector, measure_used, sorted(params_used.items()), int(k), estimate))
    asked = session_memo(ASKED)
    cheap = cost.seconds <= AUTO_SECONDS
    # run before on this server (a link's sender, a class on one link): its bootstraps are stored, the binnings and
    # the held-out reruns cached by content, so the verdict shows at once, as the sender saw it
    done = shared_results().get(_npfs_key(source_name, source, selector, measure_used, params_used, k,
                                          estimate)) is not None
    if not cheap and not done and request not in asked:
        if holdout is not None:
            _render_holdout(holdout, None)
        if st.button(f"Check the pick (about {cost.seconds:.0f} s)", key="select.robust.run",
                     help=f"the selector on 5 training folds, {N_BOOTSTRAPS} NPFS bootstraps"
                          + ("" if raw is None else " and seven binnings")):
            remember(asked, request, True, _ASKED_SIZE)
            st.rerun()
        st.caption(f"Press **Check the pick** to rerun the selector on resamples: {md(cost.describe())}.")
        return
    bar = None if cheap else st.progress(0.0, text="Bootstraps...")
    if holdout is not None:  # the held-out check could run (a real-valued target's values are no classes to fold)
        try:
            holdout = holdout_result(source, result, frequency=True)
        except FslabError as err:  # the reruns on training folds cannot split: the other checks still run
            st.caption(md(err))
    try:
        found = npfs_result(source_name, source, selector, measure_used, params_used, k,
                            progress=None if bar is None else un.Reporter(bar), in_worker=not cheap, estimate=estimate)
        bins = None if raw is None else uc.binnings(uc.token(raw), raw, k, selector, measure_used or "zero-one",
                                                    tuple(sorted(params_used.items())), estimate)
    except FslabError as err:
        if bar is not None:
            bar.empty()
        st.error(md(err))
        return
    if bar is not None:
        bar.empty()
    table = robustness_table(names, found, bins)
    if holdout is not None and len(holdout.frequency):
        table.insert(1, "picked on training folds", [holdout.frequency.get(n, np.nan) for n in names])
    reasons, level = [], "green"
    if holdout is not None:
        level, reasons = holdout.level, list(holdout.reasons) if holdout.level != "green" else []
    weak = [n for n, f in zip(table["feature"], table["relevant (NPFS test)"], strict=True) if pd.notna(f) and not f]
    moved = [] if bins is None else [n for n, p in zip(table["feature"], table["picked under binnings"], strict=True)
                                     if isinstance(p, str) and not p.startswith(f"{len(bins.selections)} ")]
    if weak:
        reasons.append(f"Not picked more often than chance over {N_BOOTSTRAPS} bootstraps (NPFS): {', '.join(weak)}.")
    if moved:
        reasons.append(f"Depends on the binning: {', '.join(moved)}.")
    if (weak or moved) and level == "green":
        level = "amber"
    if level == "green":
        reasons = ([holdout.reasons[0]] if holdout is not None else []) + ["Every chosen feature passes the NPFS test."]
        if bins is not None and bins.numeric:
            reasons.append("Every binning picks the same features.")
    if bins is not None and not bins.numeric:
        reasons.append("No real-valued column: the binning cannot change the pick.")
    _show_verdict(level, reasons)
    if holdout is not None:
        _render_holdout(holdout, level)
    theme.table(table, digits=2)  # static: a data grid made each Select click slower to settle (issue 34.5)
    F = holdout.folds if holdout is not None else 5   # fewer on a small class (fold_count)
    st.caption(f"Picked on training folds: share of the {F} selections made on {F - 1} of {F} stratified folds of "
               "the rows (Weka's cross-validation attribute selection) that contain the feature, each selected with "
               f"the page's estimate. NPFS frequency z/n: share of {N_BOOTSTRAPS} bootstraps (seed {SEED}) whose "
               f"selection of k = {k} contains the feature, selected with the page's estimate "
               f"({describe_estimate(estimate, getattr(result, 'folds', None))}). "
               f"Relevant: z > zeta with P(Z > zeta) <= alpha = {ALPHA} for Z ~ Binomial(n, k/K), zeta = "
               f"{found.threshold} (Ditzler et al. 2015, equation (3)). Binnings: of "
               + ("the seven discretisations (mean-std; quantile and equal-width with 3, 5, 10 bins), how many "
                  f"select the feature, each selected with the page's estimate ({bins.estimate_label})."
                  if bins is not None else "no raw values for this data: not run."))


def _render_holdout(check: HoldoutCheck, shown: str | None) -> None:
    """The in-sample against held-out values of every prefix (and the verdict, unless ``shown`` already)."""
    if shown is None:
        _show_verdict(check.level, list(check.reasons))
    table = check.steps.rename(columns={"in-sample": f"in-sample {check.measure}",
                                        "held-out": f"held-out {check.measure}"})
    theme.table(table)
    better = "higher" if check.greater_is_better else "lower"
    st.caption(f"Each row: the first t chosen features, their {check.measure} in-sample (plug-in, the papers') and "
               f"held out (fitted on {check.folds - 1} of {check.folds} stratified folds, scored on the other, "
               f"averaged; {better} is better); gap = how much better the in-sample value looks; held-out gain = what "
               f"step t adds on held-out rows. "
               + (f"No feature at all: {check.prior:.4f} held out. Green keeps >= {KEPT_AMBER:.0%} of the in-sample "
                  f"gain over no feature held out, red < {KEPT_RED:.0%} or none." if check.has_baseline else
                  "This measure has no value for no feature (its rule needs one), so step 1 has no gain and the "
                  "verdict compares the values themselves."))
