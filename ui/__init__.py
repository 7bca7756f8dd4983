"""Streamlit-only helpers: cached wrappers, session-state keys, widget groups. fslab/ never imports this."""

import multiprocessing
import sys

from .entry import CheckedPackage, leave_legacy_pages_mode
from .preload import preload

# First, while this package's import lock is held: every module app.py and the pages name (ui/preload.py). Before the
# legacy-run check below, which reruns by raising: a failed import of ``ui`` would hand the sessions waiting on it a
# half-made package, and they would import the rest on their own, at the same time. Not in a heavy job's worker
# process (ui/heavy.py: it imports ``ui.heavy`` to run one job and serves no session): the pages' modules cost each
# job 1.2 s of CPU at load 4 (3 s at load 27).
if multiprocessing.parent_process() is None:
    preload()
leave_legacy_pages_mode()  # a page run without app.py (first request after start is a page link): rerun via app.py
sys.modules[__name__].__class__ = CheckedPackage  # ... and the same check on each later `from ui import X`
