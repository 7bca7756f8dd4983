"""The app refuses, or asks before, the issue's unbounded jobs: nothing runs until the user clicks (issue 18).

Each test sets the widgets of a session to the job and checks the page shows the refusal (naming the limit) or the
estimate with a Run button, and no result."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from streamlit.testing.v1 import AppTest

from fslab import cost
from fslab.data.samples import load_sample
from ui import state

APP = str(Path(__file__).resolve().parents[1] / "app.py")


@cache
def encoded(name: str):
    return load_sample(name).discretize()


def session(page: str, sample: str, **widgets) -> AppTest:
    """A session on ``page`` with a shipped sample loaded and widget values set before the page first runs (so no
    intermediate job runs on the way to the one tested)."""
    at = AppTest.from_file(APP, default_timeout=120).run()
    state.install(at.session_state, state.CurrentData(encoded(sample), f"{sample} (sample)", None, {"sample": sample}))
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


def _adult_panel():
    from fslab.data.samples import load_sample as load
    from ui.k_suggestion import render_k_suggestion

    render_k_suggestion("dataset", load("adult").discretize(), "bayes-greedy", "zero-one", {}, 10, "t")


def test_suggest_k_with_999_permutations_on_adult_is_refused():
    at = AppTest.from_function(_adult_panel, default_timeout=120)
    at.session_state["t.kperm"] = 999
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    errors = " ".join(e.value for e in at.error)
    assert "work limit" in errors and "FSLAB_MAX_WORK" in errors and "fewer permutations" in errors
    assert not [b for b in at.button if b.label == "Suggest k"]


def _small_panel():
    from fslab.data.synthetic import uniform_dataset
    from ui.k_suggestion import render_k_suggestion

    render_k_suggestion("dataset", uniform_dataset().discretize(method="uniform", bins=3), "bayes-greedy",
                        "zero-one", {}, 6, "t")


def test_suggest_k_results_are_shared_between_sessions(monkeypatch):
    """The second session asking the same question (same data content, settings, seed) gets the first one's
    result from the server-wide store: no second worker run."""
    from ui import heavy

    runs = []
    real = heavy.run_in_worker
    monkeypatch.setattr(heavy, "run_in_worker", lambda *a, **kw: runs.append(1) or real(*a, **kw))
    metrics = []
    for _ in range(2):
        at = AppTest.from_function(_small_panel, default_timeout=120)
        at.session_state["t.kboot"] = 10
        at.run()
        at.button(key="t.ksuggest").click().run()
        assert not at.exception, [e.value for e in at.exception]
        metrics.append([m.value for m in at.metric])
    assert metrics[0] == metrics[1] and metrics[0]
    assert len(runs) == 1


def test_npfs_link_with_5000_bootstraps_is_refused_before_any_bootstrap():
    """5,000 resampled BayesGreedy selections on Adult are over the work limit; 5,000 JMI bootstraps (counted as
    row weights, fslab.npfs_weighted) are legal but wait for a click, with the estimate shown."""
    at = session("pages/npfs.py", "adult", **{"npfs.n": 5000, "npfs.k": 10, "npfs.selector": "bayes-greedy"})
    errors = " ".join(e.value for e in at.error)
    assert "work limit" in errors and "fewer bootstraps" in errors
    assert not at.metric  # no result: nothing ran
    at = session("pages/npfs.py", "adult", **{"npfs.n": 5000, "npfs.k": 10, "npfs.selector": "jmi"})
    assert not at.error and "This job is large" in " ".join(w.value for w in at.warning)
    assert not run_buttons(at) and at.button(key="npfs.run")  # one click, on the page's own button, starts it
    assert not at.metric


def test_a_large_npfs_run_starts_with_one_click_on_run_npfs(monkeypatch):
    """The estimate stands above *Run NPFS*, and that click alone runs the job (no second *Run* to confirm)."""
    from ui import npfs as ui_npfs

    monkeypatch.setattr(ui_npfs, "needs_confirmation", lambda cost: True)  # every job counts as large here
    at = session("pages/npfs.py", "mushroom", **{"npfs.n": 20, "npfs.k": 3, "npfs.selector": "jmi"})
    assert "This job is large" in " ".join(w.value for w in at.warning) and not at.metric
    at.button(key="npfs.run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not run_buttons(at) and at.metric
    assert "This job is large" not in " ".join(w.value for w in at.warning)  # the estimate goes with the result


def _out_of_memory():
    from fslab.cost import Cost
    from ui import guard

    with guard.slot(Cost("a job", 1, 1, 1, 0.0, 10**9)):
        raise MemoryError


def test_a_memory_error_is_a_message_not_a_traceback():
    at = AppTest.from_function(_out_of_memory, default_timeout=60).run()
    assert not at.exception
    assert "ran out of memory" in at.error[0].value and "FSLAB_MAX_JOB_MB" in at.error[0].value
