"""NPFS: the bootstrap Neyman-Pearson test of which features a selector picks more often than chance."""

import os

import streamlit as st

import ui as _ui  # noqa: F401  (first of ours: ui/preload.py imports every page's modules once, a session at a time)

# isort: split

from fslab.cluster import SCHEDULER_ENV, cluster_note
from fslab.errors import FslabError
from fslab.limits import LIMITS
from fslab.measures import MEASURES, describe_estimate
from fslab.npfs import check_base_selector, hoeffding_n, min_bootstraps
from fslab.plots.npfs import (
    counts_figure,
    matrix_label_note,
    relevant_image_figure,
    relevant_path_figure,
    selection_matrix_figure,
    stability_figure,
)
from fslab.selectors import SELECTORS
from ui import npfs as ui
from ui import page_plan, state, theme
from ui.cache import ensure_default_dataset
from ui.cost_matrix import offered_measures
from ui.selection import estimate_choice, measure_params
from ui.text import md

st.title("NPFS: is a feature selected more often than chance?")
st.markdown("This page tests which features a selector picks more often than chance over many bootstrap samples.")

ensure_default_dataset()
name, data = state.get_dataset()
top = st.columns([3, 2])
top[0].markdown(f"**Data:** {md(name)} ({data.n_rows:,} rows x {data.n_features} features)")
if top[1].button("Load D_uni (the paper's synthetic data)", key="npfs.load_uniform",
                 help="K = 25 features iid Uniform[0, 10], y = 1 iff x1+...+x5 <= 25, M = 1000 rows, "
                      "discretised into 3 equal-width bins (Section IV-A)"):
    ui.load_uniform()
    st.rerun()
K = data.n_features
if K < 2:
    st.error("NPFS needs at least two features; load another dataset on the Data page.")
    st.stop()

c1, c2, c3 = st.columns([2, 1, 1])   # compact: the result starts within a projector's first screen
selectors = ui.base_selectors()
# the selector, measure, k and estimate Select chose on this data (or a link, or an upload's defaults), once
inherited = page_plan.inherit("npfs", "dataset", name, data, measures=offered_measures(data), k_top=K - 1,
                              selectors=selectors)
ui.keep_choices(selectors)  # "is my pick robust?" is one click: the Select page's selector, measure, k
selector = c1.selectbox("Base selector", selectors, key="npfs.selector",
                        format_func=lambda s: SELECTORS[s].label,
                        help="Exhaustive search and backward elimination are left out: NPFS reruns the selector "
                             "n times, and one backward run on Mushroom already takes about 20 s.",
                        persist_state="session")
spec = SELECTORS[selector]
measure, params = None, {}
if spec.uses_measure:
    fitting = offered_measures(data)   # with cost-sensitive on many classes: its c is then a cost matrix
    options = [spec.fixed_measure] if spec.fixed_measure else fitting
    measure_key = "npfs.measure" + (".fixed" if spec.fixed_measure else "")
    ui.keep_choices(selectors, measure_key, options)
    measure = c1.selectbox("Its measure", options, key=measure_key, format_func=lambda m: MEASURES[m].label,
                           help="Only the measures that fit this target are offered.", persist_state="session")
    params = measure_params(c1, measure, "npfs", classes=data.labels)
    if measure not in fitting:
        st.error(f"{spec.label} always uses the {MEASURES[measure].label} measure, which does not fit this "
                 f"{data.task} target: pick another base selector.")
        st.stop()
else:
    c1.caption(f"{spec.label} uses its own criterion ({spec.reference}).")
try:
    check_base_selector(data, selector)
except FslabError as err:
    st.error(md(err))
    st.stop()
ui.adopt_k(K)
k = int(c2.number_input("k (features per bootstrap)", 1, K - 1, key="npfs.k", on_change=ui.keep_k,
                        persist_state="session"))
# a link may set these: their defaults go through Session State, not the widgets (state.widget_default)
for widget, value in (("npfs.n", min(100, LIMITS.max_bootstraps)), ("npfs.alpha", 0.01), ("npfs.seed", 0),
                      ("npfs.fraction", 1.0)):
    state.widget_default(widget, value)
n = int(c2.number_input("n (bootstraps)", 2, max(2, LIMITS.max_bootstraps), step=10, key="npfs.n",
                        help=f"at most {LIMITS.max_bootstraps:,} (FSLAB_MAX_BOOTSTRAPS)", persist_state="session"))
alpha = float(c3.select_slider("alpha (size of the test)", [0.001, 0.005, 0.01, 0.05, 0.1], key="npfs.alpha",
                               persist_state="session"))
more = c3.popover("More settings", icon=":material/tune:",
                  help="seed, rows per bootstrap, parallel workers, the estimate and the decision rule")
seed = int(more.number_input("seed", 0, 2**31 - 1, key="npfs.seed", persist_state="session"))
fraction = float(more.slider("rows per bootstrap (fraction of m)", 0.1, 1.0, step=0.05, key="npfs.fraction",
                           persist_state="session"))
cores = os.cpu_count() or 1
n_jobs = int(more.number_input("parallel workers (n_jobs)", 1, max(1, cores), 1, key="npfs.n_jobs",
                             help="The same seed gives the same matrix whatever the number of workers.",
                             persist_state="session"))
prefer = "auto"
if n_jobs > 1:
    prefer = more.radio("workers are", ["auto", "processes", "threads"], key="npfs.prefer", horizontal=True,
                      help="Processes take 1-3 s to start but pay off on large data; threads share the GIL with the "
                           "selector loop. auto: processes from a million values (rows x features) up.",
                      persist_state="session")

estimate = estimate_choice(more, "dataset", "npfs")
rule = more.radio("Decision rule", ["strict", "at-least"], key="npfs.rule", horizontal=True,
                  format_func={"strict": "strict: z > zeta (equation (3))", "at-least": "at least: z >= zeta"}.get,
                  help="Equation (3) of the paper declares a feature relevant when its count z exceeds zeta (the "
                       "test's size stays <= alpha). The authors' released MATLAB code uses z >= zeta: the two "
                       "differ only for a count equal to zeta, e.g. Fig. 1(d) (k = 24 of 25, n = 100), where "
                       "zeta = 100. Switching needs no new run.", persist_state="session")
c3.caption(f"Criterion on each bootstrap: **{describe_estimate(estimate)}**; {rule} rule.")
if estimate != "plug-in":
    params = {**params, "estimate": estimate}

address, unreachable = ui.scheduler()   # FSLAB_DASK_SCHEDULER, read and checked at run time
if note := cluster_note(address):
    st.info(note, icon=":material/hub:")
elif unreachable:   # for the operator (also in the server log); the student's run goes on here
    st.caption(f":material/hub: Operator note: the Dask scheduler set by {SCHEDULER_ENV} did not answer, so NPFS "
               "runs on this server (details in the server log).")

p0 = k / K
need = min_bootstraps(p0, alpha)   # P(Z = n | H0) = p0^n: below this n not even a feature chosen every time is relevant
if n < need and rule == "strict":
    st.warning(f"With p0 = k/K = {p0:.3f} and n = {n}, a feature chosen in every bootstrap still has p-value "
               f"p0^n = {p0**n:.3g} > alpha = {alpha}: under the strict rule no feature can be relevant. Use "
               f"n >= {need} or a smaller k (the at-least rule would keep the features chosen every time).")

shown = ui.run_panel(name, data, selector, measure, params, k, n, alpha, seed, fraction, n_jobs, prefer)
result = shown.with_rule(rule)
if result.k_star:   # the result first: which features, then the numbers behind it
    st.success(f"Relevant ({result.k_star}): " + ", ".join(f"**{md(v)}**" for v in result.relevant_names))
else:
    st.warning(f"No feature's count satisfies {result.rule_text}: none was selected significantly more often than "
               "chance. With large k (p0 near 1) the strict test cannot reject unless n is large: P(Z = n) = p0^n "
               "must fall below alpha.")

m1, m2, m3, m4 = st.columns(4)
m1.metric("k* (relevant features)", result.k_star, delta=f"{result.k_star - result.k:+d} vs k = {result.k}",
          delta_color="off", delta_arrow="off",
          help="k* minus the k the selector picked on each bootstrap: negative when k was too large, positive "
               "when too small (Section III-C)")
m2.metric("critical value zeta", result.threshold, help=f"relevant iff its count {result.rule_text} "
          f"(zeta = {result.threshold} of {result.n_bootstraps} bootstraps)")
m3.metric("p0 = k/K", f"{result.p0:.3f}")
m4.metric(f"Hoeffding bound, eps = {result.epsilon}", f"{result.hoeffding:.3g}",
          help="Equation (5): P(|p_hat - p| >= eps) <= 2 exp(-2 n eps^2) for each feature's selection rate; "
               f"n >= {hoeffding_n(result.epsilon, 0.05)} bootstraps make it at most 0.05")
if result.k_star:
    if st.button(f"Use k = k* = {result.k_star} on the Select page", key="npfs.use_kstar",
                 help="Sets the Select page's k to NPFS's estimate and opens it"):
        st.session_state["select.k"] = int(result.k_star)
        st.switch_page("pages/selection.py")
if result.k_star < result.k:
    st.caption(f"k* < k: the selector filled its {result.k} places with features it picks no more often than "
               "chance, so NPFS suggests using fewer features (Section III-C, Fig. 1).")
elif result.k_star > result.k:
    st.caption(f"k* > k: more features matter than the {result.k} the selector may keep; across bootstraps they "
               "take turns (Section IV-B, Fig. 2).")

if estimate == "cross-fitted" or inherited is not None:
    st.caption(("Held out on each bootstrap: its rows keep their original row's fold, so a row's copies never score "
                "each other. " if estimate == "cross-fitted" else "")
               + (page_plan.inherited_note(inherited) if inherited is not None else ""))
# drawn only when opened (issue 34.5): folded, its formulas and text were still drawn on every run of the page
with st.expander("How NPFS decides", key="npfs.how", on_change="rerun") as how_open:
    if how_open.open:
        st.markdown(
            "Neyman-Pearson feature selection (Ditzler, Polikar & Rosen 2015) wraps **any** selector. It draws *n* "
            "bootstrap samples of the rows, runs the selector with a fixed *k* on each, and counts how often each "
            "feature was chosen. A feature picked at random would be chosen with probability p0 = k/K, so its count "
            "would follow a binomial law; a feature is **relevant** when its count is too large for that (a one-sided "
            "test of size alpha). The number of relevant features, **k\\***, is NPFS's estimate of how many features "
            "you need: smaller than k when k was too large, larger when k was too small (Section III-C). A feature "
            "chosen in all n bootstraps has p-value p0^n, so the strict rule can declare anything only from "
            f"n >= ln(alpha) / ln(p0) bootstraps ({need} here)."
        )
        st.latex(r"Z_i=\sum_{l=1}^{n} X_{il}\ \overset{H_0}{\sim}\ \mathrm{Binomial}(n,\,p_0),\qquad p_0=\frac{k}{K}")
        st.latex(r"\zeta=\min\{z:\ P(Z\le z\mid H_0)\ge 1-\alpha\},\qquad"
                 r"\text{feature } i \text{ relevant}\iff z_i>\zeta")
        st.caption("Section III-B, equation (3): the Neyman-Pearson likelihood ratio is increasing in z, so the most "
                   "powerful test of size alpha rejects for large counts; zeta is the binomial quantile.")

order = st.radio("Order features by", ["count", "index"], key="npfs.order", horizontal=True,
                 format_func=lambda o: "times selected" if o == "count" else "column order", persist_state="session")
st.subheader("Selection matrix")
drawn = ui.result_digest(result)  # the figures are built once per result shown (theme.memo_chart)
st.plotly_chart(theme.memo_chart(("npfs.matrix", drawn, order), lambda: selection_matrix_figure(result, order)),
                width="stretch", key="npfs.matrix")
st.caption("The paper's Fig. 1: one row per feature (times selected in brackets), one column per bootstrap. "
           "Rows the test declares relevant: orange = selected, dark brown = not; other rows: white = selected, "
           "black = not. " + matrix_label_note(result))

st.subheader("Counts against the critical value")
st.plotly_chart(theme.memo_chart(("npfs.counts", drawn, order), lambda: counts_figure(result, order)),
                width="stretch", key="npfs.counts")
st.caption("How many of the n bootstraps chose each feature; bars above the dashed line (zeta) are relevant. "
           "Hover for each feature's p-value P(Z >= z | H0).")
with st.expander("Every feature's count and p-value", key="npfs.table_open", on_change="rerun") as every:
    if every.open:  # drawn only when opened (issue 34.5)
        st.dataframe(result.summary(), hide_index=True, key="npfs.table")

st.subheader("Relevant features as bootstraps accumulate")
st.plotly_chart(theme.memo_chart(("npfs.path", drawn), lambda: relevant_path_figure(result)), width="stretch",
                key="npfs.path")
st.caption("The paper's Fig. 2 for this k: the test applied after each l = 1..n bootstraps (zeta recomputed for "
           "l); the count settles as n grows, which is how to judge whether n was large enough.")

shape = ui.image_shape(name, K)
if shape is not None:
    st.subheader("Relevant pixels")
    st.plotly_chart(theme.memo_chart(("npfs.image", drawn, shape), lambda: relevant_image_figure(result, shape)),
                    width="stretch", key="npfs.image")
    st.caption(f"The paper's Fig. 4: the {shape[0]} x {shape[1]} pixel grid; relevant pixels coloured by how often "
               "they were selected, the others black (for digits in noise, the digit sits in the central 8 x 8).")

st.subheader("Stability of the selected sets")
stab = result.stability()
s1, s2 = st.columns(2)
if stab["kuncheva"] is not None:
    s1.metric("Kuncheva consistency (mean over pairs)", f"{stab['kuncheva']:.3f}")
if stab["nogueira"] is not None:
    s2.metric("Nogueira et al. stability (95% CI)", f"{stab['nogueira'].value:.3f}",
              help=f"95% confidence interval {stab['nogueira'].lower:.3f} .. {stab['nogueira'].upper:.3f}")
st.latex(r"I_C(A,B)=\frac{rK-k^2}{k(K-k)},\ r=|A\cap B|\qquad"
         r"\hat\Phi=1-\frac{\frac1K\sum_f \frac{n}{n-1}\hat p_f(1-\hat p_f)}{\frac{\bar k}{K}(1-\frac{\bar k}{K})}")
if stab["nogueira"] is not None:
    st.plotly_chart(theme.memo_chart(("npfs.stability", drawn), lambda: stability_figure(result)), width="stretch",
                    key="npfs.stability")
    st.caption("Kuncheva's index (Definition 2.1) of every pair of bootstraps, its mean (dashed), and Nogueira, "
               "Sechidis & Brown's estimate with its 95% confidence band (orange); 1 = the same set every time, "
               "0 = no more alike than random sets of size k.")

st.subheader("Downloads")
cols = st.columns(3)
for col, (fname, (payload, mime, label)) in zip(cols, ui.downloads(result).items(), strict=True):
    col.download_button(label, payload, file_name=fname, mime=mime, on_click="ignore", key=f"npfs.dl.{fname}")
