"""The app refuses, or asks before, the issue's unbounded jobs: nothing runs until the user clicks (issue 18).

Each test sets the widgets of a session to the job and checks the page shows the refusal (naming the limit) or the
estimate with a Run button, and no result."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from streamlit.testing.v1 import AppTest

from fslab import cost
from fslab.samples import load_sample
from ui import state

APP = str(Path(__file__).resolve().parents[1] / "app.py")


@cache
def encoded(name: str):
    return load_sample(name).discretize()


def session(page: str, sample: str, **widgets) -> AppTest:
    """A session on ``page`` with a shipped sample loaded and widget values set before the page first runs (so no
    intermediate job runs on the way to the one tested)."""
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.session_state[state.DATASET] = encoded(sample)
    at.session_state[state.DATASET_NAME] = f"{sample} (sample)"
    at.session_state[state.DATASET_RAW] = None
    at.session_state[state.DATASET_SPEC] = {"sample": sample}
    for key, value in widgets.items():
        at.session_state[key] = value
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def selected(at: AppTest) -> bool:
    return any(s.value.startswith("Selected:") for s in at.success)


def run_buttons(at: AppTest) -> list:
    return [b for b in at.button if b.label == "Run"]


def select_job(sample: str, selector: str, k: int, s: int | None = None) -> AppTest:
    widgets = {"select.selector": selector, "select.k": k}
    if s is not None:
        widgets |= {"select.use_s": True, "select.s": s}
    return session("pages/selection.py", sample, **widgets)


def test_select_s6_k123_on_adult_is_refused_naming_the_limit():
    at = select_job("adult", "bayes-greedy", 123, s=6)
    errors = " ".join(e.value for e in at.error)
    assert "work limit" in errors and "FSLAB_MAX_WORK" in errors and "smaller s" in errors
    assert not selected(at) and not run_buttons(at)


def test_select_backward_to_k1_on_adult_waits_for_a_click():
    at = select_job("adult", "backward", 1)
    assert any("This job is large" in w.value and "subset tables" in w.value for w in at.warning)
    assert run_buttons(at) and not selected(at)


def test_select_exhaustive_beyond_half_on_waveform_waits_for_a_click():
    at = select_job("waveform", "exhaustive", 36)
    assert run_buttons(at) or any("work limit" in e.value for e in at.error)
    assert not selected(at)


def test_a_click_on_run_runs_the_job_and_it_stays(monkeypatch):
    """A small job made to look slow (the per-table cost scaled up) waits for the click, runs, and stays."""
    slow = {path: seconds * 1e6 for path, seconds in cost.SECONDS_PER_ROW_TABLE.items()}
    monkeypatch.setattr(cost, "SECONDS_PER_ROW_TABLE", slow)
    at = select_job("mushroom", "backward", 110)
    assert not selected(at)
    run_buttons(at)[0].click().run()
    assert selected(at)
    at.run()
    assert selected(at) and not run_buttons(at)
