"""Nothing in fslab reads the environment at import (issue 15.5): the server's limits (``FSLAB_*``) are read by
``fslab.limits.server_limits()`` on its first call, so a library user's import does not depend on them and a test
can change them."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from fslab import limits as limits_module
from fslab.limits import Limits, server_limits
from fslab.recipe import Recipe, RecipeError

ROOT = Path(__file__).resolve().parents[1]

# Imports fslab and every submodule with os.environ replaced by a mapping that records each key read, then asks
# for the server limits. Modules that need an extra that is not installed are skipped (and printed).
SCRIPT = textwrap.dedent("""
    import importlib, os, pkgutil, sys

    class Recording(dict):
        read = []
        def __getitem__(self, key):
            self.read.append(key)
            return super().__getitem__(key)
        def get(self, key, default=None):
            self.read.append(key)
            return super().get(key, default)
        def __contains__(self, key):
            self.read.append(key)
            return super().__contains__(key)
        def setdefault(self, key, default=None):
            self.read.append(key)
            return super().setdefault(key, default)
        def copy(self):
            return dict(self)

    os.environ = Recording(os.environ)
    import fslab
    names, skipped = ["fslab"], []
    for info in pkgutil.walk_packages(fslab.__path__, "fslab.", onerror=lambda name: skipped.append(name)):
        if info.name == "fslab.__main__":  # runs the command line
            continue
        try:
            importlib.import_module(info.name)
            names.append(info.name)
        except ModuleNotFoundError as err:  # an optional extra (dask, ...) missing here
            if (err.name or "").startswith("fslab"):
                raise
            skipped.append(f"{info.name} ({err.name})")
    read = sorted({k for k in os.environ.read if str(k).startswith("FSLAB_")})
    print("IMPORTED", len(names), "SKIPPED", skipped)
    print("READ_AT_IMPORT", read)
    from fslab.limits import server_limits
    limits = server_limits()
    print("MAX_ROWS", limits.max_rows, "READ_AFTER", "FSLAB_MAX_ROWS" in os.environ.read)
    print("OLD_NAME", fslab.LIMITS is limits, fslab.limits.LIMITS is limits)
""")


@pytest.mark.slow  # imports every module of fslab (scikit-learn, plotly, scipy) in a fresh interpreter: ~5 s
def test_no_fslab_setting_is_read_at_import():
    env = {**os.environ, "FSLAB_MAX_ROWS": "123", "FSLAB_MAX_BOOTSTRAPS": "50", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines())
    assert int(lines["IMPORTED"].split()[0]) >= 60, out.stdout          # every module, not a handful
    assert lines["READ_AT_IMPORT"] == "[]", out.stdout
    assert lines["MAX_ROWS"] == "123 READ_AFTER True"                 # read on the first call, not before
    assert lines["OLD_NAME"] == "True True"                           # LIMITS kept for one release


@pytest.fixture
def server_env(monkeypatch):
    """Set FSLAB_* variables for one test: the cached server limits are forgotten before and after (and a LIMITS
    left in the module by another test's monkeypatch is set aside, so the module's __getattr__ answers)."""
    if "LIMITS" in vars(limits_module):
        monkeypatch.delattr(limits_module, "LIMITS")
    server_limits.cache_clear()
    yield monkeypatch
    server_limits.cache_clear()


def test_server_limits_read_the_environment_once_until_cleared(server_env):
    server_env.setenv("FSLAB_MAX_ROWS", "123")
    first = server_limits()
    assert first.max_rows == 123 and first.max_columns == Limits().max_columns
    server_env.setenv("FSLAB_MAX_ROWS", "456")
    assert server_limits() is first                                    # cached: one read per process
    server_limits.cache_clear()
    assert server_limits().max_rows == 456
    assert limits_module.LIMITS is server_limits()                     # the old name follows


def test_a_link_over_a_lowered_bootstrap_limit_is_refused_naming_it(server_env):
    server_env.setenv("FSLAB_MAX_BOOTSTRAPS", "50")
    assert Recipe.from_query("npfs", {"n": "50"}).choices["n"] == 50
    with pytest.raises(RecipeError, match=r"'n' must be between 2 and 50; got 51 .*FSLAB_MAX_BOOTSTRAPS"):
        Recipe.from_query("npfs", {"n": "51"})
    server_env.setenv("FSLAB_MAX_BOOTSTRAPS", "60")
    server_limits.cache_clear()                                        # a server restarted with a new setting
    assert Recipe.from_query("npfs", {"n": "51"}).choices["n"] == 51


def test_none_means_the_server_limits_outside_the_loaders(server_env):
    from fslab.cost import Cost, over_limit_message
    from fslab.data.data_checks import DataLimitError
    from fslab.data.dataset import Dataset
    from fslab.data.distributions import example1

    server_env.setenv("FSLAB_MAX_ROWS", "5")
    server_env.setenv("FSLAB_MAX_WORK", "10")
    with pytest.raises(DataLimitError, match="the data has 6 rows; the limit is 5 rows"):
        example1().sample(6, seed=0)                                   # a server-side call: capped
    assert "work limit of 10 row-tables" in over_limit_message(Cost("job", 11, 0, 11, 0.0, 0))
    frame = pd.DataFrame({"x": range(8), "y": [0, 1] * 4})
    assert Dataset.from_frame(frame, "y").n_rows == 8                  # a loader: no caps by default
