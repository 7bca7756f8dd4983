"""Orderings: every subset's Bayes value, Theorem 1's constructor, and the minimal-optimal subset (Pena-Nilsson)."""

import streamlit as st

import ui as _ui  # noqa: F401  (first of ours: ui/preload.py imports every page's modules once, a session at a time)

# isort: split

from fslab.data.distributions import joint_frame
from fslab.errors import FslabError
from fslab.measures import MEASURES, supported_measures
from fslab.pena_nilsson.finite import ESTIMATOR_NOTES, ESTIMATORS, INDUCER_NOTES, INDUCERS, tolerance_note
from fslab.pena_nilsson.orderings import (
    follows_ordering,
    is_monotone,
    max_lattice_features,
    ordering_risks,
    subset_risks,
)
from fslab.plots.orderings import decisions_figure, gap_figure, hasse_figure, ordering_figure, value_decimals
from ui import orderings as ui
from ui import theme
from ui.source import current_distribution, pick_source
from ui.text import md, read_aloud
from ui.toy import install

st.title("Bayes-risk orderings")
read_aloud("orderings")

kind, source_name, source = pick_source("orderings.source", default="distribution")
max_features = max_lattice_features()  # the server's limit, read once per run
if kind == "dataset" and source.n_features > max_features:
    st.info(f"**{md(source_name)}** has {source.n_features} features: 2^{source.n_features} subsets are too many to "
            f"enumerate, so these tabs study at most {max_features} of them (2^{max_features} = "
            f"{2 ** max_features:,} subsets). Pick them below (pre-filled with the 6 features of highest mutual "
            "information with the class), switch to the toy distribution above, or load a dataset with at most "
            f"{max_features} features on the Data page.")
    chosen = st.multiselect(f"Features to study (at most {max_features})", list(source.feature_names),
                            default=ui.top_features(ui.fingerprint(source), source, 6),
                            max_selections=max_features, key=f"orderings.features:{ui.fingerprint(source)}",
                            persist_state="session")
    if chosen:
        source_name = f"{source_name} ({len(chosen)} chosen features)"
        source = ui.restrict(source, chosen)
    else:
        source = None
if source is None:
    st.warning("Choose at least one feature above: the subset tabs and FBS/FOS on the dataset need some.")
tab_lattice, tab_t1, tab_min, tab_finite = st.tabs(ui.TABS, key="orderings.tab", on_change="rerun")

with tab_lattice:
    if tab_lattice.open is not False:  # only the open tab runs (on_change='rerun')
        measures = supported_measures(source) if source is not None else list(MEASURES)
        if st.session_state.get("orderings.measure") not in measures:
            st.session_state["orderings.measure"] = measures[0]  # a measure this target refuses is never offered
        left, right = st.columns(2)
        measure = left.selectbox("Measure", measures, key="orderings.measure",
                                 format_func=lambda n: MEASURES[n].label, persist_state="session")
        others = ["none"] + [m for m in measures if m != measure and m not in ("precision", "recall")]
        if st.session_state.get("orderings.other") not in others:
            st.session_state["orderings.other"] = "mi" if "mi" in others else "none"
        other = right.selectbox("Also draw the greedy path of", others, key="orderings.other",
                                format_func=lambda n: "nothing else" if n == "none" else
                                ("MIGreedy (mutual information)" if n == "mi" else f"BayesGreedy, {MEASURES[n].label}"),
                                help="Greedy forward search under another criterion, dashed blue, on the same lattice",
                                persist_state="session")
        st.latex(MEASURES[measure].formula)
        try:
            if source is None:
                raise FslabError("No features chosen: pick at least one feature of the dataset above.")
            out = ui.lattice(f"{kind}:{ui.fingerprint(source)}", source, measure)
        except FslabError as err:
            st.error(md(err))
        else:
            risks = out["risks"]
            what = "exact values" if kind == "distribution" else "plug-in estimates from the sample"
            st.markdown(f"{len(risks)} subsets of **{md(source_name)}** ({what}). The orange line is **greedy forward "
                        "search**; red rings mark the **best subset of each size** found by exhaustive search. "
                        "Where they part, greedy went wrong.")
            other_path = None if other == "none" else ui.greedy_path_of(f"{kind}:{ui.fingerprint(source)}", source,
                                                                         other)
            other_label = "MIGreedy path" if other == "mi" else f"greedy path, {MEASURES[other].label}" \
                if other != "none" else ""
            # the three figures are built once per lattice, measure and overlay (theme.memo_chart)
            drawn = (f"{kind}:{ui.fingerprint(source)}", measure)
            st.plotly_chart(theme.memo_chart(("orderings.hasse", drawn, other), lambda: hasse_figure(
                risks, out["greedy"], out["optimal"], other=other_path, other_label=other_label,
                greedy_label=f"greedy path, {MEASURES[measure].label}")), width="stretch", key="orderings.hasse")
            st.caption("Hasse diagram of the subset lattice: one row per subset size, an edge from S to S + one "
                       "feature, colour = the Bayes value, printed under each node with the same number of decimals "
                       "(with more than 4 features, along the paths and the rings; hover for value and rank)."
                       + (f" Dashed blue: {other_label}, the path another criterion takes through the same "
                          "subsets; where it leaves the orange line, the two criteria pick different features."
                          if other_path else ""))
            monotone = is_monotone(risks)
            (st.success if monotone else st.warning)(
                "Monotone: no superset does worse than any of its subsets." if monotone else
                "Some superset does worse than a subset: this cannot happen for an exact Bayes value.")
            ui.show_gaps(out["gaps"])
            st.caption("For each k, greedy's subset and value next to the best k-subset (exhaustive search); any gap "
                       "is greedy's loss.")
            # drawn when opened: two more Plotly charts of the same values made this (the session's first chart
            # page in the teaching flow) 0.8 s slower to settle (issue 34.5)
            with st.expander("Two more views of the same values: every subset from best to worst, and greedy's loss "
                             "at each k as bars", key="orderings.views_open", on_change="rerun") as views:
                if views.open:
                    st.plotly_chart(theme.memo_chart(("orderings.ordering", drawn), lambda: ordering_figure(risks)),
                                    width="stretch", key="orderings.ordering")
                    st.caption("All subsets from best to worst; the colour is the subset size, so larger subsets sit "
                               "left.")
                    st.plotly_chart(theme.memo_chart(("orderings.gaps", drawn), lambda: gap_figure(
                        out["gaps"], MEASURES[measure].label)), width="stretch", key="orderings.gaps")
                    st.caption("For each k, the value of greedy's subset next to the best k-subset; any gap is "
                               "greedy's loss.")
            with st.expander("Every subset as a table", key="orderings.table_open", on_change="rerun") as every:
                if every.open:  # a data grid of 2^n rows, drawn hidden on every visit before (issue 34.5)
                    st.dataframe(risks.drop(columns=["subset"]), hide_index=True, width="stretch",
                                 key="orderings.table", column_config={"value": st.column_config.NumberColumn(
                                     format=f"%.{value_decimals(risks['value'])}f")})

with tab_t1:
    if tab_t1.open is not False:  # only the open tab runs (on_change='rerun')
        st.markdown(
            "**Theorem 1**: for any ordering S₁, …, S_N (N = 2ⁿ) of the subsets in which supersets come first, some "
            "distribution has R(S₁) < … < R(S_N). The proof builds it: mass α at X = 0, Y = 0; all other mass on "
            "Y = 1, placed subset by subset in the given order so that each risk exceeds the previous one; then "
            "normalised. Write one subset per line, lowest risk first (the full set first, ∅ last)."
        )
        st.latex(r"p(X{=}0, Y{=}0) = \alpha \in (\tfrac12, 1),\quad R(g^*(S)) = p(S{=}0, Y{=}1) = "
                 r"\sum_{T \supseteq S}\ \sum_{\neg t \ge 1} p(T{=}0, \neg t, Y{=}1)")
        c1, c2, c3, c4 = st.columns(4)
        n = c1.number_input("features n", 2, 5, 3, key="orderings.t1_n", persist_state="session")
        arity1 = c2.selectbox("values of X1", [2, 3], key="orderings.t1_arity", persist_state="session")
        alpha = c3.slider("α", 0.55, 0.95, 0.6, 0.05, key="orderings.t1_alpha", persist_state="session")
        seed = c4.number_input("seed", 0, 10**6, 0, key="orderings.t1_seed", persist_state="session")
        names = [f"X{j + 1}" for j in range(int(n))]
        m1, m2 = st.columns(2)
        if m1.button("Random valid ordering", key="orderings.t1_random"):
            st.session_state["orderings.t1_text"] = ui.format_ordering(ui.initial_ordering("random", int(n), int(seed)),
                                                                       names)
        if m2.button("Make greedy bad", key="orderings.t1_bad", disabled=int(n) < 3):
            st.session_state["orderings.t1_text"] = ui.format_ordering(
                ui.initial_ordering("make greedy bad", int(n), 0), names)
        old_n = st.session_state.get("orderings.t1_text_n")
        if old_n != int(n) or "orderings.t1_text" not in st.session_state:
            # a new n (or the first visit): the old text names the wrong features, so start from a valid ordering
            mode = "make greedy bad" if int(n) >= 3 else "random"
            st.session_state["orderings.t1_text"] = ui.format_ordering(ui.initial_ordering(mode, int(n), int(seed)),
                                                                       names)
            if old_n is not None and old_n != int(n):
                st.info(f"n is now {int(n)}: the ordering below was replaced by a valid one of the {2 ** int(n)} "
                        f"subsets of {', '.join(names)} ({mode} ordering). Edit it or press a button.")
            st.session_state["orderings.t1_text_n"] = int(n)
        text = st.text_area("Ordering (lowest risk first)", key="orderings.t1_text", height=220,
                            persist_state="session")
        spread = st.slider("step after the best pair (1 = equal steps)", 1.0, 20.0, 10.0, 1.0,
                           key="orderings.t1_spread", persist_state="session")
        try:
            ordering = ui.parse_ordering(text, names)
            built = ui.construct(tuple(ordering), tuple([int(arity1)] + [2] * (int(n) - 1)), float(alpha),
                                 float(spread))
        except FslabError as err:
            st.error(md(err))
        else:
            built_risks = subset_risks(built)
            ok = follows_ordering(built, ordering)
            (st.success if ok else st.error)(
                f"Verified: the Bayes risks increase strictly along all {len(ordering)} subsets of the ordering."
                if ok else "The risks do not follow the ordering.")
            st.plotly_chart(theme.chart(ordering_figure(built_risks, order=ordering,
                                                        title="Bayes risk along your ordering")),
                            width="stretch", key="orderings.t1_ordering")
            along = ordering_risks(built, ordering)
            st.caption(f"Risks of the constructed distribution in your order: from {along[0]:.3f} to {along[-1]:.3f}, "
                       "each step strictly up.")
            lat = ui.lattice(f"t1:{ui.fingerprint(built)}", built, "zero-one")
            st.plotly_chart(theme.chart(hasse_figure(lat["risks"], lat["greedy"], lat["optimal"])), width="stretch",
                            key="orderings.t1_hasse")
            st.caption("The constructed distribution's lattice with greedy's path and the best subset of each size.")
            with st.expander(f"The constructed distribution ({len(built.states)} states)", key="orderings.t1_open",
                             on_change="rerun") as joint:
                if joint.open:  # drawn only when opened (issue 34.5)
                    st.dataframe(joint_frame(built), hide_index=True, key="orderings.t1_joint")
            if st.button("Use it as the toy distribution", key="orderings.t1_use"):
                install(f"Theorem 1 construction (n={int(n)})", built)
                st.rerun()

with tab_min:
    if tab_min.open is not False:  # only the open tab runs (on_change='rerun')
        st.markdown(
            "S* is the smallest subset whose Bayes risk equals that of all features. If p(x) > 0 and p(Y|x) has a "
            "single maximum for every x, S* is unique (Theorem 4); **BS** (Table 1) removes any feature whose removal "
            "keeps the risk, restarting after each removal (Theorem 5); **OS** (Table 2) keeps exactly the features "
            "whose removal from the full set raises the risk (Theorem 6). Strongly relevant features and the Markov "
            "boundary can be larger than S* (Example 1)."
        )
        st.latex(r"X_i \in S^* \iff R(g^*(\neg X_i)) \ne R(g^*(X)),\qquad "
                 r"X_i \text{ strongly relevant} \iff p(Y \mid \neg X_i) \ne p(Y \mid X)")
        if kind != "distribution":
            st.info("BS and OS need the exact distribution; on a sample use FBS and FOS (next tab). Shown here are the "
                    "plug-in versions on the empirical distribution of the sample.")
        try:
            if source is None:
                raise FslabError("No features chosen: pick at least one feature of the dataset above.")
            res = ui.minimal(f"{kind}:{ui.fingerprint(source)}", source)
        except FslabError as err:
            st.error(md(err))
        else:
            bs, os_ = res["bs"], res["os"]
            (st.success if bs.assumptions.hold else st.warning)("  \n".join(bs.assumptions.messages()))
            # tiles as wide as their answer, wrapping to a new line: five equal columns cut "{X1, X2, X..."
            answers = st.container(horizontal=True, wrap=True, key="orderings.min_answers")
            for label, value in [("BS", bs.names), ("OS", os_.names), ("S* (exhaustive)", res["s_star"]),
                                 ("Strongly relevant", res["strong"]), ("Markov boundary", res["markov"])]:
                answers.metric(label, value, width="content", border=True)
            st.caption(f"Smallest Bayes-risk increase caused by removing a feature on BS's path: η = {bs.eta:.4f}. "
                       "FBS/FOS recover S* for tolerances 0 < τ < η (Theorem 8).")
            for result in (bs, os_):
                st.plotly_chart(theme.chart(decisions_figure(result.steps,
                                                 title=f"{result.method}: every check R(S \\ Xi) = R(S)?")),
                                width="stretch", key=f"orderings.min_{result.method}")
                st.caption(f"{result.method}: blue = risk with the feature, then without it (green: equal, so the "
                           "feature is removed; red: the risk rises, so it stays).")
                st.dataframe(ui.steps_table(result.steps), hide_index=True, width="stretch",
                             key=f"orderings.min_table_{result.method}")

with tab_finite:
    if tab_finite.open is not False:  # only the open tab runs (on_change='rerun')
        st.markdown(
            "On a sample the exact test becomes a tolerance test (Section 5): remove X_i when the estimated risk "
            "without it is at most the estimate with it plus τ. The inducer is trained on the subset's columns; "
            "the split (or folds) stays fixed, so the two estimates are paired. τ must exceed their noise "
            "(≈ √(q/m_eval) for q the fraction of rows where the two classifiers disagree; ≤ 0.01 at m_eval = 10,000) "
            "and stay below η, the exact risk step of the previous tab."
        )
        st.latex(r"\widehat R\big(I(D^l_{S\setminus X_i})\big) \le \widehat R\big(I(D^l_S)\big) + \tau")
        f1, f2, f3, f4 = st.columns(4)
        options = ["sample from the toy distribution"] + (["current dataset"] if kind == "dataset" else [])
        data_kind = f1.radio("data", options, key="orderings.fin_data", persist_state="session")
        inducer = f2.selectbox("inducer", list(INDUCERS), index=list(INDUCERS).index("tree"),
                               key="orderings.fin_inducer",
                               format_func=lambda k: INDUCERS[k][0],
                               help="  \n".join(f"**{v[0]}**: {INDUCER_NOTES[k]}" for k, v in INDUCERS.items()),
                               persist_state="session")
        estimator = f3.selectbox("risk estimator", list(ESTIMATORS), key="orderings.fin_estimator",
                                 format_func=ESTIMATORS.get,
                                 help="  \n".join(f"**{v}**: {ESTIMATOR_NOTES[k]}" for k, v in ESTIMATORS.items()),
                                 persist_state="session")
        tau = f4.number_input("τ", 0.001, 0.5, 0.02, 0.005, format="%.3f", key="orderings.fin_tau",
                              persist_state="session")
        g1, g2, g3 = st.columns(3)
        m = g1.number_input("rows m", 100, 200_000, 20_000, 1000, key="orderings.fin_m",
                            disabled=data_kind != "sample from the toy distribution", persist_state="session")
        folds = g2.number_input("folds (cross-validation)", 2, 10, 5, key="orderings.fin_folds",
                                disabled=estimator != "cv", persist_state="session")
        seed_f = g3.number_input("seed", 0, 10**6, 0, key="orderings.fin_seed", persist_state="session")
        if data_kind == "sample from the toy distribution" and (note := tolerance_note(float(tau),
                                                                                       ui.exact_eta())):
            st.warning(note, icon=":material/warning:")
        st.caption(f"{INDUCERS[inducer][0]}: {INDUCER_NOTES[inducer]} {ESTIMATORS[estimator]}: "
                   f"{ESTIMATOR_NOTES[estimator]}")
        first_visit = "orderings.fin_auto" not in st.session_state  # run the fast default once so the tab is not empty
        st.session_state["orderings.fin_auto"] = True
        if st.button("Run FBS and FOS", key="orderings.fin_run", type="primary") or first_visit:
            try:
                if data_kind == "current dataset":
                    if source is None:
                        raise FslabError("No features chosen: pick at least one feature of the dataset above.")
                    data = source
                else:
                    data = ui.sample(current_distribution()[1].to_json(), int(m), int(seed_f))
                st.session_state["orderings.fin_result"] = ui.finite(
                    ui.fingerprint(data), data, inducer, estimator, float(tau), int(folds), int(seed_f))
            except FslabError as err:
                st.error(md(err))
        result = st.session_state.get("orderings.fin_result")
        if result is not None:
            for r in (result["fbs"], result["fos"]):
                st.subheader(f"{r.method}: keeps {md(r.names)}")
                title = (f"{r.method} with {INDUCERS[r.inducer][0]}, {ESTIMATORS.get(r.estimator, r.estimator)}, "
                         f"τ = {r.tau:g}")
                st.plotly_chart(theme.chart(decisions_figure(r.steps, r.tau, title=title)),
                                width="stretch", key=f"orderings.fin_{r.method}")
                st.caption("Each check: estimated risk with the feature (blue) and without it (green: removed, "
                           "red: kept); "
                           "the dashed line is the threshold risk-with + τ.")
                st.dataframe(ui.steps_table(r.steps), hide_index=True, width="stretch",
                             key=f"orderings.fin_tab_{r.method}")

# drawn only when opened (issue 34.5): the formula was re-drawn, hidden, on every run of the page
with st.expander("What Peña & Nilsson prove", key="orderings.how", on_change="rerun") as how_open:
    if how_open.open:
        st.markdown(
            "Peña & Nilsson, *On the Complexity of Discrete Feature Selection for Optimal Classification*: the only "
            "rule every distribution obeys is **monotonicity** (a superset never has a larger Bayes risk); beyond "
            "that, **any** ordering of the subsets is possible (Theorem 1), so the best k-subset needs exhaustive "
            "search. The smallest subset with the lowest risk, S*, is different: backward search or a one-shot test "
            "finds it."
        )
        st.latex(r"R(g^*(S)) = \sum_{s} \min_y p(s, y),\qquad T \subseteq S \;\Rightarrow\; R(g^*(S)) \le R(g^*(T))")
