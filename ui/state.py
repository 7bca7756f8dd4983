"""Session-state keys shared by the pages, and the current data source."""

from __future__ import annotations

import streamlit as st

DATASET = "fslab.dataset"            # EncodedDataset ready for selection
DATASET_RAW = "fslab.dataset_raw"    # the validated fslab.Dataset behind it (None for generated data)
DATASET_NAME = "fslab.dataset_name"  # what the user sees: "mushroom (sample)", "my.csv", ...
DISTRIBUTION = "fslab.distribution"  # the toy Distribution built on the Toy distribution page
DISTRIBUTION_NAME = "fslab.distribution_name"
DATASET_SPEC = "fslab.dataset_spec"  # where the current dataset comes from (a fslab.recipe data descriptor) or None

DEFAULT_SAMPLE = "mushroom"


def set_dataset(name: str, encoded, raw=None, spec: dict | None = None) -> None:
    """Make ``encoded`` the current dataset; ``spec`` says where it comes from (see fslab.recipe.check_data:
    {"sample": ...}, {"file": ..., "sha256": ...} or {"toy_sample": ...}) so a recipe or link can name it."""
    st.session_state[DATASET_SPEC] = spec
    st.session_state[DATASET] = encoded
    st.session_state[DATASET_RAW] = raw
    st.session_state[DATASET_NAME] = name


def get_dataset():
    """(name, EncodedDataset) of the current dataset, or (None, None)."""
    return st.session_state.get(DATASET_NAME), st.session_state.get(DATASET)


def set_distribution(name: str, distribution) -> None:
    st.session_state[DISTRIBUTION] = distribution
    st.session_state[DISTRIBUTION_NAME] = name


def get_dataset_spec() -> dict | None:
    """The data descriptor recorded with the current dataset (None when unknown)."""
    return st.session_state.get(DATASET_SPEC)


def get_distribution():
    """(name, Distribution) of the current toy distribution, or (None, None)."""
    return st.session_state.get(DISTRIBUTION_NAME), st.session_state.get(DISTRIBUTION)
