"""One Dask LocalCluster (two worker processes on 127.0.0.1) per test process, shared by every test module that
takes its ``client`` fixture (as tests/sql_engines.py shares one PostgreSQL server). A cluster costs about 3.5 s of
CPU to start and stop (its workers import distributed and fslab); tests/conftest.py's module-scoped fixture started
one per module. The conftest's worker groups put every test that takes ``client`` on one pytest-xdist worker.

Use in a test module::

    from tests import dask_cluster

    client, dask_client = dask_cluster.client, dask_cluster.dask_client   # the fixtures

Worker processes (and a nanny's restart of a killed one) are spawned, and spawn re-runs the parent's ``__main__``
from its file: after an AppTest in the same pytest process that is a page script, so each test runs with a blank
one, and a worker a test killed is running again before the next test starts.
"""

from __future__ import annotations

import sys
import time
import types

import pytest

_CLUSTER: list = []   # (cluster, client) of this process, whichever module asks first
_BLANK = types.ModuleType("__main__")
# Distributed's background timers, for a test cluster: its statistical profiler sampling every worker thread every
# 10 ms, the GIL monitor, the event-loop tick every 20 ms, psutil's system monitor every 500 ms and the memory
# monitor every 100 ms kept an idle cluster at 0.085 CPU-s per second (0.013 without them, measured over 30 s at
# load 3-8): the cluster lives until the session ends, minutes after its last test on a pytest-xdist worker.
# None of them takes part in a count or a result.
QUIET = {"distributed.worker.profile.enabled": False, "distributed.admin.system-monitor.gil.enabled": False,
         "distributed.admin.tick.interval": "1s", "distributed.admin.system-monitor.interval": "5s",
         "distributed.worker.memory.monitor-interval": "1s"}


@pytest.fixture(scope="session")
def dask_client():
    """The shared Client (started on first use, closed at the session's end)."""
    distributed = pytest.importorskip("distributed", reason="dask[distributed] is not installed: "
                                      "pip install 'fslab[dask]'")
    import dask

    if not _CLUSTER:
        main = sys.modules["__main__"]
        sys.modules["__main__"] = _BLANK
        quiet = dask.config.set(QUIET)   # while the cluster lives: a nanny gives a worker it restarts the config of
        try:                              # that moment
            cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                                               dashboard_address=None)
            _CLUSTER.append((cluster, distributed.Client(cluster), quiet))
        finally:
            sys.modules["__main__"] = main
    try:
        yield _CLUSTER[0][1]
    finally:   # session-scoped: after the last test; each importing module has its own definition, one closes it
        if _CLUSTER:
            cluster, client, quiet = _CLUSTER.pop()
            client.close()
            cluster.close()
            quiet.__exit__(None, None, None)   # the timers' defaults again


def two_live_workers(client, timeout: float = 300) -> None:
    """Wait until both workers answer (a killed one restarted by its nanny): ``client.run`` reaches live workers
    only, and fails while the scheduler still lists a dead one."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if len(client.run(lambda: None)) == 2:
                return
        except Exception:   # noqa: BLE001 (a dead worker still listed: CommClosedError, OSError, ...)
            pass
        if time.monotonic() > deadline:
            raise TimeoutError("the shared Dask cluster did not get its two workers back")
        time.sleep(0.1)


@pytest.fixture
def client(dask_client, monkeypatch):
    """The shared cluster's Client, with a blank ``__main__`` while the test runs; after it, both workers alive."""
    monkeypatch.setitem(sys.modules, "__main__", _BLANK)
    yield dask_client
    two_live_workers(dask_client)
