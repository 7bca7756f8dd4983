"""fslab as a package: the wheel holds every subpackage and the samples; a fresh venv installs and runs it."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_every_subpackage_on_disk_is_in_the_wheel():
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "fslab").rglob("__init__.py")}
    listed = set(_pyproject()["tool"]["setuptools"]["packages"])
    assert listed - {"fslab.sample_data"} == on_disk
    assert _pyproject()["tool"]["setuptools"]["package-dir"] == {"fslab.sample_data": "sample_data"}


def test_every_shipped_sample_file_is_package_data():
    patterns = _pyproject()["tool"]["setuptools"]["package-data"]["fslab.sample_data"]
    shipped = [p for p in (ROOT / "sample_data").iterdir() if p.is_file()]
    assert shipped
    assert all(any(p.match(pattern) for pattern in patterns) for p in shipped), shipped


def test_library_needs_no_streamlit():
    deps = " ".join(_pyproject()["project"]["dependencies"]).lower()
    assert "streamlit" not in deps and "dask" not in deps
    assert "streamlit" in " ".join(_pyproject()["project"]["optional-dependencies"]["app"])


# Run in the fresh venv, which sees this environment's packages: first every installed distribution that fslab's
# declared dependencies do not require (transitively; extras and other platforms' markers left out) is made
# unimportable, as in a venv that installed the declared dependencies alone (an optional import such as pyarrow or
# psutil then falls back as it would there, and an undeclared hard import fails); then `import fslab`, a sample, a
# selection by the command line's main, and `python -m fslab --help`.
IMPORTS = """
import importlib.abc, io, runpy, sys
from contextlib import redirect_stdout
from importlib.metadata import packages_distributions, requires
from packaging.requirements import Requirement

def closure(name, seen):
    key = name.lower().replace("_", "-")
    if key not in seen:
        seen.add(key)
        for line in requires(name) or ():
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                closure(req.name, seen)
    return seen

allowed = closure("fslab", set())
blocked = {top for top, dists in packages_distributions().items()
           if not {d.lower().replace("_", "-") for d in dists} & allowed}

class OnlyDeclared(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.partition(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r} (not a declared dependency)", name=name)

sys.meta_path.insert(0, OnlyDeclared())
try:
    import streamlit
except ModuleNotFoundError:
    print("streamlit blocked")
import fslab
from fslab.cli import main
d = fslab.load_sample("mushroom")
print(fslab.__file__); print(d.discretize().X.shape)
with redirect_stdout(io.StringIO()) as selected:
    code = main(["select", "mushroom", "--k", "2", "--json"])
print(code, '"odor=none"' in selected.getvalue())
sys.argv = ["fslab", "--help"]
runpy.run_module("fslab", run_name="__main__")
"""


@pytest.mark.slow
def test_fresh_venv_installs_and_runs_from_another_directory(tmp_path):
    """`pip install .` of the clone into a new venv (pyproject's build backend, setuptools, builds the wheel; pip
    checks the declared dependencies), then, outside the clone, with the declared dependencies alone importable
    (IMPORTS): `import fslab` finds the installed copy, a sample loads, the command line selects, and the `fslab`
    console script is ``python -m fslab``. Made cheap for CI: the venv sees this environment's site-packages through
    a .pth file instead of installing numpy, pandas, scipy and scikit-learn again (a 300 MB copy), pip builds with
    this environment's setuptools (no network), gets no pip of its own and compiles no bytecode."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_path("
                           "'purelib'))"], capture_output=True, text=True, check=True).stdout.strip()
    (Path(site) / "test-environment.pth").write_text(sysconfig.get_path("purelib") + "\n")
    pip = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                          "--disable-pip-version-check", "--no-compile", "--no-build-isolation", str(ROOT)],
                         capture_output=True, text=True)
    assert pip.returncode == 0, pip.stderr[-2000:]
    away = tmp_path / "elsewhere"
    away.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    run = subprocess.run([str(venv / "bin" / "python"), "-c", IMPORTS], cwd=away, env=env, capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    out = run.stdout.splitlines()
    assert out[0] == "streamlit blocked", out
    assert out[1] == str(Path(site) / "fslab" / "__init__.py"), out     # the installed copy, not the clone
    assert out[2] == "(8124, 116)" and out[3] == "0 True", out          # the selection names odor=none
    # the console script is the module's main: the same parser, whose help names every command
    script = subprocess.run([str(venv / "bin" / "fslab"), "--help"], cwd=away, env=env, capture_output=True,
                            text=True, check=True).stdout
    assert script == "\n".join(out[4:]) + "\n" and "select" in script
