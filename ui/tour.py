"""The Example 1 tour: its steps, the session's place in it, and the numbers of Example 1 (exact, from fslab)."""

from __future__ import annotations

import streamlit as st

from fslab import bayes_value
from fslab.data.distributions import example1
from fslab.pena_nilsson.toy import PRESETS

from . import state, toy

STEP = "tour.step"
FOUND = "tour.found"  # (name, Distribution) the session had before the tour replaced it
STEPS = ("X1 or X2? It depends on the measure", "Every subset: the lattice", "Theorem 1: make greedy bad",
         "NPFS on D_uni: which features are real?")


def start() -> None:
    """Load the Bayes paper's Example 1 as the toy distribution and go to the tour's first step."""
    install_preset("bayes-example-1")
    st.session_state[STEP] = 0


def install_preset(key: str) -> None:
    """Make preset ``key`` the toy distribution unless it already is (reruns keep the editors' state); the first
    other law the tour replaces is kept for :func:`restore` (the same law under another name is only renamed)."""
    name, dist = state.get_distribution()
    if name == PRESETS[key].label:
        return
    same_law = dist is not None and dist.to_json() == _preset_json(key)  # e.g. the default Example 1: renamed only
    if not same_law and FOUND not in st.session_state and dist is not None and not _is_tour_preset(name):
        st.session_state[FOUND] = (name, dist)
    toy.install_preset(key)


TOUR_PRESETS = ("bayes-example-1", "greedy-bad")


def _is_tour_preset(name: str | None) -> bool:
    return any(PRESETS[k].label == name for k in TOUR_PRESETS)


@st.cache_data(show_spinner=False, max_entries=8)
def _preset_json(key: str) -> str:
    return PRESETS[key].factory().to_json()


def replaced() -> str | None:
    """The name of the distribution the tour replaced and can put back, or None."""
    found = st.session_state.get(FOUND)
    return found[0] if found else None


def restore() -> None:
    """Put back the toy distribution the tour found (a button's on_click, and the tour's last step)."""
    found = st.session_state.pop(FOUND, None)
    if found is not None:
        toy.install(*found)


def step() -> int:
    return int(st.session_state.get(STEP, 0))


LINKED = "tour.linked"  # the ?step= value last read from or written to the address bar


def follow_link() -> str | None:
    """Before the page draws: a ``?step=N`` (1-based) the page has not written itself opens step N; returns a
    message for a value that is not a step (the tour then stays where it is)."""
    asked = st.query_params.get("step")
    if asked is None or asked == st.session_state.get(LINKED):
        return None
    st.session_state[LINKED] = asked
    if not (asked.isdigit() and 1 <= int(asked) <= len(STEPS)):
        return f"This link asks for tour step {asked!r}; the tour has steps 1 to {len(STEPS)}."
    st.session_state[STEP] = int(asked) - 1
    return None


def write_link() -> None:
    """The address bar names the step shown (``?step=N``), so each step can be linked."""
    shown = str(step() + 1)
    st.session_state[LINKED] = shown
    if st.query_params.to_dict() != {"step": shown}:
        st.query_params.from_dict({"step": shown})


def move(delta: int) -> None:
    """on_click of Previous / Next: the step changes before the page draws (one rerun, not two)."""
    st.session_state[STEP] = min(max(step() + delta, 0), len(STEPS) - 1)


@st.cache_data(show_spinner=False, max_entries=1)
def example1_numbers() -> dict[str, float]:
    """Ahmed et al., Example 1: Bayes 0-1 errors of X1 and X2 (0.25, 0.30) and I(X_j; Y) in bits (0.08, 0.17)."""
    dist = example1()
    return {"er1": bayes_value(dist, [0], "zero-one"), "er2": bayes_value(dist, [1], "zero-one"),
            "mi1": bayes_value(dist, [0], "mi"), "mi2": bayes_value(dist, [1], "mi")}


def best_chip(is_best: bool) -> dict:
    """st.metric keywords: a grey 'best' chip without an arrow (an arrow would read as up = more)."""
    return {"delta": "best", "delta_color": "off", "delta_arrow": "off"} if is_best else {}
