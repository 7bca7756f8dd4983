"""The app's first page, on a fresh server, imports the modules every page names at module level (ui/preload.py:
one session imports them while the others wait, so sessions opened together cannot see a partially initialized
module), and nothing more: no engine (Dask, DuckDB, Ibis) and no module a page only imports when it runs.

Issue 26 had kept scikit-learn out of the first paint (0.5-2 s); since the Compare page imports it at module level
(ui.compare_panels -> fslab.learners), the preload now pays it once per server process, on its first session
(app and Home imports 1.0 -> 1.7 s of CPU, measured at load 1.3), the price of a crash-free cold start for a class."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

pytestmark = [pytest.mark.app, pytest.mark.slow]  # a fresh interpreter: a few seconds of imports

CODE = """
import sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1], default_timeout=300)
at.run()
assert not at.exception, at.exception
engines = sorted(m for m in ("dask", "distributed", "duckdb", "ibis") if m in sys.modules)
assert not engines, f"the first page imported {engines}"
from ui.preload import _is_module, script_modules   # after the run: importing ui preloads
modules = [m for m in script_modules() if m.startswith(("fslab", "ui")) and _is_module(m)]
missing = [m for m in modules if m not in sys.modules]
assert len(modules) > 30 and not missing, missing
"""


def test_home_on_a_fresh_server_has_every_page_module_and_no_engine():
    done = subprocess.run([sys.executable, "-c", CODE, str(ROOT / "app.py")], cwd=ROOT, capture_output=True,
                          text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
