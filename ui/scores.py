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
    """The score table with a first "pick" column (the features ticked in this session), without the "levels"
    column when :func:`levels_note` says it in one line instead (a 1024 px projector gets its 60 px back)."""
    ticked = set(st.session_state.get("scores.ticked", ()))
    columns = [c for c in table.columns if c != "levels" or levels_note(table) is None]
    return table.assign(**{PICK: table["feature"].isin(ticked)})[[PICK, *columns]]


def levels_note(table: pd.DataFrame) -> str | None:
    """The "levels" column in one line when no feature has more than 2 levels, where the column would tell little
    (Mushroom's one-hot features, the binary toy distributions): "Every feature has 2 levels." or "Every feature
    has at most 2 levels."; None when some feature has more (an ID-like column with many levels shows there)."""
    levels = table["levels"]
    if levels.max() > 2:
        return None
    return f"Every feature has {levels.iloc[0]} levels." if levels.nunique() == 1 else \
        "Every feature has at most 2 levels."


# short headers for a 1024 px projector (the full name is each header's tooltip): 5 measures x 2 estimates took
# 1,015 px of columns in a 965 px table (issue 34)
SHORT = {"zero-one": "0-1", "balanced": "bal.", "cost-sensitive": "cost", "squared": "sq.", "log-loss": "LL",
         "f-beta": "F-beta", "auc": "AUC", "mi": "MI"}
ESTIMATE_SHORT = {IN_SAMPLE: "in", HELD_OUT: "out"}


def short_label(measure: str, estimate: str) -> str:
    """A score column's header: "0-1 in" for "0-1 error, in-sample", "MI out" for "mutual information, held-out"."""
    return f"{SHORT.get(measure, MEASURES[measure].label)} {ESTIMATE_SHORT[estimate]}"


def header_legend(measures: list[str], held_out: bool) -> str:
    """The caption line that spells out the short headers of ``measures``: "Headers: 0-1 = 0-1 error, MI = mutual
    information; in = in-sample, out = held out (hover a header for its full name)." """
    names = [f"{SHORT[m]} = {MEASURES[m].label}" for m in measures if SHORT.get(m, "") not in ("", MEASURES[m].label)]
    parts = [", ".join(names)] if names else []
    parts.append("in = in-sample, out = held out" if held_out else "in = in-sample")
    return "Headers: " + "; ".join(parts) + " (hover a header for its full name)."


def column_config(table: pd.DataFrame, measures: list[str]) -> dict:
    """The pick and the name pinned at the left; each score column under its :func:`short_label`, its full name,
    the better direction and the estimate in the tooltip."""
    config = {PICK: st.column_config.CheckboxColumn(PICK, help="tick to add the feature to your subset below",
                                                    pinned=True),
              "feature": st.column_config.TextColumn("feature", pinned=True),
              "levels": st.column_config.NumberColumn("levels", help="the feature's number of distinct values")}
    for name in measures:
        direction = "higher" if MEASURES[name].greater_is_better else "lower"
        for label in (IN_SAMPLE, HELD_OUT):
            column = f"{MEASURES[name].label}, {label}"
            if column in table.columns:
                config[column] = st.column_config.NumberColumn(short_label(name, label), format="%.4f",
                                                               help=f"{column}: {direction} is better")
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


def history_config(table: pd.DataFrame) -> dict:
    """Short headers for :func:`history_table` ("0-1", "Δ 0-1"; the full name in the tooltip) and a 160 px features
    column (a long pick is cut there, and listed in full in the box that ticks it again), so a history of five
    measures fits a 1024 px projector as the score table does."""
    short = {MEASURES[m].label: text for m, text in SHORT.items()}
    config: dict = {"features": st.column_config.TextColumn("features", width=160, help="the kept pick (in full: "
                                                                                   "'Tick a kept pick again')")}
    for column in table.columns:
        label = column.removeprefix("Δ ")
        if label in short:
            delta = column != label
            config[column] = st.column_config.NumberColumn(
                ("Δ " if delta else "") + short[label], format="%+.4f" if delta else "%.4f",
                help=f"change in {label} from the pick kept before" if delta else label)
    return config


def reduced_data(source, picked_features: list[int]) -> pd.DataFrame:
    """The picked columns and the target (raw values after an upload or for a sample with raw values)."""
    return selected_data(source, SimpleNamespace(features=tuple(picked_features)), state.get_dataset_raw())
