"""Streamlit-only helpers: cached wrappers, session-state keys, widget groups. fslab/ never imports this."""

import gc
import sys

from .entry import CheckedPackage, leave_legacy_pages_mode
from .preload import preload

# First, while this package's import lock is held: every module app.py and the pages name (ui/preload.py). Before the
# legacy-run check below, which reruns by raising: a failed import of ``ui`` would hand the sessions waiting on it a
# half-made package, and they would import the rest on their own, at the same time. A heavy job's worker never
# imports ``ui`` (its entry point is fslab.limited.serve_job; tests/test_worker_imports.py).
preload()
# Streamlit runs a full garbage collection after every script run (runner.postScriptGC) while its server thread waits
# for the GIL to send the run's last messages: 0.1-0.3 s of every click on this app's heap (plotly, pandas, scipy ...
# 188,000 tracked objects after the preload). Frozen, the modules' objects are left out of every collection; what
# sessions make later (data, tables, figures) is still collected after each run.
gc.freeze()
leave_legacy_pages_mode()  # a page run without app.py (first request after start is a page link): rerun via app.py
sys.modules[__name__].__class__ = CheckedPackage  # ... and the same check on each later `from ui import X`
