"""ui.heavy: the server-wide heavy-work slot and the worker process (no timing assertions)."""

from __future__ import annotations

import multiprocessing
import os
import threading

import pytest

from fslab.errors import FslabError, ParameterError
from ui import heavy


def _count_to(n: int, progress=None) -> int:
    for i in range(1, n + 1):
        progress(i, n)
    return n * (n + 1) // 2


def _refuse(value: int) -> None:
    raise ParameterError(f"value must be positive; got {value}")


def _die() -> None:
    os._exit(3)


def _forever(progress=None) -> None:
    i = 0
    while True:
        i += 1
        progress(i)


class Interrupted(Exception):
    """Stands in for Streamlit's StopException raised in the caller's thread."""


@pytest.fixture(scope="module")
def forkserver():
    """The forkserver context, preloading this module (its jobs) once so each job starts with a fork."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([__name__])
    return ctx


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


def test_worker_returns_the_result_and_relays_progress_in_order(forkserver):
    seen = []
    assert heavy.run_in_worker(_count_to, 5, progress=lambda *a: seen.append(a), context=forkserver) == 15
    assert seen == [(1, 5), (2, 5), (3, 5), (4, 5), (5, 5)]


def test_worker_reraises_the_job_error(forkserver):
    with pytest.raises(ParameterError, match="got -2"):
        heavy.run_in_worker(_refuse, -2, context=forkserver)


def test_worker_that_dies_raises_a_fslab_error(forkserver):
    with pytest.raises(FslabError, match="exit code 3"):
        heavy.run_in_worker(_die, context=forkserver)


def test_interrupted_caller_terminates_the_worker(forkserver):
    def progress(i):
        if i >= 3:
            raise Interrupted

    with pytest.raises(Interrupted):
        heavy.run_in_worker(_forever, progress=progress, context=forkserver)
    assert multiprocessing.active_children() == []
