"""A pytest plugin that gives each test's wall time and the CPU time of the whole process tree (issue 36.5).

pytest's own CPU leaves out the processes a browser test leans on: the ``streamlit run`` server (and its job
workers) and chromium (its renderers and GPU process, children of Playwright's driver). This plugin reads
/proc before and after each test: the CPU (user + system, with each process's reaped children) of pytest and of
every live descendant, grouped under pytest's direct children: ``server`` (a command line naming streamlit),
``browser`` (Playwright's driver and its chromium) and ``pytest`` itself. One line per test is appended to
``$TREECPU_OUT`` (default ``tree_cpu.txt``): ``wall cpu nodeid load=... pytest=... browser=... server=...``, and a
last line ``SESSION wall cpu``.

    PYTHONPATH=bench TREECPU_OUT=/tmp/e2e.txt .venv/bin/python -m pytest -p tree_cpu -n 0 tests/e2e

The last test's figure is too low (often negative): the session's server and browser stop during its teardown,
and processes that leave the tree unreaped (chromium's) take their CPU with them. Compare runs with the same last
test, or leave it out.
"""

from __future__ import annotations

import os
import time

import pytest

TICK = os.sysconf("SC_CLK_TCK")
OUT = os.environ.get("TREECPU_OUT", "tree_cpu.txt")


def tree_cpu() -> dict[str, float]:
    """Seconds of CPU of this process and of each of its children's subtrees, by kind (module docstring)."""
    kids: dict[int, list[int]] = {}
    stat: dict[int, list[str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                text = fh.read()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2:].split()
        stat[int(entry)] = fields
        kids.setdefault(int(fields[1]), []).append(int(entry))

    def ticks(pid: int) -> int:
        fields = stat.get(pid)
        return sum(int(x) for x in fields[11:15]) if fields else 0   # utime stime cutime cstime

    me = os.getpid()
    parts = {"pytest": ticks(me)}
    for child in kids.get(me, ()):
        try:
            with open(f"/proc/{child}/cmdline") as fh:
                command = fh.read()
        except OSError:
            command = ""
        kind = "server" if "streamlit" in command else "browser" if "playwright" in command or "node" in command \
            else "other"
        todo, total = [child], 0
        while todo:
            pid = todo.pop()
            total += ticks(pid)
            todo.extend(kids.get(pid, ()))
        parts[kind] = parts.get(kind, 0) + total
    return {kind: value / TICK for kind, value in parts.items()}


_start: tuple[float, float] | None = None


def pytest_sessionstart(session):
    global _start
    _start = (time.monotonic(), sum(tree_cpu().values()))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    wall, before = time.monotonic(), tree_cpu()
    yield
    after = tree_cpu()
    parts = " ".join(f"{kind}={after[kind] - before.get(kind, 0):.1f}" for kind in after)
    with open(OUT, "a") as fh:
        fh.write(f"{time.monotonic() - wall:.2f} {sum(after.values()) - sum(before.values()):.2f} {item.nodeid} "
                 f"load={os.getloadavg()[0]:.1f} {parts}\n")


def pytest_sessionfinish(session):
    if _start is not None:
        with open(OUT, "a") as fh:
            fh.write(f"SESSION {time.monotonic() - _start[0]:.2f} {sum(tree_cpu().values()) - _start[1]:.2f} "
                     f"load={os.getloadavg()[0]:.1f}\n")
