"""Select page helper: k unknown? Ahmed et al.'s footnote 3 stopping rule (fslab.stopping), on request.

The page calls ``render_stopping_rule(source, selector, measure, params, k, "select")`` after the selection. It
shows the rule, asks for the tolerance and the longest search, and runs the greedy search only when the button is
pressed, after checking its predicted cost (fslab.cost.select_cost) against the server's work limit. The answer
is kept in the session per (data, selector, measure, parameters, tolerance, k_max).
"""

from __future__ import annotations

import math

import plotly.graph_objects as go
import streamlit as st

from fslab import terms
from fslab.cost import over_limit_message, select_cost
from fslab.errors import FslabError
from fslab.measures import describe_estimate
from fslab.stopping import STOPPABLE, StoppingResult, select_until_gain_below

from . import theme
from .text import md

STATE = "fslab.stopping.results"


def gains_figure(result: StoppingResult, measure_label: str) -> go.Figure:
    """The gain of each greedy step, the tolerance as a dashed line, the kept steps in blue."""
    steps = list(range(1, len(result.gains) + 1))
    colours = ["#1f77b4" if t <= result.k else "#bbbbbb" for t in steps]
    # an infinite first gain (from C = -inf with no feature: precision / recall's conjunction) has no bar height
    gains = [g if math.isfinite(g) else None for g in result.gains]
    fig = go.Figure(go.Bar(x=steps, y=gains, marker_color=colours, name="gain"))
    if gains and gains[0] is None:
        fig.add_annotation(x=1, y=0, yanchor="bottom", showarrow=False,
                           text="from no rule (C = -inf): always kept")
    fig.add_hline(y=result.tol, line_dash="dash", annotation_text=f"tol = {result.tol:g}")
    fig.update_layout(height=300, margin={"t": 30, "b": 40}, xaxis_title="greedy step t",
                      yaxis_title=f"C(J_t) - C(J_t-1), {measure_label}", showlegend=False)
    return fig


def render_stopping_rule(source, selector: str, measure: str, params: dict, k: int, key: str = "select",
                         estimate: str = "plug-in") -> None:
    """The "k unknown?" expander: footnote 3's rule applied to ``selector`` under ``measure`` on ``source``, with
    the criterion estimated as ``estimate`` says (held out: a step that only fits the sample gains nothing). Drawn
    only when opened (``{key}.stop_open``): its text and boxes were drawn, folded, on every click of the page."""
    with st.expander("k unknown? Stop when a step gains too little (Ahmed et al., footnote 3)", key=f"{key}.stop_open",
                     on_change="rerun") as box:
        if not box.open:
            return
        st.markdown(
            "The paper notes that greedy selection needs no k in advance: stop \"when the difference in feature "
            "criterion across two successive iterations falls below a certain value\" and keep the features chosen "
            "up to that point. Here the search runs up to *k max*, and keeps the features before the first step "
            "whose gain in the criterion is below the tolerance (in the criterion's own units: an error rate, or "
            "bits for MI).")
        if selector not in STOPPABLE:
            st.info(f"The rule reads the criterion of the selected set after each step; choose "
                    f"{' or '.join(STOPPABLE)} to use it.")
            return
        n = int(source.n_features)
        left, right = st.columns(2)
        remembered = st.session_state.get(f"{key}.stop_kmax")
        if remembered is not None and not 1 <= remembered <= n:  # a k max the current data cannot take
            st.session_state[f"{key}.stop_kmax"] = min(n, max(2 * int(k), 10))
        tol = left.number_input("tolerance", min_value=0.0, max_value=1.0, value=0.005, step=0.001, format="%.4f",
                                key=f"{key}.stop_tol", persist_state="session")
        k_max = right.number_input("k max", min_value=1, max_value=n, value=min(n, max(2 * int(k), 10)),
                                   key=f"{key}.stop_kmax", persist_state="session")
        memo = st.session_state.setdefault(STATE, {})
        ident = (id(source), selector, measure, tuple(sorted(params.items())), float(tol), int(k_max), estimate)
        if st.button("Apply the stopping rule", key=f"{key}.stop_run"):
            refusal = over_limit_message(select_cost(source, int(k_max), selector, measure))
            if refusal is not None:
                st.warning(md(refusal))
                return
            try:
                memo.clear()  # one answer per session: the rule is cheap to rerun, the data may be large
                memo[ident] = select_until_gain_below(source, float(tol), int(k_max), selector, measure,
                                                      estimate=estimate, **params)
            except FslabError as exc:
                st.error(md(exc))
                return
        result = memo.get(ident)
        if result is None:
            return
        st.markdown(f"**k = {result.k}**: {md(result.summary())}."
                    + (f" Kept: {', '.join(md(x) for x in result.names)}." if result.names else ""))
        st.caption(f"Gains of the criterion {describe_estimate(estimate)}, the page's estimate"
                   + (": a step that only fits the sample gains nothing held out." if estimate == "cross-fitted"
                      else "."))
        st.plotly_chart(theme.chart(gains_figure(result, terms.label(measure, params))), key=f"{key}.stop_fig",
                        config={"displayModeBar": False})


__all__ = ["gains_figure", "render_stopping_rule"]
