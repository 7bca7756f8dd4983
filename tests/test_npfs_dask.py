"""NPFS bootstraps and learning-curve splits on a Dask cluster through joblib's Dask backend (issue 14, item 2):
the same results for the same seed as n_jobs=1 in this process, and a worker lost mid-run never changes them.

Selection on partitioned data is tested in tests/test_dask_source.py."""

from __future__ import annotations

import os
import signal

import joblib
import numpy as np
import pytest

distributed = pytest.importorskip("distributed", reason="dask[distributed] is not installed: pip install 'fslab[dask]'")

from fslab.curves import learning_curves  # noqa: E402
from fslab.data.distributed import ClusterError  # noqa: E402
from fslab.data.encoded import EncodedDataset  # noqa: E402
from fslab.data.synthetic import uniform_dataset  # noqa: E402
from fslab.npfs import npfs  # noqa: E402
from tests import dask_cluster  # noqa: E402

pytestmark = pytest.mark.slow  # a LocalCluster of two worker processes: not in the inner loop


client, dask_client = dask_cluster.client, dask_cluster.dask_client   # one 2-worker LocalCluster per process


def _duni():
    return uniform_dataset(m=600, n_features=15, k_star=5, seed=0).discretize(method="uniform", bins=3)


@pytest.mark.parametrize("counting", ["weights", "resample"])
def test_npfs_on_dask_equals_one_job(client, counting):
    data = _duni()
    want = npfs(data, "jmi", k=6, n_bootstraps=24, seed=5, counting=counting)
    seen = []
    with joblib.parallel_config(backend="dask"):
        got = npfs(data, "jmi", k=6, n_bootstraps=24, seed=5, counting=counting, batch_size=4,
                   progress=lambda done, total: seen.append(done))
    np.testing.assert_array_equal(got.matrix, want.matrix)
    assert got.relevant.tolist() == want.relevant.tolist()
    assert seen == [0, 4, 8, 12, 16, 20, 24]  # progress still reports, in order
    ran_on = client.run(lambda: os.getpid())
    assert len(ran_on) == 2


def test_learning_curves_on_dask_equal_in_process(client):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    X = np.c_[np.where(rng.random(400) < 0.85, y, 1 - y), rng.integers(0, 3, (400, 3))]
    data = EncodedDataset(X, y, labels=[0, 1])
    kw = {"selectors": ("bayes-greedy", "mi-score"), "k_max": 2, "n_splits": 3, "learner": "naive-bayes", "seed": 4}
    want = learning_curves(data, **kw)
    with joblib.parallel_config(backend="dask"):
        got = learning_curves(data, **kw)
    assert got.complete
    assert got.scores.equals(want.scores) and got.selections.equals(want.selections)


def test_worker_lost_mid_run_same_answer_or_clear_error(client):
    """SIGKILL one worker process after the first batch arrives: Dask reruns its tasks on the other worker (the
    matrix must equal the one-job matrix) or the run stops with a ClusterError; never a different matrix."""
    data = _duni()
    want = npfs(data, "jmi", k=6, n_bootstraps=40, seed=9, counting="resample")
    victim = {"pid": None}

    def kill_after_first_batch(done, total):
        if done > 0 and victim["pid"] is None:
            victim["pid"] = sorted(client.run(os.getpid).values())[0]
            os.kill(victim["pid"], signal.SIGKILL)

    try:
        with joblib.parallel_config(backend="dask"):
            got = npfs(data, "jmi", k=6, n_bootstraps=40, seed=9, counting="resample", batch_size=2,
                       progress=kill_after_first_batch)
    except ClusterError as err:
        assert "Dask cluster" in str(err)
    else:
        np.testing.assert_array_equal(got.matrix, want.matrix)
    assert victim["pid"] is not None
    client.wait_for_workers(2, timeout=60)  # the nanny restarts it for the next tests


def test_bootstrap_data_is_scattered_once_not_pickled_per_task():
    """joblib's Dask backend scatters arguments that dask.sizeof finds larger than 1 kB (and reuses the future
    for every task); a plain object's size is sys.getsizeof, so the shared data reports its arrays' bytes."""
    from dask.sizeof import sizeof

    from fslab.npfs import Shared
    from fslab.npfs.weighted import WeightedBootstraps

    data = _duni()
    engine = WeightedBootstraps(data)
    assert sizeof(Shared(engine)) >= engine.VY.nbytes + engine.VT.nbytes > 1e3
    assert sizeof(Shared(data)) >= data.X.nbytes


def test_npfs_on_partitioned_data_same_matrix_with_2_or_5_workers(client):
    """fslab.npfs(dask_source): Poisson bootstrap weights drawn per row on the workers (from the bootstrap's seed and
    the row's global index), so the same partitions give the same matrix on 2 worker processes (the fixture) and on
    a cluster of 5 workers; the rows never come to the client. The 5 are threads of this process (the placement of
    partitions is what changes; worker processes and their pickling are the fixture's: a process each cost ~2 s
    of CPU in imports)."""
    from distributed import Client, LocalCluster

    from fslab.data.distributed import to_dask_source

    data = _duni()
    src = to_dask_source(data, npartitions=6, client=client)
    want = npfs(src, "jmi", k=6, n_bootstraps=6, seed=5)
    assert want.relevant.tolist() == [0, 1, 2, 3, 4]
    with LocalCluster(n_workers=5, processes=False, threads_per_worker=1, dashboard_address=None) as cluster, \
            Client(cluster) as five:
        assert len(five.scheduler_info()["workers"]) == 5
        got = npfs(to_dask_source(data, npartitions=6, client=five), "jmi", k=6, n_bootstraps=6, seed=5)
    np.testing.assert_array_equal(got.matrix, want.matrix)
