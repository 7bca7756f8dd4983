"""NPFS on a SqlSource (issue 31.3): Poisson bootstrap weights computed in the engine are
fslab.row_hash.poisson_weights to the row on DuckDB, SQLite and PostgreSQL; each bootstrap selects as the rows
repeated by their weights in memory; the NPFS matrix equals the partitioned (Dask) one on the same rows."""

from __future__ import annotations

import numpy as np
import pytest

import fslab
from fslab import row_hash
from fslab.data.synthetic import uniform_dataset
from tests import sql_engines
from tests.sql_engines import ENGINES
from tests.test_sql_heldout import coded, sql_source

ibis = pytest.importorskip("ibis")
engine, postgres_server = sql_engines.engine, sql_engines.postgres_server   # the engines' fixtures
pytestmark = [
    pytest.mark.slow,   # every test builds engine tables and runs tens of queries
    pytest.mark.filterwarnings("ignore:The 'future.infer_string' option is deprecated"),
    pytest.mark.filterwarnings("ignore:fetch_arrow_table\\(\\) is deprecated"),
]


def duni():
    return uniform_dataset(m=600, n_features=15, k_star=5, seed=0).discretize(method="uniform", bins=3)


@pytest.mark.parametrize("engine", ENGINES, indirect=True)
def test_weights_in_the_engine_are_row_hash_poisson_weights(engine):
    data = coded(m=301)
    order = np.random.default_rng(2).permutation(data.n_rows)
    src = sql_source(engine, data, order)   # row i in id order is stored at argsort(order)[i]
    inverse = np.argsort(order)
    for key, mean in [(0, 1.0), (2**64 - 1, 1.0), (987654321987654321, 0.5), (7, 3.5)]:
        view = src.bootstrap(key, mean)
        assert view.bootstrap_key == (key, mean)
        got = view._run(view.codes.order_by("i").select("i", "w", "c0", "y"))
        np.testing.assert_array_equal(got["i"], np.arange(data.n_rows))
        want = row_hash.poisson_weights(np.arange(data.n_rows), key, mean)
        np.testing.assert_array_equal(got["w"], want)
        np.testing.assert_array_equal(got["c0"], data.X[inverse, 0])   # row i is the i-th by the row id
        counts = np.zeros((3, 2))
        np.add.at(counts, (data.X[inverse, 0], data.y[inverse]), want)
        np.testing.assert_array_equal(view.table([0]).counts, counts)   # SUM(w) for COUNT(*)
    assert src.bootstrap(5).bootstrap_key == (5, 1.0) and src.bootstrap_key is None
    src.close()


@pytest.mark.parametrize("engine", ["duckdb", pytest.param("postgres", marks=pytest.mark.slow)], indirect=True)
def test_a_bootstrap_held_out_counts_each_row_with_its_weight_in_its_own_fold(engine):
    """NPFS held out (as on Dask): a bootstrap view's folds are the source's folds of the ORIGINAL rows, each row
    counted with its Poisson weight, so a drawn row's copies never score each other."""
    data = coded(m=250)
    order = np.random.default_rng(3).permutation(data.n_rows)
    src = sql_source(engine, data, order)
    inverse = np.argsort(order)
    X, y = data.X[inverse], data.y[inverse]
    key = 2**63 + 12345
    w = row_hash.poisson_weights(np.arange(data.n_rows), key, 1.0)
    folded = src.bootstrap(key).folded(4, 7)
    assert folded.bootstrap_key == (key, 1.0) and folded.labels.tolist() == [0, 1] * 4
    counts = np.zeros((3, 8))
    np.add.at(counts, (X[:, 1], row_hash.folds(y, 4, 7) * 2 + y), w)
    np.testing.assert_array_equal(folded.table([1]).counts, counts)
    mem = fslab.measures.measure("balanced").on(data.subsample(np.repeat(inverse, w.astype(int))), "plain",
                                                estimate="cross-fitted", folds=np.repeat(row_hash.folds(y, 4, 7),
                                                                                          w.astype(int)))
    ev = fslab.measures.measure("balanced").on(src.bootstrap(key), estimate="cross-fitted", folds=4, seed=7)
    np.testing.assert_allclose(ev.extensions([0], [1, 2, 3, 4]), mem.extensions([0], [1, 2, 3, 4]), atol=1e-12)
    src.close()


def test_each_bootstrap_selects_as_the_rows_repeated_by_their_weights():
    data = duni()
    src = sql_source(ibis.duckdb.connect(), data)
    seq = np.random.SeedSequence(5).spawn(3)[2]   # npfs's third bootstrap
    key = int(seq.generate_state(1, np.uint64)[0])
    w = row_hash.poisson_weights(np.arange(data.n_rows), key, 1.0).astype(int)
    resampled = data.subsample(np.repeat(np.arange(data.n_rows), w))
    for selector in ("jmi", "bayes-greedy", "mrmr"):
        got = fslab.select(src.bootstrap(key), 6, selector)
        want = fslab.select(resampled, 6, selector, engine="plain")
        assert got.features == want.features
        np.testing.assert_array_equal(got.scores, want.scores)
    result = fslab.npfs(src, "jmi", k=6, n_bootstraps=3, seed=5)
    assert sorted(np.flatnonzero(result.matrix[:, 2])) == sorted(fslab.select(src.bootstrap(key), 6, "jmi").features)


def test_npfs_matrix_equals_the_dask_one_on_the_same_rows():
    dask = pytest.importorskip("dask")
    pytest.importorskip("distributed")
    from fslab.data.distributed import to_dask_source

    data = duni()
    src = sql_source(ibis.duckdb.connect(), data)
    got = fslab.npfs(src, "jmi", k=6, n_bootstraps=8, seed=5)
    with dask.config.set(scheduler="synchronous"):
        want = fslab.npfs(to_dask_source(data, npartitions=3), "jmi", k=6, n_bootstraps=8, seed=5)
    np.testing.assert_array_equal(got.matrix, want.matrix)
    assert got.relevant.tolist() == [0, 1, 2, 3, 4]   # D_uni's planted features
    half = fslab.npfs(src, "jmi", k=6, n_bootstraps=2, seed=5, sample_fraction=0.5)
    assert half.matrix.shape == (15, 2) and (half.matrix.sum(axis=0) == 6).all()


@pytest.mark.parametrize("engine", ["sqlite", pytest.param("postgres", marks=pytest.mark.slow)], indirect=True)
def test_npfs_matrix_is_the_same_on_every_engine(engine):
    data = uniform_dataset(m=300, n_features=8, k_star=3, seed=1).discretize(method="uniform", bins=3)
    want = fslab.npfs(sql_source(ibis.duckdb.connect(), data), "mi-greedy", k=3, n_bootstraps=5, seed=11)
    got = fslab.npfs(sql_source(engine, data), "mi-greedy", k=3, n_bootstraps=5, seed=11)
    np.testing.assert_array_equal(got.matrix, want.matrix)


def test_options_that_need_rows_in_memory_and_bad_keys_are_refused():
    src = sql_source(ibis.duckdb.connect(), coded(m=40))
    with pytest.raises(fslab.ParameterError, match="counting="):
        fslab.npfs(src, "jmi", k=2, n_bootstraps=2, seed=0, counting="weights")
    for bad in ("1", 1.5, None, True):
        with pytest.raises(fslab.ParameterError, match="bootstrap key"):
            src.bootstrap(bad)
    for bad in (0, -1.0, float("nan"), float("inf"), 101, "1", True):
        with pytest.raises(fslab.ParameterError, match="mean row weight"):
            src.bootstrap(1, bad)
    with pytest.raises(fslab.ParameterError, match="again"):
        src.bootstrap(1).bootstrap(2)
    with pytest.raises(fslab.ParameterError, match="folds must be a whole number"):
        src.bootstrap(1).folded(1, 0)
