"""The widget that lets a page run on the current dataset or on the current toy distribution, and the Data page's
reading of an upload that a registered source opens (fslab.data.registry)."""

from __future__ import annotations

import hashlib

import streamlit as st

from fslab.data import registry
from fslab.data.distributions import example1
from fslab.errors import FslabError
from fslab.limits import LIMITS
from fslab.pena_nilsson.toy import PRESETS

from . import state
from .heavy import run_in_worker
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
    if st.session_state.get(key) not in options:  # first visit, or "dataset" with none loaded
        st.session_state[key] = default if default in options else options[0]
    kind = st.radio("Run on", options, format_func=labels.get, key=key, horizontal=True, persist_state="session")
    if kind == "dataset":
        return kind, ds_name, encoded
    return kind, dist_name, dist


def upload_types() -> list[str]:
    """The file types the registered sources' suffixes add to the Data page's uploader (".jsonl" -> "jsonl")."""
    return [name.rsplit(".", 1)[-1] for name in registry.names() if name.startswith(".")]


@st.cache_resource(show_spinner="Reading the file...", scope="session", max_entries=2)
def _opened(name: str, sha256: str, target: str | None, _opener, _data: bytes):
    """The upload opened by the registered source ``name`` in a worker capped by the server's LIMITS, as any upload
    is read (ui.heavy.run_in_worker); kept in this session by the bytes' SHA-256 and the target."""
    return run_in_worker(registry.open_upload, name, _opener, _data, target, caps=LIMITS)


TARGET_KEY = "data_registered_target"


def registered_upload(file_name: str, data: bytes) -> bool:
    """False unless ``file_name`` ends in a registered source's suffix; then that source reads the bytes, the page
    says what it read, offers the column to predict, and "Use this dataset" makes the codes the current dataset (no
    link or recipe names it: the source lives in this server's process or packages)."""
    found = registry.find(file_name)
    if found is None:
        return False
    kind, sha = found[0], hashlib.sha256(data).hexdigest()
    try:
        first = _opened(kind.name, sha, None, kind.opener, data)
        columns = [*first.feature_names, first.target]
        if st.session_state.get(TARGET_KEY) not in columns:   # another file's column: this one's default
            st.session_state[TARGET_KEY] = first.target
        target = st.selectbox("Column to predict (the target)", columns, key=TARGET_KEY,
                              persist_state="session")
        encoded = first if target == first.target else _opened(kind.name, sha, target, kind.opener, data)
    except FslabError as err:
        st.error(f"{md(file_name)}: {md(err)}.\n\nThe current dataset ({md(state.get_dataset()[0])}) is unchanged.")
        return True
    positive = f", positive class '{md(encoded.class_names[1])}'" if encoded.task == "binary" else ""
    st.success(f"**{md(file_name)}** is read by a registered source ({md(kind.words)}): "
               f"{encoded.n_rows:,} rows x {encoded.n_features} features, target '{md(encoded.target)}'{positive}.")
    st.caption("The source decides how its rows are read, typed and coded (its notes below); the column types, "
               "binning and missing-value choices of a CSV upload do not apply to it.")
    for note in encoded.notes:
        st.caption(md(note))
    if st.button("Use this dataset", key="data_use", type="primary"):
        state.set_dataset(file_name, encoded)
        st.success(f"**{md(file_name)}** is now the current dataset: the other pages use it.")
    return True
