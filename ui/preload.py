"""Every module the app's pages name, imported once, by one session, before any page imports on its own.

Why: each session runs its script in its own thread. On a freshly started server, sessions opened together (a class
opening the teacher's links) import fslab, ui, scipy, plotly ... at the same time, and CPython's per-module import
locks hand a thread a *partially initialized* module whenever two threads wait on each other's imports (its
"concurrent circular import" rule): seen as ``ImportError: cannot import name 'Distribution' from partially
initialized module 'fslab.data.distributions'`` on 1 to 5 of 6 cold links opened at once. The ``ui`` package imports
this list from its ``__init__``; app.py and every page import ``ui`` before anything else of ours, so the first
session imports everything while holding ``ui``'s module lock and the others wait for it, then find every module
complete. Later runs cost a dict lookup per import.
"""

from __future__ import annotations

import ast
import importlib
import logging
import sys
from pathlib import Path

LOG = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ("app.py", "pages")   # the scripts whose module-level imports are made here


def script_modules(root: Path = ROOT) -> list[str]:
    """The modules named by a module-level ``import`` / ``from ... import`` of app.py and pages/*.py, in order;
    ``from a import b`` names ``a`` and, where it is a submodule, ``a.b``."""
    names: list[str] = []
    for path in [root / "app.py", *sorted((root / "pages").glob("*.py"))]:
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Import):
                names += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names += [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    return list(dict.fromkeys(names))


def _is_module(name: str) -> bool:
    """Whether ``a.b`` names a submodule of the package ``a`` (a file or folder in its path), without asking the
    import system (a failed submodule lookup runs every finder, and fslab's facade loads scikit-learn on an
    unknown attribute)."""
    parent, _, child = name.rpartition(".")
    package = sys.modules.get(parent)
    if package is None:   # a module named by ``from a.b import c`` before its package is imported: the import decides
        return True
    return any((Path(entry) / child).is_dir() or (Path(entry) / f"{child}.py").is_file()
                               for entry in getattr(package, "__path__", ()))


def preload() -> None:
    """Import :func:`script_modules` (those not yet imported; a name that is not a module, ``from a import f``, is
    skipped). A failure stops the preload quietly: the page's own import then fails where it always did, with its
    usual message (app.py checks the server's settings before importing the rest of ui/)."""
    for name in script_modules():
        if name in sys.modules or name == "ui" or not _is_module(name):
            continue
        try:
            importlib.import_module(name)
        except Exception as err:   # noqa: BLE001 (the page's own import reports it)
            LOG.debug("preload stopped at %s: %s", name, err)
            return
