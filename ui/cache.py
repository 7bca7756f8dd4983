"""Cached wrappers around fslab calls that pages share. Arguments are primitives so they hash cheaply.

``BOUNDED`` holds the keyword arguments every ``st.cache_data`` in ui/ passes, so a room of users cannot grow
a cache without bound: ``LIMITS.cache_entries`` entries and ``LIMITS.cache_mb`` MB per cached function.
"""

from __future__ import annotations

import streamlit as st

from fslab.limits import LIMITS
from fslab.samples import load_sample

from . import state

BOUNDED = {"max_entries": LIMITS.cache_entries, "max_size": f"{LIMITS.cache_mb}MB"}


@st.cache_data(show_spinner="Loading sample data...", **BOUNDED)
def sample_encoded(name: str, method: str = "mean-std", bins: int = 3):
    """A shipped sample data set in the paper's encoding, discretised."""
    return load_sample(name).discretize(method=method, bins=bins)


def ensure_default_dataset() -> None:
    """First visit: the default sample is ready, so every page shows something on the first click."""
    if state.get_dataset()[1] is None:
        state.set_dataset(f"{state.DEFAULT_SAMPLE} (sample)", sample_encoded(state.DEFAULT_SAMPLE),
                          spec={"sample": state.DEFAULT_SAMPLE})
