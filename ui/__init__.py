"""Streamlit-only helpers: cached wrappers, session-state keys, widget groups. fslab/ never imports this."""
