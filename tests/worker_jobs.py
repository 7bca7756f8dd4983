"""Jobs the worker tests send to a worker process (tests/test_heavy.py, tests/test_upload_limits.py). A worker
imports a job's module to unpickle it: this one imports numpy only (the forkserver has it already), where a test
module would import pytest, Streamlit and the tests' conftest in every worker (0.5 s of CPU, run at the worker's
lower priority: about 1 s of wall a job on a busy machine)."""

from __future__ import annotations

import os
import signal

import numpy as np


def allocate(n_bytes: int) -> int:
    """Reserve ``n_bytes`` of address space, what the cap (RLIMIT_AS) limits, without writing them (400 MB of ones:
    0.9 s of page faults in a fresh worker)."""
    return int(np.empty(n_bytes // 8).size)


def spin() -> None:
    while True:
        pass


def die() -> None:
    os.kill(os.getpid(), signal.SIGSEGV)


def fail() -> None:
    raise ValueError("own error")


def priority() -> tuple[int, bool, str, int | None]:
    """This process's niceness, whether it shares its parent's session, its autogroup and its scheduling policy."""
    try:
        with open("/proc/self/autogroup", encoding="ascii") as fh:
            group = fh.read().strip()
    except OSError:
        group = ""
    policy = os.sched_getscheduler(0) if hasattr(os, "sched_getscheduler") else None
    return os.nice(0), os.getsid(0) == os.getsid(os.getppid()), group, policy
