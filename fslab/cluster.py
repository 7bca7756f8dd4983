"""Running fslab's jobs on a Dask cluster: connecting to a scheduler, NPFS's bootstraps on its workers, the command
line's jobs set up for it, and the app's note when its runs go there.

The orchestration sits above both things it joins (issue 25: imports flow downward only): the Dask table source
and binning (:mod:`fslab.data.distributed`) and NPFS (:mod:`fslab.npfs`). The command line and the app import
from here; ``SCHEDULER_ENV`` and ``scheduler_from_env`` (the app's setting) stay in the data module and are
re-exported. Dask is optional (``pip install fslab[dask]``): importing this module needs no Dask.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import re
import socket
from collections.abc import Iterator

from .data.distributed import SCHEDULER_ENV, DaskSource, require_dask, scheduler_from_env, to_dask_source
from .errors import ClusterError, ParameterError

LOG = logging.getLogger("fslab.cluster")
PROBE_SECONDS = 2.0   # the app's check that the scheduler answers, before it says it uses it
DEFAULT_PORT = 8786
_ADDRESS = re.compile(r"(?:(?P<scheme>tcp|tls)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)"
                      r"(?::(?P<port>\d{1,5}))?")


class SchedulerAddressError(ClusterError, ParameterError):
    """The scheduler address is not of the form [tcp://|tls://]host[:port]."""


HANDSHAKE_MAX = 1 << 20   # bytes a Dask scheduler's first message (its handshake, ~60 bytes) may announce, at most


def parse_address(address: str) -> tuple[str, str, int]:
    """(scheme, host, port) of a scheduler address ``[tcp://|tls://]host[:port]`` (port 1-65535, default 8786; a host
    name of dot-separated labels of 1 to 63 characters, at most 253 in all, as DNS allows), or a
    SchedulerAddressError saying what a valid one looks like."""
    text = str(address).strip()
    match = _ADDRESS.fullmatch(text)
    port = int(match["port"]) if match and match["port"] else DEFAULT_PORT
    if match is None or not 0 < port < 65536:
        raise SchedulerAddressError(f"{text!r} is not a Dask scheduler address; give one like tcp://host:8786 "
                                    "(tcp:// or tls://, a host name or IP address, a port from 1 to 65535)")
    host = match["host"].strip("[]")
    labels = host.split(".")
    if ":" not in host and (len(host) > 253 or not all(0 < len(label) <= 63 for label in labels)):
        longest = max(labels, key=len)
        why = (f"its label {longest[:20]}... has {len(longest)} characters (at most 63)" if len(longest) > 63
               else "it has an empty label (two dots in a row)" if "" in labels
               else f"it has {len(host)} characters (at most 253)")
        raise SchedulerAddressError(f"{text[:80]!r} is not a Dask scheduler address: the host name is not valid "
                                    f"({why}); give one like tcp://host:8786")
    return match["scheme"] or "tcp", host, port


def _handshake(sock: socket.socket, host: str, port: int, timeout: float) -> str | None:
    """None when the peer's first bytes are a Dask message header (a little-endian uint64 length, 1 to
    HANDSHAKE_MAX bytes: a scheduler sends its handshake as soon as it accepts), else what the peer is instead."""
    sock.settimeout(timeout)
    head = b""
    try:
        while len(head) < 8:
            chunk = sock.recv(8 - len(head))
            if not chunk:
                break
            head += chunk
    except TimeoutError:
        return (f"something listens at {host}:{port} but sent no Dask handshake within {timeout:g} s: it is not a "
                "Dask scheduler (check the address and the port, 8786 by default)")
    if len(head) < 8:
        return (f"the service at {host}:{port} closed the connection without a Dask handshake: it is not a Dask "
                "scheduler (check the address and the port, 8786 by default)")
    if not 0 < int.from_bytes(head, "little") <= HANDSHAKE_MAX:
        return (f"the service at {host}:{port} is not a Dask scheduler (it answered {head!r}); check the address "
                "and the port, 8786 by default")
    return None


def probe(address: str, timeout: float = PROBE_SECONDS) -> str | None:
    """None when a Dask scheduler answers at the address within ``timeout`` seconds, else why not (one line): a TCP
    connect, then the first 8 bytes the scheduler sends unasked (its handshake's length; a ``tls://`` address is
    only connected to, its handshake is encrypted). Fast, and it needs no Dask: a service of another kind at that
    port is named as such instead of failing later inside Dask's client (a banner read as a message length made
    it allocate gigabytes: "not enough memory")."""
    try:
        scheme, host, port = parse_address(address)
    except SchedulerAddressError as err:
        return str(err)
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            return None if scheme == "tls" else _handshake(sock, host, port, timeout)
    except OSError as err:   # refused, unknown host, timeout
        return f"nothing answers at {host}:{port} ({err.strerror or type(err).__name__})"
    except UnicodeError as err:   # a host name the IDNA codec refuses
        return f"{host[:80]!r} is not a valid host name ({err})"


def usable_scheduler(address: str | None, timeout: float = PROBE_SECONDS) -> tuple[str | None, str | None]:
    """(the scheduler to use, the operator's note): ``(address, None)`` when it answers; ``(None, note)`` when it is
    set but unreachable or malformed, so the work runs here instead (the note also goes to the server log)."""
    if not address:
        return None, None
    why = probe(address, timeout)
    if why is None:
        return address, None
    note = (f"The Dask scheduler set by {SCHEDULER_ENV} ({address}) is not reachable: {why}. This run is computed on "
            "this server instead.")
    LOG.warning("%s", note)
    return None, note


@contextlib.contextmanager
def connect(address: str | None, timeout: str = "10s") -> Iterator[object | None]:
    """Within the block, Dask computations and joblib work (NPFS bootstraps, learning-curve fits) run on the
    scheduler at ``address`` (``tcp://host:8786``); yields the ``distributed.Client`` (None if no address)."""
    if not address:
        yield None
        return
    parse_address(address)
    require_dask()
    why = probe(address)   # refused, unknown host or not Dask: say so now, not after the client's whole timeout
    if why is not None:
        hint = ("" if why.startswith(("something listens", "the service at")) else
                "; start one with `dask scheduler` and workers with `dask worker ADDRESS`")
        raise ClusterError(f"cannot reach the Dask scheduler at {address!r} ({why}){hint}")
    import joblib
    from distributed import Client

    try:
        client = Client(address, timeout=timeout, set_as_default=True)
    except (OSError, TimeoutError) as err:
        raise ClusterError(f"cannot reach the Dask scheduler at {address!r} ({err}); start one with "
                           "`dask scheduler` and workers with `dask worker ADDRESS`") from err
    except (ValueError, TypeError) as err:
        raise SchedulerAddressError(f"{address!r} is not a Dask scheduler address ({err}); give one like "
                                    "tcp://host:8786") from err
    except Exception as err:   # CommClosedError, a MemoryError from a peer's bogus message length, ...
        raise ClusterError(f"the Dask client could not talk to the scheduler at {address!r} "
                           f"({type(err).__name__}: {str(err)[:200]}); check that it is a Dask scheduler of a "
                           "compatible version") from err
    try:
        with joblib.parallel_config(backend="dask"):
            yield client
    finally:
        client.close()


def npfs_on(address: str | None, dataset, selector, k, **kwargs):
    """``fslab.npfs(dataset, selector, k, **kwargs)``, with its bootstraps on the Dask cluster at ``address``
    through joblib's Dask backend (``n_jobs=-1``: every worker) when an address is given; the same seed gives the
    same result. A top-level function, so the app's worker process can run it."""
    from .npfs.procedure import npfs  # when called: the command line starts without NPFS

    if not address:
        return npfs(dataset, selector, k, **kwargs)
    with connect(address):
        return npfs(dataset, selector, k, **{**kwargs, "n_jobs": -1})


def cluster_note(address: str | None) -> str | None:
    """The sentence the NPFS page shows when its runs go to a cluster (None otherwise)."""
    if not address:
        return None
    return (f"NPFS runs on the Dask cluster at {address} (set by {SCHEDULER_ENV}): the bootstraps go to its "
            "workers through joblib's Dask backend; the same seed gives the same result as on this server.")


def on_cluster(job, client):
    """The command line's job, set up for the cluster behind ``client`` (from :func:`connect`): ``select`` on a
    data set counts on the workers (its codes shipped once as partitions); ``npfs`` sends its bootstraps to every
    worker through joblib's Dask backend (``n_jobs=-1`` unless ``--n-jobs`` was given). Unchanged if no client."""
    if client is None:
        return job
    if isinstance(job.loaded.source, DaskSource):   # read by the workers: already there; NPFS bootstraps there
        return job
    if job.command == "select" and job.loaded.kind == "dataset":
        source = to_dask_source(job.loaded.source, client=client)
        return dataclasses.replace(job, loaded=dataclasses.replace(job.loaded, source=source))
    if job.command == "npfs" and job.n_jobs == 1:
        return dataclasses.replace(job, n_jobs=-1)
    return job


__all__ = ["SCHEDULER_ENV", "ClusterError", "SchedulerAddressError", "cluster_note", "connect", "npfs_on",
           "on_cluster", "parse_address", "probe", "scheduler_from_env", "usable_scheduler"]
