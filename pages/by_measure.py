"""By measure: one selector, several performance measures, the same data; where their picks part."""

import streamlit as st

import ui as _ui  # noqa: F401  (first of ours: ui/preload.py imports every page's modules once, a session at a time)

# isort: split

from fslab import terms
from fslab.cost import by_measure_cost
from fslab.errors import FslabError
from fslab.measures import MEASURES, describe_estimate
from fslab.plots.by_measure import cross_figure
from fslab.selectors import SELECTORS
from ui import by_measure as ui
from ui import guard, page_plan, theme
from ui.compare import token
from ui.cost_matrix import cost_matrix_input, takes_matrix
from ui.selection import PARAM_LABELS, estimate_choice, estimate_note, param_widget
from ui.source import pick_source
from ui.text import md, read_aloud

st.title("The best features depend on the measure")
read_aloud("by_measure")

# result first on a 1024 x 768 projector: compact controls, the picks table, then how it is computed (below)
where, how = st.columns([3, 2])
with where:
    kind, source_name, source = pick_source("bym.source")
n = source.n_features
selectors = ui.selector_options()
offered = ui.measure_options(source)
defaults = ui.default_measures(offered)  # the paper's seven; a real-valued target's squared error
# the measure (first among the measures), k, selector and estimate Select chose on this data (or a link, or an
# upload's defaults), once per choice
inherited = page_plan.inherit("bym", kind, source_name, source, measures=offered, k_top=n, selectors=selectors,
                              measure_list=defaults)
if st.session_state.get("bym.selector") not in selectors:
    st.session_state["bym.selector"] = "bayes-greedy"
estimate = estimate_choice(how, kind, "bym")
left, mid, right = st.columns([2, 1, 2], vertical_alignment="bottom")
selector = left.selectbox("Selector", selectors, key="bym.selector", format_func=lambda s: SELECTORS[s].label,
                          help="Only selectors that take a measure: MI-family selectors would give one path.",
                          persist_state="session")
if st.session_state.get("bym.k", n + 1) > n:
    st.session_state["bym.k"] = min(ui.default_k(kind), n)
k = int(mid.number_input("k (steps)", 1, n, key="bym.k", persist_state="session"))
if "bym.measures" not in st.session_state or not set(st.session_state["bym.measures"]) <= set(offered):
    st.session_state["bym.measures"] = defaults
chosen_now = st.session_state["bym.measures"]
with right.popover(f"Measures ({len(chosen_now)} of {len(offered)})", width="stretch"):
    names = st.multiselect("Measures", offered, key="bym.measures", format_func=lambda m: MEASURES[m].label,
                           persist_state="session")
    params = {}  # one widget per parameter of the offered measures (their records' ranges), live while one is chosen
    for name, (param, takers) in ui.param_options(offered).items():
        label = f"{PARAM_LABELS.get(name, name)} ({', '.join(MEASURES[m].label for m in takers)})"
        if takes_matrix(name, source.labels):   # many classes: the cost-sensitive error's K x K cost matrix
            params[name] = cost_matrix_input(st, source.labels, f"bym.{name}") if set(takers) & set(names) else None
        else:
            params[name] = param_widget(st, name, param, f"bym.{name}", label,
                                        disabled=not set(takers) & set(names))
    params = {p: v for p, v in params.items() if v is not None}

if not names:
    st.info("Choose at least one measure.")
    st.stop()
try:
    job = guard.require(by_measure_cost(source, k, selector, names), ("bym", token(source), k, selector, names,
                                                                        sorted(params.items()), estimate))
    with guard.slot(job):  # refused or asked before work (fslab.cost); long runs take a heavy-work slot
        view = ui.compute(source, k, selector, ui.with_params(names, params), estimate)
except FslabError as err:
    st.error(md(err))
    st.stop()
exact = "exact values of the distribution" if kind == "distribution" else f"{describe_estimate(estimate)} values"
st.subheader("Which feature each measure adds at each step")
st.markdown(ui.verdict(view))
theme.table(ui.picks_styled(view))  # static: long feature names wrap instead of being cut
if ties := view.tie_words():  # a pick among equals is said, with the rule that broke it
    st.caption(f"Ties: {md(ties)} (the lowest index was taken).")
for lab, why in view.skipped.items():
    st.caption(f"{md(lab)} left out: {md(why)}")
if kind == "dataset":
    st.caption(estimate_note(estimate, beside=False)
               + (f" {note}" if (note := page_plan.inherited_note(inherited)) else ""))
st.caption(f"{SELECTORS[selector].label}, k = {k}, on *{md(source_name)}* ({exact}). A highlighted cell is a pick "
           "that differs from the most common pick of its step; the last row says whether every measure added "
           "the same feature, or at least holds the same set of features so far.")

st.subheader("Each measure's choice, judged by every measure")
step = k if k == 1 else int(st.select_slider("after step t", list(range(1, k + 1)), value=k, key="bym.step",
                                             persist_state="session"))
values = view.table(step)
drawn = ("bym.cross", token(source), k, selector, tuple(names), tuple(sorted(params.items())), estimate, step)
st.plotly_chart(theme.memo_chart(drawn, lambda: cross_figure(values, ui.regret(view, step), view.best(step), step)),
                width="stretch", key="bym.cross")  # built once per view and step (theme.memo_chart)
best = view.best(step)
if beaten := [label for label in view.labels if not bool(best.loc[label, label])]:  # own pick not its column's best
    its, s = ("its", "") if len(beaten) == 1 else ("their", "s")
    st.markdown(f"**{md(', '.join(beaten))}**: {its} own first {step} feature(s) are not the best under {its} own "
                f"measure{s} here. Greedy search adds one feature at a time, so it cannot promise the best t-subset "
                "(Pena & Nilsson: only exhaustive search can).")
st.caption("Row = the first t features a measure chose; column = the measure judging them (its Bayes value in its "
           "own terms). A star marks the best row of a column; colour = how far a row falls short of that best, "
           "relative to the column's worst row. Greedy search is not exhaustive, so a measure's own row is not "
           "always its column's best.")
theme.table(ui.titled_table(view, values))
st.caption("The same values as a table; each column header says whether lower or higher is better.")
st.download_button("Download all steps (CSV)", lambda: ui.cross_csv(view, source_name),  # made when clicked
                   ui.file_name(source_name, view), "text/csv", key="bym.download", on_click="ignore")
# drawn only when opened (issue 34.5): its formula and text were re-drawn, hidden, on every click of the page
with st.expander("How this is computed, and the paper's words", key="bym.how", on_change="rerun") as how_open:
    if how_open.open:
        st.markdown(
            "Ahmed, Narasimhan & Agarwal's headline claim: which features are best depends on **how the classifier "
            "will be judged**. Here one selector runs once per measure on the same data; the table shows the feature "
            "each measure adds at each step and where they part, and the chart judges every measure's choice by every "
            "other measure, so a disagreement has a price you can read.")
        st.latex(r"j^{\ell}_t=\arg\max_{j\notin J^{\ell}_{t-1}} C^{\ell}\big(J^{\ell}_{t-1}\cup\{j\}\big),\qquad "
                 r"C^{\ell}(J)=-\,\mathrm{er}^{\ell,*}_{D_J}\ \text{(an error)}\ \text{or}\ "
                 r"+\mathrm{score}^{\ell,*}_{D_J}")
        st.caption("Algorithm 1 (BayesGreedy) with the Bayes criterion of measure l (equation (3), Section 3). Example "
                   "1 (Section 4): the 0-1 error picks X1 (error 0.25 < 0.30) while mutual information picks X2 "
                   "(0.17 > 0.08 bit). The sign C = -error is only the selector's convention: values below are each "
                   "measure's own (errors: lower is better; scores: higher is better).")
        st.markdown(
            "- **0-1 and cost-sensitive errors** reward features that move P(Y=1|x) across the decision threshold "
            "(1/2, or c); a feature can carry much information and still not change a single decision.\n"
            "- **Balanced error** and **F-beta** care about the rare class; they tend to prefer features that find "
            "it.\n"
            "- **AUC** rewards features that rank rows well, whatever the threshold.\n"
            "- **Log-loss** is -H(Y|X_J), so BayesGreedy with the log-loss is MIGreedy (Example 5): their columns "
            "match.\n\n"
            "Ahmed et al., Section 3: *the Bayes criterion of a subset is the performance of the Bayes-optimal "
            "classifier that uses only those features*, so the answer to 'which features?' is only defined once the "
            "measure is fixed. " + terms.direction("zero-one").capitalize() + " for errors, higher for scores.")
