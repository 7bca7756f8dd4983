"""Streamlit-only helpers: cached wrappers, session-state keys, widget groups. fslab/ never imports this."""

import sys

from .entry import CheckedPackage, leave_legacy_pages_mode

leave_legacy_pages_mode()  # a page run without app.py (first request after start is a page link): rerun via app.py
from .preload import preload  # noqa: E402

preload()  # every module app.py and the pages name, imported by one session while the others wait (ui/preload.py)
sys.modules[__name__].__class__ = CheckedPackage  # ... and the same check on each later `from ui import X`
