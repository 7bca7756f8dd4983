"""CHANGELOG.md follows Keep a Changelog and names the version pyproject.toml declares (issue 25.3); the installed
package reports that version (fslab.__version__ and `fslab --version` read the metadata: tests/test_version.py)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import fslab

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / "CHANGELOG.md").read_text()
KINDS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def releases() -> list[tuple[str, str]]:
    return re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", TEXT, flags=re.M)


def test_the_newest_release_is_the_package_version():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert releases()[0][0] == declared
    assert fslab.__version__ == declared, "the installed metadata is stale: pip install -e . (or bash .ci/run)"


def test_keep_a_changelog_layout():
    headings = re.findall(r"^## (.*)$", TEXT, flags=re.M)
    assert headings[0] == "[Unreleased]"
    assert len(headings) == 1 + len(releases())  # every other heading is a dated release
    versions = [tuple(map(int, v.split("."))) for v, _ in releases()]
    dates = [d for _, d in releases()]
    assert versions == sorted(versions, reverse=True) and dates == sorted(dates, reverse=True)
    assert set(re.findall(r"^### (.*)$", TEXT, flags=re.M)) <= KINDS
    for version, _ in releases():  # each release links to its diff or tag
        assert re.search(rf"^\[{re.escape(version)}\]: https://\S+$", TEXT, flags=re.M), version
    assert re.search(r"^\[Unreleased\]: https://\S+$", TEXT, flags=re.M)
