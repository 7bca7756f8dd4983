"""The timed job of the starvation test (tests/test_issue26_heavy.py): it imports nothing heavy, so a plain process
loads it in milliseconds; it says when it is ready, waits for the test's go (the busy cores are busy by then) and
times a fixed CPU-bound loop, the same work in the plain process and in the worker."""

from __future__ import annotations

import time
from pathlib import Path


def timed_spin(n: int, folder: str) -> float:
    """Seconds of wall time that ``n`` rounds of integer arithmetic take, counted from the go file's appearance."""
    ready, go = Path(folder) / "ready", Path(folder) / "go"
    ready.touch()
    deadline = time.monotonic() + 600
    while not go.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no go file in {folder}")
        time.sleep(0.01)
    start = time.perf_counter()
    total = 0
    for i in range(n):
        total += i * i % 7
    return time.perf_counter() - start
