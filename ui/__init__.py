"""Streamlit-only helpers: cached wrappers, session-state keys, widget groups. fslab/ never imports this."""

from .entry import leave_legacy_pages_mode

leave_legacy_pages_mode()  # a page run without app.py (first request after start is a page link): rerun via app.py
