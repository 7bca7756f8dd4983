"""Reproducible installs (issue 25.4): constraints.txt pins one tested version of every dependency that
pyproject.toml declares, each pin inside the declared range; this environment runs those versions; CI and README's
first command install with it."""

from __future__ import annotations

import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]


def pins() -> dict[str, str]:
    out = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, pinned = line.partition("==")
            assert pinned, f"constraints.txt: {line!r} is not a NAME==VERSION pin"
            out[canonicalize_name(name)] = pinned
    return out


def declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        lines += extra
    return [r for r in map(Requirement, lines) if canonicalize_name(r.name) != "fslab"]


def test_every_declared_dependency_is_pinned_inside_its_range():
    pinned = pins()
    missing = sorted({r.name for r in declared() if canonicalize_name(r.name) not in pinned})
    assert not missing, f"constraints.txt has no pin for {missing}: add the tested version"
    outside = [f"{r.name}=={pinned[canonicalize_name(r.name)]} (pyproject: {r.specifier})" for r in declared()
               if not r.specifier.contains(pinned[canonicalize_name(r.name)], prereleases=True)]
    assert not outside, f"pins outside pyproject.toml's ranges: {outside}"


def test_this_environment_runs_the_pinned_versions():
    """`pip install -c constraints.txt` (what .ci/run does) installs exactly the pins; a package upgraded by hand
    shows up here, so the pins stay the versions the suite really ran with (regenerate them: see the file)."""
    differ = []
    for name, pinned in pins().items():
        try:
            have = version(name)
        except PackageNotFoundError:  # an extra this environment did not install
            continue
        if have != pinned:
            differ.append(f"{name}: installed {have}, pinned {pinned}")
    assert not differ, "installed versions differ from constraints.txt: " + "; ".join(differ)


def test_ci_and_readme_install_with_the_constraints():
    ci = (ROOT / ".ci" / "run").read_text()
    # uv's install, and pip's when uv cannot be installed: both with the pins
    assert ("uv pip install -q --python .venv/bin/python -c constraints.txt -r requirements.txt "
            "-r requirements-dev.txt") in ci
    assert "pip install -q -c constraints.txt -r requirements.txt -r requirements-dev.txt" in ci
    readme = (ROOT / "README.md").read_text()
    assert ".venv/bin/pip install -c constraints.txt -r requirements.txt" in readme
