"""The app's first page, on a fresh server, imports neither scikit-learn nor scipy.stats (issue 26: the cold first
paint paid 0.5-2 s for scikit-learn through ui.compare -> fslab.curves; the learners load when Compare runs), and
the Orderings page's first draw does not import scikit-learn (fslab.pena_nilsson.finite makes its estimators on use)."""

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
heavy = sorted(m for m in ("sklearn", "scipy.stats", "dask", "duckdb", "ibis") if m in sys.modules)
assert not heavy, f"the first page imported {heavy}"
at.switch_page("pages/orderings.py").run()   # its first tab; FBS/FOS import the learners when they run
assert not at.exception, at.exception
assert "sklearn" not in sys.modules, "the Orderings page's first draw imported scikit-learn"
"""


def test_home_on_a_fresh_server_imports_no_learner_library():
    done = subprocess.run([sys.executable, "-c", CODE, str(ROOT / "app.py")], cwd=ROOT, capture_output=True,
                          text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
