"""The app's modules are out of the garbage collector's reach once ``ui`` is imported (issue 34.5): Streamlit runs a
full collection after every script run (``runner.postScriptGC``) and the server sends the run's last messages only
when it gets the GIL back, so walking the ~188,000 objects of plotly, pandas, scipy and fslab's modules added
0.1-0.3 s to every click (measured in the server: a Home rerun 0.11 -> 0.016 s of CPU)."""

from __future__ import annotations

import gc

import pytest

pytestmark = pytest.mark.slow  # importing ui imports every page's modules (about 2 s)


def test_importing_ui_freezes_the_modules_objects():
    import ui  # noqa: F401  (the package's import freezes what the preload imported)

    assert gc.get_freeze_count() >= 50_000  # without the freeze: 0
