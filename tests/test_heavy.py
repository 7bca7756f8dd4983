"""ui.heavy: the server-wide heavy-work slot and the worker process (no timing assertions)."""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import types

import numpy as np
import pytest

from fslab.data.encoded import EncodedDataset
from fslab.errors import FslabError, ParameterError
from fslab.limited import WORKER_NICENESS
from fslab.npfs import npfs
from tests.worker_jobs import priority
from ui import heavy


def _toy(m: int = 200) -> EncodedDataset:
    """Feature 0 equals y with 10% noise; the other three are noise."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, m)
    X = rng.integers(0, 3, (m, 4))
    X[:, 0] = np.where(rng.random(m) < 0.9, y, 1 - y)
    return EncodedDataset(X, y, labels=[0, 1])


class Interrupted(Exception):
    """Stands in for Streamlit's StopException raised in the caller's thread."""


@pytest.fixture
def forkserver():
    """The app's worker context: its forkserver (started once per test process, with fslab imported) forks each
    job's worker, so a job costs no fresh interpreter (a spawn context here cost ~1.5 s of CPU a test). ``_start``
    gives the forkserver a bare ``__main__`` (an AppTest earlier in the run leaves its script there: the test
    below checks it). The jobs are fslab functions or tests/worker_jobs.py's, cheap to import."""
    return heavy._context()


@pytest.mark.parametrize(("cores", "slots"), [(1, 1), (2, 1), (8, 7)])
def test_slot_count_leaves_one_core(cores, slots):
    assert heavy.slot_count(cores) == slots


def test_slot_is_held_inside_and_released_after_even_on_error():
    slots = threading.BoundedSemaphore(1)
    with pytest.raises(ParameterError):
        with heavy.heavy_slot(slots):
            assert not slots.acquire(blocking=False)  # taken while the block runs
            raise ParameterError("boom")
    assert slots.acquire(blocking=False)  # released by the error
    slots.release()
    with pytest.raises(ValueError):
        slots.release()  # bounded: an extra release is refused, so the count never grows


def test_second_job_waits_until_the_first_releases():
    slots = threading.BoundedSemaphore(1)
    first_in, release_first, second_in = threading.Event(), threading.Event(), threading.Event()

    def first():
        with heavy.heavy_slot(slots):
            first_in.set()
            release_first.wait(30)

    def second():
        first_in.wait(30)
        with heavy.heavy_slot(slots, wait_seconds=0.05):
            second_in.set()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    assert first_in.wait(30)
    assert not second_in.is_set()  # the first still holds the only slot
    release_first.set()
    assert second_in.wait(30)
    for t in threads:
        t.join(30)
    assert slots.acquire(blocking=False)


def test_lattice_weight():
    assert not heavy.is_heavy_lattice(2, 4)          # Example 1: 4 subsets of 4 states
    assert heavy.is_heavy_lattice(12, 8124)          # Mushroom with 12 features: 4096 tables of 8,124 rows
    assert not heavy.is_heavy_lattice(6, 8124)


@pytest.mark.slow  # starts a worker process
def test_worker_returns_the_result_and_relays_progress_in_order(forkserver):
    """NPFS in a worker gives the same matrix as in this process (same seed) and reports every bootstrap."""
    seen = []
    there = heavy.run_in_worker(npfs, _toy(), "mi-score", 1, n_bootstraps=6, seed=3,
                                progress=lambda *a: seen.append(a), context=forkserver)
    here = npfs(_toy(), "mi-score", 1, n_bootstraps=6, seed=3)
    assert np.array_equal(there.matrix, here.matrix)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen) and seen[-1] == (6, 6)


@pytest.mark.slow  # starts a worker process
def test_worker_runs_at_a_lower_priority_than_the_server(forkserver):
    """The job yields to the interactive sessions without starving (issue 26): niceness the server's plus
    WORKER_NICENESS (1), Linux's SCHED_BATCH, and the server's own session and autogroup (a group of its own at
    nice 19 starved it 50x on a busy machine)."""
    niceness, same_session, group, policy = heavy.run_in_worker(priority, context=forkserver)
    assert niceness == min(19, os.nice(0) + WORKER_NICENESS)
    assert same_session
    if os.path.exists("/proc/self/autogroup"):
        assert group == priority()[2]  # the server's group, at the server's group niceness
    if hasattr(os, "SCHED_BATCH"):
        assert policy == os.SCHED_BATCH


@pytest.mark.slow  # starts a worker process
def test_worker_reraises_the_job_error(forkserver):
    with pytest.raises(ParameterError, match="no-such-selector"):
        heavy.run_in_worker(npfs, _toy(), "no-such-selector", 1, n_bootstraps=2, context=forkserver)


@pytest.mark.slow  # starts a worker process
def test_worker_that_dies_raises_a_fslab_error(forkserver):
    with pytest.raises(FslabError, match="exit code 3"):
        heavy.run_in_worker(os._exit, 3, context=forkserver)


@pytest.mark.slow  # starts a worker process
def test_interrupted_caller_terminates_the_worker(forkserver):
    def progress(done, total):
        if done >= 3:
            raise Interrupted

    before = multiprocessing.active_children()   # a Dask test's cluster may live on here (tests/dask_cluster.py)
    with pytest.raises(Interrupted):
        heavy.run_in_worker(npfs, _toy(), "mi-score", 1, n_bootstraps=5_000, progress=progress, context=forkserver)
    assert [p for p in multiprocessing.active_children() if p not in before] == []


def test_slot_is_released_when_the_session_stops_right_after_taking_it(monkeypatch):
    """The waiting message is cleared after the slot is taken; Streamlit may stop the session exactly there (a tab
    closed while waiting). The slot must still be released, or every later heavy job waits forever."""

    class StoppingBox:
        def info(self, *args, **kwargs):
            slots.release()  # the other user's job ends while we wait: the next acquire succeeds

        def empty(self):
            raise Interrupted

    slots = threading.BoundedSemaphore(1)
    assert slots.acquire(blocking=False)  # another user's job holds the only slot
    monkeypatch.setattr(heavy.st, "empty", StoppingBox)
    with pytest.raises(Interrupted):
        with heavy.heavy_slot(slots, wait_seconds=0.01):
            pytest.fail("the block must not run: the session was stopped")
    assert slots.acquire(blocking=False)  # free again
    slots.release()


def test_slot_not_taken_when_stopped_while_waiting(monkeypatch):
    class StoppingBox:
        def info(self, *args, **kwargs):
            raise Interrupted

    slots = threading.BoundedSemaphore(1)
    assert slots.acquire(blocking=False)
    monkeypatch.setattr(heavy.st, "empty", StoppingBox)
    with pytest.raises(Interrupted):
        with heavy.heavy_slot(slots):
            pytest.fail("unreachable")
    slots.release()  # still exactly one holder (ours): a second release would raise ValueError
    with pytest.raises(ValueError):
        slots.release()


@pytest.mark.slow  # starts a worker process (about 1.5 s CPU each)
@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_worker_does_not_rerun_the_app_script(tmp_path, monkeypatch, method):
    """Under ``streamlit run`` the parent's ``__main__`` is app.py; a worker must not import it (it ran app.py
    in every worker: ~0.5 s and ~60 warnings each). The stand-in script leaves a marker file when imported."""
    marker = tmp_path / "imported"
    script = tmp_path / "app_stand_in.py"
    script.write_text(f"open({str(marker)!r}, 'w').close()\n")
    main = types.ModuleType("__main__")
    main.__file__ = str(script)
    monkeypatch.setitem(sys.modules, "__main__", main)
    assert heavy.run_in_worker(os.getpid, context=multiprocessing.get_context(method)) != os.getpid()
    assert not marker.exists()
    assert sys.modules["__main__"] is main  # restored after the start
