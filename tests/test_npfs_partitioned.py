"""NPFS on partitioned data (fslab.npfs(dask_source, ...)) on Dask's synchronous scheduler: Poisson bootstraps
whose matrix does not depend on the partitioning, each bootstrap's selection equal to the in-memory selection of
the rows repeated by their weights; the options that need rows in memory are refused. On a LocalCluster with 2
and 5 workers: tests/test_npfs_dask.py."""

from __future__ import annotations

import numpy as np
import pytest

import fslab
from fslab.data.synthetic import uniform_dataset

dask = pytest.importorskip("dask")
pytest.importorskip("distributed")

from fslab.counting.dask_kernels import poisson_weights  # noqa: E402
from fslab.data.distributed import to_dask_source  # noqa: E402
from fslab.npfs.procedure import NPFSCancelled  # noqa: E402


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def duni():
    return uniform_dataset(m=600, n_features=15, k_star=5, seed=0).discretize(method="uniform", bins=3)


@pytest.mark.slow  # 0.41 s measured (inner loop: unit and not slow)
def test_matrix_does_not_depend_on_the_partitioning_and_finds_the_planted_features():
    data = duni()
    two = fslab.npfs(to_dask_source(data, npartitions=2), "jmi", k=6, n_bootstraps=12, seed=5)
    five = fslab.npfs(to_dask_source(data, npartitions=5), "jmi", k=6, n_bootstraps=12, seed=5)
    np.testing.assert_array_equal(two.matrix, five.matrix)
    assert two.matrix.shape == (15, 12) and (two.matrix.sum(axis=0) == 6).all()
    assert two.relevant.tolist() == fslab.npfs(data, "jmi", k=6, n_bootstraps=12, seed=5).relevant.tolist() == [
        0, 1, 2, 3, 4]   # D_uni: the 5 planted features, as in memory
    other = fslab.npfs(to_dask_source(data, npartitions=2), "jmi", k=6, n_bootstraps=12, seed=6)
    assert not np.array_equal(other.matrix, two.matrix)   # the seed matters


def test_each_bootstrap_selects_as_the_rows_repeated_by_their_weights():
    data = duni()
    src = to_dask_source(data, npartitions=3)
    seq = np.random.SeedSequence(5).spawn(3)[2]   # npfs's third bootstrap
    key = int(seq.generate_state(1, np.uint64)[0])
    w = poisson_weights(data.n_rows, 0, key, 1.0).astype(int)
    resampled = data.subsample(np.repeat(np.arange(data.n_rows), w))
    for selector in ["jmi", "bayes-greedy"]:
        got = fslab.select(src.bootstrap(key), 6, selector)
        want = fslab.select(resampled, 6, selector, engine="plain")
        assert got.features == want.features
        np.testing.assert_array_equal(got.scores, want.scores)
    result = fslab.npfs(src, "bayes-greedy", k=6, n_bootstraps=3, seed=5)
    assert sorted(np.flatnonzero(result.matrix[:, 2])) == sorted(fslab.select(src.bootstrap(key), 6).features)


def test_progress_cancel_fraction_and_refusals():
    src = to_dask_source(duni(), npartitions=2)
    seen = []
    result = fslab.npfs(src, "mi-score", k=4, n_bootstraps=5, seed=1,
                        progress=lambda done, total: seen.append(done) or done < 2)
    assert seen == [0, 1, 2] and result.cancelled and result.matrix.shape == (15, 2)
    with pytest.raises(NPFSCancelled, match="cancelled before any bootstrap"):
        fslab.npfs(src, "mi-score", k=4, n_bootstraps=5, progress=lambda done, total: False)
    half = fslab.npfs(src, "mi-score", k=4, n_bootstraps=4, seed=1, sample_fraction=0.5)
    assert half.sample_fraction == 0.5 and half.matrix.shape == (15, 4)
    with pytest.raises(fslab.ParameterError, match="Poisson row weights"):
        fslab.npfs(src, "jmi", k=4, n_bootstraps=2, counting="resample")
    with pytest.raises(fslab.ParameterError, match="applies to a named selector"):
        fslab.npfs(src, lambda view, k: [0, 1, 2, 3], k=4, n_bootstraps=2, estimate="cross-fitted")
    with pytest.raises(fslab.ParameterError, match="k must lie"):
        fslab.npfs(src, "jmi", k=15, n_bootstraps=2)


@pytest.mark.slow  # 0.63 s measured at load 14
def test_held_out_bootstraps_keep_each_row_in_its_own_fold():
    """estimate="cross-fitted": bootstrap l is selected with held-out values over the folds of the ORIGINAL rows
    (row_hash.folds, seed 0, as in memory), a row of weight w counting w times in its fold: the in-memory selection of
    the rows repeated by their weights, each copy given its original row's fold."""
    from fslab import row_hash

    data = duni()
    src = to_dask_source(data, npartitions=3)
    seq = np.random.SeedSequence(8).spawn(2)[1]   # npfs's second bootstrap
    key = int(seq.generate_state(1, np.uint64)[0])
    w = poisson_weights(data.n_rows, 0, key, 1.0).astype(int)
    rows = np.repeat(np.arange(data.n_rows), w)
    folds = row_hash.folds(data.y, 5, 0)[rows]
    for selector, measure in [("bayes-greedy", "balanced"), ("jmi", "mi")]:
        got = fslab.select(src.bootstrap(key), 4, selector, measure=measure, estimate="cross-fitted")
        want = fslab.select(data.subsample(rows), 4, selector, measure=measure, estimate="cross-fitted", folds=folds,
                            engine="plain")
        assert got.features == want.features
        np.testing.assert_allclose(got.scores, want.scores, rtol=1e-12)
    result = fslab.npfs(src, "bayes-greedy", k=4, n_bootstraps=2, seed=8, estimate="cross-fitted", measure="balanced")
    assert sorted(np.flatnonzero(result.matrix[:, 1])) == sorted(
        fslab.select(src.bootstrap(key), 4, measure="balanced", estimate="cross-fitted").features)
