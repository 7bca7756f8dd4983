"""Toy distribution: build an exact joint law of a few discrete features and a class, see which features
each criterion picks, and sample from it to watch plug-in selection converge."""

import streamlit as st

import ui as _ui  # noqa: F401  (first of ours: ui/preload.py imports every page's modules once, a session at a time)

# isort: split

from fslab.errors import FslabError
from fslab.limits import LIMITS
from fslab.measures import MEASURES, supported_measures
from fslab.pena_nilsson.toy import PRESETS, law_formula
from fslab.plots.toy import convergence_figure, joint_figure
from fslab.selectors import SELECTORS
from ui import theme, toy
from ui.source import current_distribution
from ui.text import md, read_aloud

st.title("Toy distribution")
read_aloud("toy")
name, dist = current_distribution()

# result first on a 1024 x 768 projector: the preset and k in one row, then what each criterion picks; the law,
# its chart and the builders below
pick_preset, load, pick_k = st.columns([3, 1, 1], vertical_alignment="bottom")
with pick_preset:
    preset = toy.preset_picker(name)
if load.button("Load preset", key="toy.load_preset", type="primary", width="stretch"):
    toy.install_preset(preset)
    st.rerun()
k_pick = toy.k_box(pick_k, "k (features to pick)", "toy.pick_k", dist.n_features)

st.subheader(f"Current distribution: {md(name)}")
preset_key = toy.preset_of(name)
dist_json = dist.to_json()
try:
    picks = toy.picks(dist_json, int(k_pick))
except FslabError as err:
    st.error(md(err))
else:
    by_measure = picks.set_index("measure")
    zero_one, mi = MEASURES["zero-one"].label, MEASURES["mi"].label
    if zero_one in by_measure.index and mi in by_measure.index:
        row = by_measure.loc[zero_one]
        st.markdown(toy.pick_verdict(int(k_pick), row["best k-subset (exhaustive)"], row["tied optimal subsets"],
                                     float(row["its Bayes value"]), by_measure.at[mi, "BayesGreedy picks"]))
    theme.table(picks)  # static: subsets and ties wrap instead of being cut
    st.caption("One row per measure: the k features BayesGreedy adds and the best k-subset by exhaustive search on "
               "the exact law, with that subset's Bayes value in the measure's own terms (errors are positive, lower "
               "is better; scores such as AUC and mutual information, higher is better). Ties are said, never hidden: "
               "'tied optimal subsets' lists every k-subset as good as the one shown, and 'BayesGreedy ties' each "
               "step at which several candidates were equally good (the lowest index is taken).")
st.markdown(
    "Each **Bayes criterion** scores a subset J by the best achievable value of a performance measure using "
    "only X_J (Ahmed, Narasimhan & Agarwal, eq. (3)). Different measures can prefer different features. "
    + (f"**{md(name)}** ({PRESETS[preset_key].reference}): {PRESETS[preset_key].teaches}" if preset_key else
       f"The table above shows what each criterion picks on **{md(name)}**. (For a worked case, load the Bayes "
       "paper's Example 1 preset above: mutual information prefers X2 there, the 0-1 error X1.)")
)
st.latex(r"C^{0\text{-}1}(J) = -\sum_{x_J}\min_y p(x_J, y),\qquad C^{\mathrm{MI}}(J) = I(X_J; Y)")

st.header("The distribution")
st.markdown(
    "A distribution small enough to see whole: a few discrete features X and a class Y with **exact** "
    "probabilities p(x, y). On it every criterion is exact, so you can see *why* the choice of criterion "
    "and of search matters, and then sample from it to ask how much data plug-in selection needs. "
    "The distribution you build here is used by the **Orderings** page and by every page's "
    "'Toy distribution' option."
)
law_words, law_latex = law_formula(dist)
st.markdown(law_words)
st.latex(law_latex)
c1, c2, c3 = st.columns(3)
c1.metric("Features", dist.n_features)
c2.metric("States with mass", int((dist.probs.sum(axis=1) > 0).sum()))
c3.metric("Classes", len(dist.labels))
# drawn only when opened: below the first screen, and the only chart of the page, so a click to Toy draws no Plotly
# chart (issue 34.5); the law is stated above in words and as a formula
with st.expander("The law as a chart: p(x) of each state, split by class", key="toy.chart_open",
                 on_change="rerun") as law_chart:
    if law_chart.open:
        st.plotly_chart(theme.chart(joint_figure(dist)), width="stretch", key="toy.joint_chart")
        st.caption("Each bar is one state x of the features; its height is p(x) and the colours split it by class. "
                   "States are labelled by their feature values in order.")
toy.assumptions_box(dist)

with st.expander("Build your own distribution"):
    tabs = st.tabs(["Presets", "Class-conditional tables", "Full joint table", "Generators", "JSON import/export"],
                   key="toy.builder", on_change="rerun")  # only the open tab runs: the editors are costly to draw
    builders = (lambda: toy.preset_note(preset), lambda: toy.naive_bayes_builder(dist),
                lambda: toy.joint_builder(dist), lambda: toy.generator_builder(dist),
                lambda: toy.json_builder(name, dist))
    for tab, build in zip(tabs, builders, strict=True):
        if tab.open is not False:
            with tab:
                build()

st.header("Sample from it")
st.markdown("Draw m rows (X, Y) from the distribution and make them the current dataset, so the Select, "
            "Compare and NPFS pages work on a sample whose exact answer you know.")
s1, s2, s3 = st.columns([1, 1, 2])
m = s1.number_input("rows m", 10, max(10, LIMITS.max_rows), min(1000, LIMITS.max_rows), 100, key="toy.sample_m",
                    help=f"at most {LIMITS.max_rows:,} rows (FSLAB_MAX_ROWS)", persist_state="session")
seed = s2.number_input("seed", 0, 10**6, 0, key="toy.sample_seed", persist_state="session")
s3.write("")
if s3.button("Sample m rows and use them as the dataset", key="toy.sample", type="primary"):
    try:
        label = toy.sample_rows(name, dist, int(m), int(seed))
    except FslabError as err:
        st.error(md(err))
    else:
        st.success(f"Current dataset is now '{md(label)}'. Open Select, Compare or NPFS to use it.")

# drawn only when opened: its controls and chart were about a third of this page's drawing (issue 16); the choices
# persist while it is closed, so a link's or a preset's k and measure are kept for when it opens
with st.expander("How much data does plug-in selection need? (a convergence study on samples)", key="toy.conv_open",
                 on_change="rerun") as study:
    if study.open:
        st.markdown("For each sample size m, draw repeated samples, run each selector on the plug-in estimates "
                    "(counts / m) and count how often it returns the **exact** best k-subset of the chosen measure.")
        f1, f2, f3 = st.columns(3)
        measures = supported_measures(dist)
        if st.session_state.get("toy.conv_measure") not in measures:
            st.session_state["toy.conv_measure"] = measures[0]  # a measure this class variable refuses is never offered
        measure = f1.selectbox("measure", measures, key="toy.conv_measure", format_func=lambda n: MEASURES[n].label,
                               persist_state="session")
        k_conv = toy.k_box(f2, "k", "toy.conv_k", dist.n_features)
        repeats = f3.slider("samples per m", 5, 100, 20, 5, key="toy.conv_repeats", persist_state="session")
        g1, g2 = st.columns(2)
        sizes = g1.multiselect("sample sizes m", [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000],
                               default=[20, 50, 100, 200, 500, 1000, 2000], key="toy.conv_sizes",
                               persist_state="session")
        selectors = g2.multiselect("selectors", list(SELECTORS), default=["bayes-greedy", "mi-greedy", "exhaustive"],
                                   key="toy.conv_selectors", format_func=lambda n: SELECTORS[n].label,
                                   persist_state="session")
        if sizes and selectors:
            try:
                rates = toy.rates(dist_json, tuple(sorted(sizes)), int(k_conv), tuple(selectors), measure,
                                  int(repeats), 0)
            except FslabError as err:
                st.error(md(err))
            else:
                st.plotly_chart(theme.chart(convergence_figure(rates, {k: s.label for k, s in SELECTORS.items()})),
                                width="stretch", key="toy.conv_chart")
                st.caption("Fraction of samples (with binomial standard errors) on which each selector returns the "
                           "exact k-optimal subset; a selector whose own criterion prefers other features levels off "
                           "at 0.")
        else:
            st.info("Choose at least one sample size and one selector.")
