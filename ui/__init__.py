"""Streamlit-only helpers: cached wrappers, session-state keys, widget groups. fslab/ never imports this."""

import sys

from .entry import CheckedPackage, leave_legacy_pages_mode
from .preload import preload

# First, while this package's import lock is held: every module app.py and the pages name (ui/preload.py). Before the
# legacy-run check below, which reruns by raising: a failed import of ``ui`` would hand the sessions waiting on it a
# half-made package, and they would import the rest on their own, at the same time. A heavy job's worker never
# imports ``ui`` (its entry point is fslab.limited.serve_job; tests/test_worker_imports.py).
preload()
leave_legacy_pages_mode()  # a page run without app.py (first request after start is a page link): rerun via app.py
sys.modules[__name__].__class__ = CheckedPackage  # ... and the same check on each later `from ui import X`
