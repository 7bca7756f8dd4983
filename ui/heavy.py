"""Heavy work (NPFS, learning curves, large subset lattices) without freezing the other users.

Streamlit runs every session's script in a thread of one server process, so one session's long computation
holds the GIL that the other sessions and the websocket event loop need. Two tools keep a room usable:

- :func:`heavy_slot`: a server-wide bounded slot (``max(1, cores - 1)`` jobs at once, one core left for the
  light work of everybody else). A session that must wait sees :data:`WAIT_MESSAGE` and can still rerun.
- :func:`run_in_worker`: runs a function in a separate process (forked from a ``forkserver`` that has imported
  fslab once, at a lower CPU priority, :func:`lower_priority`, so the interactive sessions keep their share), relays its
  ``progress`` calls to the caller's thread and returns its result; the server's GIL stays free meanwhile. If the
  caller is interrupted (Streamlit stops a script at its next ``st`` call when the user reruns or cancels), the
  worker is terminated.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import sys
import threading
import time
import types
from contextlib import contextmanager

import streamlit as st

from fslab.errors import FslabError

WAIT_MESSAGE = "Waiting for another user's heavy job to finish..."
# a lattice of 2^n subsets over this many table cells (rows or states) or more takes the slot
HEAVY_LATTICE_CELLS = 2_000_000
_POLL_SECONDS = 0.1


class WorkerError(FslabError):
    """The worker process of a heavy job stopped without returning a result."""


def slot_count(cores: int | None = None) -> int:
    """Heavy jobs allowed at once: every core but one, at least one."""
    return max(1, (cores if cores is not None else os.cpu_count() or 1) - 1)


@st.cache_resource
def server_slots() -> threading.BoundedSemaphore:
    """The one semaphore all sessions of this server share (a resource, deliberately not per session)."""
    return threading.BoundedSemaphore(slot_count())


@contextmanager
def heavy_slot(slots: threading.Semaphore | None = None, wait_seconds: float = 1.0):
    """Hold a heavy-work slot for the ``with`` block; while every slot is taken, show :data:`WAIT_MESSAGE`.

    The wait polls, updating the message, so a rerun or a stop of the waiting session is honoured at once.
    """
    slots = server_slots() if slots is None else slots
    held = slots.acquire(blocking=False)
    try:  # every st call below may raise (Streamlit stops a closed or rerun session there): release if held
        if not held:
            box = st.empty()
            start = time.monotonic()
            while not held:
                box.info(f"{WAIT_MESSAGE} ({time.monotonic() - start:.0f} s)", icon=":material/hourglass_top:")
                held = slots.acquire(timeout=wait_seconds)
            box.empty()
        yield
    finally:
        if held:
            slots.release()


def is_heavy_lattice(n_features: int, cells: int) -> bool:
    """True when enumerating the 2^n subsets of a source with ``cells`` rows or states is heavy work."""
    return 2 ** n_features * max(1, cells) >= HEAVY_LATTICE_CELLS


@st.cache_resource
def _context():
    """A forkserver context that imports fslab once: each job then starts with a fork, not a fresh import."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["fslab"])
    return ctx


WORKER_NICENESS = 10  # heavy jobs yield the cores to the interactive sessions of everybody else


def lower_priority() -> None:
    """Make this process background work: ``nice`` +10, in a scheduling group of its own at nice 19.

    With Linux's autogroup scheduling (on by default on most distributions), niceness only ranks processes within
    one session's group, and the groups share the CPU equally; so the worker also starts a session of its own
    (``setsid``) and lowers that group's weight (``/proc/self/autogroup``), else a heavy job would still take half
    the machine from the server and everything else on it. Each step is skipped where the platform has no such thing.
    """
    for step in (lambda: os.nice(WORKER_NICENESS), os.setsid, _lower_autogroup):
        try:
            step()
        except (AttributeError, OSError):
            pass


def _lower_autogroup() -> None:
    with open("/proc/self/autogroup", "w", encoding="ascii") as fh:
        fh.write("19")


def _work(results, fn, args: tuple, kwargs: dict, with_progress: bool) -> None:
    lower_priority()
    if with_progress:
        kwargs = {**kwargs, "progress": lambda *a: results.put(("progress", a))}
    try:
        results.put(("done", fn(*args, **kwargs)))
    except Exception as err:  # sent back and re-raised in the caller's thread
        results.put(("error", err))


_MAIN_LOCK = threading.Lock()


@contextmanager
def plain_main():
    """A bare ``__main__`` while a worker starts, so it runs fslab only.

    ``multiprocessing`` tells a new process (and the forkserver) to import the parent's ``__main__`` from its file
    first; under ``streamlit run`` that module is the app script, so every worker re-ran ``app.py`` (about 0.5 s and
    ~60 warning lines each). A module without ``__file__`` or ``__spec__`` gives it nothing to import.
    """
    with _MAIN_LOCK:
        saved = sys.modules.get("__main__")
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            yield
        finally:
            if saved is not None:
                sys.modules["__main__"] = saved


def run_in_worker(fn, *args, progress=None, context=None, **kwargs):
    """``fn(*args, progress=..., **kwargs)`` in a worker process; ``progress(*a)`` runs here for each call there.

    ``fn`` and its arguments must pickle (module-level functions, plain data). Exceptions raised by ``fn`` are
    re-raised; a worker that dies without an answer raises :class:`WorkerError`.
    """
    ctx = context or _context()
    results = ctx.Queue()
    worker = ctx.Process(target=_work, args=(results, fn, args, kwargs, progress is not None), daemon=True)
    with plain_main():
        worker.start()
    try:
        while True:
            try:
                kind, payload = results.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                if not worker.is_alive() and results.empty():
                    raise WorkerError(f"the worker process of {getattr(fn, '__name__', 'the job')} stopped "
                                      f"without a result (exit code {worker.exitcode})") from None
                continue
            if kind == "progress":
                progress(*payload)
            elif kind == "error":
                raise payload
            else:
                return payload
    finally:
        if worker.is_alive():
            worker.terminate()
        worker.join(timeout=10)
        results.close()
