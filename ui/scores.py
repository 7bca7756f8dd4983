"""Scores page helpers: the cached score tables, the pick column, the session's history of picks."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import streamlit as st

from fslab.measures import MEASURES
from fslab.scores import HELD_OUT, IN_SAMPLE

from . import state
from .cache import BOUNDED
from .compare import token
from .selection import selected_data

HISTORY = "fslab.scores.history"
HISTORY_SIZE = 10
PICK = "pick"


def default_measures(offered: list[str], wanted) -> list[str]:
    """The measures the page opens on: ``wanted`` (fslab.scores.DEFAULT_SCORE_MEASURES) that the target takes, else
    every offered one (a real-valued target takes only the squared error), so the page opens on a table."""
    return [m for m in wanted if m in offered] or list(offered)


def keep_measures(offered: list[str], default: list[str]) -> None:
    """The measures box starts at ``default`` and drops remembered measures the current target does not take; when
    none of them is left (a real-valued target after a class target), it starts at ``default`` again."""
    kept = st.session_state.get("scores.measures")
    left = None if kept is None else [m for m in kept if m in offered]
    st.session_state["scores.measures"] = default if kept is None or (kept and not left) else left


WHO = {"select": "the Select page", "link": "the link", "defaults": "your data's defaults"}


@st.cache_data(show_spinner="Scoring every feature...", **BOUNDED)
def _cached(tok: str, _source, measures: tuple, _func, which: str, subset: tuple, params: tuple = ()):
    return _func(_source, measures, params=dict(params)) if which == "features" else \
        _func(_source, list(subset), measures, params=dict(params))


def scores(source, measures: tuple, func, subset: tuple | None = None, params: dict | None = None) -> pd.DataFrame:
    """``func(source, measures)`` (feature_scores) or ``func(source, subset, measures)`` (subset_scores) with the
    measures' ``params`` (c, beta, ...), shared server-wide by the data's content."""
    return _cached(token(source), source, measures, func, "features" if subset is None else "subset",
                   subset or (), tuple(sorted((params or {}).items())))


def with_picks(table: pd.DataFrame) -> pd.DataFrame:
    """The score table with a first "pick" column (the features ticked in this session)."""
    ticked = set(st.session_state.get("scores.ticked", ()))
    return table.assign(**{PICK: table["feature"].isin(ticked)})[[PICK, *table.columns]]


def column_config(table: pd.DataFrame, measures: list[str]) -> dict:
    # the tick and the name stay in view when the measures' columns scroll sideways (a 1024 px projector shows about
    # three measures of five)
    config = {PICK: st.column_config.CheckboxColumn(PICK, help="tick to add the feature to your subset below",
                                                    pinned=True),
              "feature": st.column_config.TextColumn("feature", pinned=True)}
    for name in measures:
        direction = "higher" if MEASURES[name].greater_is_better else "lower"
        for label in (IN_SAMPLE, HELD_OUT):
            column = f"{MEASURES[name].label}, {label}"
            if column in table.columns:
                config[column] = st.column_config.NumberColumn(column, format="%.4f",
                                                               help=f"{direction} is better; {label}")
    return config


def picked(edited: pd.DataFrame) -> list[int]:
    """Row positions (feature indices) ticked in the editor, remembered for the next run."""
    rows = edited.index[edited[PICK].to_numpy(dtype=bool)].tolist()
    st.session_state["scores.ticked"] = edited.loc[rows, "feature"].tolist()
    return [int(r) for r in rows]


def restore(features: list[str], table: pd.DataFrame) -> None:
    """Tick exactly ``features`` again (the editor's own edits are reset)."""
    st.session_state["scores.ticked"] = [f for f in features if f in set(table["feature"])]
    st.session_state.pop("scores.table", None)
    st.session_state.pop("scores.recall", None)


def history() -> list[dict]:
    return st.session_state.get(HISTORY, [])


def remember(features: list[str], together: pd.DataFrame) -> None:
    """Keep a pick and its values (held out when there are, else in-sample) at the end of the history."""
    column = HELD_OUT if HELD_OUT in together.columns else IN_SAMPLE
    entry = {"features": list(features), "values": dict(zip(together["measure"], together[column], strict=True)),
             "estimate": column}
    kept = [h for h in history() if h["features"] != entry["features"]] + [entry]
    st.session_state[HISTORY] = kept[-HISTORY_SIZE:]


def history_table(entries: list[dict]) -> pd.DataFrame:
    """One row per kept pick: its features, then per measure the value and its change from the pick before."""
    rows, previous = [], None
    for i, entry in enumerate(entries, start=1):
        row = {"#": i, "features": ", ".join(entry["features"]), "estimate": entry["estimate"]}
        for measure, value in entry["values"].items():
            row[measure] = value
            before = None if previous is None else previous["values"].get(measure)
            row[f"Δ {measure}"] = np.nan if before is None else value - before
        rows.append(row)
        previous = entry
    return pd.DataFrame(rows)


def reduced_data(source, picked_features: list[int]) -> pd.DataFrame:
    """The picked columns and the target (raw values after an upload or for a sample with raw values)."""
    return selected_data(source, SimpleNamespace(features=tuple(picked_features)), state.get_dataset_raw())
