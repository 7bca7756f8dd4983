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
from collections.abc import Iterator

from .data.distributed import SCHEDULER_ENV, require_dask, scheduler_from_env, to_dask_source
from .errors import ClusterError


@contextlib.contextmanager
def connect(address: str | None, timeout: str = "10s") -> Iterator[object | None]:
    """Within the block, Dask computations and joblib work (NPFS bootstraps, learning-curve fits) run on the
    scheduler at ``address`` (``tcp://host:8786``); yields the ``distributed.Client`` (None if no address)."""
    if not address:
        yield None
        return
    require_dask()
    import joblib
    from distributed import Client

    try:
        client = Client(address, timeout=timeout, set_as_default=True)
    except (OSError, TimeoutError) as err:
        raise ClusterError(f"cannot reach the Dask scheduler at {address!r} ({err}); start one with "
                           "`dask scheduler` and workers with `dask worker ADDRESS`") from err
    except (ValueError, TypeError) as err:
        raise ClusterError(f"{address!r} is not a Dask scheduler address ({err}); give one like "
                           "tcp://host:8786") from err
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
    if job.command == "select" and job.loaded.kind == "dataset":
        source = to_dask_source(job.loaded.source, client=client)
        return dataclasses.replace(job, loaded=dataclasses.replace(job.loaded, source=source))
    if job.command == "npfs" and job.n_jobs == 1:
        return dataclasses.replace(job, n_jobs=-1)
    return job


__all__ = ["SCHEDULER_ENV", "ClusterError", "cluster_note", "connect", "npfs_on", "on_cluster", "scheduler_from_env"]
