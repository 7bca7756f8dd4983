"""Every size limit of fslab in one place: :class:`Limits`, the server's :func:`server_limits`, the memory check.

Two kinds of caller, two policies:

* **The library** (``Dataset.from_frame``, ``Dataset.from_arrays``, ``read_csv``, ``read_table``,
  ``.discretize``, ``load_sample``) takes **no size caps by default** (``limits=None``): a Python user on
  their own machine loads the papers' data sets and anything that fits in memory (6,000 x 5,000 or
  1,000,000 x 500 with default arguments). Before a large allocation it estimates the bytes needed and
  compares them with the memory the operating system reports available (:func:`check_memory`); a request
  that cannot fit raises :class:`NotEnoughMemoryError` (a :class:`fslab.errors.TooLargeError`) with one
  sentence, never a half-built object or a MemoryError traceback.
* **The server side** (the app's upload path, ``ui/``, and the command line, ``fslab.cli``) passes
  ``limits=server_limits()`` explicitly, so a room of users sharing one process keeps the ceilings below, and
  every refusal names its setting: an operator changes a limit with ``FSLAB_<FIELD>`` (e.g.
  ``FSLAB_MAX_ROWS=500000``); code passes ``limits=Limits(...)``.

**What** ``limits=None`` **means** (the one rule): in the data loaders above and the ``check_*`` refusals they
call (``fslab.data``), None is *no caps*. Everywhere else a ``limits`` (or ``max_subsets``, ``max_features``)
of None is *the server's limits*, :func:`server_limits`, read when the function runs: ``fslab.cost``,
``fslab.recipe``, ``fslab.cli``, ``Distribution.from_json`` / ``.sample``, ``safe_json.loads``,
``learning_curves``, exhaustive search, lattices, :func:`over_limit`, :func:`limits_table`. (``npfs`` is a
loader-like exception kept from its documentation: None takes any number of bootstraps.)

Nothing reads the environment when fslab is imported: :func:`server_limits` reads ``FSLAB_*`` on its first
call and keeps the result (``server_limits.cache_clear()`` forgets it, for tests). ``fslab.LIMITS`` and
``fslab.limits.LIMITS`` (the name DESIGN.md gives the server's limits) are ``server_limits()``, read on use.

Units: ``max_upload_mb`` counts megabytes of 1,000,000 bytes (:data:`MB`), the unit of Streamlit's
``server.maxUploadSize`` and of ``st.file_uploader(max_upload_size=...)``; fslab's own checks and messages
use the same unit, so the widget and fslab refuse the same files.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, fields, replace

from .errors import ParameterError, TooLargeError

MB = 1_000_000   # one megabyte as Streamlit counts upload sizes (server.maxUploadSize, max_upload_size)


class NotEnoughMemoryError(TooLargeError):
    """The estimated memory of a request is more than the machine has available."""


@dataclass(frozen=True)
class Limits:
    """Largest inputs and jobs fslab accepts (see :func:`limits_table` for what each one bounds)."""

    max_upload_mb: int = 50                # size of one uploaded file (CSV, JSON distribution, recipe)
    max_rows: int = 200_000                # rows of a table
    max_columns: int = 2_000               # columns of a table
    max_cells: int = 50_000_000            # rows x columns
    max_field_chars: int = 100_000         # characters of one header line or one cell
    max_json_bytes: int = 2_000_000        # a JSON distribution or recipe
    max_json_depth: int = 16               # nesting of JSON arrays and objects
    max_states: int = 100_000              # states (rows) of an exact distribution
    max_exhaustive_subsets: int = 200_000  # C(n, k) subsets scored by exhaustive search
    max_lattice_features: int = 12         # features of a subset lattice (2^n subsets)
    max_bootstraps: int = 5_000            # NPFS bootstraps
    max_curve_fits: int = 2_000            # learner fits of one learning-curve run
    max_work: int = 10_000_000_000         # row-tables of one job (fslab.cost: (tables + passes) x rows)
    max_job_mb: int = 2_000                # predicted peak memory of one job (fslab.cost)
    confirm_seconds: int = 5               # jobs predicted longer run only on a click (app)
    cache_entries: int = 32                # entries of one cached function in the app
    cache_mb: int = 256                    # memory of one cached function's entries in the app
    session_mb: int = 200                  # memory of the results one app session keeps for its reruns
    max_parse_mb: int = 2_000              # memory of the worker process that reads and types one upload
    max_parse_seconds: int = 120           # CPU time of the worker process that reads and types one upload

    @classmethod
    def from_env(cls, environ=None) -> Limits:
        """Defaults overridden by ``FSLAB_<FIELD>`` environment variables (positive integers)."""
        environ = os.environ if environ is None else environ
        changes = {}
        for f in fields(cls):
            text = environ.get(f"FSLAB_{f.name.upper()}")
            if text is None:
                continue
            try:
                value = int(text)
            except ValueError:
                value = 0
            if value < 1:
                raise ParameterError(f"FSLAB_{f.name.upper()} must be a positive integer; got {text!r}")
            changes[f.name] = value
        return replace(cls(), **changes)


@functools.cache
def server_limits() -> Limits:
    """The server's limits: the defaults overridden by the ``FSLAB_<FIELD>`` environment variables, read on the
    first call and kept (``server_limits.cache_clear()`` reads them again on the next call: tests)."""
    return Limits.from_env()


SCHEDULER_SETTING = "FSLAB_DASK_SCHEDULER"   # fslab.data.distributed.SCHEDULER_ENV (not imported: no Dask here)
_ADDRESS = re.compile(r"(?:(?:tcp|tls)://)?(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?/?")


def check_server_settings(environ=None) -> Limits:
    """Read and check every ``FSLAB_*`` setting a server runs with, for the app's start (before any page): the
    limits (positive integers, :meth:`Limits.from_env`) and the Dask scheduler's address (``host:port`` or
    ``tcp://host:port``). Raises ParameterError naming the setting and echoing its value; returns the limits.

    Without this, ``FSLAB_MAX_ROWS=abc`` let the server start and then broke every page with an import error, and
    a malformed scheduler address surfaced as a raw error from Dask on the first NPFS run."""
    environ = os.environ if environ is None else environ
    limits = Limits.from_env(environ)
    address = environ.get(SCHEDULER_SETTING, "").strip()
    match = _ADDRESS.fullmatch(address) if address else None
    if address and (match is None or (match.group(1) is not None and not 0 < int(match.group(1)) < 65536)):
        raise ParameterError(f"{SCHEDULER_SETTING} must be a Dask scheduler address such as tcp://host:8786 or "
                             f"host:8786; got {address[:80]!r}")
    return limits


def limits_or_server(limits: Limits | None) -> Limits:
    """``limits``, or the server's limits when it is None (the rule of this module's docstring)."""
    return server_limits() if limits is None else limits


def __getattr__(name: str):
    """``LIMITS``: the server's limits (DESIGN.md's name), :func:`server_limits` read on use."""
    if name == "LIMITS":
        return server_limits()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


DESCRIPTIONS = {
    "max_upload_mb": ("upload size", "MB per uploaded file"),
    "max_rows": ("rows", "rows of a data table"),
    "max_columns": ("columns", "columns of a data table"),
    "max_cells": ("cells", "rows x columns of a data table"),
    "max_field_chars": ("field length", "characters in one header line or one cell"),
    "max_json_bytes": ("JSON size", "bytes of a JSON distribution or recipe"),
    "max_json_depth": ("JSON nesting", "levels of nested arrays and objects"),
    "max_states": ("distribution states", "states of an exact distribution"),
    "max_exhaustive_subsets": ("exhaustive subsets", "subsets C(n, k) scored by exhaustive search"),
    "max_lattice_features": ("lattice size", "features of a subset lattice (2^n subsets)"),
    "max_bootstraps": ("bootstraps", "NPFS bootstraps per run"),
    "max_curve_fits": ("learning-curve work", "learner fits per learning-curve run"),
    "max_work": ("work", "row-tables counted by one job (subset tables and passes x rows; fslab.cost)"),
    "max_job_mb": ("job memory", "MB of predicted peak memory of one job (fslab.cost)"),
    "confirm_seconds": ("confirmation", "predicted seconds above which a job runs only on a click"),
    "cache_entries": ("cached results", "entries kept per cached computation"),
    "cache_mb": ("cache memory", "MB kept per cached computation"),
    "session_mb": ("session memory", "MB of results one app session keeps for its reruns"),
    "max_parse_mb": ("reading memory", "MB of memory (address space) the worker reading one upload may use"),
    "max_parse_seconds": ("reading time", "seconds of CPU time the worker reading one upload may use"),
}


def setting(field: str) -> str:
    """The environment variable that changes limit ``field`` (``max_rows`` -> ``FSLAB_MAX_ROWS``)."""
    return f"FSLAB_{field.upper()}"


def over_limit(field: str, got: str, limits: Limits | None = None) -> str:
    """``"<got>; the limit is <value> <unit> (<name> limit: ... FSLAB_<FIELD> ...)"``: every limit message
    (``limits`` None: the server's)."""
    limits = limits_or_server(limits)
    value = getattr(limits, field)
    name, unit = DESCRIPTIONS[field]
    if unit.startswith("MB "):   # "50 MB (50,000,000 bytes) per uploaded file": the bytes of the same figure
        unit = f"MB ({value * MB:,} bytes) {unit.removeprefix('MB ')}"
    return (f"{got}; the limit is {value:,} {unit} ({name} "
            f"limit: a server sets it with {setting(field)}, code with limits=fslab.Limits({field}=...))")


def limits_table(limits: Limits | None = None) -> list[dict]:
    """One row per limit: what it bounds, its value, and the environment variable that changes it (``limits``
    None: the server's)."""
    limits = limits_or_server(limits)
    return [{"limit": DESCRIPTIONS[f.name][0], "value": getattr(limits, f.name), "bounds": DESCRIPTIONS[f.name][1],
             "setting": f"FSLAB_{f.name.upper()}"} for f in fields(limits)]


def available_memory() -> int | None:
    """Bytes of memory the operating system reports *available* (what a new allocation can get without swapping,
    page cache included), or None when it cannot be told (the check is then skipped); under an address-space
    limit (``RLIMIT_AS``), at most what this process may still map.

    psutil when it is importable (Linux, macOS, Windows, the BSDs; it comes with Dask and Streamlit), else Linux's
    ``MemAvailable`` in /proc/meminfo. Never the *free* memory (``SC_AVPHYS_PAGES``, MemFree): on a machine that
    has run for a while most memory is page cache, free reads near zero and every large load would be refused.
    """
    machine = _machine_available()
    capped = _address_space_left()
    if capped is None:
        return machine
    return capped if machine is None else min(machine, capped)


def _machine_available() -> int | None:
    try:
        import psutil
    except ImportError:
        psutil = None
    if psutil is not None:
        try:
            return int(psutil.virtual_memory().available)
        except (OSError, RuntimeError, AttributeError, ValueError):   # a sandbox that hides the counters
            pass
    return _meminfo_available()


def _address_space_left() -> int | None:
    """Bytes this process may still map under its address-space limit (``RLIMIT_AS``, as the worker reading an
    upload has: :mod:`fslab.limited`), or None without such a limit or where it cannot be told."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft == resource.RLIM_INFINITY:
            return None
        with open("/proc/self/statm", encoding="ascii") as fh:
            mapped = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError, IndexError):
        return None
    return max(0, soft - mapped)


def _meminfo_available(path: str = "/proc/meminfo") -> int | None:
    """``MemAvailable`` of Linux's /proc/meminfo in bytes (kernels since 3.14), or None."""
    try:
        with open(path, encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def check_memory(n_bytes: int, what: str) -> None:
    """Raise NotEnoughMemoryError when ``n_bytes`` (an estimate for ``what``) exceeds the available memory."""
    available = available_memory()
    if available is not None and n_bytes > available:
        raise NotEnoughMemoryError(
            f"{what} need about {n_bytes / 1e9:,.2f} GB of memory, but only {available / 1e9:,.2f} GB is available; "
            "use fewer rows or columns, or a machine with more memory")
