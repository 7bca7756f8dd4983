"""Compare: do the Bayes-criterion features beat the MI / mRMR / Fisher features, here, for my measure?"""

import streamlit as st

import ui as _ui  # noqa: F401  (first of ours: ui/preload.py imports every page's modules once, a session at a time)

# isort: split

from fslab.measures import MEASURES, SCORABLE
from ui import compare_panels as panels
from ui import page_plan, state
from ui.cost_matrix import offered_measures
from ui.link_pages import LINK_PAGES
from ui.selection import estimate_choice, estimate_note, keep_in_range, measure_params
from ui.source import pick_source
from ui.text import read_aloud

st.title("Compare selectors")
read_aloud("compare")

# result first on a 1024 x 768 projector: compact controls, the selections side by side, then how it is computed
where, how = st.columns([3, 2])
with where:
    kind, source_name, source = pick_source("compare.source")
# the measures both halves handle: a Bayes criterion and a test-sample scorer (MeasureSpec.empirical)
options = [name for name in offered_measures(source) if name in SCORABLE]  # + cost matrix on K > 2
if not options:  # a real-valued target: only the squared error fits it, and the learners here are classifiers
    st.warning("This dataset has a real-valued target: the only measure that fits it is the squared error, while "
               "the selectors and learners compared here are classifiers' (MI, mRMR and the Fisher score need "
               "classes). To compare them, split the target into classes on the Data page (at its median, a "
               "threshold or in quantile classes); to keep it numeric, use the squared error on Select, By measure, "
               "Scores or NPFS.")
    st.stop()
top = LINK_PAGES["compare"].bounds(source.n_features)["k"]  # the page record's bound, as links are checked
# the measure, k, estimate and selector Select chose on this data (or a link, or an upload's defaults), once
inherited = page_plan.inherit("compare", kind, source_name, source, measures=options,
                              k_top=top if source.n_features > 1 else None,
                              selectors=panels.offered_selectors(), selector_key="bin_selector")
if st.session_state.get("compare.measure") not in options:  # e.g. f-beta chosen before a multiclass dataset
    st.session_state["compare.measure"] = options[0]
left, mid, right = st.columns([2, 1, 1])
measure_name = left.selectbox("Measure", options, key="compare.measure",
                              format_func=lambda n: MEASURES[n].label, persist_state="session")
# c, beta, ...: ranges and defaults from the measure record; c is a K x K grid on more than two classes
params = measure_params(mid, measure_name, "compare", classes=source.labels)
if source.n_features > 1:
    # k < n by default: with k = n every selector returns all features (Example 1 would show no disagreement)
    keep_in_range("compare.k", 1, top, min(5, source.n_features - 1))
    state.widget_default("compare.k", min(5, source.n_features - 1))  # a link's or Select's k stands
    k = right.slider("k (features)", 1, top, key="compare.k", persist_state="session")
else:
    k = 1
    right.caption("One feature: k = 1.")

estimate = estimate_choice(how, kind, "compare")

tab_side, tab_curves, tab_bins = st.tabs(["Side by side", "Learning curves", "Binning sensitivity"],
                                         key="compare.tab", on_change="rerun")  # only the open tab runs

if tab_side.open is not False:
    with tab_side:
        panels.side_by_side_panel(kind, source_name, source, measure_name, params, k, estimate)
if tab_curves.open is not False:
    with tab_curves:
        panels.curves_panel(kind, source_name, source, measure_name, params, estimate)
if tab_bins.open is not False:
    with tab_bins:
        panels.binning_panel(source_name, source, measure_name, params, k, estimate)

if kind == "dataset":
    st.caption(estimate_note(estimate, beside=False) + " Every panel above (side by side, each learning-curve "
               "split's selection, every binning) selects with this estimate."
               + (f" {note}" if (note := page_plan.inherited_note(inherited)) else ""))
# drawn only when opened (issue 34.5): folded, its formulas and text were still drawn on every run of the page
with st.expander("How this is computed", key="compare.how", on_change="rerun") as how_open:
    if how_open.open:
        st.markdown(
            "For the measure you care about, do the features chosen by its **Bayes criterion** differ from those "
            "chosen by **mutual information**, **mRMR** or the **Fisher score**, and do they give a better learner? "
            "This page runs several selectors for the same k, shows where they disagree and why, and then trains a "
            "learner on each selector's first k features over repeated train/test splits, as in Section 4 of "
            "Ahmed, Narasimhan & Agarwal (Figures 1, 2 and 4).")
        st.latex(r"C^{\mathrm{Bayes},\ell}(J) = -\,\mathrm{er}^{\ell,*}_{D_J}\ \text{(an error) or }"
                 r"+\,\mathrm{score}^{*}_{D_J}\ \text{(a score), the value of the Bayes-optimal predictor on } X_J")
        st.latex(MEASURES[measure_name].formula)
        st.latex(r"C^{\mathrm{MI}}(J) = I(X_J;Y),\quad \mathrm{mRMR}: I(X_j;Y)-\tfrac{1}{|J|}\sum_{i\in J} I(X_j;X_i),"
                 r"\quad F_j = \frac{\sum_l p_l(\mu_{lj}-\mu_j)^2}{\sum_l p_l\sigma_{lj}^2}")
        st.caption("BayesGreedy adds the feature that maximises the Bayes criterion of the chosen measure (Algorithm "
                   "1); BayesScore and MIScore rank single features; MIGreedy maximises I(X_J; Y), the Bayes criterion "
                   "of the log-loss (Example 5), so it is not the right target for the 0-1 error (Example 1).")
