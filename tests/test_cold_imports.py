"""Sessions that start together on a fresh server import the pages' modules at the same time (ui/preload.py): each
page and app.py import ``ui`` first, and six pages' imports run at once in six threads without a partially
initialized module (before: 4-6 of 6 threads failed with "cannot import name ... from partially initialized
module" on every run)."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from ui.preload import script_modules

RACE = r"""
import ast, sys, threading
sys.path.insert(0, ".")
import streamlit  # a server has it before any session starts
pages = [f"pages/{p}.py" for p in ("orderings", "selection", "compare", "npfs", "toy", "by_measure")]
code = {p: "\n".join(ast.unparse(n) for n in ast.parse(open(p).read()).body
                     if isinstance(n, (ast.Import, ast.ImportFrom)) and getattr(n, "module", "") != "__future__")
        for p in pages}
errors, barrier = [], threading.Barrier(len(pages))
def run(p):
    barrier.wait()
    try:
        exec(code[p], {})
    except Exception as e:
        errors.append(f"{p}: {type(e).__name__}: {e}")
threads = [threading.Thread(target=run, args=(p,)) for p in pages]
[t.start() for t in threads]
[t.join() for t in threads]
print("\n".join(errors))
"""


def _first_of_ours(path) -> str:
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
            [node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
        ours = [n for n in names if n.split(".")[0] in ("fslab", "ui")]
        if ours:
            return ours[0]
    return ""


def test_every_script_imports_ui_before_anything_of_ours():
    scripts = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
    assert len(scripts) > 10
    assert {p.name: _first_of_ours(p) for p in scripts} == {p.name: "ui" for p in scripts}


def test_the_preload_list_names_what_the_pages_import():
    names = script_modules()
    assert {"fslab.data.distributions", "fslab.measures", "ui.selection", "fslab.pena_nilsson.finite"} <= set(names)
    assert "fslab.errors.FslabError" in names   # a name, not a module: preload skips it


@pytest.mark.slow   # a fresh interpreter importing the app's modules: ~2.5 s of CPU
def test_six_pages_importing_at_once_get_complete_modules():
    """One run: without the preload 4-6 of the 6 threads failed on every run (3 runs each time), so one catches it."""
    out = subprocess.run([sys.executable, "-c", RACE], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "", out.stdout
