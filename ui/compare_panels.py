"""The three panels of the Compare page: side by side, learning curves, binning sensitivity."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext

import streamlit as st

from fslab.compare import DEFAULT_SELECTORS, overlap_matrix
from fslab.cost import compare_cost
from fslab.curves import DEFAULT_CURVE_SELECTORS
from fslab.errors import FslabError
from fslab.export import safe_csv
from fslab.learners import LEARNERS, paper_learner
from fslab.measures import describe_estimate
from fslab.measures import measure as get_measure
from fslab.plots.compare import (
    disagreement_figure,
    learning_curve_figure,
    overlap_figure,
    selector_label,
    step_grid_figure,
)
from fslab.selectors import SELECTORS

from . import compare as uc
from . import guard, heavy
from .link_pages import LINK_PAGES
from .selection import keep_in_range
from .text import md
from .theme import chart, memo_chart, presenting
from .theme import table as theme_table

CURVES_KEY = "compare.curves_request"
BINS_KEY = "compare.bins_request"
CURVES_DONE = "compare.curves_done"  # the request this session last computed
OVERLAP_MIN_WIDTH = 400  # px: 7 selectors' cells still hold "-0.33" legibly


def offered_selectors() -> list[str]:
    """The selectors Compare offers: its page record's rule (ui.link_pages.LINK_PAGES; one criterion for all, so not
    the selectors with a fixed measure of their own), read from the registry on every run."""
    offers = LINK_PAGES["compare"].offers
    return [name for name, spec in SELECTORS.items() if offers(spec)]


def selector_names(text: str) -> str:
    """'bayes-greedy, mi-greedy' -> 'BayesGreedy, MIGreedy'."""
    return ", ".join(selector_label(n) for n in text.split(", "))


def _downloads(files: list[tuple[str, bytes | Callable[[], bytes], str]], prefix: str) -> None:
    """One row of download buttons as wide as their labels, wrapping onto a second row on a narrow page (buttons in
    equal columns cut their labels off at 1024 px)."""
    row = st.container(horizontal=True, key=f"{prefix}.buttons")
    for label, data, name in files:
        row.download_button(label, data, name, "text/csv", on_click="ignore", key=f"{prefix}.{name}")


def _overlap_charts(orders) -> None:
    pair = st.container(key="compare.overlaps") if presenting() else \
        st.grid(2, min_column_width=OVERLAP_MIN_WIDTH, key="compare.overlaps")
    with pair.container():
        st.plotly_chart(chart(overlap_figure(overlap_matrix(orders, "jaccard"))), width="stretch",
                        key="compare.jaccard_chart")
        st.caption("Jaccard |A n B| / |A u B| of two selected sets: 1 = the same features, 0 = none shared.")
    with pair.container():
        st.plotly_chart(chart(overlap_figure(overlap_matrix(orders, "rank_correlation"), "rank_correlation")),
                        width="stretch", key="compare.tau_chart")
        st.caption("Kendall tau-b of the pick steps over the features of both sets (not picked = rank k + 1): "
                   "1 = the same features in the same order, negative = opposite orders.")


def side_by_side_panel(kind: str, source_name: str, source, measure_name: str, params: dict, k: int,
                       estimate: str = "plug-in") -> None:
    """Selections of several selectors for the same k: grid, overlaps, disagreements (Bayes value vs MI), every
    criterion and value in ``estimate``."""
    m = get_measure(measure_name, **params)
    if "compare.selectors" not in st.session_state:
        st.session_state["compare.selectors"] = list(DEFAULT_SELECTORS)
    with st.popover(f"Selectors ({len(st.session_state['compare.selectors'])})"):  # compact: the result first
        chosen = st.multiselect("Selectors", offered_selectors(), key="compare.selectors",
                                format_func=selector_label, persist_state="session")
    try:
        if not chosen:
            raise FslabError("choose at least one selector")
        job = compare_cost(source, k, tuple(chosen), measure_name)  # refused or asked before work (ui/guard.py)
        if not guard.allowed(job, ("compare", uc.token(source), k, chosen, measure_name, sorted(params.items()),
                                   estimate)):
            return
        cmp = uc.side_by_side(uc.token(source), source, k, tuple(chosen), measure_name, tuple(sorted(params.items())),
                              estimate)
    except FslabError as err:
        st.error(md(err))
        return
    exact = ("exact values of the distribution" if kind == "distribution" else
             f"{describe_estimate(estimate)} values on the sample")
    st.markdown(f"**{len(chosen)} selectors, k = {k}, {m.label}** on *{md(source_name)}* ({exact}).")
    better = "higher" if m.greater_is_better else "lower"
    subsets = cmp.subsets.rename(columns={"bayes_value": f"{m.label} of the set ({better} is better)",
                                          "mi_bits": "MI of the set (bits)"})
    subsets["selector"] = subsets["selector"].map(selector_label)
    # a static table wraps the feature lists, so none is cut on a 1024 px screen (a data grid cut "spore-print-")
    st.table(subsets.style.format({c: "{:.4f}" for c in subsets.columns[2:]}), hide_index=True)
    if cmp.optimal is not None:
        names = ", ".join(cmp.feature_names[j] for j in cmp.optimal)
        found = [selector_label(n) for n, ok in zip(cmp.subsets["selector"], cmp.subsets["optimal"], strict=True)
                 if ok]
        st.success(f"Exact k-optimal subset (exhaustive search): {md(names)} with {m.label} = {cmp.optimal_value:.4f}. "
                   f"Found by: {', '.join(found) or 'none of these selectors'}.")
    elif cmp.note:
        st.info(cmp.note)
    # both figures are built once per comparison and reused by the reruns that keep it (ui.theme.memo_chart)
    drawn = (uc.token(source), k, tuple(chosen), measure_name, tuple(sorted(params.items())), estimate)
    grid = cmp.grid()
    st.plotly_chart(memo_chart(("compare.grid", drawn), lambda: step_grid_figure(grid)), width="stretch",
                    key="compare.grid_chart")
    st.caption("Each cell is the step (1 = first) at which a selector picked the feature; blank = not picked.")
    # the pairwise overlaps summarise the grid above: folded, and drawn only when opened (two charts less on every
    # visit); inside, side by side where each gets OVERLAP_MIN_WIDTH px, else (a 1024 px screen with the sidebar open)
    # one under the other; always stacked in presentation mode, where the projector wants big cells
    overlaps = st.expander("How much do the selections overlap? Jaccard and Kendall tau of every pair",
                           key="compare.overlaps_open", on_change="rerun")
    if overlaps.open:
        with overlaps:
            _overlap_charts(cmp.orders())
    dis = cmp.disagreements()
    if dis.empty:
        st.info("Every selector chose the same features: there is no disagreement to explain.")
    else:
        st.markdown("**Where they disagree, and why.** A feature with a better single-feature Bayes value but a "
                    "lower MI is one the measure wants and MI passes over, and the other way round.")
        st.plotly_chart(memo_chart(("compare.disagree", drawn), lambda: disagreement_figure(dis, m.label)),
                        width="stretch", key="compare.disagree_chart")
        better = "longer" if m.greater_is_better else "shorter"
        st.caption(f"{m.label} of the Bayes classifier on the feature alone (left; {better} is better) and "
                   "I(X_j; Y) in bits (right; longer is more informative), for each feature some but not all "
                   "selectors picked; hover a bar to see who picked it.")
        table = dis[["name", "bayes_value", "mi_bits"]].rename(columns={"bayes_value": m.label, "mi_bits": "MI (bits)"})
        table["picked by"] = dis["picked_by"].map(selector_names)
        theme_table(table)  # static: a data grid made the page's click slower to settle (issue 34.5)
    def features():  # the measure in its own terms (bayes_value), not the signed criterion
        orders = cmp.orders()
        return cmp.features.assign(picked_by=[", ".join(n for n, f in orders.items() if j in f)
                                              for j in cmp.features.index]).drop(columns="criterion")

    # made when clicked (a callable): the pairwise overlaps' rank correlations were a fifth of each run of the page
    _downloads([("Grid (CSV)", lambda: safe_csv(grid, index=True), "compare_grid.csv"),
                ("Overlap (CSV)", lambda: safe_csv(cmp.overlap(), index=False), "compare_overlap.csv"),
                ("Feature values (CSV)", lambda: safe_csv(features(), index=True), "compare_features.csv"),
                ("Selected sets (CSV)", lambda: safe_csv(cmp.subsets, index=False), "compare_subsets.csv")],
               "compare.dl")


def curves_panel(kind: str, source_name: str, source, measure_name: str, params: dict,
                 estimate: str = "plug-in") -> None:
    """Test measure vs k per selector over repeated splits (Section 4 protocol), with progress and stop; each
    split's selection made with ``estimate`` (the page's) on its training rows."""
    st.markdown("Each split trains the selector **and** the learner on the training part only and scores the "
                "test part; the curve is the mean over splits, the bars one standard deviation. The selection is "
                "computed once per split at the largest k and truncated (greedy and ranking selectors are "
                "prefix-consistent). The paper uses 5 splits, 70/30 (Adult 20/80) and tunes hyper-parameters on "
                "20% of the training part; the fast default subsamples and uses 3 splits.")
    data = source
    if kind == "distribution":
        rows = st.number_input("Rows to sample from the distribution", 200, 200_000, 5_000, 500,
                               key="compare.curve_rows", persist_state="session")
        data = uc.sampled(uc.token(source), source, int(rows))
    full = st.toggle("Full protocol (5 splits, every row, tuned hyper-parameters)", key="compare.full",
                     persist_state="session")
    selectors = st.multiselect("Selectors", offered_selectors(), default=list(DEFAULT_CURVE_SELECTORS),
                              key="compare.curve_selectors", format_func=selector_label, persist_state="session")
    b, c = st.columns(2)
    n = data.n_features
    if n > 1:
        keep_in_range("compare.k_max", 1, min(15, n), min(8, n))
        k_max = b.slider("k up to", 1, min(15, n), min(8, n), key="compare.k_max", persist_state="session")
    else:  # a slider from 1 to 1 is refused by Streamlit
        k_max = 1
        b.caption("One feature: the curve has the single point k = 1.")
    learner_names = list(LEARNERS)
    learner = c.selectbox("Learner", learner_names, index=learner_names.index(paper_learner(measure_name)),
                          key=f"compare.learner.{measure_name}", format_func=lambda x: LEARNERS[x].label,
                          persist_state="session")
    d, e, f = st.columns(3)
    splits = d.slider("Splits", 1, 10, 3, key="compare.splits", disabled=full, persist_state="session")
    adult = source_name.lower().startswith("adult")
    train = e.slider("Training fraction", 0.1, 0.9, 0.2 if adult else 0.7, 0.05, key="compare.train",
                     persist_state="session")
    subsample = f.number_input("Subsample rows (0 = all)", 0, 500_000, 2_000, 500, key="compare.subsample",
                               disabled=full, persist_state="session")
    tune = st.checkbox("Tune hyper-parameters on 20% of the training part", key="compare.tune", disabled=full,
                       persist_state="session")
    if full:
        splits, subsample, tune = 5, 0, True
        fits = splits * len(selectors) * k_max * len(LEARNERS[learner].grid)
        if data.n_rows * train > 5_000 and learner.startswith("svm"):
            st.warning(f"The full protocol fits an RBF SVM on {int(data.n_rows * train):,} rows up to {fits:,} "
                       "times (tuning included): expect a long run. *Stop* interrupts it.")
    if kind == "distribution":  # rows drawn from a toy distribution: the page's values are exact, select as the papers
        estimate = "plug-in"
    st.caption(f"Each split selects on its training rows with the page's estimate: **{describe_estimate(estimate)}**"
               + (" (folds of the training rows only), so a column that merely fits the training rows is not picked."
                  if estimate == "cross-fitted" else ", as in the papers.")
               + " The learner is then scored on the split's test rows.")
    request = (uc.token(data), tuple(selectors), measure_name, tuple(sorted(params.items())), k_max, learner,
               splits, train, subsample, tune, estimate)
    run, stop, _ = st.columns([2, 1, 4])
    if run.button("Compute learning curves", type="primary", key="compare.run_curves"):
        st.session_state[CURVES_KEY] = request
    if stop.button("Stop", key="compare.stop_curves"):
        st.session_state.pop(CURVES_KEY, None)
        st.info("Stopped. Change the settings or press *Compute learning curves* again.")
    if st.session_state.get(CURVES_KEY) != request:
        st.caption("Press *Compute learning curves* to run the protocol with these settings.")
        return
    try:
        # a new run waits for a heavy-work slot; redrawing a result this session already has does not
        fresh = st.session_state.get(CURVES_DONE) != request
        with heavy.heavy_slot() if fresh else nullcontext():
            result = uc.curves(uc.token(data), data, tuple(selectors), measure_name, k_max,
                               tuple(sorted(params.items())), learner, splits, train, tune, subsample or None, 0,
                               estimate)
        st.session_state[CURVES_DONE] = request
    except FslabError as err:
        st.error(md(err))
        return
    summary = result.summary()
    m = get_measure(measure_name, **params)
    st.plotly_chart(chart(learning_curve_figure(summary, m.label, LEARNERS[result.learner].label,
                                                result.greater_is_better)), width="stretch", key="compare.curves_chart")
    st.caption(f"Test {m.label} against the number of selected features, mean over {splits} split(s) with one "
               f"standard deviation, each split's features selected {result.estimate_label} on its training rows; "
               f"computed in {result.seconds:.1f} s (the paper's Figures 1, 2 and 4).")
    table = summary.assign(selector=summary["selector"].map(selector_label)).pivot(
        index="k", columns="selector", values="mean")
    st.dataframe(table.style.format("{:.4f}"), key="compare.curves_table")
    _downloads([("Per-split scores (CSV)", safe_csv(result.scores, index=False), "curves_scores.csv"),
                ("Mean and spread (CSV)", safe_csv(summary, index=False), "curves_summary.csv"),
                ("Selections per split (CSV)", safe_csv(result.selections, index=False), "curves_selections.csv")],
               "compare.dl_curves")


def binning_panel(source_name: str, source, measure_name: str, params: dict, k: int,
                  estimate: str = "plug-in") -> None:
    """The selected set under mean-std, quantile and equal-width binning with 3, 5 and 10 bins (selections made
    with ``estimate``)."""
    st.markdown("Real-valued columns must be discretised before any table-based criterion can be computed. Does "
                "the answer depend on how? The same selector and k are run after seven discretisations: mean "
                "+- one standard deviation (the paper's footnote 6), quantile and equal-width with 3, 5 and 10 bins.")
    raw = uc.raw_dataset(source_name)
    if raw is None:
        st.info("Binning sensitivity needs a dataset with its raw values: pick a sample on the Home page or "
                "upload a CSV on the Data page, and choose *Dataset* above.")
        return
    selector = st.selectbox("Selector", offered_selectors(), key="compare.bin_selector", format_func=selector_label,
                            persist_state="session")
    settings = tuple(sorted(params.items())) if SELECTORS[selector].uses_measure else ()
    request = (source_name, selector, measure_name, settings, k, estimate)
    if st.button("Run binning sensitivity", key="compare.run_bins"):
        st.session_state[BINS_KEY] = request
    if st.session_state.get(BINS_KEY) != request:
        st.caption("Press *Run binning sensitivity* to select under each binning.")
        return
    try:
        res = uc.binnings(uc.token(raw), raw, k, selector, measure_name, settings, estimate)
    except FslabError as err:
        st.error(md(err))
        return
    if not res.numeric:
        st.info("No column of this dataset is real-valued: every binning gives the same codes and the same answer.")
    else:
        st.markdown(f"{len(res.numeric)} real-valued column(s) change with the binning. Selected under every "
                    f"binning: **{md(', '.join(res.stable())) or 'none'}**.")
    grid = res.grid()
    st.plotly_chart(chart(step_grid_figure(grid, "Step at which each binning's selection picked each feature")),
                    width="stretch", key="compare.bins_grid")
    st.caption(f"{selector_label(selector)}, k = {k}, every binning selected {res.estimate_label}: the step at "
               "which the feature "
               "was picked under each discretisation; a row filled across means the choice does not depend on the "
               "binning.")
    jac = res.jaccard_matrix()
    st.plotly_chart(chart(overlap_figure(jac)), width="stretch", key="compare.bins_jaccard")
    st.caption("Jaccard overlap of the selected sets of each pair of binnings.")
    _downloads([("Binning grid (CSV)", safe_csv(grid, index=True), "binning_grid.csv"),
                ("Binning overlap (CSV)", safe_csv(res.overlap(), index=False), "binning_overlap.csv")],
               "compare.dl_bins")
