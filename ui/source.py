"""The widget that lets a page run on the current dataset or on the current toy distribution."""

from __future__ import annotations

import streamlit as st

from fslab.data.distributions import example1
from fslab.pena_nilsson.toy import PRESETS

from . import state
from .text import md


def current_distribution():
    """(name, Distribution): the toy distribution of this session, the Bayes paper's Example 1 by default."""
    name, dist = state.get_distribution()
    if dist is None:
        name, dist = PRESETS["bayes-example-1"].label, example1()   # one name per law, as the Toy page's
        state.set_distribution(name, dist)
    return name, dist


def pick_source(key: str, default: str = "dataset"):
    """Radio between the current dataset and the toy distribution; returns (kind, name, source).

    ``kind`` is "dataset" (plug-in estimates from counts) or "distribution" (exact values).
    """
    ds_name, encoded = state.get_dataset()
    dist_name, dist = current_distribution()
    options = ["dataset", "distribution"] if encoded is not None else ["distribution"]
    labels = {"dataset": f"Dataset: {md(ds_name)}", "distribution": f"Toy distribution: {md(dist_name)} (exact)"}
    index = options.index(default) if default in options else 0
    kind = st.radio("Run on", options, index=index, format_func=labels.get, key=key, horizontal=True,
                    persist_state="session")
    if kind == "dataset":
        return kind, ds_name, encoded
    return kind, dist_name, dist
