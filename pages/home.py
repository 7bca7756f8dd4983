"""Home page: what fslab is, a tour of the pages, the four papers, and the sample data picker."""

from __future__ import annotations

import streamlit as st

import ui as _ui  # noqa: F401  (first of ours: ui/preload.py imports every page's modules once, a session at a time)

# isort: split

from fslab.data.samples import SAMPLES
from fslab.errors import FslabError
from fslab.limits import limits_table
from ui import state
from ui.data import APP_SAMPLES, HIDDEN_NOTE, use_sample
from ui.pages import home_links
from ui.text import md, read_aloud
from ui.tour import start as start_tour

PAPERS = [
    "**Ahmed, Narasimhan, Agarwal** (2015). *Bayes Optimal Feature Selection for Supervised Learning with General "
    "Performance Measures.* UAI. The Bayes criteria for 0-1, cost-sensitive, balanced, log-loss, squared error, "
    "F-measure and AUC; BayesGreedy and BayesScore; Example 1, where mutual information picks the wrong feature.",
    "**Ditzler, Polikar, Rosen** (2015). *A Bootstrap Based Neyman-Pearson Test for Identifying Variable "
    "Importance.* IEEE TNNLS 26(4), 880-886. NPFS: a binomial test on how often a selector picks each feature.",
    "**Derivation notes: greedy selection for precision and for recall** (shipped with the project). Greedy "
    "criteria for a conjunction (precision) and a disjunction (recall) of feature values.",
    "**Pena, Nilsson** (2010). *On the Complexity of Discrete Feature Selection for Optimal Classification.* "
    "IEEE TPAMI. Any monotone ordering of Bayes risks can occur, so the best k-subset needs exhaustive search; "
    "the minimal optimal subset is found by backward search.",
]


def _apply_sample() -> None:
    """on_change of the sample selectbox: the chosen sample becomes the session's dataset."""
    try:
        use_sample(st.session_state["home_sample"])
    except FslabError as err:
        st.session_state["home_sample_error"] = str(err)


def sample_picker() -> None:
    current, encoded = state.get_dataset()
    names = APP_SAMPLES
    guess = (current or "").removesuffix(" (sample)")
    if st.session_state.get("home_sample") not in names:
        st.session_state["home_sample"] = guess if guess in names else state.DEFAULT_SAMPLE
    name = st.selectbox("Sample data set", names, key="home_sample", on_change=_apply_sample,
                        format_func=lambda n: f"{n}: {SAMPLES[n].title}", persist_state="session")
    error = st.session_state.pop("home_sample_error", None)
    if error:
        st.error(md(error))
    if current == f"{name} (sample)":
        st.success(f"Current dataset: **{md(current)}** ({encoded.n_rows:,} rows x {encoded.n_features} features). "
                   "Every page uses it; change the target, positive class or binning on the Data page.")
    else:
        st.info(f"Current dataset: **{md(current)}**.")
        if st.button(f"Use {name}", key="home_use", type="primary"):
            try:
                use_sample(name)
            except FslabError as err:
                st.error(md(err))
            else:
                st.rerun()
    rec = SAMPLES[name]
    rate = f", positive rate {rec.positive_rate:.3f}" if rec.positive_rate is not None else ""
    st.markdown(f"**{rec.title}**: {rec.n_rows:,} rows x {rec.n_features} features, {rec.task}{rate}.  \n"
                f"{rec.encoding}")
    st.caption(f"{rec.citation}. Licence: {rec.licence}. Used in: {rec.paper}.")
    st.caption(HIDDEN_NOTE)


st.title("fslab: which features, for which measure?")
read_aloud("home")
if st.button("Start the Example 1 tour", key="home.tour", type="primary", icon=":material/school:"):
    start_tour()
    st.switch_page("pages/tour.py")
st.caption("Four steps, one click each: **X1 or X2?** (the same two features judged by the 0-1 error and by mutual "
           "information), the subset lattice, Theorem 1's *make greedy bad*, and NPFS on D_uni.")

st.subheader("Data set")
sample_picker()

st.subheader("What fslab does")
st.markdown(
    "fslab is a workbench for **feature selection by the criterion you will be judged on**. Most filters rank "
    "features by mutual information; Ahmed, Narasimhan and Agarwal show that the best features depend on the "
    "performance measure (0-1 error, balanced error, F-measure, AUC, ...) and pick them by the performance of the "
    "Bayes-optimal classifier on the candidate subset. fslab computes these criteria from counts, runs greedy and "
    "exhaustive searches, tests stability with bootstraps (NPFS), and shows exact answers on small toy "
    "distributions."
)
st.markdown(
    "It is for students and practitioners of machine learning who want to *see* why the selected features change "
    "with the measure, and for anyone checking the papers' examples by hand. Everything runs on the dataset chosen "
    "above or on the Data page."
)
st.markdown("The **Bayes criterion** of a subset S is the performance of the best possible classifier that sees only "
            "the features in S (Ahmed et al., Section 3); fslab picks the k features whose criterion is best.")
# drawn only when opened: KaTeX and its fonts are a large share of this page's first paint (issue 16)
with st.expander("The formula: the best k-subset by the Bayes criterion", key="home.formula",
                 on_change="rerun") as formula:
    if formula.open:
        st.latex(r"S^\ast_k=\arg\max_{|S|=k}\ \mathcal{P}\big(h^\ast_S\big)")
        st.latex(r"\text{e.g. 0-1 error: }\ \mathrm{er}^\ast(S)="
                 r"\mathbb{E}_{X_S}\big[\min\{\eta_S(X_S),\,1-\eta_S(X_S)\}\big]")
        st.latex(r"\eta_S(x)=P(Y=1\mid X_S=x)")  # its own line: a 1024 px screen shows each whole
        st.caption("h*_S is the Bayes-optimal classifier on X_S and P the performance measure (Ahmed et al., eq. (3)); "
                   "for an error such as the 0-1 error, P = -er, so the best subset has the smallest Bayes error.")

st.subheader("Pages")
for page in home_links():
    c1, c2 = st.columns([2, 5])  # room for "Toy distribution" on a 1024 px screen
    with c1:
        st.page_link(page.file, label=page.title, icon=page.icon)
    c2.markdown(page.about)

st.subheader("The papers")
for paper in PAPERS:
    st.markdown(f"- {paper}")

with st.expander("Limits of this server", key="home.limits", on_change="rerun") as limits:
    if limits.open:  # the table is drawn only when opened: it would load the table renderer on every first paint
        st.dataframe(limits_table(), hide_index=True, width="stretch", key="home_limits")
    st.caption("Every upload and every long job has a ceiling so that one user cannot slow the room down; an "
               "operator changes one by setting its environment variable (e.g. FSLAB_MAX_ROWS=500000) before "
               "starting the server.")
