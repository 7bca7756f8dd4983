"""Scores: every feature's value under several measures, in-sample and held out; pick features by hand."""

import streamlit as st

import ui as _ui  # noqa: F401  (first of ours: ui/preload.py imports every page's modules once, a session at a time)

# isort: split

from fslab import export
from fslab.errors import FslabError
from fslab.measures import MEASURES, supported_measures
from fslab.scores import DEFAULT_SCORE_MEASURES, HELD_OUT, IN_SAMPLE, feature_scores, subset_scores
from ui import page_plan
from ui import scores as ui
from ui.source import pick_source
from ui.text import md, read_aloud

st.title("Feature scores")
read_aloud("scores")

kind, source_name, source = pick_source("scores.source")
offered = [m for m in supported_measures(source) if m not in ("precision", "recall")]
default = ui.default_measures(offered, DEFAULT_SCORE_MEASURES)  # a real-valued target: the squared error
# Select's measure (or a link's, or an upload's default) first, and its pick ticked, once per choice
inherited = page_plan.inherit("scores", kind, source_name, source, measures=offered, measure_list=default,
                              estimate=False, ticks=True)
ui.keep_measures(offered, default)
chosen = st.multiselect("Measures", offered, key="scores.measures", format_func=lambda m: MEASURES[m].label,
                        persist_state="session")
if not chosen:
    st.info("Choose at least one measure.")
    st.stop()
params = dict(inherited.params) if inherited is not None else {}
if inherited is not None and inherited.measure in chosen:
    st.caption(f"Opened with **{MEASURES[inherited.measure].label}** first"
               + (f" and the k = {inherited.k} features {ui.WHO[inherited.origin]} picked ticked "
                  f"({', '.join(map(md, inherited.features))})" if inherited.features else "")
               + (". They were chosen on held-out values: read the held-out columns."
                  if inherited.estimate == "cross-fitted" else "."))
try:
    table = ui.scores(source, tuple(chosen), feature_scores, params=params)
except FslabError as err:
    st.error(md(err))
    st.stop()

exact = kind == "distribution"
st.caption("An exact distribution: every value is exact (nothing to hold out)." if exact else
           "Held-out values are 5-fold cross-fitted (stratified, seed 0): a cell never seen in the training folds "
           "predicts with the class prior, so an ID-like column scores like no feature at all.")
edited = st.data_editor(ui.with_picks(table), hide_index=True, width="stretch", key="scores.table",
                        disabled=[c for c in table.columns], column_config=ui.column_config(table, chosen))
st.caption(" ".join(filter(None, [
    "One row per feature. Click a column header to sort. Errors: lower is better; AUC and mutual information: higher "
    "is better. Tick **pick** to build a subset below.", ui.header_legend(chosen, held_out=not exact),
    ui.levels_note(table)])))

# drawn only when opened (issue 34.5): folded, its formulas and text were still drawn on every run of the page
with st.expander("How these are computed", key="scores.how", on_change="rerun") as how_open:
    if how_open.open:
        st.markdown(
            "Every feature on its own, under several performance measures at once: the value of the **Bayes-optimal "
            "predictor** that sees only that feature (Ahmed, Narasimhan & Agarwal, Section 3), beside its **mutual "
            "information** with the target. Each comes **in-sample** (the papers' plug-in: fitted and scored on the "
            "same rows) and **held out** (fitted on all folds but one and scored on that one: 5 folds, fewer when a "
            "class has fewer rows), so a column that only fits this sample stands out: a large in-sample score and a "
            "held-out one no better than no feature. Sort by any "
            "column, tick features to see what they achieve together, and export them.")
        st.latex(r"\mathrm{score}_\ell(j) = \mathrm{er}^{\ell,*}_{D_{\{j\}}}\ \text{(an error) or}\ "
                 r"\mathrm{score}^{*}_{D_{\{j\}}}\ \text{(a score)},\qquad I(X_j;Y)\ \text{in bits}")

picked = ui.picked(edited)
st.subheader("Your picked features together")
if not picked:
    st.caption("Tick features in the table to see their joint value under every measure.")
    st.stop()
names = [source.feature_names[j] for j in picked]
st.markdown("Picked: " + ", ".join(f"**{md(n)}**" for n in names))
together = ui.scores(source, tuple(chosen), subset_scores, tuple(picked), params=params)
st.dataframe(together, hide_index=True, width="stretch", key="scores.subset",
             column_config={c: st.column_config.NumberColumn(format="%.4f")
                            for c in together.columns if c not in ("measure", "better")})
st.caption("The Bayes-optimal predictor on the picked features together, under each measure"
           + ("" if exact else f": {IN_SAMPLE} (plug-in) and {HELD_OUT} (5-fold cross-fitted), beside the held-out "
              "value of no feature at all. A held-out value no better than that one means the pick fits this "
              "sample only") + ".")

left, right = st.columns(2)
if left.button("Keep this pick in the history", key="scores.keep"):
    ui.remember(names, together)
history = ui.history()
if history:
    st.subheader("History of this session")
    kept = ui.history_table(history)
    st.dataframe(kept, hide_index=True, width="stretch", key="scores.history_table",
                 column_config=ui.history_config(kept))
    st.caption("Each kept pick with its held-out value under each measure (in-sample when there is nothing to hold "
               "out); Δ is the change from the pick kept before it. Picks are kept for this session only.")
    again = right.selectbox("Tick a kept pick again", range(len(history)), key="scores.recall",
                            format_func=lambda i: ", ".join(history[i]["features"]), index=None,
                            placeholder="choose a kept pick", persist_state="session")
    if again is not None:
        ui.restore(history[again]["features"], table)
        st.rerun()
if kind == "dataset":
    frame = ui.reduced_data(source, picked)
    right.download_button("Data, picked columns (CSV)", data=lambda: export.safe_csv(frame, False),
                          file_name=export.file_stem(source_name, "picked", f"{len(picked)}-features") + ".csv",
                          mime="text/csv", key="scores.dl", on_click="ignore")
    right.caption("The picked columns and the target, raw values where the data has them (else each feature's bin "
                  "or category); plain CSV that pandas and fslab's upload read back.")
