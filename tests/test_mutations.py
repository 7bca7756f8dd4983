"""tools/mutate.py (issue 36.4): every listed mutation of fslab's weights is caught by the fast unit tier."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("fslab_tools_mutate", ROOT / "tools" / "mutate.py")
mutate = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = mutate  # dataclasses look their module up
_spec.loader.exec_module(mutate)


def test_the_mutation_list_matches_the_source():
    """Each snippet occurs exactly once in its file, its replacement compiles, its test files exist; issue 36's
    four beta**2 mutations are listed (a rewrite of the code they name must update the list)."""
    assert not mutate.check_snippets(mutate.MUTATIONS)
    files = [m.file for m in mutate.MUTATIONS if "beta" in m.original and "beta" in m.replacement]
    assert {"fslab/measures/f_beta.py", "fslab/measures/empirical.py", "fslab/learners.py"} <= set(files)
    assert files.count("fslab/measures/empirical.py") == 2 and files.count("fslab/measures/f_beta.py") == 2
    assert len({m.name for m in mutate.MUTATIONS}) == len(mutate.MUTATIONS)


@pytest.mark.slow  # ~20 forked pytest runs: 15-40 s
def test_every_mutation_is_caught():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "mutate.py")], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-3000:]
    assert f"{len(mutate.MUTATIONS)} of {len(mutate.MUTATIONS)} mutations caught" in out.stdout
