"""Issue 26, item 4: heavy work that yields without starving, identical jobs computed once, honest progress,
worker start failures shown plainly.

The timing test (slow) times a CPU-bound job through the worker against the same job in a plain process while two
CPU-bound processes keep both cores busy; it prints the numbers (see the issue-26 report)."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import threading
import time
import types
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from fslab.data.encoded import EncodedDataset
from tests.conftest import ROOT, scaled
from tests.starvation_job import timed_spin
from ui import heavy


class Store:
    """A SharedResults stand-in: get/put by key."""

    def __init__(self):
        self.items, self.lock = {}, threading.Lock()

    def get(self, key):
        with self.lock:
            return self.items.get(key)

    def put(self, key, value):
        with self.lock:
            self.items[key] = value


class Box:
    def info(self, *args, **kwargs):
        pass

    def empty(self):
        pass


@pytest.fixture
def quiet_st(monkeypatch):
    monkeypatch.setattr(heavy.st, "empty", Box)


@pytest.mark.slow  # 0.31 s measured (inner loop: unit and not slow)
def test_four_tabs_asking_for_one_result_compute_it_once(quiet_st):
    store, calls, started = Store(), [], threading.Event()
    slots, locks = threading.BoundedSemaphore(1), heavy.KeyLocks()

    def compute():
        calls.append(1)
        started.set()
        time.sleep(0.3)  # the others arrive while it runs
        return "result"

    results = []

    def tab():
        results.append(heavy.computed_once(store, "npfs:abc", compute, locks=locks, slots=slots))

    threads = [threading.Thread(target=tab) for _ in range(4)]
    threads[0].start()
    started.wait(10)
    for t in threads[1:]:
        t.start()
    for t in threads:
        t.join(30)
    assert calls == [1] and results == ["result"] * 4
    assert locks._locks == {}  # no lock left behind


def test_a_job_that_waited_for_the_slot_finds_the_result_there(quiet_st):
    """The slot is held by an identical job of another session that did not go through the same key lock (e.g. an
    older server thread): after the slot wait the store is checked again."""
    store, slots = Store(), threading.BoundedSemaphore(1)
    assert slots.acquire(blocking=False)

    def other_session():
        time.sleep(0.2)
        store.put("k", "theirs")
        slots.release()

    threading.Thread(target=other_session).start()
    calls = []
    found = heavy.computed_once(store, "k", lambda: calls.append(1) or "mine", locks=heavy.KeyLocks(), slots=slots)
    assert found == "theirs" and calls == []


def test_a_cancelled_result_is_not_shared(quiet_st):
    store = Store()
    heavy.computed_once(store, "k", lambda: "partial", keep=lambda r: False, locks=heavy.KeyLocks(),
                        slots=threading.BoundedSemaphore(1))
    assert store.get("k") is None


def test_different_keys_do_not_wait_for_each_other(quiet_st):
    locks, slots = heavy.KeyLocks(), threading.BoundedSemaphore(2)
    inside, release = threading.Event(), threading.Event()

    def long_job():
        inside.set()
        release.wait(10)
        return 1

    t = threading.Thread(target=lambda: heavy.computed_once(Store(), "a", long_job, locks=locks, slots=slots))
    t.start()
    inside.wait(10)
    assert heavy.computed_once(Store(), "b", lambda: 2, locks=locks, slots=slots) == 2
    release.set()
    t.join(10)


class BrokenContext:
    """A multiprocessing context whose workers cannot start (the forkserver was killed)."""

    def __init__(self):
        self.starts = 0

    def Queue(self):  # noqa: N802 (multiprocessing's name)
        return multiprocessing.get_context("spawn").Queue()

    def Process(self, **kwargs):  # noqa: N802
        ctx = self

        class P:
            def start(self):
                ctx.starts += 1
                raise BrokenPipeError(32, "Broken pipe")

        return P()


def test_a_worker_that_cannot_start_is_a_plain_error():
    ctx = BrokenContext()
    with pytest.raises(heavy.WorkerError) as err:
        heavy.run_in_worker(os.getpid, context=ctx)
    assert ctx.starts == heavy.START_ATTEMPTS == 2  # retried once: a killed forkserver is restarted
    text = str(err.value)
    assert "could not start a worker process" in text and "BrokenPipeError" in text and "Run again" in text


def test_reporter_never_freezes_at_about_0_s_left(monkeypatch):
    from ui.npfs import Reporter

    class Bar:
        def progress(self, value, text):
            self.value, self.text = value, text

    monkeypatch.setattr("ui.npfs.st.session_state", {}, raising=False)
    bar = Bar()
    reporter = Reporter(bar)
    reporter(0, 100)
    assert bar.text.startswith("Starting 100 bootstraps")
    reporter(100, 100)
    assert "All 100 bootstraps done" in bar.text and "assembling" in bar.text and "0 s left" not in bar.text
    reporter(50, 100)
    reporter.last -= 60  # a minute without news
    reporter.tick()
    assert "no bootstrap finished for 60 s" in bar.text and "about 0 s left" in bar.text


@pytest.mark.slow  # starts a worker process
def test_the_wait_for_a_silent_worker_calls_idle(monkeypatch):
    """A job silent for 0.6 s with ``idle`` due every 0.15 s: called more than once (the server's 1 s, shortened:
    the wait is the same loop). The app's forkserver context: a fork, not a fresh interpreter."""
    monkeypatch.setattr(heavy, "IDLE_SECONDS", 0.15)
    ticks = []
    assert heavy.run_in_worker(time.sleep, 0.6, context=heavy._context(), idle=lambda: ticks.append(1)) is None
    assert len(ticks) >= 2


def _timed_under_busy_cores(start_job, folder: Path) -> float:
    """Start a job (``start_job(folder)`` returns a callable that waits for its seconds); once it says it is ready
    (imports done), two CPU-bound processes in sessions of their own (other users' work) start; 0.5 s later the job
    gets its go; the busy processes are killed as soon as it answers. So they run only while the job is timed."""
    folder.mkdir()
    answer = start_job(folder)
    deadline = time.monotonic() + scaled(120)
    while not (folder / "ready").exists():
        assert time.monotonic() < deadline, "the job never said it was ready"
        time.sleep(0.02)
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True) for _ in range(2)]
    try:
        time.sleep(0.5)
        (folder / "go").touch()
        return round(answer(), 2)
    finally:
        for h in hogs:
            h.kill()
            h.wait()


@pytest.mark.slow  # a worker and a plain process, two busy processes while the jobs are timed: ~5 s CPU a round
def test_a_heavy_job_on_a_busy_machine_is_not_starved(capsys, tmp_path):
    """Two CPU-bound processes in sessions of their own keep both cores busy. The job in the worker
    (lower_priority, forked by the app's forkserver) must take at most 5x the same job in a plain process under the
    same load (the earlier nice-19 autogroup: 15-50x). Both time only the job (``tests/starvation_job.py``: a fixed
    loop, about 0.4 s of CPU on an idle core), not their start; interleaved, best of two rounds, the second run only
    when the first is over the bound (a noisy round)."""
    n = 6_000_000
    code = f"import sys; from tests.starvation_job import timed_spin; print(timed_spin({n}, sys.argv[1]))"

    def plain(folder):
        proc = subprocess.Popen([sys.executable, "-c", code, str(folder)], cwd=ROOT, stdout=subprocess.PIPE,
                                text=True)
        return lambda: float(proc.communicate(timeout=scaled(300))[0].strip().splitlines()[-1])

    def worker(folder):
        pool = ThreadPoolExecutor(1)
        future = pool.submit(heavy.run_in_worker, timed_spin, n, str(folder), context=heavy._context())
        pool.shutdown(wait=False)
        return lambda: future.result(timeout=scaled(300))

    times = {"plain": [], "worker": []}
    for round_ in range(2):
        for name, start in (("plain", plain), ("worker", worker)):
            times[name].append(_timed_under_busy_cores(start, tmp_path / f"{name}{round_}"))
        if min(times["worker"]) <= 5 * min(times["plain"]):
            break
    with capsys.disabled():
        print(f"\nA {n:,}-round loop, 2 busy cores: plain process {times['plain']} s, worker {times['worker']} s; "
              f"load {os.getloadavg()[0]:.1f}")
    # The starvation this guards was 15-50x. Nice +1 and SCHED_BATCH give the job a smaller share than a plain
    # process wherever more than the two busy processes compete (CI's three test workers: 3.4x measured once, the
    # plain process 0.71 s in one round and 2.16 s in the other), so the bound is 5x, well under the failure's 15x.
    assert min(times["worker"]) <= 5 * min(times["plain"])


def _four_tabs(ask, monkeypatch, module):
    """Four sessions ask one question at once; ``run_in_worker`` (the costly part) must run once."""
    store, calls = Store(), []

    def worker(func, *args, **kwargs):
        calls.append(func.__name__)
        time.sleep(0.3)  # the other tabs arrive while it runs
        return types.SimpleNamespace(answer=42, cancelled=False)

    monkeypatch.setattr(module, "shared_results", lambda: store)
    monkeypatch.setattr(heavy, "run_in_worker", worker)
    locks, slots = heavy.KeyLocks(), threading.BoundedSemaphore(1)
    monkeypatch.setattr(heavy, "server_key_locks", lambda: locks)
    monkeypatch.setattr(heavy, "server_slots", lambda: slots)
    results = []
    threads = [threading.Thread(target=lambda: results.append(ask())) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(results) == 4 and {getattr(r, "answer", None) for r in results} == {42}
    assert len(calls) == 1, f"the same question was computed {len(calls)} times"


@pytest.mark.slow  # 0.32 s measured (inner loop: unit and not slow)
def test_four_tabs_asking_the_k_suggestion_compute_it_once(quiet_st, monkeypatch):
    from ui import k_suggestion

    source = EncodedDataset(np.array([[0, 1], [1, 0], [1, 1], [0, 0]]), np.array([0, 1, 1, 0]))
    _four_tabs(lambda: k_suggestion.run_suggestion(source, "jmi", "mi", {}, 2, 10, 10, 0.05, None)[1],
               monkeypatch, k_suggestion)


@pytest.mark.slow  # 0.30 s measured (inner loop: unit and not slow)
def test_four_tabs_asking_the_robustness_box_compute_it_once(quiet_st, monkeypatch):
    from ui import robustness

    source = EncodedDataset(np.array([[0, 1], [1, 0], [1, 1], [0, 0]]), np.array([0, 1, 1, 0]))
    _four_tabs(lambda: robustness.npfs_result("toy", source, "jmi", None, {}, 1, in_worker=True),
               monkeypatch, robustness)
