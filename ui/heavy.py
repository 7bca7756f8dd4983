"""Heavy work (NPFS, learning curves, large subset lattices) without freezing the other users.

Streamlit runs every session's script in a thread of one server process, so one session's long computation
holds the GIL that the other sessions and the websocket event loop need. Two tools keep a room usable:

- :func:`heavy_slot`: a server-wide bounded slot (``max(1, cores - 1)`` jobs at once, one core left for the
  light work of everybody else). A session that must wait sees :data:`WAIT_MESSAGE` and can still rerun.
- :func:`run_in_worker`: runs a function in a separate process (forked from a ``forkserver`` that has imported
  fslab once; the worker's side is :func:`fslab.limited.serve_job`, which never imports Streamlit), at a lower CPU
  priority (:func:`fslab.limited.lower_priority`), so the interactive sessions keep their share; relays its
  ``progress`` calls to the caller's thread and returns its result; the server's GIL stays free meanwhile. If the
  caller is interrupted (Streamlit stops a script at its next ``st`` call when the user reruns or cancels), the
  worker is terminated. A worker that cannot start, or dies, is a :class:`WorkerError` with a plain message. With
  ``caps`` (the server's Limits) the worker's memory and CPU time are capped (:mod:`fslab.limited`): the Data
  page reads and types every upload this way, so a hostile file costs only its worker.
- :func:`computed_once`: a result shared by content (``ui.cache.shared_results``) is computed by one session;
  the others wait for it (four tabs pressing Run on one link start one job, not four).
"""

from __future__ import annotations

import faulthandler
import multiprocessing
import os
import queue
import signal
import sys
import threading
import time
import types
from contextlib import contextmanager

import streamlit as st

from fslab.errors import FslabError
from fslab.limited import OutOfBand, breach_error, packed, receive_value, send_packed, serve_job

WAIT_MESSAGE = "Waiting for another user's heavy job to finish..."
SAME_JOB_MESSAGE = "Another session is computing this same result; it appears here when done..."
# a lattice of 2^n subsets over this many table cells (rows or states) or more takes the slot
HEAVY_LATTICE_CELLS = 2_000_000
_POLL_SECONDS = 0.1


# `kill -USR1 <server pid>` writes every thread's stack to the server's log: a browser test whose page never became
# idle reports what the server was doing (tests/conftest.py, stuck_report). Registered once, when ui.heavy is imported.
if hasattr(signal, "SIGUSR1"):
    faulthandler.register(signal.SIGUSR1, all_threads=True)


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


class KeyLocks:
    """One lock per result key, created on demand and dropped when nobody holds or waits for it."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, list] = {}  # key -> [lock, number of holders and waiters]

    @contextmanager
    def hold(self, key: str, wait_seconds: float = 1.0, message: str = SAME_JOB_MESSAGE):
        with self._guard:
            entry = self._locks.setdefault(key, [threading.Lock(), 0])
            entry[1] += 1
        lock, held = entry[0], False
        try:
            held = lock.acquire(blocking=False)
            if not held:
                box = st.empty()
                start = time.monotonic()
                while not held:  # polls, so a rerun or a stop of the waiting session is honoured at once
                    box.info(f"{message} ({time.monotonic() - start:.0f} s)", icon=":material/hourglass_top:")
                    held = lock.acquire(timeout=wait_seconds)
                box.empty()
            yield
        finally:
            if held:
                lock.release()
            with self._guard:
                entry[1] -= 1
                if entry[1] == 0:
                    self._locks.pop(key, None)


@st.cache_resource
def server_key_locks() -> KeyLocks:
    """The per-result locks all sessions of this server share."""
    return KeyLocks()


def computed_once(store, key: str, compute, keep=lambda result: True, locks: KeyLocks | None = None,
                  slots: threading.Semaphore | None = None):
    """``store.get(key)``, else ``compute()`` in a heavy slot, put in ``store`` when ``keep(result)``.

    Sessions asking for the same key wait for the first one's result (a per-key lock), and the store is checked
    again once the lock and then the slot are held: a job that waited behind an identical one finds its result
    there instead of computing it again."""
    found = store.get(key)
    if found is not None:
        return found
    with (locks or server_key_locks()).hold(key):
        found = store.get(key)
        if found is not None:
            return found
        with heavy_slot(slots):
            found = store.get(key)  # computed while this session waited for the slot
            if found is None:
                found = compute()
                if keep(found):
                    store.put(key, found)
    return found


def is_heavy_lattice(n_features: int, cells: int) -> bool:
    """True when enumerating the 2^n subsets of a source with ``cells`` rows or states is heavy work."""
    return 2 ** n_features * max(1, cells) >= HEAVY_LATTICE_CELLS


@st.cache_resource
def _context():
    """A forkserver context that imports fslab once: each job then starts with a fork, not a fresh import."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["fslab", "fslab.data.upload", "fslab.limited"])   # the upload job's module too
    return ctx


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


START_ATTEMPTS = 2  # a forkserver killed while a worker starts is restarted by the next attempt
IDLE_SECONDS = 1.0  # ``idle()`` is called this often while the worker sends nothing


def _start(ctx, results, job, answer, fn, with_progress: bool, caps=None):
    """Start the worker; a start that fails (the forkserver was killed: BrokenPipeError, EOFError) is retried
    once, then reported as a WorkerError saying what happened, never as the raw OSError."""
    failure: BaseException | None = None
    for _ in range(START_ATTEMPTS):
        worker = ctx.Process(target=serve_job, args=(results, job, answer, with_progress, caps), daemon=True)
        try:
            with plain_main():
                worker.start()
            return worker
        except (OSError, EOFError) as err:
            failure = err
    raise WorkerError(f"the server could not start a worker process for {getattr(fn, '__name__', 'the job')} "
                      f"({type(failure).__name__}: {str(failure) or 'no detail'}); press Run again, and if it keeps "
                      "failing, restart the app") from None


def run_in_worker(fn, *args, progress=None, context=None, idle=None, caps=None, **kwargs):
    """``fn(*args, progress=..., **kwargs)`` in a worker process; ``progress(*a)`` runs here for each call there.

    ``idle()``, when given, is called about every :data:`IDLE_SECONDS` while the worker sends nothing (a progress
    display then shows time passing instead of a frozen "about 0 s left"). ``fn`` and its arguments must pickle
    (module-level functions, plain data). Exceptions raised by ``fn`` are re-raised; a worker that cannot start or
    dies without an answer raises :class:`WorkerError`. ``caps``: a :class:`fslab.Limits` whose ``max_parse_mb``
    and ``max_parse_seconds`` cap the worker's memory and CPU time (:mod:`fslab.limited`: an upload's reading); a
    breach, or a capped worker killed by the system, is a :class:`fslab.limited.ParseLimitError` naming the limit.
    The result comes back through a pipe with its arrays out of band (:func:`fslab.limited.receive_value`): this
    process holds it once, not also its pickle.
    """
    ctx = context or _context()
    # the job, packed before a worker starts: an upload's bytes (or a table) are written from where they are
    large = tuple(OutOfBand(a) if isinstance(a, bytes) and len(a) >= 1 << 20 else a for a in args)
    message = packed((fn, large, kwargs))
    results = ctx.Queue()
    job, send_job = multiprocessing.Pipe(duplex=False)   # (any context: Connections pass to spawned workers)
    receive, answer = multiprocessing.Pipe(duplex=False)
    try:
        worker = _start(ctx, results, job, answer, fn, progress is not None, caps)
    except BaseException:
        receive.close()
        send_job.close()
        raise
    finally:
        job.close()      # the worker holds its own ends: a worker that dies is an end of file here
        answer.close()
    quiet_since = time.monotonic()
    try:
        try:
            send_packed(send_job.fileno(), *message)
        except OSError:   # the worker stopped before reading it
            worker.join(timeout=10)
            raise _stopped(worker, fn, caps) from None
        finally:
            send_job.close()
        while True:
            try:
                kind, payload = results.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                if not worker.is_alive() and results.empty():
                    raise _stopped(worker, fn, caps) from None
                if idle is not None and time.monotonic() - quiet_since >= IDLE_SECONDS:
                    idle()
                    quiet_since = time.monotonic()
                continue
            except (OSError, EOFError) as err:  # the pipe broke: the worker was killed mid-message
                raise WorkerError(f"the worker process of {getattr(fn, '__name__', 'the job')} was cut off "
                                  f"({type(err).__name__}); press Run again") from None
            quiet_since = time.monotonic()
            if kind == "progress":
                progress(*payload)
            elif kind == "error":
                raise payload
            else:   # "piped": the result follows on the pipe
                try:
                    return receive_value(receive.fileno())
                except (OSError, EOFError):   # the worker stopped while sending it
                    worker.join(timeout=10)
                    raise _stopped(worker, fn, caps) from None
    finally:
        if worker.is_alive():
            worker.terminate()
        worker.join(timeout=10)
        results.close()
        receive.close()
        send_job.close()


def _stopped(worker, fn, caps) -> Exception:
    """The error for a worker that ended without a result: the limit it hit (``caps``), else a WorkerError."""
    breach = None if caps is None else breach_error(worker.exitcode, caps)
    return breach if breach is not None else WorkerError(
        f"the worker process of {getattr(fn, '__name__', 'the job')} stopped without a result (exit code "
        f"{worker.exitcode})")
