"""""Which k?" panel for the Select page: NPFS's k* and the conditional permutation test of each greedy step.

Runs only when asked (a button), after its predicted cost (fslab.cost.ksuggest_cost) is shown and checked against
the server's work limit. The job runs in a worker process (fslab.ksuggest.suggest_k) under a heavy-work slot, reports
the bootstraps' progress, and stops with the session. Results are shared server-wide by content (data token,
settings, seed) in ``ui.cache.shared_results``, so a class asking the same question runs it once; each session
also keeps the few it showed.
"""

from __future__ import annotations

import streamlit as st

from fslab.cost import ksuggest_cost, over_limit_message
from fslab.errors import FslabError
from fslab.ksuggest import suggest_k
from fslab.measures import describe_estimate
from fslab.npfs import check_base_selector
from fslab.plots.npfs import k_test_figure
from fslab.selectors import SELECTORS
from fslab.tables import CodedSource

from . import heavy, theme
from .cache import result_key, shared_results
from .compare import token
from .memo import remember, session_memo
from .npfs import SLOW_KINDS, Reporter
from .text import md

MEMO = "fslab.ksuggest.results"
_MEMO_SIZE = 6
_SEED = 0


SELECT_K = "select.k"
SELECT_PAGE = "pages/selection.py"


def _set_select_k(value: int) -> None:
    """on_click: runs before the rerun, so the Select page's k box can still be set."""
    st.session_state[SELECT_K] = value


def use_k_button(k_star: int, k: int, key_prefix: str) -> None:
    """A "use k = k*" button (as on the NPFS page): on the Select page it sets k in place; elsewhere it sets the
    Select page's k and opens that page. Nothing to offer when k* is 0 or already the k in use."""
    if k_star < 1 or (k_star == k and key_prefix == "select"):
        return
    clicked = st.button(f"Use k = k* = {k_star}", key=f"{key_prefix}.use_kstar", on_click=_set_select_k,
                        args=(k_star,), help="Sets the Select page's k to NPFS's estimate and selects again")
    if clicked and key_prefix != "select":
        st.switch_page(SELECT_PAGE)


def run_suggestion(source, selector: str, measure_name: str, params: dict, k: int, n_perm: int, n_boot: int,
                   alpha: float, progress, estimate: str = "plug-in") -> tuple[str, object]:
    """(key, result): the shared result of the same question, else a run in a worker under a heavy-work slot. The
    path and NPFS's bootstraps select with ``estimate`` (the page's)."""
    key = result_key("ksuggest", token(source), selector, measure_name, tuple(sorted(params.items())), int(k),
                     int(n_perm), int(n_boot), float(alpha), _SEED, estimate)
    how = {"estimate": estimate} if estimate != "plug-in" else {}
    # identical questions (several tabs on one link) wait for the first one's answer instead of asking again
    found = heavy.computed_once(shared_results(), key, lambda: heavy.run_in_worker(
        suggest_k, source, selector, measure_name, params, int(k), int(n_perm), int(n_boot), float(alpha), _SEED,
        progress=progress, **how))
    return key, found


def render_k_suggestion(kind: str, source, selector: str, measure_name: str, measure_params: dict, k: int,
                        key_prefix: str, estimate: str = "plug-in", title: bool = True) -> None:
    """Show both suggestions for k (after a button press) with a chart, a caption and an explanation; the path
    tested and NPFS's bootstraps select with ``estimate`` (the page's); ``title``: the "Which k?" heading (False
    when the page draws it above a fold)."""
    if title:
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
    if kind != "dataset" or not (isinstance(source, CodedSource) and source.is_sample):
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
    n_perm = int(c1.number_input("permutations per step (B)", 9, 999, 49, step=10, key=f"{key_prefix}.kperm",
                                 persist_state="session"))
    n_boot = 0
    if not slow:
        n_boot = int(c2.number_input("NPFS bootstraps (0 = skip)", 0, 1000, 30, step=10,
                                     key=f"{key_prefix}.kboot", persist_state="session"))
    alpha = float(c3.select_slider("alpha", [0.01, 0.05, 0.1], 0.05, key=f"{key_prefix}.kalpha",
                                   persist_state="session"))
    memo = session_memo(MEMO)
    key = (token(source), selector, measure_name, tuple(sorted(measure_params.items())), int(k), n_perm, n_boot, alpha,
           estimate)
    cost = ksuggest_cost(source, selector, k, n_perm, n_boot, measure_name)
    refusal = over_limit_message(cost)
    if refusal is not None:
        st.error(md(refusal), icon=":material/block:")
        return
    st.caption(f"The path tested and NPFS's bootstraps select with the page's estimate "
               f"(**{describe_estimate(estimate)}**); each step's permutation test compares in-sample gains, "
               "real against shuffled, on the same rows.")
    if st.button("Suggest k", key=f"{key_prefix}.ksuggest", help="Runs the test and NPFS on this dataset"):
        bar = st.progress(0.0, text="Permutation test of each step...")
        try:
            _, found = run_suggestion(source, selector, measure_name, measure_params, k, n_perm, n_boot, alpha,
                                      Reporter(bar), estimate)
        except FslabError as err:
            bar.empty()
            st.error(md(err))
            return
        bar.empty()
        remember(memo, key, found, _MEMO_SIZE)
    found = memo.get(key)
    if found is None:
        npfs_part = f" and run NPFS with {n_boot} bootstraps" if n_boot else ""
        st.caption(f"Press **Suggest k** to test the first {k} steps ({n_perm} shuffles each){npfs_part}: "
                   f"{md(cost.describe())}.")
        return
    test, result = found.test, found.npfs
    m1, m2 = st.columns(2)
    more = " All tested steps were significant: try a larger k." if test.all_significant else ""
    m1.metric("permutation test: significant steps", test.suggested_k,
              help="Steps before the first p-value above alpha." + more)
    if result is not None:
        m2.metric("NPFS k* (relevant features)", result.k_star,
                  help=f"{result.n_bootstraps} bootstraps, alpha = {result.alpha}, critical value {result.threshold}")
    st.plotly_chart(theme.chart(k_test_figure(test.steps, alpha)), width="stretch", key=f"{key_prefix}.ktest")
    st.caption(f"p-value of each step under shuffling within the chosen features' cells ({test.n_permutations} "
               f"shuffles, criterion: {test.measure}); orange bars are below alpha = {alpha}; the test stops at the "
               "first grey bar.")
    if test.all_significant:
        st.caption(f"Every one of the {k} steps was significant: the data support at least k = {k}; raise k to see "
                   "where the steps stop helping.")
    if result is not None:
        st.caption("NPFS relevant features: " + (", ".join(result.relevant_names) or "none") + ".")
        use_k_button(int(result.k_star), int(k), key_prefix)
    with st.expander("Step table", key=f"{key_prefix}.ksteps_open", on_change="rerun") as steps:
        if steps.open:  # drawn only when opened (issue 34.5)
            st.dataframe(test.steps, hide_index=True, key=f"{key_prefix}.ksteps")
