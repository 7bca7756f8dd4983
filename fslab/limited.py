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

The answer comes back through a pipe by :func:`send_value` / :func:`receive_value`: a pickle (protocol 5) whose
large buffers (numpy arrays, Arrow buffers) travel out of band, each memory region once, and are read straight into
the receiver's buffers. A plain ``Connection.send`` costs the receiver the whole pickle plus the objects rebuilt from
it, and a column shared by two objects twice: for a 45 MB table and its typed Dataset, 228 MB at the receiver's peak
(bench/upload_memory.py).
"""

from __future__ import annotations

import io
import multiprocessing
import os
import pickle
import signal
import struct

import numpy as np

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


_LENGTH = struct.Struct("<Q")


def _regions(buffers: list[pickle.PickleBuffer]) -> tuple[list[memoryview], list[tuple[int, int, int]]]:
    """The memory regions to send for ``buffers`` (a pickle's out-of-band buffers) and, per buffer, (region, offset,
    length): a buffer lying inside another one's memory (a view of an array also pickled, a column shared by two
    frames) is sent once, as a slice of the region that holds it."""
    views = [b.raw() for b in buffers]
    spans = sorted(((np.frombuffer(v, np.uint8).ctypes.data if v.nbytes else 0, v.nbytes, i)
                    for i, v in enumerate(views)), key=lambda s: (s[0], -s[1]))
    regions: list[memoryview] = []
    layout: list[tuple[int, int, int]] = [(0, 0, 0)] * len(views)
    start = end = -1
    for address, size, i in spans:
        if not size:
            layout[i] = (-1, 0, 0)
            continue
        if not (start <= address and address + size <= end):   # not inside the last region: a region of its own
            regions.append(views[i])
            start, end = address, address + size
        layout[i] = (len(regions) - 1, address - start, size)
    return regions, layout


def _restore(cls, state: dict):
    obj = cls.__new__(cls)
    obj.__setstate__(state)
    return obj


class _Pickler(pickle.Pickler):
    """Protocol 5 with pandas' Arrow-backed arrays (the ``str`` columns) pickled by their Arrow buffers as they are:
    pandas' own ``__getstate__`` sends ``combine_chunks()``, a copy, so a column shared by two frames would travel
    (and arrive) twice."""

    def reducer_override(self, obj):
        state = getattr(obj, "__dict__", None)
        if isinstance(state, dict) and "_pa_array" in state and type(obj).__module__.startswith("pandas.") \
                and hasattr(obj, "__setstate__"):
            return _restore, (type(obj), {**state, "_cache": {}})
        return NotImplemented


class OutOfBand:
    """``data`` (bytes) sent out of band by :func:`packed`: written to the pipe from where it is, not copied into the
    pickle first; it arrives as bytes (an upload's bytes sent to the worker that reads them)."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def __reduce_ex__(self, protocol):
        return bytes, (pickle.PickleBuffer(self.data),)


def packed(value) -> tuple[bytes, list[memoryview]]:
    """(header, regions) of ``value`` for :func:`send_packed`; pickling errors (MemoryError under a cap) raise here,
    before anything is sent."""
    buffers: list[pickle.PickleBuffer] = []
    out = io.BytesIO()
    _Pickler(out, protocol=5, buffer_callback=buffers.append).dump(value)
    body = out.getvalue()
    regions, layout = _regions(buffers)
    return pickle.dumps((body, [r.nbytes for r in regions], layout), protocol=5), regions


def _write(fd: int, data) -> None:
    view = memoryview(data).cast("B")
    while view.nbytes:
        view = view[os.write(fd, view):]


def send_packed(fd: int, header: bytes, regions: list[memoryview]) -> None:
    """Write a :func:`packed` value to the pipe ``fd``: the header's length, the header, then each region."""
    _write(fd, _LENGTH.pack(len(header)))
    _write(fd, header)
    for region in regions:
        _write(fd, region)


def send_value(fd: int, value) -> None:
    """:func:`send_packed` of :func:`packed` ``value``."""
    send_packed(fd, *packed(value))


def _read_into(fd: int, buffer: bytearray) -> bytearray:
    """Fill ``buffer`` from ``fd`` (``os.readv`` reads into it; where there is none, chunks are copied in)."""
    view, got = memoryview(buffer), 0
    while got < len(buffer):
        if hasattr(os, "readv"):
            n = os.readv(fd, [view[got:]])
        else:  # pragma: no cover - not POSIX
            chunk = os.read(fd, min(len(buffer) - got, 1 << 20))
            n = len(chunk)
            view[got:got + n] = chunk
        if not n:
            raise EOFError("the sender stopped before the end of its answer")
        got += n
    return buffer


def receive_value(fd: int):
    """The value :func:`send_value` wrote to the pipe ``fd``: each region is read into one buffer of its own (no
    copy of the whole pickle), and the arrays are rebuilt over those buffers. EOFError when the sender stopped."""
    size, = _LENGTH.unpack(_read_into(fd, bytearray(_LENGTH.size)))
    body, sizes, layout = pickle.loads(_read_into(fd, bytearray(size)))
    regions = [memoryview(_read_into(fd, bytearray(n))) for n in sizes]
    empty = memoryview(bytearray(0))
    return pickle.loads(body, buffers=[regions[r][o:o + n] if r >= 0 else empty for r, o, n in layout])


def _child(conn, limits: Limits, fn, args: tuple, kwargs: dict, what: str) -> None:
    try:
        result = ("done", run_capped(limits, fn, *args, what=what, **kwargs))
    except Exception as err:  # sent back and raised in the parent
        result = ("error", err)
    try:
        message = packed(result)
    except MemoryError:  # the answer itself does not fit under the cap
        message = packed(("error", memory_error(limits, what)))
    send_packed(conn.fileno(), *message)
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
        kind, payload = receive_value(receive.fileno())
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


WORKER_NICENESS = 1  # a little below the server's threads: they win a contended core, the job is never starved


def lower_priority() -> None:
    """Make this process background work that still finishes: ``nice`` +1 and Linux's SCHED_BATCH policy, in the
    server's own scheduling group.

    SCHED_BATCH marks the job as CPU-bound: a waking interactive thread (a session's rerun, the websocket loop)
    preempts it at once, and the job never preempts them; nice +1 gives it about 45 % of a core where it competes
    with the server's busy threads. It stays in the server's session and Linux autogroup (no ``setsid``): a group of
    its own at nice 19 (the earlier policy) weighed 15 against 1,024 for every other group, so on a machine busy
    with anything else the job barely ran (a 30-bootstrap NPFS: 7 s in-process, 422 s through the worker; issue
    26). Measured with tests/test_issue26_heavy.py. Each step is skipped where the platform has no such thing.
    """
    for step in (lambda: os.nice(WORKER_NICENESS), _batch_policy):
        try:
            step()
        except (AttributeError, OSError):
            pass


def _batch_policy() -> None:
    os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))


def serve_job(results, job, answer, with_progress: bool, caps=None) -> None:
    """A job's worker process (``ui.heavy.run_in_worker``): reads ``(fn, args, kwargs)`` from the pipe ``job``;
    ``progress`` calls and an error go to ``results`` (a queue); the result goes to the pipe ``answer``, announced
    by a ``("piped", None)`` message on ``results``. Both pipes carry :func:`send_packed` messages: arrays and large
    bytes out of band, each memory region once, so neither side copies them into a pickle first.

    It lives here, not in ``ui``: a worker imports the module of its target to unpickle it, and ``ui.heavy``
    imports Streamlit and the pages' modules (1.2-1.5 s a job, on every upload, binning and NPFS run)."""
    lower_priority()
    fn, args, kwargs = receive_value(job.fileno())
    job.close()
    if with_progress:
        kwargs = {**kwargs, "progress": lambda *a: results.put(("progress", a))}
    try:
        message = packed(fn(*args, **kwargs) if caps is None else run_capped(caps, fn, *args, **kwargs))
    except MemoryError as err:   # packing the answer did not fit (under caps, fn's own is run_capped's error)
        results.put(("error", err if caps is None else memory_error(caps)))
        return
    except Exception as err:  # sent back and re-raised in the caller's thread
        results.put(("error", err))
        return
    results.put(("piped", None))
    send_packed(answer.fileno(), *message)


__all__ = ["WORKER_NICENESS", "OutOfBand", "ParseLimitError", "breach_error", "limit_this_process", "lower_priority",
           "packed", "receive_value", "run_capped", "run_limited", "send_packed", "send_value", "serve_job"]
