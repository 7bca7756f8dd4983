"""Papers: every figure, table and numbered claim of the three papers, the paper's statement beside our number."""

import streamlit as st

import ui as _ui  # noqa: F401  (first of ours: ui/preload.py imports every page's modules once, a session at a time)

# isort: split

from fslab.reproduction import ALL_VERDICTS, PAPERS, PROFILES, VERDICT_LABELS
from ui import papers as ui
from ui.text import read_aloud

st.title("Papers: what the papers claim, and what we measured")
read_aloud("papers")

shipped = [p for p in PROFILES if ui.ledger_path(p).is_file()]
profile = st.radio("Results", shipped, format_func=lambda p: ui.PROFILE_LABELS[p], horizontal=True,
                   key="papers.profile", persist_state="session")
ledger = ui.ledger(profile)
if ledger is None:
    st.stop()
others = {p: led for p in shipped if p != profile and (led := ui.ledger(p)) is not None}

counts = ledger.counts()
cols = st.columns(len(ALL_VERDICTS) + 1)
cols[0].metric("Entries", len(ledger.rows))
for col, verdict in zip(cols[1:], ALL_VERDICTS, strict=True):
    col.metric(VERDICT_LABELS[verdict].split(":")[0].capitalize(), counts[verdict],
               help="stand-in data: not counted among agree / partly / disagree" if ":" in VERDICT_LABELS[verdict]
               else None)
st.markdown("**Counts per scale** (stand-in entries apart):")
st.dataframe(ui.counts_table({profile: ledger, **others}), hide_index=True)
if "paper" in shipped and "scale" in shipped:
    paper_ledger = ledger if profile == "paper" else others["paper"]
    reduced = ledger if profile == "scale" else others["scale"]
    st.markdown(ui.change_sentence(paper_ledger, reduced))
with st.expander("What this run reduced"):
    for line in ui.protocol_lines(ledger):
        st.markdown(f"- {line}")
    st.caption("bench/REPRODUCE.md describes the papers' protocol and every deviation.")

with st.expander("How this ledger is made", key="papers.how"):
    st.markdown(
        "fslab is built from three papers. This page is their **ledger**: one entry per figure, table or numbered "
        "claim, with the paper's statement, the number fslab computes for it, and a verdict: **agree**, **partly** "
        "(most parts of the claim hold, not all) or **disagree**; **cannot test** when the paper's data set could not "
        "be obtained and only a synthetic stand-in ran (those entries are not counted among the three). Each verdict "
        "comes from a rule written next to it, applied to the numbers, never by hand, and each rule is tested to fail "
        "on numbers that contradict its claim. "
        "The figures come from results files made by `bench/reproduce.py` and shipped with the app, so the page opens "
        "at once; the link under each entry recreates the experiment live on a shipped sample."
    )
    st.caption("Three result sets are shipped: the papers' scale wherever this machine affords it now (each entry "
               "says the scale it ran at), a larger reduced run and a quick CI-sized run. The papers' scale comes "
               "first; the reduced runs' verdicts are shown beside each entry.")


TEACH = {
    "ahmed": (
        "Ahmed et al. choose features by the **Bayes error** of the performance measure itself rather than by "
        "mutual information, and test the chosen features with a learner suited to the measure (Section 4).",
        r"\mathcal J^*\in\arg\max_{|\mathcal J|=k}\; -\,\mathrm{er}^{\ell,*}_{D_{\mathcal J}},\qquad "
        r"\mathrm{er}^{0\text{-}1,*}_{D_{\mathcal J}}"
        r"=\mathbf E\big[\min(\eta_{\mathcal J}(X),\,1-\eta_{\mathcal J}(X))\big]",
        "Section 3, equation (1) and Example 2: the Bayes criterion for the 0-1 error.",
    ),
    "ditzler": (
        "Ditzler et al. run a selector on n bootstrap samples and call a feature **relevant** when it is picked "
        "more often than a feature picked at random would be: a binomial Neyman-Pearson test (Section III).",
        r"Z\sim\mathrm{Binomial}(n,\,k/K),\qquad \zeta=\min\{z: P(Z\le z\mid H_0)\ge 1-\alpha\},\qquad "
        r"\text{relevant}\iff z>\zeta",
        "Equation (3); the authors' released code uses z >= zeta, which matters only when a count equals zeta.",
    ),
    "pena": (
        "Peña and Nilsson prove that the best k features need an exhaustive search, yet the smallest set with the "
        "lowest Bayes risk, S*, can be found by removing features one at a time. They run no experiments, so "
        "each entry checks a theorem or example exactly.",
        r"R(g^*(S))=\sum_{s}\min_y p(s,y),\qquad X_i\in S^*\iff R(g^*(\neg X_i))\neq R(g^*(X))",
        "Section 2 (the Bayes risk) and Theorem 6 (the one-shot characterisation of S*).",
    ),
}

SHORT = {"ahmed": "Ahmed et al. (Bayes criteria)", "ditzler": "Ditzler et al. (NPFS)",
         "pena": "Peña & Nilsson (theory)"}
tabs = st.tabs([SHORT[p] for p in PAPERS])
for tab, paper in zip(tabs, PAPERS, strict=True):
    with tab:
        text, formula, caption = TEACH[paper]
        st.caption(PAPERS[paper])
        st.markdown(text)
        st.latex(formula)
        st.caption(caption)
        for row in [r for r in ledger.rows if r.paper == paper]:
            twins = [(ui.PROFILE_LABELS[p], t) for p, led in others.items()
                     if (t := next((r for r in led.rows if r.id == row.id), None)) is not None]
            ui.draw_row(row, twins)
