"""What the fold-stability reruns cost on a SQL source: one plain-SQL count query per selection step, reading the
stored table by its name, and two stored tables per training fold (its rows with their class ranks, its nested
folds), so "Does this pick hold up?" through ``from_sql`` costs about F selections, not F x (Ibis compiles)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fslab.data import sql_source
from fslab.data.encoded import EncodedDataset
from fslab.data.sql_source import SqlSource
from fslab.robustness import cv_selections
from tests.sql_engines import load

ibis = pytest.importorskip("ibis")
pytestmark = [pytest.mark.filterwarnings("ignore:fetch_arrow_table\\(\\) is deprecated")]


def coded(m: int = 300) -> EncodedDataset:
    """Six 3-level features; y = 1 when 2 x0 + [x1 = 2] + [x2 = 2] + noise(0..2) > 4 (tests/test_robustness_sql.py)."""
    rng = np.random.default_rng(7)
    X = rng.integers(0, 3, size=(m, 6))
    y = ((2 * X[:, 0] + (X[:, 1] == 2) + (X[:, 2] == 2) + rng.integers(0, 3, m)) > 4).astype(int)
    return EncodedDataset(X.astype(np.uint8), y, labels=np.arange(2), arities=[3] * 6,
                          feature_names=[f"f{j}" for j in range(6)])


@pytest.fixture
def duckdb_source():
    con = ibis.duckdb.connect()
    data = coded()
    frame = pd.DataFrame({f"c{j}": data.X[:, j].astype(np.int64) for j in range(6)} | {"y": data.y})
    yield data, SqlSource(load(con, "codes", frame), data.n_rows, data.arities, data.labels, data.feature_names,
                          row_id="row_id")
    con.disconnect()


def test_count_queries_name_a_stored_table_and_wrap_anything_else(duckdb_source):
    _, src = duckdb_source
    assert src._sql_of_codes() == ("", '"codes"')   # no WITH: DuckDB materializes one used 120 times, 4x the CPU
    view = SqlSource(src.codes.filter(src.codes.y >= 0), src.n_rows, src.arities, src.labels, src.feature_names)
    with_clause, table = view._sql_of_codes()
    assert table == "fslab_c" and with_clause.startswith("WITH fslab_c AS (SELECT ")
    np.testing.assert_array_equal(view.table([0, 1]).counts, src.table([0, 1]).counts)


def test_a_step_over_more_candidates_than_one_union_holds_gives_the_same_table(duckdb_source, monkeypatch):
    data, src = duckdb_source
    whole = src.extension_tables([0], [1, 2, 3, 4, 5]).counts
    before = src.queries
    monkeypatch.setattr(sql_source, "COMPOUND", 2)   # SQLite takes 500 SELECTs a compound: 5 candidates in 3 queries
    np.testing.assert_array_equal(src.extension_tables([0], [1, 2, 3, 4, 5]).counts, whole)
    assert src.queries - before == 3
    np.testing.assert_array_equal(whole, data.extension_tables([0], [1, 2, 3, 4, 5]).counts)


@pytest.mark.slow   # 5 training folds, each stored twice, 15 steps: about 1 s
def test_the_reruns_cost_one_query_per_step_and_two_stored_tables_per_fold(duckdb_source, monkeypatch):
    data, src = duckdb_source
    src.folded(5, 3)   # the held-out check's own folds, stored once before the reruns
    stored, steps = [], []
    store, extend = SqlSource._store, SqlSource.extension_tables
    monkeypatch.setattr(SqlSource, "_store", lambda self, expr, what: stored.append(what) or store(self, expr, what))

    def counted(self, subset, candidates):
        before = self.queries
        out = extend(self, subset, candidates)
        steps.append(self.queries - before)
        return out

    monkeypatch.setattr(SqlSource, "extension_tables", counted)
    hits = cv_selections(src, "bayes-greedy", 3, 5, 3, estimate="cross-fitted", folds=5, seed=0)
    np.testing.assert_array_equal(hits, cv_selections(data, "bayes-greedy", 3, 5, 3, estimate="cross-fitted",
                                                      folds=5, seed=0))
    assert stored == ["train", "folds"] * 5   # a fold's rows carry their class ranks: no third table for them
    assert steps == [1] * 15                  # k = 3 steps on each of 5 folds, one query each
