"""Heavy jobs as plain module-level functions, so the app can run them in a worker process that imports fslab only
(``ui.heavy.run_in_worker`` pickles the function by name; a function defined under ``ui/`` would import Streamlit
and the app's pages in the worker). ``suggest_k`` is :func:`fslab.ksuggest.suggest_k` itself (one suggestion)."""

from __future__ import annotations

from .ksuggest import suggest_k, test_measure

__all__ = ["suggest_k", "test_measure"]
