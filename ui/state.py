"""Session-state keys shared by the pages, and the current data source (one ``CurrentData`` record)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

CURRENT = "fslab.current_data"       # the CurrentData record: the four facts about the dataset change together
DISTRIBUTION = "fslab.distribution"  # the toy Distribution built on the Toy distribution page
DISTRIBUTION_NAME = "fslab.distribution_name"

DEFAULT_SAMPLE = "mushroom"


@dataclass(frozen=True, eq=False)
class CurrentData:
    """The current dataset: ``encoded`` (EncodedDataset ready for selection), ``name`` (what the user sees:
    "mushroom (sample)", "my.csv", ...), ``raw`` (the validated fslab.Dataset behind it, None for generated data)
    and ``spec`` (where it comes from, a fslab.recipe data descriptor, or None)."""

    encoded: Any
    name: str
    raw: Any = None
    spec: dict | None = None


def install(session_state, data: CurrentData) -> None:
    """Make ``data`` current in ``session_state`` (st.session_state, or an AppTest's in tests)."""
    session_state[CURRENT] = data


def set_dataset(name: str, encoded, raw=None, spec: dict | None = None) -> None:
    """Make ``encoded`` the current dataset; ``spec`` says where it comes from (see fslab.recipe.check_data:
    {"sample": ...}, {"file": ..., "sha256": ...} or {"toy_sample": ...}) so a recipe or link can name it."""
    install(st.session_state, CurrentData(encoded, name, raw, spec))


def current_data() -> CurrentData | None:
    """The current dataset's record, or None before one is loaded."""
    return st.session_state.get(CURRENT)


def get_dataset():
    """(name, EncodedDataset) of the current dataset, or (None, None)."""
    data = current_data()
    return (data.name, data.encoded) if data is not None else (None, None)


def get_dataset_raw():
    """The validated fslab.Dataset behind the current dataset (None for generated data or none loaded)."""
    data = current_data()
    return data.raw if data is not None else None


def get_dataset_spec() -> dict | None:
    """The data descriptor recorded with the current dataset (None when unknown)."""
    data = current_data()
    return data.spec if data is not None else None


def set_distribution(name: str, distribution) -> None:
    st.session_state[DISTRIBUTION] = distribution
    st.session_state[DISTRIBUTION_NAME] = name


def get_distribution():
    """(name, Distribution) of the current toy distribution, or (None, None)."""
    return st.session_state.get(DISTRIBUTION_NAME), st.session_state.get(DISTRIBUTION)
