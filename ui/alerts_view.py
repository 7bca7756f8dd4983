"""The analyst's alerts in the app (issue 33): leaks named prominently, each with a one-click "Leave out <col> and
rerun", and data alerts (high cardinality, associated pairs, imbalance) beside the Data page's type report; the
leak alerts again above every page that selects (app.py), so nobody selects on a leak without seeing it.

The alerts (:func:`fslab.alerts.data_alerts` on the codes the selectors see, plus
:func:`fslab.alerts.one_class_alerts` on the raw values when the table has them) are computed once per dataset
and cached on its key: about 0.3-0.5 s CPU on Adult or Mushroom, so never on every rerun.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from fslab.alerts import Alert, dataset_alerts

from . import state
from .cache import BOUNDED
from .data import UPLOAD_CACHE, isolated, leave_out_current
from .pages import PAGES
from .text import md

# the pages that select, by their title in the navigation (ui.pages.PAGES)
SELECTING = tuple(p.title for p in PAGES if p.recipe in ("select", "by_measure", "compare", "scores", "npfs"))
LEAVE_OUT_ERROR = "fslab.alerts.leave_out_error"   # why the last leave-out could not rebuild the data


def _compute(_encoded, _raw, key: str) -> tuple[Alert, ...]:
    return dataset_alerts(_encoded, _raw)


_shared = st.cache_data(show_spinner="Checking the columns for leaks...", **BOUNDED)(_compute)


def _isolated(_encoded, _raw, key: str) -> tuple[Alert, ...]:
    """An upload's alerts in the capped worker (ui.data.isolated): counting pairs and one-class columns of a 45 MB
    table allocates 50-100 MB for a moment, spent there."""
    return isolated(dataset_alerts, _encoded, _raw)


_session = st.cache_data(show_spinner="Checking the columns for leaks...", **UPLOAD_CACHE)(_isolated)


def alerts_for(encoded, raw, key: str, shared: bool | None = None) -> tuple[Alert, ...]:
    """:func:`dataset_alerts` cached on ``key`` (what built the data): a shipped sample's (``shared``; by default
    a key starting "sample:", the Data page's frame key) in the server's bounded cache, anything else (an upload's
    column names) in this session's only."""
    shared = key.startswith("sample:") if shared is None else shared
    return (_shared if shared else _session)(encoded, raw, key)


def current_key() -> str:
    """The current dataset's key: its descriptor (fslab.recipe, as ``ui.selection.data_key``), its name and shape."""
    data = state.current_data()
    if data is None:
        return ""
    spec = repr(sorted(data.spec.items())) if data.spec else ""
    return f"{spec}|{data.name}|{getattr(data.encoded, 'shape', '')}"


def current_alerts() -> tuple[Alert, ...]:
    """The current dataset's alerts (cached on :func:`current_key`)."""
    data = state.current_data()
    if data is None or data.encoded is None or not hasattr(data.encoded, "feature_names"):
        return ()
    return alerts_for(data.encoded, data.raw, current_key(), shared="sample" in (data.spec or {}))


def _columns(alert: Alert) -> str:
    return " and ".join(f"**{md(c)}**" for c in alert.columns)


def leave_out_label(alert: Alert) -> str:
    return f"Leave out {' and '.join(alert.columns)} and rerun"


def show_leaks(alerts, on_leave_out: Callable, key: str, *, compact: bool = False) -> None:
    """Each leak alert as an error naming its column and why, with its one-click fix (``on_leave_out(columns)``
    runs as the button's callback, before the rerun)."""
    leaks = [a for a in alerts if a.severity == "leak"]
    if not leaks:
        return
    for i, alert in enumerate(leaks):
        head = f"Possible leak: {_columns(alert)}. " if not compact else f"Leak? {_columns(alert)}: "
        st.error(head + md(alert.message), icon=":material/warning:")
        st.button(md(leave_out_label(alert)), key=f"{key}_leave_{i}", on_click=on_leave_out, args=(alert.columns,),
                  help="Leaves the column out of the features (column type 'drop'), rebuilds the data and reruns; "
                       "a link or recipe made afterwards carries the choice.")
    if not compact:
        st.caption("A leak is a column that gives the answer away: the target under another name, or a value "
                   "recorded after the outcome. A selector picks it first, and every estimate looks perfect; on new "
                   "rows, before the outcome is known, the column is not there.")


def show_data_alerts(alerts) -> None:
    """High cardinality, associated pairs and imbalance as one warning list, each with its fix."""
    data = [a for a in alerts if a.severity != "leak"]
    if not data:
        return
    shown = data[:8]
    more = f"\n- ... and {len(data) - 8} more" if len(data) > 8 else ""
    st.warning("**Worth a look:**\n" + "\n".join(f"- {md(a.message)} *Fix:* {md(a.fix)}." for a in shown) + more,
               icon=":material/info:")


def show_error() -> None:
    err = st.session_state.pop(LEAVE_OUT_ERROR, None)
    if err:
        st.error(md(err))


def leave_out(columns) -> None:
    """The button's callback on a page other than Data: rebuild the current dataset without ``columns``."""
    err = leave_out_current(columns)
    if err:
        st.session_state[LEAVE_OUT_ERROR] = err


def above_page(title: str) -> None:
    """app.py, above a page that selects (``title``: st.navigation's page's title): the current dataset's leak
    alerts, compact, with the leave-out button."""
    show_error()
    if title not in SELECTING:
        return
    show_leaks(current_alerts(), leave_out, "page_alerts", compact=True)
