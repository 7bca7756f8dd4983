"""fslab says its version (issue 25): fslab.__version__, `fslab --version`, and the typed-package marker."""

from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path

import fslab
from fslab.cli import main


def test_version_everywhere(capsys):
    assert fslab.__version__ == version("fslab")
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", fslab.__version__)
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"fslab {fslab.__version__}"


def test_the_package_ships_its_type_hints():
    assert (Path(fslab.__file__).parent / "py.typed").is_file()
    text = (Path(fslab.__file__).parents[1] / "pyproject.toml").read_text()
    assert '"fslab" = ["py.typed"]' in text and "networkx" not in text
