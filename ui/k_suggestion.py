""""Which k?" panel for the Select page: NPFS's k* and the conditional permutation test of each greedy step.

Runs only when asked (a button) and with small defaults, so the Select page stays fast; results are memoised
per session, keyed by everything that determines them.
"""

from __future__ import annotations

from collections import OrderedDict

import streamlit as st

from fslab.errors import FslabError
from fslab.ksuggest import KSuggestion, permutation_k_test
from fslab.npfs import check_base_selector, npfs
from fslab.plots.npfs import k_test_figure
from fslab.selectors import SELECTORS, select

from .compare import token
from .npfs import SLOW_KINDS, Reporter
from .text import md

MEMO = "fslab.ksuggest.results"
_MEMO_SIZE = 6


def _test_measure(selector: str, measure_name: str) -> str:
    """The criterion whose improvements are tested: the selector's measure, else mutual information."""
    spec = SELECTORS[selector]
    if spec.uses_measure:
        return spec.fixed_measure or measure_name
    return "mi"


def _compute(source, selector: str, measure_name: str, params: dict, k: int, n_perm: int, n_boot: int,
             alpha: float, seed: int, progress) -> KSuggestion:
    spec = SELECTORS[selector]
    extra = params if spec.uses_measure else {}
    order = select(source, k, selector, measure=measure_name, **extra).features
    test_measure = _test_measure(selector, measure_name)
    test = permutation_k_test(source, order, test_measure, n_perm, alpha, seed,
                              extra if test_measure == measure_name else None)
    result = None
    if n_boot and source.n_features > 1:
        result = npfs(source, selector, min(k, source.n_features - 1), n_bootstraps=n_boot, alpha=0.01, seed=seed,
                      progress=progress, measure=measure_name, **extra)
    return KSuggestion(result, test, tuple(int(j) for j in order))


def render_k_suggestion(kind: str, source, selector: str, measure_name: str, measure_params: dict, k: int,
                        key_prefix: str) -> None:
    """Show both suggestions for k (after a button press) with a chart, a caption and an explanation."""
    st.subheader("Which k?")
    st.markdown(
        "Two principled answers instead of a rule of thumb. **(a) NPFS** (Ditzler et al. 2015) reruns the selector "
        "on bootstrap resamples and counts the features picked more often than chance: their number is k\\*. "
        "**(b) A permutation test of each greedy step**: at step t, shuffle every remaining feature *within the "
        "cells of the features already chosen* (their joint law with the class is kept) and ask how often the best "
        "shuffled candidate improves the criterion as much as the real step did. The suggested k is the number of "
        "steps before the first one that chance explains (p > alpha)."
    )
    st.latex(r"p_t=\frac{1+\#\{b:\ \max_j \Delta^{(b)}_{t,j}\ \ge\ \Delta_t\}}{1+B},\qquad "
             r"\Delta_t=C(J_{t-1}\cup\{j_t\})-C(J_{t-1})")
    if kind != "dataset" or getattr(source, "y", None) is None:
        st.info("Both suggestions resample or shuffle the rows of a sample. On an exact distribution there is no "
                "sampling noise to test against: use a dataset (or a sample drawn from the toy distribution).")
        return
    try:  # MI and Fisher selectors on a real-valued target: neither the test nor NPFS would mean anything
        check_base_selector(source, selector)
    except FslabError as err:
        st.warning(md(err))
        return
    slow = SELECTORS[selector].kind in SLOW_KINDS
    if slow:
        st.caption(f"{SELECTORS[selector].label} returns a set, not a path: the test below adds its features in "
                   "index order, so read its steps as one possible path through the set. NPFS is not run for it: "
                   "it would rerun the whole search on every bootstrap (backward on Mushroom: about 20 s each).")
    c1, c2, c3 = st.columns(3)
    n_perm = int(c1.number_input("permutations per step (B)", 9, 999, 49, step=10, key=f"{key_prefix}.kperm"))
    n_boot = 0
    if not slow:
        n_boot = int(c2.number_input("NPFS bootstraps (0 = skip)", 0, 1000, 30, step=10,
                                     key=f"{key_prefix}.kboot"))
    alpha = float(c3.select_slider("alpha", [0.01, 0.05, 0.1], 0.05, key=f"{key_prefix}.kalpha"))
    memo = st.session_state.setdefault(MEMO, OrderedDict())
    key = (token(source), source.n_features, source.n_rows, selector, measure_name,
           tuple(sorted(measure_params.items())), int(k), n_perm, n_boot, alpha)
    if st.button("Suggest k", key=f"{key_prefix}.ksuggest", help="Runs the test and NPFS on this dataset"):
        bar = st.progress(0.0, text="Permutation test of each step...")
        try:
            memo[key] = _compute(source, selector, measure_name, measure_params, k, n_perm, n_boot, alpha, 0,
                                 Reporter(bar))
        except FslabError as err:
            bar.empty()
            st.error(md(err))
            return
        bar.empty()
        while len(memo) > _MEMO_SIZE:
            memo.popitem(last=False)
    found = memo.get(key)
    if found is None:
        npfs_part = f" and run NPFS with {n_boot} bootstraps" if n_boot else ""
        st.caption(f"Press **Suggest k** to test the first {k} steps ({n_perm} shuffles each){npfs_part}.")
        return
    test, result = found.test, found.npfs
    m1, m2 = st.columns(2)
    more = " All tested steps were significant: try a larger k." if test.all_significant else ""
    m1.metric("permutation test: significant steps", test.suggested_k,
              help="Steps before the first p-value above alpha." + more)
    if result is not None:
        m2.metric("NPFS k* (relevant features)", result.k_star,
                  help=f"{result.n_bootstraps} bootstraps, alpha = {result.alpha}, critical value {result.threshold}")
    st.plotly_chart(k_test_figure(test.steps, alpha), width="stretch", key=f"{key_prefix}.ktest")
    st.caption(f"p-value of each step under shuffling within the chosen features' cells ({test.n_permutations} "
               f"shuffles, criterion: {test.measure}); orange bars are below alpha = {alpha}; the test stops at the "
               "first grey bar.")
    if test.all_significant:
        st.caption(f"Every one of the {k} steps was significant: the data support at least k = {k}; raise k to see "
                   "where the steps stop helping.")
    if result is not None:
        st.caption("NPFS relevant features: " + (", ".join(result.relevant_names) or "none") + ".")
    with st.expander("Step table"):
        st.dataframe(test.steps, hide_index=True, key=f"{key_prefix}.ksteps")
