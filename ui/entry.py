"""Make every session go through app.py, even the first one after the server starts.

Why: Streamlit keeps one process-wide flag, ``PagesManager.uses_pages_directory``, set when the first session
starts to "a folder ``pages/`` exists beside the main script". While it is true, Streamlit does not execute
app.py: it builds the legacy multipage navigation from the files in ``pages/`` (raw file names in the sidebar)
and executes the page the URL names (``/selection`` -> pages/selection.py) on its own. Only ``st.navigation``
clears the flag, and only app.py calls it. So a share link opened as the first request after the server starts
ran the page without app.py (no data set, no restored link, no shared sidebar); once anyone had opened ``/``
(which runs app.py, the legacy main page) every later session was fine. ``client.showSidebarNavigation = false``
only hides the legacy list: the page would still run without app.py.

Fix: the first thing a page script does is import ``ui``; :func:`leave_legacy_pages_mode` (called by
``ui/__init__``) notices a legacy run of a page other than the main script, clears the flag the way
``st.navigation`` does, and reruns: the rerun executes app.py, whose ``st.navigation`` resolves the same URL
path (a page's hash is the hash of its URL path in both modes) with the query string intact.
"""

from __future__ import annotations

from pathlib import Path


def _legacy_page_run(ctx) -> bool:
    """True when this code runs inside Streamlit's legacy ``pages/`` navigation, in a page other than app.py."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState

        active = ThreadState.get().active_script_hash  # the page Page.run() is executing ("" or main: app.py)
    except (ImportError, AttributeError):  # another Streamlit version: leave it to Streamlit
        return False
    pages = ctx.pages_manager.get_pages()
    main = Path(ctx.pages_manager.main_script_path).resolve()
    scripts = {h: Path(p["script_path"]).resolve() for h, p in pages.items() if p.get("script_path")}
    # only the legacy navigation lists the main script among the pages (app.py's st.navigation does not); the
    # test is on this run, not on the global flag, so a session that started before another one cleared it
    # is caught too
    return main in scripts.values() and scripts.get(active, main) != main


def leave_legacy_pages_mode() -> None:
    """Inside a legacy run of a page (see the module docstring): switch Streamlit to app.py's navigation and
    rerun. Anywhere else (app.py's own runs, AppTest of app.py, worker processes, plain imports): nothing."""
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None or not _legacy_page_run(ctx):
        return
    PagesManager.uses_pages_directory = False  # what st.navigation does on its first call
    import streamlit as st

    st.rerun()
