"""ui.alerts_view.dataset_alerts, what the Data page and app.py show: on the messy loan book (fslab.data.messy) with
two planted leaks, a collection status coded from the outcome and a recovery note filled in only for defaulters,
both are named, leaks before data alerts; a note filled in for only some defaulters is found only in the raw values
(the codes see a "missing" level shared by both classes); the clean book has no leak alert."""

from __future__ import annotations

import numpy as np
import pytest

from fslab.alerts import data_alerts
from fslab.data import Dataset, messy
from ui.alerts_view import SELECTING, dataset_alerts, leave_out_label


def planted(n: int = 800):
    frame = messy.loans(n=n)
    bad = frame["default"].to_numpy() == "yes"
    rng = np.random.default_rng(5)
    frame["collection"] = np.where(bad, "in collection", "current")                            # the target renamed
    frame["recovery_note"] = np.where(bad, rng.choice(["sold", "written off", "plan"], n), None)  # after the outcome
    return frame


@pytest.mark.slow
def test_planted_leaks_are_named_and_come_first():
    ds = Dataset.from_frame(planted(), "default")
    found = dataset_alerts(ds.discretize(), ds)
    leaks = {a.columns: a.kind for a in found if a.severity == "leak"}
    assert leaks == {("collection",): "function-of-target", ("recovery_note",): "determines-target"}
    assert [a.severity for a in found] == sorted((a.severity for a in found), key=lambda s: s != "leak")
    assert leave_out_label(next(a for a in found if a.columns == ("collection",))) == \
        "Leave out collection and rerun"


@pytest.mark.slow
def test_a_note_filled_for_some_defaulters_is_found_in_the_raw_values():
    """A note filled in for 60 % of defaulters only: its "missing" code holds both classes, so no check on the
    codes fires (fslab.alerts.data_alerts on the codes says nothing of it); the raw values' one-class check does."""
    frame = messy.loans(n=800)
    bad = frame["default"].to_numpy() == "yes"
    rng = np.random.default_rng(6)
    keep = bad & (rng.random(len(frame)) < 0.6)
    frame["recovery_note"] = np.where(keep, rng.choice(["a", "b", "c"], len(frame)), None)
    ds = Dataset.from_frame(frame, "default")
    assert not [a for a in data_alerts(ds.discretize()) if "recovery_note" in a.columns]
    found = [a for a in dataset_alerts(ds.discretize(), ds) if a.columns == ("recovery_note",)]
    assert [a.kind for a in found] == ["one-class-only"] and "filled in only for class 'yes'" in found[0].message
    clean = Dataset.from_frame(messy.loans(n=800), "default")
    assert not [a for a in dataset_alerts(clean.discretize(), clean) if a.severity == "leak"]


def test_the_selecting_pages():
    assert SELECTING == ("Select", "By measure", "Compare", "Scores", "NPFS")


@pytest.mark.slow
def test_leave_out_rebuilds_the_data_as_a_link_would():
    """From any page: the current data without the column, named so, its descriptor carrying ``types`` (a name
    holding '=' too), and the same codes as the recipe loader rebuilds from that descriptor."""
    import streamlit as st

    from fslab.recipe import load_dataset
    from ui import state
    from ui.cache import sample_encoded
    from ui.data import leave_out_current

    st.session_state.clear()
    state.set_dataset("mushroom (sample)", sample_encoded("mushroom"), None, spec={"sample": "mushroom"})
    before = state.current_data().encoded
    assert before.feature_names[0] == "cap-shape=bell"
    assert leave_out_current(["cap-shape=bell"]) is None
    now = state.current_data()
    assert now.name == "mushroom (sample; without cap-shape=bell)"
    assert now.spec == {"sample": "mushroom", "types": ["cap-shape=bell=drop"]}
    assert now.encoded.feature_names == before.feature_names[1:] and np.array_equal(now.encoded.X, before.X[:, 1:])
    again = load_dataset(now.spec)
    assert again.feature_names == now.encoded.feature_names and np.array_equal(again.X, now.encoded.X)
    assert "not a column" in leave_out_current(["no such column"])
    st.session_state.clear()
