"""Session-state keys shared by the pages, and the current data source (one ``CurrentData`` record)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

CURRENT = "fslab.current_data"       # the CurrentData record: the four facts about the dataset change together
DISTRIBUTION = "fslab.distribution"  # the toy Distribution built on the Toy distribution page
DISTRIBUTION_NAME = "fslab.distribution_name"
CHOSEN = "fslab.chosen"              # the Chosen record: the analysis the Select page (or a link, or the data's
                                     # defaults) settled on for the current dataset

DEFAULT_SAMPLE = "mushroom"


def widget_default(key: str, value) -> None:
    """Before a widget keyed ``key`` that a link, a recipe or another page's plan may set: ``value`` goes into Session
    State when the key holds nothing, and the widget is drawn without a default of its own. A widget given a default
    (``value=``, ``index=``) whose key was set through Session State makes Streamlit log a warning with a stack."""
    if key not in st.session_state:
        st.session_state[key] = value


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


@dataclass(frozen=True)
class Chosen:
    """What the analysis of one dataset settled on, which Compare, Scores, By measure and NPFS open on: the measure
    and its parameters, k, the estimate, the selector and its pick (feature names). ``data`` is the dataset's key
    (``ui.selection.data_key``), ``origin`` who set it ("select", "link" or "defaults": the data's own defaults,
    the balanced error and the held-out k for an upload), ``serial`` counts the changes in this session (a page
    takes a record once, so the user's own change on that page stands until the record changes again)."""

    data: str
    measure: str
    params: tuple = ()
    k: int = 5
    estimate: str = "plug-in"
    selector: str | None = None
    features: tuple[str, ...] = ()
    origin: str = "select"
    serial: int = 0

    def same_as(self, other: Chosen | None) -> bool:
        """Equal settings, whoever set them and when."""
        return other is not None and (self.data, self.measure, self.params, self.k, self.estimate, self.selector,
                                      self.features) == (other.data, other.measure, other.params, other.k,
                                                         other.estimate, other.selector, other.features)


def set_chosen(session_state, chosen: Chosen) -> Chosen:
    """Record ``chosen`` as the current dataset's analysis (a new serial only when the settings changed)."""
    old = session_state.get(CHOSEN)
    if chosen.same_as(old):
        return old
    chosen = Chosen(**{**vars(chosen), "serial": (old.serial if old is not None else 0) + 1})
    session_state[CHOSEN] = chosen
    return chosen


def get_chosen(session_state, data: str) -> Chosen | None:
    """The analysis recorded for the dataset whose key is ``data`` (None: none yet, or another dataset's)."""
    chosen = session_state.get(CHOSEN)
    return chosen if chosen is not None and chosen.data == data else None


def set_distribution(name: str, distribution) -> None:
    st.session_state[DISTRIBUTION] = distribution
    st.session_state[DISTRIBUTION_NAME] = name


def get_distribution():
    """(name, Distribution) of the current toy distribution, or (None, None)."""
    return st.session_state.get(DISTRIBUTION_NAME), st.session_state.get(DISTRIBUTION)
