"""One analysis per dataset across the pages: what Select chose (or a link, or the data's defaults) is what Compare,
Scores, By measure and NPFS open on.

The record is :class:`ui.state.Chosen` (measure and parameters, k, estimate, selector, pick). Select records it on
every run; a link or recipe records its own values when it opens (so they win over any inherited value); with
neither, an upload's defaults are the Select page's: the balanced error for a binary target and k by the held-out
stopping rule (``ui.selection.honest_k``). A page takes a record once (its marker ``<prefix>.inherited`` holds the
record's data key and serial), so a change the user makes on that page stands until the record changes again.
"""

from __future__ import annotations

import streamlit as st

from fslab.measures import PARAMETERS, supported_measures

from . import state
from .selection import data_key, honest_k, own_data, own_measure_default, run_selection, source_key

DEFAULT_SELECTOR = "bayes-greedy"


def _params(params: dict) -> tuple:
    return tuple(sorted(params.items()))


def record_select(kind: str, selector: str, measure: str, params: dict, k: int, estimate: str, names=()) -> None:
    """The Select page's settings and pick become the dataset's analysis (nothing for an exact distribution)."""
    if kind != "dataset":
        return
    chosen = state.set_chosen(st.session_state, state.Chosen(data_key(), measure, _params(params), int(k), estimate,
                                                             selector, tuple(str(n) for n in names), "select"))
    st.session_state["select.inherited"] = (chosen.data, chosen.serial)


def record_link(prefix: str, choices: dict) -> None:
    """A link's or recipe's values on the dataset it opened become the dataset's analysis, and its page keeps
    them (called by ``ui.share.apply`` after the data and the widget values are in place)."""
    measure = choices.get("measure") or next(iter(choices.get("measures") or ()), None)
    if measure is None or "k" not in choices:
        chosen = state.get_chosen(st.session_state, data_key())
    else:
        params = {name: v for name, v in choices.items() if name in PARAMETERS}
        chosen = state.set_chosen(st.session_state, state.Chosen(
            data_key(), measure, _params(params), int(choices["k"]), choices.get("estimate", "plug-in"),
            choices.get("selector"), (), "link"))
    if chosen is not None:
        st.session_state[f"{prefix}.inherited"] = (chosen.data, chosen.serial)


def data_defaults(source_name: str, source) -> state.Chosen | None:
    """An upload's defaults, as the Select page sets them on its first visit: the balanced error for a binary
    target (else the first measure that fits), held out, k by the held-out stopping rule with BayesGreedy (5 when
    that search would be slow), and its pick. None for shipped samples: each page keeps the papers' defaults."""
    if not own_data():
        return None
    options = supported_measures(source)
    measure = own_measure_default(source, options) or options[0]
    key = source_key("dataset", source_name, source)
    honest = honest_k(key, source, DEFAULT_SELECTOR, measure, {})
    k = honest[0] if honest is not None else min(5, source.n_features)
    names: tuple[str, ...] = ()
    if honest is not None:  # the stopping rule ran this search: it is in the session's memo
        sel = run_selection(key, source, min(10, source.n_features), DEFAULT_SELECTOR, measure, None, {},
                            estimate="cross-fitted")
        names = tuple(sel.names[:k])
    return state.Chosen(data_key(), measure, (), int(k), "cross-fitted", DEFAULT_SELECTOR, names, "defaults")


def chosen_for(kind: str, source_name: str, source) -> state.Chosen | None:
    """The current dataset's analysis: recorded (Select, a link), else the data's defaults (recorded now)."""
    if kind != "dataset":
        return None
    found = state.get_chosen(st.session_state, data_key())
    if found is not None:
        return found
    defaults = data_defaults(source_name, source)
    return None if defaults is None else state.set_chosen(st.session_state, defaults)


def inherit(prefix: str, kind: str, source_name: str, source, *, measures: list[str] | None = None,
            measure_list: list[str] | None = None, k_top: int | None = None, selectors: list[str] | None = None,
            selector_key: str = "selector", estimate: bool = True, ticks: bool = False) -> state.Chosen | None:
    """Before the page draws its widgets: put the dataset's analysis into the widget keys ``<prefix>.<name>`` once
    per record: the measure when among ``measures`` (the page's offer; with ``measure_list``, the page's default
    list, it goes first in the list ``<prefix>.measures``) with its parameters, k (at most ``k_top``), the selector
    (when among ``selectors``) into ``<prefix>.<selector_key>``, the estimate, and with ``ticks`` the pick
    (``<prefix>.ticked``). Returns the record (None when there is none: an exact distribution or a sample no page
    has chosen on)."""
    chosen = chosen_for(kind, source_name, source)
    if chosen is None:
        return None
    marker = f"{prefix}.inherited"
    mark = st.session_state.get(marker)
    if mark is not None and mark[0] == chosen.data and mark[1] >= chosen.serial:
        return chosen
    st.session_state[marker] = (chosen.data, chosen.serial)
    ss = st.session_state
    if measures is not None and chosen.measure in measures:
        if measure_list is not None:
            kept = ss.get(f"{prefix}.measures") or measure_list
            ss[f"{prefix}.measures"] = [chosen.measure, *(m for m in kept if m != chosen.measure)]
        else:
            ss[f"{prefix}.measure"] = chosen.measure
        for name, value in chosen.params:
            ss[f"{prefix}.{name}"] = value
    if k_top is not None:
        ss[f"{prefix}.k"] = max(1, min(int(chosen.k), int(k_top)))
    if selectors is not None and chosen.selector in selectors:
        ss[f"{prefix}.{selector_key}"] = chosen.selector
    if estimate:
        ss[f"{prefix}.estimate"] = chosen.estimate
        ss[f"{prefix}.estimate_for"] = data_key()
    if ticks and chosen.features:
        ss[f"{prefix}.ticked"] = list(chosen.features)
        ss.pop(f"{prefix}.table", None)  # the editor's own edits would hide the new ticks
    return chosen


def inherited_note(chosen: state.Chosen | None) -> str | None:
    """One caption saying where the page's opening settings came from (None when nothing was inherited)."""
    if chosen is None:
        return None
    who = {"select": "the Select page", "link": "the link that opened this data",
           "defaults": "your data's defaults (as on the Select page)"}[chosen.origin]
    return f"Opened with the measure and k of {who}; change them freely here."
