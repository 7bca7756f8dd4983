"""Make every session go through app.py, even the first one after the server starts.

Why: Streamlit keeps one process-wide flag, ``PagesManager.uses_pages_directory``, set when the first session
starts to "a folder ``pages/`` exists beside the main script". While it is true, Streamlit does not execute
app.py: it builds the legacy multipage navigation from the files in ``pages/`` (raw file names in the sidebar)
and executes the page the URL names (``/selection`` -> pages/selection.py) on its own. Only ``st.navigation``
clears the flag, and only app.py calls it. So a share link opened as the first request after the server starts
ran the page without app.py (no data set, no restored link, no shared sidebar); once anyone had opened ``/``
(which runs app.py, the legacy main page) every later session was fine. ``client.showSidebarNavigation = false``
only hides the legacy list: the page would still run without app.py.

Fix: every page runs ``from ui import ...`` on every run, and :class:`CheckedPackage` (the ``ui`` package's
class) calls :func:`leave_legacy_pages_mode` on that access: it notices a legacy run of a page other than the
main script, clears the flag the way ``st.navigation`` does, and reruns; the rerun executes app.py, whose
``st.navigation`` resolves the same URL path (a page's hash is the hash of its URL path in both modes) with the
query string intact. The check is made on each run, not once at import: sessions opened together right after
the start are each in a legacy run, and only the first of them imports ``ui`` (seen: 1 of 4 such sessions
broken with an import-time check only).
"""

from __future__ import annotations

import logging
import types
from functools import cache, lru_cache
from pathlib import Path

LOG = logging.getLogger(__name__)


@lru_cache(maxsize=64)
def _resolved(path: str) -> Path:
    return Path(path).resolve()


def _legacy_page_run(ctx) -> bool:
    """True when this code runs inside Streamlit's legacy ``pages/`` navigation, in a page other than app.py."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState

        active = ThreadState.get().active_script_hash  # the page Page.run() is executing ("" or main: app.py)
    except (ImportError, AttributeError) as exc:  # another Streamlit version: leave it to Streamlit, but say so
        _internals_moved(repr(exc))
        return False
    if not active or active == ctx.pages_manager.main_script_hash:  # app.py itself is running
        return False
    pages = ctx.pages_manager.get_pages()
    main = _resolved(ctx.pages_manager.main_script_path)
    scripts = {h: _resolved(p["script_path"]) for h, p in pages.items() if p.get("script_path")}
    # only the legacy navigation lists the main script among the pages (app.py's st.navigation does not); the
    # test is on this run, not on the global flag, so a session that started before another one cleared it
    # is caught too
    return main in scripts.values() and scripts.get(active, main) != main


@cache
def _internals_moved(reason: str) -> None:
    """Log once per process that this Streamlit moved what the fix reads (tests/test_streamlit_internals.py fails
    on such a version; constraints.txt pins the one it was checked against)."""
    LOG.warning("fslab: this Streamlit moved ThreadState.active_script_hash (%s); a share link opened as the first "
                "request after the server starts may run its page without app.py. Install the tested versions: "
                "pip install -c constraints.txt -r requirements.txt", reason)


def leave_legacy_pages_mode() -> None:
    """Inside a legacy run of a page (see the module docstring): switch Streamlit to app.py's navigation and
    rerun. Anywhere else (app.py's own runs, AppTest, worker processes, plain imports): nothing. In a server,
    legacy runs happen only before the first app.py run, so they are fresh page loads: a rerun loses no click."""
    from streamlit import config
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    # AppTest resets the flag before every run, so each of its runs after the first is a legacy run of the page;
    # a rerun there would drop every button click. The tests are written for that (see tests/test_share_app.py).
    if ctx is None or config.get_option("global.appTest") or not _legacy_page_run(ctx):
        return
    PagesManager.uses_pages_directory = False  # what st.navigation does on its first call
    import streamlit as st

    st.rerun()


class CheckedPackage(types.ModuleType):
    """The ``ui`` package's class: ``from ui import X`` (each page, each run) first checks the run is app.py's."""

    def __getattribute__(self, name: str):
        if not name.startswith("_"):
            leave_legacy_pages_mode()
        return super().__getattribute__(name)
