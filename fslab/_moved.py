"""Old import paths of modules that moved into subpackages (issue 15.5); kept for one release.

``import fslab.samples`` returns the module ``fslab.data.samples`` itself (not a copy), so attributes read,
set or monkeypatched through the old path are the ones the code uses. New code imports the new paths.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

MOVED = {
    **{f"fslab.{name}": f"fslab.data.{name}" for name in (
        "column_stats", "csv_io", "data_checks", "discretize", "distributed", "distributions", "encoded",
        "safe_json", "samples", "synthetic", "target_guess")},
    "fslab.npfs_result": "fslab.npfs.result",
    "fslab.npfs_weighted": "fslab.npfs.weighted",
    "fslab.stability": "fslab.npfs.stability",
    **{f"fslab.{name}": f"fslab.pena_nilsson.{name}" for name in ("finite", "minimal", "orderings", "toy")},
}


class _OldPath(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old dotted name and hands back the module at its new place (imported there, once)."""

    def find_spec(self, fullname, path=None, target=None):
        return importlib.util.spec_from_loader(fullname, self) if fullname in MOVED else None

    def create_module(self, spec):
        module = importlib.import_module(MOVED[spec.name])
        spec.loader_state = module.__spec__  # the import system overwrites __spec__; exec_module puts it back
        return module

    def exec_module(self, module) -> None:
        module.__spec__ = module.__spec__.loader_state


def install() -> None:
    """Serve the old paths after every real finder (a real module of the old name, if any, wins)."""
    if not any(isinstance(finder, _OldPath) for finder in sys.meta_path):
        sys.meta_path.append(_OldPath())
