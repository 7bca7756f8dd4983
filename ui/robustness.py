"""The Select page's "Does this pick hold up?" section: NPFS frequency and binning stability of the chosen features.

The table is :func:`fslab.robustness.robustness_table`; this module only decides when to run and where results live.
NPFS (n = 50 bootstraps of the page's selector, measure and k, seed 0) goes through the NPFS page's server-wide
store (``ui.cache.shared_results``, the same key as ``ui.npfs.run``), so the NPFS page with the same settings
finds it and a class runs it once. Binning sensitivity uses the Compare page's cached ``ui.compare.binnings``.
Both start by themselves only when predicted (``fslab.cost``) under :data:`AUTO_SECONDS`; otherwise on a click,
with the estimate shown first, a progress bar, in a worker process under a heavy-work slot.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from fslab.cost import binning_cost, npfs_cost, over_limit_message
from fslab.errors import FslabError
from fslab.npfs import check_base_selector, npfs
from fslab.robustness import robustness_table
from fslab.selectors import SELECTORS
from fslab.tables import CodedSource

from . import compare as uc
from . import heavy
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
                in_worker: bool = False):
    """NPFS with the section's settings: the shared result if any session ran it, else a run stored there."""
    key = un.run_key(source_name, source, selector, measure, params, k, N_BOOTSTRAPS, ALPHA, SEED, 1.0)
    shared, shared_key = shared_results(), result_key("npfs", *key[1:])
    found = shared.get(shared_key)
    if found is None:
        extra = {"measure": measure, **params} if measure is not None else {}
        if in_worker:
            with heavy.heavy_slot():
                found = heavy.run_in_worker(npfs, source, selector, k, n_bootstraps=N_BOOTSTRAPS, alpha=ALPHA,
                                            seed=SEED, progress=progress, **extra)
        else:
            found = npfs(source, selector, k, n_bootstraps=N_BOOTSTRAPS, alpha=ALPHA, seed=SEED, **extra)
        shared.put(shared_key, found)
    return found


def render_robustness(kind: str, source_name: str, source, selector: str, measure: str, params: dict, k: int,
                      names: list[str], s: int | None = None) -> None:
    """The section: a sentence, the table of the chosen features, a caption with the formula's reference."""
    st.subheader("Does this pick hold up?")
    st.markdown("The values above are computed on this one sample. Two checks ask whether the same features come "
                f"back when the sample or the binning changes: **NPFS** reruns the selector on {N_BOOTSTRAPS} "
                "bootstrap resamples and counts how often each feature is picked; **binning** reruns it after seven "
                "discretisations of the real-valued columns.")
    if kind != "dataset" or not (isinstance(source, CodedSource) and source.is_sample):
        st.caption("An exact distribution has no sampling noise to resample: these checks need a dataset.")
        return
    spec = SELECTORS[selector]
    if spec.kind in un.SLOW_KINDS or s is not None:
        why = f"{spec.label} reruns the whole search" if spec.kind in un.SLOW_KINDS else "the s-variate search is slow"
        st.caption(f"Not run here: {why} on every resample. Use a greedy selector, or the **NPFS** page.")
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
    if raw is not None:
        cost = cost + binning_cost(raw, k, selector, measure)
    refusal = over_limit_message(cost)
    if refusal is not None:
        st.error(md(refusal), icon=":material/block:")
        return
    request = repr((uc.token(source), selector, measure_used, sorted(params_used.items()), int(k)))
    asked = session_memo(ASKED)
    cheap = cost.seconds <= AUTO_SECONDS
    if not cheap and request not in asked:
        if st.button(f"Check the pick (about {cost.seconds:.0f} s)", key="select.robust.run",
                     help=f"{N_BOOTSTRAPS} NPFS bootstraps" + ("" if raw is None else " and seven binnings")):
            remember(asked, request, True, _ASKED_SIZE)
        else:
            st.caption(f"Press **Check the pick** to run it: {md(cost.describe())}.")
            return
    bar = None if cheap else st.progress(0.0, text="Bootstraps...")
    try:
        result = npfs_result(source_name, source, selector, measure_used, params_used, k,
                             progress=None if bar is None else un.Reporter(bar), in_worker=not cheap)
        bins = None if raw is None else uc.binnings(uc.token(raw), raw, k, selector, measure,
                                                    tuple(sorted(params.items())))
    except FslabError as err:
        if bar is not None:
            bar.empty()
        st.error(md(err))
        return
    if bar is not None:
        bar.empty()
    table = robustness_table(names, result, bins)
    st.dataframe(table, hide_index=True, width="stretch", key="select.robust.table",
                 column_config={"NPFS frequency": st.column_config.ProgressColumn(
                     "NPFS frequency", min_value=0.0, max_value=1.0, format="%.2f")})
    st.caption(f"NPFS frequency z/n: share of {N_BOOTSTRAPS} bootstraps (seed {SEED}) whose selection of k = {k} "
               f"contains the feature. Relevant: z > zeta with P(Z > zeta) <= alpha = {ALPHA} for Z ~ Binomial(n, "
               f"k/K), zeta = {result.threshold} (Ditzler et al. 2015, equation (3)). Binnings: of "
               + ("the seven discretisations (mean-std; quantile and equal-width with 3, 5, 10 bins), how many "
                  "select the feature." if bins is not None else "no raw values for this data: not run."))
    weak = [n for n, f in zip(table["feature"], table["relevant (NPFS test)"], strict=True) if pd.notna(f) and not f]
    moved = [] if bins is None else [n for n, p in zip(table["feature"], table["picked under binnings"], strict=True)
                                     if isinstance(p, str) and not p.startswith(f"{len(bins.selections)} ")]
    verdict = []
    verdict.append("Every chosen feature passes the NPFS test." if not weak else
                   f"Not picked more often than chance: {md(', '.join(weak))}.")
    if bins is not None:
        verdict.append("No real-valued column: the binning cannot change the pick." if not bins.numeric else
                       "Every binning picks the same features." if not moved else
                       f"Depends on the binning: {md(', '.join(moved))}.")
    st.markdown(" ".join(verdict))
