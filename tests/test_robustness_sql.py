""""Does this pick hold up?" on a SQL source: the selector is rerun on each training fold counted in the engine
(SqlSource.training_folds), so the verdict's fold-stability sentences equal the in-memory ones for the same rows; a
source that cannot rerun on its training folds says so in the verdict instead of dropping the check."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fslab
from fslab.counting.folds import assign_folds
from fslab.data.encoded import EncodedDataset
from fslab.data.sql_source import SqlSource
from fslab.robustness import cv_selections, holdout_check
from tests import sql_engines
from tests.sql_engines import load

engine, postgres_server = sql_engines.engine, sql_engines.postgres_server   # the engines' fixtures

pytest.importorskip("ibis")
pytestmark = [
    pytest.mark.filterwarnings("ignore:The 'future.infer_string' option is deprecated"),
    pytest.mark.filterwarnings("ignore:fetch_arrow_table\\(\\) is deprecated"),
]
# DuckDB both estimates, SQLite and PostgreSQL the nested folds (PostgreSQL casts no boolean to bigint: it caught one)
CASES = [("duckdb", "plug-in"), ("duckdb", "cross-fitted"), ("sqlite", "cross-fitted"), ("postgres", "cross-fitted")]


def coded(seed: int = 7, m: int = 300) -> EncodedDataset:
    """Six 3-level features; y = 1 when 2 x0 + [x1 = 2] + [x2 = 2] + noise(0..2) > 4: f0 first, then the weak ones
    come and go across folds (seed 7: the third pick is on 2 of the 5 training folds)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(m, 6))
    y = ((2 * X[:, 0] + (X[:, 1] == 2) + (X[:, 2] == 2) + rng.integers(0, 3, m)) > 4).astype(int)
    return EncodedDataset(X.astype(np.uint8), y, labels=np.arange(2), arities=[3] * 6,
                          feature_names=[f"f{j}" for j in range(6)])


def sql_source(con, data: EncodedDataset) -> SqlSource:
    frame = pd.DataFrame({f"c{j}": data.X[:, j].astype(np.int64) for j in range(data.n_features)} | {"y": data.y})
    return SqlSource(load(con, "codes", frame), data.n_rows, data.arities, data.labels, data.feature_names,
                     task=data.task, row_id="row_id")


def tables(con) -> set[str]:
    if con.name == "duckdb":   # Ibis 12's list_tables fails on DuckDB 2.0 (fetch_arrow_table)
        return {r[0] for r in con.con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    return set(con.list_tables())


@pytest.mark.slow   # engine tables: about 1 s
@pytest.mark.parametrize("engine", ["duckdb"], indirect=True)
def test_training_folds_in_the_engine_are_the_in_memory_training_rows(engine):
    data = coded()
    src = sql_source(engine, data)
    fold, used, _ = assign_folds(data.y, 5, 3)
    trains = src.training_folds(used, 3)
    for f, train in enumerate(trains):
        mem = data.subsample(np.flatnonzero(fold != f))
        assert train.n_rows == mem.n_rows == int((fold != f).sum())
        np.testing.assert_array_equal(train.table([0, 2]).counts, mem.table([0, 2]).counts)
        train.close()
    assert f == used - 1   # one training source per fold
    np.testing.assert_array_equal(cv_selections(src, "bayes-greedy", 3, 5, 3),
                                  cv_selections(data, "bayes-greedy", 3, 5, 3))


@pytest.mark.slow   # engine tables and 5 reruns (held out inside on cross-fitted): 0.2-3 s each
@pytest.mark.parametrize("engine, estimate", CASES, indirect=["engine"])
def test_the_sql_verdict_says_the_in_memory_fold_stability_sentences(engine, estimate):
    data = coded()
    src = sql_source(engine, data)
    before = tables(engine)
    sel_mem = fslab.select(data, 3, "bayes-greedy", estimate=estimate)
    sel_sql = fslab.select(src, 3, "bayes-greedy", estimate=estimate)
    assert sel_sql.features == sel_mem.features
    mem, sql = holdout_check(data, sel_mem), holdout_check(src, sel_sql)
    assert sql.level == mem.level == "amber"
    assert sql.reasons == mem.reasons
    pd.testing.assert_series_equal(sql.frequency, mem.frequency)
    assert any("took its place on" in r for r in sql.reasons), sql.reasons   # the sentence is said, not dropped
    src.close()
    assert tables(engine) <= before   # the training folds' tables are dropped


def test_a_source_that_cannot_rerun_on_training_folds_says_the_check_was_not_made():
    from tests.toy_rows_source import RowsSource

    data = coded(m=120)
    rows = [{**{f"f{j}": f"v{v}" for j, v in enumerate(r)}, "t": "yes" if t else "no"}
            for r, t in zip(data.X.tolist(), data.y.tolist(), strict=True)]
    src = RowsSource(rows, "t", positive="yes")
    check = holdout_check(src, fslab.select(src, 2, "bayes-greedy"))
    assert check.frequency.empty
    assert "Selection across folds not run: a RowsSource cannot rerun the selector on its training folds (in " \
        "memory and on SQL engines it can)." in check.reasons
    assert check.reasons[-1].startswith("Next step:")


def test_a_caller_that_skips_the_reruns_gives_its_reason_in_the_verdict():
    data = coded(m=120)
    pick = fslab.select(data, 2, "bayes-greedy")
    quiet = holdout_check(data, pick, frequency=False)
    said = holdout_check(data, pick, frequency="an exhaustive search reruns every subset on each fold")
    assert said.frequency.empty and said.level == quiet.level
    assert said.reasons == (*quiet.reasons[:-1], "Selection across folds not run: an exhaustive search reruns every "
                            "subset on each fold.", quiet.reasons[-1])
