"""The Streamlit internals ui/entry.py and ui/warm.py rely on are where this code expects them (issue 25.4).

Both modules fall back quietly at run time (a moved internal costs a feature, not the app), and log a warning; this
test is what fails loudly. On a failure here: check the new Streamlit's equivalents, adapt ui/entry.py or
ui/warm.py, and only then move the pin in constraints.txt.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
import re
import sys
import types
from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

from ui import entry, warm

# a page that records what ui/entry.py reads, in the run Streamlit makes of it
PROBE = """
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState
from ui.entry import _legacy_page_run

ctx = get_script_run_ctx()
pm = ctx.pages_manager
st.session_state["{key}"] = dict(active=ThreadState.get().active_script_hash, main_hash=pm.main_script_hash,
                                 main_path=pm.main_script_path,
                                 scripts=[p["script_path"] for p in pm.get_pages().values()],
                                 legacy=_legacy_page_run(ctx))
"""


def test_the_internals_ui_entry_reads_exist():
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner_utils.script_run_context import FragmentThreadState, ThreadState

    assert "active_script_hash" in {f.name for f in dataclasses.fields(FragmentThreadState)}
    assert isinstance(inspect.getattr_static(ThreadState, "get"), staticmethod)
    assert "uses_pages_directory" in vars(PagesManager)  # the process-wide flag st.navigation clears
    for name in ("main_script_hash", "main_script_path", "get_pages"):
        assert hasattr(PagesManager, name), name
    assert st.config.get_option("global.appTest") in (True, False)


def test_a_legacy_page_run_is_recognised_and_app_py_is_not(tmp_path):
    """A folder with a main script and pages/: AppTest runs a switched-to page the legacy way (it resets the
    flag on each run), which is exactly the run ui/entry.py must recognise; the main script's own run is not."""
    (tmp_path / "pages").mkdir()
    (tmp_path / "main.py").write_text(PROBE.format(key="main"))
    (tmp_path / "pages" / "other.py").write_text(PROBE.format(key="other"))
    at = AppTest.from_file(str(tmp_path / "main.py"), default_timeout=30).run()
    assert not at.exception
    main = at.session_state["main"]
    assert main["legacy"] is False
    assert (tmp_path / "main.py").resolve() in {Path(p).resolve() for p in main["scripts"]}  # the legacy page list
    at.switch_page("pages/other.py").run()
    assert not at.exception
    other = at.session_state["other"]
    assert Path(other["main_path"]).resolve() == (tmp_path / "main.py").resolve()
    assert other["active"] != other["main_hash"]
    assert (tmp_path / "pages" / "other.py").resolve() in {Path(p).resolve() for p in other["scripts"]}
    assert other["legacy"] is True


def test_a_moved_thread_state_is_logged_not_silent(monkeypatch, caplog):
    monkeypatch.setitem(sys.modules, "streamlit.runtime.scriptrunner_utils.script_run_context",
                        types.ModuleType("moved"))
    entry._internals_moved.cache_clear()
    with caplog.at_level(logging.WARNING, logger="ui.entry"):
        assert entry._legacy_page_run(None) is False
    entry._internals_moved.cache_clear()
    assert "moved ThreadState.active_script_hash" in caplog.text and "constraints.txt" in caplog.text


def test_the_renderers_ui_warm_preloads_exist():
    static = Path(st.__file__).parent / "static"
    names = warm.element_scripts()
    assert [n.split('.')[0] for n in names] == list(warm.ELEMENTS), f"missing under {static / 'static' / 'js'}"
    assert all((static / "static" / "js" / n).is_file() for n in names)
    # the script resolves them against the page's main script, found by this selector
    assert re.search(r'<script[^>]+src="[^"]*/static/js/index\.[^"]+\.js"', (static / "index.html").read_text())
    assert 'script[src*="/static/js/index."]' in warm.WARM
    assert "unsafe_allow_javascript" in inspect.signature(st.sidebar.html).parameters
    assert "persist_state" in inspect.signature(st.sidebar.toggle).parameters


def test_a_missing_renderer_is_logged(monkeypatch, tmp_path, caplog):
    monkeypatch.setattr(st, "__file__", str(tmp_path / "__init__.py"))
    warm.element_scripts.cache_clear()
    try:
        with caplog.at_level(logging.WARNING, logger="ui.warm"):
            assert warm.element_scripts() == ()
            assert warm.warm_script() is None
    finally:
        warm.element_scripts.cache_clear()
    assert "no PlotlyChart.*.js" in caplog.text
