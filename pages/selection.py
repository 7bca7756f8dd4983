"""Select: run one selector with one measure and inspect every step of the search."""

import streamlit as st

import ui as _ui  # noqa: F401  (first of ours: ui/preload.py imports every page's modules once, a session at a time)

# isort: split

from fslab import export, terms
from fslab.convergence import tie_words
from fslab.cost import select_cost
from fslab.errors import FslabError
from fslab.measures import MEASURES
from fslab.plots.selection import trace_curves_figure, trace_heatmap_figure
from fslab.selectors import SELECTORS
from ui import guard, page_plan, provenance, state, theme
from ui import selection as ui
from ui.cost_matrix import offered_measures
from ui.k_suggestion import render_k_suggestion
from ui.paper_text import paper_says
from ui.robustness import render_robustness
from ui.source import pick_source
from ui.stopping import render_stopping_rule
from ui.text import md, read_aloud

st.title("Select features")
read_aloud("select")

# result first on a 1024 x 768 projector: compact controls, the pick and its curve, then how it is computed
where, how = st.columns([3, 2])
with where:
    kind, source_name, source = pick_source("select.source")
n = source.n_features
key = ui.source_key(kind, source_name, source)
own_first = ui.first_visit_of_own_data(kind)
left, mid, right = st.columns(3)
selectors = ui.selector_options(source)
ui.keep_choice("select.selector", selectors)
selector = left.selectbox("Selector", selectors, key="select.selector",
                          format_func=lambda name: SELECTORS[name].label, persist_state="session")
spec = SELECTORS[selector]
options = [spec.fixed_measure] if spec.fixed_measure else offered_measures(source)  # + cost matrix on K > 2
measure_key = "select.measure" + (".fixed" if spec.fixed_measure else "")
if own_first and ui.own_measure_default(source, options):
    st.session_state[measure_key] = ui.own_measure_default(source, options)
ui.keep_choice(measure_key, options)
measure_name = mid.selectbox("Measure", options, key=measure_key, format_func=lambda name: MEASURES[name].label,
                             help="Only the measures that fit this target are offered.", persist_state="session")
params = ui.measure_params(mid, measure_name, "select", classes=source.labels)
if st.session_state.get("select.k", n + 1) > n:  # first visit, or fewer features than the last k: default k
    st.session_state["select.k"] = min(5, n)  # set through the state so the box shows the k actually used
honest = ui.honest_k(key, source, selector, measure_name, params) if own_first else None
if honest is not None:
    st.session_state["select.k"] = honest[0]
    st.session_state["select.k_why"] = honest[1]
elif own_first:
    st.session_state.pop("select.k_why", None)
k = int(right.number_input("k (features to select)", 1, n, key="select.k", persist_state="session"))
s = None
if spec.supports_s:
    if right.checkbox("s-variate approximation", key="select.use_s", wrap=True,
                      help="Approximate C(J) by the average of C(A) over all subsets A of J of size s (Section 3.2)",
                      persist_state="session"):
        state.widget_default("select.s", 2)  # a link may set it
        s = int(right.number_input("s (the paper uses s = 2)", 1, 6, key="select.s", persist_state="session"))
estimate = ui.estimate_choice(how, kind, "select")
if kind == "dataset" and ui.own_data() and ui.held_out_refusal():
    st.info(f"In-sample values only: {ui.held_out_refusal()}. Add rows of that class to hold rows out.")

if ui.is_regression(source):
    st.caption(f"The target has {len(source.labels):,} distinct real values, so it is treated as real-valued: only "
               "the squared error applies, and the selectors that count classes (MIGreedy, mRMR, JMI, CMIM, Fisher "
               "score) are not offered.")
work = ui.work_note(selector, n, k, getattr(source, "n_rows", 0))
if work:
    st.info(work, icon=":material/hourglass_top:")

job = guard.require(select_cost(source, k, selector, measure_name, s),
                    (key, k, selector, measure_name, s, params, estimate))
bar = st.progress(0.0, text="Selecting features...")
try:
    with guard.slot(job):
        result = ui.run_selection(key, source, k, selector, measure_name, s, params, estimate=estimate,
                                  progress=lambda t, total: bar.progress(t / total, text=f"step {t} of {total}"))
    curves = ui.comparison_curves(key, source, result, measure_name, params, estimate)
except FslabError as err:
    bar.empty()
    st.error(md(err))
    st.stop()
bar.empty()
# the dataset's analysis: Compare, Scores, By measure and NPFS open on this measure, k, estimate and pick
page_plan.record_select(kind, selector, measure_name, params, k, estimate, result.names)

st.success("Selected: " + ", ".join(f"**{md(name)}**" for name in result.names))
if ties := tie_words(result, source.feature_names):  # a pick among equals is said, with the rule that broke it
    st.caption(f"Ties: {md(ties)} (within 1e-12 x max(1, |best|) of the best; the lowest index was taken).")
if kind == "dataset":
    st.caption(f"Every value on this page is **{result.estimate_label}** unless it says otherwise. Is the pick "
               "robust? See **Does this pick hold up?** below, **NPFS** (bootstrap frequency, opens with this "
               "selector, measure and k), **Which k?** and **Compare** (cross-validated classifiers).")
for note in result.notes:
    st.info(note)
x_title = "features remaining" if spec.kind == "backward" else "number of features t"
# both figures are built once per selection and reused by the reruns that leave them as they are (theme.memo_chart)
figure_key = (key, kind, k, selector, measure_name, s, tuple(sorted(params.items())), estimate, tuple(result.features))
st.plotly_chart(theme.memo_chart(("select.curves", figure_key), lambda: trace_curves_figure(
    curves, terms.titled(measure_name, params), x_title, title=f"Bayes {terms.label(measure_name, params)} after each "
    "step" + (f" ({result.estimate_label})" if kind == "dataset" else ""))), width="stretch", key="select.curves")
overlays = " and ".join(f"{SELECTORS[o].label}'s" for o in ui.overlay_selectors(source))
st.caption(("Criterion of the remaining set after each elimination, starting from all features (right), "
            if spec.kind == "backward" else
            "The Bayes-optimal predictor's value on the first t selected features (exact joint table; "
            + ("an error: lower is better" if terms.lower_is_better(measure_name) else "a score: higher is better")
            + "), ")
           + ("for this run (and its other estimate, dotted: in-sample beside held-out) and, dotted, for "
              if kind == "dataset" and spec.kind != "backward" else "for this run and, dotted, for ")
           + f"{overlays} first t features under the same measure."
           + (" MIGreedy is not drawn: it would treat each target value as a class." if ui.is_regression(source)
              else ""))

# the folded sections below are drawn only when opened: their formulas (KaTeX) and text were re-drawn, hidden, on
# every click of this page (issue 34.5)
with st.expander("How this is computed", key="select.how", on_change="rerun") as how_open:
    if how_open.open:
        st.markdown(
            "Pick a **performance measure** and a **selector**. BayesGreedy (Ahmed, Narasimhan & Agarwal, Algorithm 1) "
            "adds, one at a time, the feature that makes the **Bayes-optimal** predictor best for *that* measure; "
            "MIGreedy, mRMR, JMI and CMIM use mutual information instead, and the score-based selectors rank single "
            "features. Below you see the criterion after each step, every candidate's value at every step, and the "
            "selected features.")
        if kind == "dataset":
            st.caption(ui.estimate_note(estimate))
        if kind == "dataset" and ui.own_data() and st.session_state.get("select.k_why"):
            st.caption(f"Started at k = {st.session_state['select.k']} for your data: "
                       f"{st.session_state['select.k_why']} "
                       "(Ahmed et al., footnote 3's stopping rule, on held-out values)"
                       + (", with the balanced error (the 0-1 error of an imbalanced target often stays at the base "
                          "rate whatever the features)" if len(source.labels) == 2 else "")
                       + ". Change k or the measure freely.")
        st.latex(r"C^{\mathrm{Bayes},\ell}(J) = -\,\mathrm{er}^{\ell,*}_{D_J}\ \text{or}\ +\mathrm{score}^{*}_{D_J}"
                 r"\qquad\text{with }\ " + MEASURES[measure_name].formula)
        st.latex(spec.formula)
        if s is not None:
            st.latex(r"C(J) \approx \binom{|J|}{s}^{-1} \sum_{A \subset J,\ |A| = s} C(A),\qquad s = " + str(s))
        st.caption(f"Selector: {spec.reference}. Measure: {MEASURES[measure_name].reference}."
                   + ("" if spec.uses_measure else f" {spec.label} uses its own criterion; the measure above is used "
                      "for the curves, so every selection is judged the same way."))
says_title, says_text = paper_says(selector)
with st.expander(f"What the paper says: {says_title}", key="select.says", on_change="rerun") as says_open:
    if says_open.open:
        st.markdown(says_text)

st.subheader("Which k?")
# drawn when opened: its formula (KaTeX) and controls were a fifth of the elements every Select click drew (issue 34.5)
with st.expander("Two principled answers: NPFS's k\\* and a permutation test of each greedy step",
                 key="select.which_k", on_change="rerun") as which_k:
    if which_k.open:
        render_k_suggestion(kind, source, selector, measure_name, params, k, "select", estimate=result.estimate
                            if result.estimate in ("plug-in", "cross-fitted") else "plug-in", title=False)
render_stopping_rule(source, selector, measure_name, params, k, "select", estimate=result.estimate
                     if result.estimate in ("plug-in", "cross-fitted") else "plug-in")

if "subset" in result.trace.columns:
    st.subheader("Best subsets")
    best = ui.own_trace(result).sort_values("value", ascending=terms.lower_is_better(result.measure),
                                            kind="stable").head(20)
    st.dataframe(best[["name", "value", "chosen"]].rename(columns={"value": terms.titled(result.measure, params)}),
                 hide_index=True, width="stretch", key="select.best")
    st.caption(f"The 20 best of the {len(result.trace):,} subsets of size {k} that exhaustive search scored; "
               f"{int(result.trace['n_tied'].iloc[0])} tied with the best (the lexicographically first wins).")
elif result.trace.empty:
    st.caption("No step to show: the selection is the full feature set, so no candidate was scored.")
else:
    value_title = ("gain" if spec.kind == "forward" else "score") if not spec.uses_measure \
        else terms.label(result.measure, params)
    projected = {"max_columns": 25, "tick_font": 10} if theme.presenting() else {}  # theme.chart: 14 px
    st.plotly_chart(theme.memo_chart(("select.heatmap", figure_key), lambda: trace_heatmap_figure(
        ui.own_trace(result), value_title=value_title,
        lower_is_better=spec.uses_measure and terms.lower_is_better(result.measure), **projected)),
        width="stretch", key="select.heatmap")
    st.caption("Each row is a step, each column a candidate; colour places the candidate's value between the "
               "step's worst (0) and best (1) candidate (hover for the feature and its value; blank once chosen; "
               "a narrow screen labels every second or third column). The star marks the pick, orange circles "
               "candidates that tied with it (the lowest index wins).")

st.subheader("Selected features")
own_curve = next(iter(curves.values())) if spec.kind != "backward" else None
# the run's other estimate, when it could be computed (a real-valued target's values are no classes to fold)
other_curve = next((c for label, c in list(curves.items())[1:2] if "(this run" in label), None) \
    if spec.kind != "backward" and kind == "dataset" else None
ranking = ui.selected_table(result, own_curve, measure_name, params, other_curve)
# static tables (here and in the robustness section below): three data grids made every Select click 0.3-0.6 s
# slower to settle (issue 34.5); long headers wrap at 1024 px instead of scrolling sideways
theme.table(ranking.rename(columns={"feature": "index"}))
st.caption("Step value = the value of the subset the selector chose at that step (for mRMR, JMI and CMIM the gain "
           "they maximised, for ranking selectors the feature's own score); the last columns are the Bayes value of "
           "the first t features under the chosen measure, held out and in-sample. Errors are shown as errors "
           "(lower is better) and scores as scores; the sign C = -error appears only in the formula above.")
render_robustness(kind, source_name, source, selector, measure_name, params, k, list(result.names), s,
                  result=result)

prov = provenance.record(kind, source_name, source, measure_name, params, selector=selector, k=k, s=s,
                         estimate=result.estimate_label if kind == "dataset" else "exact")
stem = export.file_stem(source_name, selector, terms.label(measure_name, params), f"k{k}")
files = ui.exports(result, prov)
downloads = st.container(horizontal=True, key="select.downloads")  # buttons as wide as their labels, wrapping
for suffix, mime, label in (
        ("selection.csv", "text/csv", "Selection (CSV)"), ("selection.json", "application/json", "Selection (JSON)"),
        ("trace.csv", "text/csv", "Trace (CSV)"), ("trace.json", "application/json", "Trace (JSON)")):
    downloads.download_button(label, files[suffix], f"{stem}_{suffix}", mime, key=f"select.dl.{suffix}",
                              on_click="ignore")
if kind == "dataset":
    raw = state.get_dataset_raw()
    downloads.download_button("Data, selected columns (CSV)", on_click="ignore", key="select.dl.data",
                              data=lambda: export.csv_with_provenance(ui.selected_data(source, result, raw), prov),
                              file_name=f"{stem}_data.csv", mime="text/csv")
st.caption("The JSON files hold the provenance (data, hash, target, positive class, binning, measure, estimate, "
           "fslab version); the CSVs are plain data that pandas, a spreadsheet and fslab's upload read back, with "
           "text cells that could start a formula (=, +, -, @, tab, CR) escaped with a leading '. The data file "
           "holds the selected columns and the target (raw values after an upload, else each feature's bin or "
           "category).")
