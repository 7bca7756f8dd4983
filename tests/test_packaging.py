"""fslab as a package: the wheel holds every subpackage and the samples; a fresh venv installs and runs it."""

from __future__ import annotations

import os
import subprocess
import sys
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


@pytest.mark.network  # pip fetches the dependencies and the build backend from the package index
@pytest.mark.slow
def test_fresh_venv_installs_and_runs_from_another_directory(tmp_path):
    """`pip install .` in a new venv (build isolation: pyproject's build backend; its dependencies resolved from
    pyproject); then, outside the clone, `import fslab`, a sample, and the `fslab` console script, which is
    ``python -m fslab``. Made cheap for CI: the venv gets no pip of its own (this environment's pip installs into
    it) and pip compiles no bytecode (the three runs compile only what they import)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    pip = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                          "--disable-pip-version-check", "--no-compile", str(ROOT)], capture_output=True, text=True)
    assert pip.returncode == 0, pip.stderr[-2000:]
    away = tmp_path / "elsewhere"
    away.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    code = ("import sys, fslab; d = fslab.load_sample('mushroom'); "
            "print(fslab.__file__); print(d.discretize().X.shape); print('streamlit' in sys.modules)")
    out = subprocess.run([str(venv / "bin" / "python"), "-c", code], cwd=away, env=env,
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0].startswith(str(venv)), out          # the installed copy, not the clone
    assert out[1] == "(8124, 116)" and out[2] == "False"
    cli = subprocess.run([str(venv / "bin" / "fslab"), "select", "mushroom", "--k", "5", "--json"], cwd=away, env=env,
                         capture_output=True, text=True)
    assert cli.returncode == 0, cli.stderr[-2000:]
    assert '"odor=none"' in cli.stdout
    # the console script is the module's main: the same parser, whose help names every command
    helps = [subprocess.run([*argv, "--help"], cwd=away, env=env, capture_output=True, text=True, check=True).stdout
             for argv in ([str(venv / "bin" / "fslab")], [str(venv / "bin" / "python"), "-m", "fslab"])]
    assert helps[0] == helps[1] and "select" in helps[0]
