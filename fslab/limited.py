"""Reading a file where a bad one hurts only itself: a child process with a memory and a CPU-time limit.

A small file can ask for gigabytes (a parquet page or a gzip stream that inflates, a dictionary spread over the
rows) or for minutes of CPU (pathological cells). Checks on sizes catch what the file declares; what it hides is
caught here: the reader runs in a child process whose address space may grow by at most ``max_parse_mb`` MB over
what it had at its start and whose CPU time is capped at ``max_parse_seconds`` (``resource.setrlimit``, set in the
child only). A breach is a :class:`ParseLimitError` naming the limit and its ``FSLAB_*`` setting, never a
``MemoryError`` reported as a broken file:

- an allocation the cap refuses raises MemoryError (numpy, pandas, pyarrow's ArrowMemoryError) in the child;
  :func:`run_capped` turns it into the limit error there;
- a child killed by the kernel (SIGXCPU at the CPU limit, SIGKILL at the hard one, SIGABRT or SIGSEGV when
  native code fails its allocation) is reported by the parent from its exit code (:func:`breach_error`).

``ui/heavy.run_in_worker(..., limits=...)`` runs the app's upload path this way; :func:`run_limited` does the
same for a plain Python caller (the command line). Only where ``resource`` exists (POSIX); elsewhere the reader
runs unconfined.
"""

from __future__ import annotations

import multiprocessing
import os
import signal

from .errors import TooLargeError
from .limits import MB, Limits, over_limit

_GRACE_SECONDS = 5  # between the CPU limit's SIGXCPU and the kernel's SIGKILL


class ParseLimitError(TooLargeError):
    """Reading a file went over the memory or CPU-time limit of the process reading it."""


def _address_space() -> int:
    """Bytes of virtual memory this process has mapped now (Linux /proc/self/statm), 0 when unknown."""
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def limit_this_process(limits: Limits) -> None:
    """Cap this process: address space = what it maps now + ``max_parse_mb`` MB, CPU time = what it used so far +
    ``max_parse_seconds`` (SIGXCPU then, SIGKILL :data:`_GRACE_SECONDS` later). Call it in a child only."""
    try:
        import resource
    except ImportError:  # not POSIX: no caps
        return
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu = int(used.ru_utime + used.ru_stime) + limits.max_parse_seconds
    for kind, soft, hard in ((resource.RLIMIT_AS, _address_space() + limits.max_parse_mb * MB, None),
                             (resource.RLIMIT_CPU, cpu, cpu + _GRACE_SECONDS)):
        old_soft, old_hard = resource.getrlimit(kind)
        hard = old_hard if hard is None else hard
        if old_hard != resource.RLIM_INFINITY:
            soft = min(soft, old_hard)
            hard = min(hard, old_hard)
        try:
            resource.setrlimit(kind, (soft, hard))
        except (ValueError, OSError):  # a platform that refuses this cap: the others still hold
            pass


def memory_error(limits: Limits, what: str = "reading the file") -> ParseLimitError:
    return ParseLimitError(over_limit("max_parse_mb", f"{what} needed more memory than allowed", limits))


def breach_error(exitcode: int | None, limits: Limits, what: str = "reading the file") -> ParseLimitError | None:
    """The limit error for a child that ended with ``exitcode`` without an answer, or None when it exited by
    itself (a code >= 0: not a limit)."""
    if exitcode is None or exitcode >= 0:
        return None
    if -exitcode in (signal.SIGXCPU, signal.SIGKILL):
        return ParseLimitError(over_limit("max_parse_seconds", f"{what} took more CPU time than allowed (or the "
                                                               "system stopped it)", limits))
    return ParseLimitError(over_limit(
        "max_parse_mb", f"{what} stopped the process reading it ({signal.Signals(-exitcode).name}), most likely at "
                        "its memory limit", limits))


def run_capped(limits: Limits, fn, /, *args, what: str = "reading the file", **kwargs):
    """``fn(*args, **kwargs)`` in this (child) process after :func:`limit_this_process`; a MemoryError becomes a
    :class:`ParseLimitError`."""
    limit_this_process(limits)
    try:
        return fn(*args, **kwargs)
    except MemoryError:
        raise memory_error(limits, what) from None


def _child(conn, limits: Limits, fn, args: tuple, kwargs: dict, what: str) -> None:
    try:
        result = ("done", run_capped(limits, fn, *args, what=what, **kwargs))
    except Exception as err:  # sent back and raised in the parent
        result = ("error", err)
    try:
        conn.send(result)
    except MemoryError:  # the answer itself does not fit under the cap
        conn.send(("error", memory_error(limits, what)))
    conn.close()


def run_limited(limits: Limits, fn, /, *args, what: str = "reading the file", context=None, **kwargs):
    """``fn(*args, **kwargs)`` in a child process under ``limits`` (module docstring): its result, its own
    exception, or a :class:`ParseLimitError`. ``fn`` and its arguments must pickle; ``context``: a multiprocessing
    context (``fork`` by default where there is one: the child starts with fslab imported)."""
    if context is None:
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(send, limits, fn, args, kwargs, what), daemon=True)
    child.start()
    send.close()
    try:
        kind, payload = receive.recv()
    except EOFError:  # died without an answer
        child.join()
        raise breach_error(child.exitcode, limits, what) or ParseLimitError(
            f"the process {what} stopped without an answer (exit code {child.exitcode})") from None
    finally:
        receive.close()
    child.join()
    if kind == "error":
        raise payload
    return payload


__all__ = ["ParseLimitError", "breach_error", "limit_this_process", "run_capped", "run_limited"]
