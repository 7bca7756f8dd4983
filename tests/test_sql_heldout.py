"""Held-out (cross-fitted) estimates on a SqlSource, counted in the engine: the folds computed in SQL are
fslab.row_hash.folds to the row, and the held-out values, picks and notes equal the in-memory ones for the same rows,
on DuckDB, SQLite and a real PostgreSQL server (tests/sql_engines.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fslab
from fslab import row_hash
from fslab.counting.folds import TooFewRowsError
from fslab.counting.sql_count import folded_sql, hash_round_sql
from fslab.data.encoded import EncodedDataset
from fslab.data.sql_source import SqlSource
from fslab.measures import measure
from tests import sql_engines
from tests.sql_engines import ENGINES, load

engine, postgres_server = sql_engines.engine, sql_engines.postgres_server   # the engines' fixtures

ibis = pytest.importorskip("ibis")
pytestmark = [
    pytest.mark.slow,   # every test builds engine tables: 0.3-3 s each
    pytest.mark.filterwarnings("ignore:The 'future.infer_string' option is deprecated"),
    pytest.mark.filterwarnings("ignore:fetch_arrow_table\\(\\) is deprecated"),
]

MEASURES = ("zero-one", "balanced", "log-loss", "mi", "auc", "f-beta", "cost-sensitive")


def coded(m: int = 240, seed: int = 0, n_labels: int = 2, rare: int | None = None) -> EncodedDataset:
    """Codes of 5 features (3 levels; feature 4 an ID-like code with 120) and a class that depends on features 0
    and 2."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(m, 5))
    X[:, 4] = rng.integers(0, 120, size=m)
    y = ((X[:, 0] + X[:, 2] + rng.integers(0, 2, m)) > 2).astype(int) if n_labels == 2 else rng.integers(0, n_labels, m)
    if rare is not None:
        y[:rare] = y.max() + 1
    arities = np.array([3, 3, 3, 3, 120])
    return EncodedDataset(X.astype(np.uint8), y, labels=np.arange(y.max() + 1), arities=arities,
                          feature_names=[f"f{j}" for j in range(5)])


def sql_source(con, data: EncodedDataset, order: np.ndarray | None = None) -> SqlSource:
    """The codes as a table of the engine with a row id column that numbers the rows in ``order`` (a permutation:
    the row stored i-th has id order[i], so storage order and id order differ), as a SqlSource ordered by it."""
    frame = pd.DataFrame({f"c{j}": data.X[:, j].astype(np.int64) for j in range(data.n_features)} | {"y": data.y})
    if order is not None:
        frame["rid"] = 1000 + 3 * np.asarray(order)
    return SqlSource(load(con, "codes", frame), data.n_rows, data.arities, data.labels, data.feature_names,
                     task=data.task, row_id="rid" if order is not None else "row_id")


@pytest.mark.parametrize("engine", ENGINES, indirect=True)
def test_folds_in_the_engine_are_row_hash_folds(engine):
    data = coded(m=203, n_labels=3)
    order = np.random.default_rng(1).permutation(data.n_rows)
    src = sql_source(engine, data, order)
    inverse = np.argsort(order)   # the rows in id order
    for K, seed in [(5, 0), (3, 2**63 - 1), (20, 12345)]:
        got = src.folded(K, seed).to_encoded()   # rows in the folded source's order: by id
        want = row_hash.folds(data.y[inverse], K, seed) * 3 + data.y[inverse]
        np.testing.assert_array_equal(got.y, want)
        np.testing.assert_array_equal(got.X, data.X[inverse])
        assert src.folded(K, seed) is src.folded(K, seed)   # stored once per (folds, seed)
    src.close()


@pytest.mark.parametrize("engine", ENGINES, indirect=True)
def test_held_out_values_and_picks_equal_in_memory(engine):
    data = coded()
    src = sql_source(engine, data)
    for name in MEASURES:
        mem = measure(name).on(data, estimate="cross-fitted", folds=4, seed=9, engine="plain")
        ev = measure(name).on(src, estimate="cross-fitted", folds=4, seed=9)
        assert ev.n_folds == 4 and ev.fold_of_row is None
        for subset in ([], [0], [0, 2], [1, 3, 4]):
            assert ev.value(subset) == pytest.approx(mem.value(subset), abs=1e-12), (name, subset)
        np.testing.assert_allclose(ev.extensions([0], [1, 2, 3, 4]), mem.extensions([0], [1, 2, 3, 4]), atol=1e-12)
    for kw in ({"measure": "balanced"}, {"measure": "zero-one"}):
        want = fslab.select(data, 3, "bayes-greedy", estimate="cross-fitted", **kw)
        got = fslab.select(src, 3, "bayes-greedy", estimate="cross-fitted", **kw)
        assert got.features == want.features
        np.testing.assert_allclose(got.scores, want.scores, atol=1e-12)
    # in-sample, the 120-level code fits the 240 rows best; held out, the signal wins (as in memory)
    assert fslab.select(src, 1, "bayes-greedy", measure="zero-one").features == (4,)
    assert fslab.select(src, 1, "bayes-greedy", measure="zero-one", estimate="cross-fitted").features == (2,)
    src.close()


@pytest.mark.parametrize("engine", ["duckdb", "sqlite"], indirect=True)
def test_small_classes_fewer_folds_and_the_same_note(engine):
    data = coded(m=60, rare=3)
    src = sql_source(engine, data)
    mem, ev = (measure("zero-one").on(s, estimate="cross-fitted") for s in (data, src))
    assert ev.n_folds == mem.n_folds == 3 and ev.notes == mem.notes and "3 folds instead of 5" in ev.notes[0]
    assert ev.value([0, 2]) == pytest.approx(mem.value([0, 2]), abs=1e-12)
    src.close()


def test_a_single_row_class_is_refused():
    con = ibis.duckdb.connect()
    src = sql_source(con, coded(m=40, rare=1))
    with pytest.raises(TooFewRowsError, match="single row"):
        measure("zero-one").on(src, estimate="cross-fitted")


def test_from_sql_holds_out_the_file_rows_as_in_memory(tmp_path):
    """from_sql's stored codes keep the rows in the file's order (DuckDB's and SQLite's rowid), so held out a file
    gives the values and picks of Dataset.from_frame on the same rows; one GROUP BY per step."""
    import sqlite3

    rng = np.random.default_rng(3)
    m = 500
    signal = rng.integers(0, 3, size=m)
    frame = pd.DataFrame({"signal": signal, "noise": rng.normal(size=m), "code": [f"k{i}" for i in
                                                                               rng.integers(0, 150, size=m)],
                          "y": np.where(signal + rng.integers(0, 2, m) > 2, "yes", "no")})
    path = tmp_path / "t.parquet"
    frame.to_parquet(path)
    with sqlite3.connect(tmp_path / "t.sqlite") as db:
        frame.to_sql("t", db, index=False)
    enc = fslab.Dataset.from_frame(frame, "y", positive="yes").discretize()
    for src in (fslab.from_sql(str(path), "y", positive="yes"),
                fslab.from_sql("t", "y", con=ibis.sqlite.connect(str(tmp_path / "t.sqlite")), positive="yes")):
        assert src.feature_names == enc.feature_names
        for name in ("balanced", "log-loss"):
            mem = measure(name).on(enc, estimate="cross-fitted", engine="plain")
            ev = measure(name).on(src, estimate="cross-fitted")
            np.testing.assert_allclose(ev.extensions([], [0, 1, 2]), mem.extensions([], [0, 1, 2]), atol=1e-12)
            folded = ev.source
            before = folded.queries
            ev.extensions([0], [1, 2])
            assert folded.queries == before + 1   # one GROUP BY (UNION ALL) per step, as the plug-in
        want = fslab.select(enc, 2, "bayes-greedy", measure="balanced", estimate="cross-fitted")
        got = fslab.select(src, 2, "bayes-greedy", measure="balanced", estimate="cross-fitted")
        assert got.features == want.features
        np.testing.assert_allclose(got.scores, want.scores, atol=1e-12)
        src.close()


def test_stored_codes_keep_the_file_order_across_row_groups_and_files(tmp_path):
    """The rowid order of the codes from_sql stores is the order of the rows in the files (many parquet row groups
    read by parallel threads; a CSV glob, files in name order), so the folds are those of the same rows in memory."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(4)
    m = 30_000
    frame = pd.DataFrame({"a": rng.integers(0, 3, m), "b": rng.normal(size=m), "y": rng.integers(0, 2, m)})
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp_path / "t.parquet", row_group_size=997)
    for i, start in enumerate(range(0, m, 10_000)):
        frame.iloc[start:start + 10_000].to_csv(tmp_path / f"part{i}.csv", index=False)
    enc = fslab.Dataset.from_frame(frame, "y").discretize()
    for path in (tmp_path / "t.parquet", tmp_path / "part*.csv"):
        src = fslab.from_sql(str(path), "y")
        got = src.to_encoded()   # in the stored codes' rowid order
        np.testing.assert_array_equal(got.X, enc.X)
        np.testing.assert_array_equal(got.y, enc.y)
        folded = src.folded(5, 3).to_encoded()
        np.testing.assert_array_equal(folded.y, row_hash.folds(enc.y, 5, 3) * 2 + enc.y)
        src.close()


@pytest.mark.parametrize("engine", ENGINES, indirect=True)
def test_from_sql_with_a_row_id_holds_out_as_in_memory_on_every_engine(engine):
    """from_sql(..., row_id=) on a table whose storage order is not the row order: the folds follow the row id, so
    the held-out values and picks are those of the frame sorted by it, on DuckDB, SQLite and PostgreSQL."""
    rng = np.random.default_rng(8)
    m = 400
    signal = rng.integers(0, 3, size=m)
    frame = pd.DataFrame({"signal": signal, "noise": rng.integers(0, 4, size=m),
                          "code": [f"k{i:03d}" for i in rng.integers(0, 120, size=m)],
                          "y": np.where(signal + rng.integers(0, 2, m) > 2, "yes", "no")})
    order = rng.permutation(m)
    shuffled = frame.iloc[order].reset_index(drop=True).assign(rid=1000 + order)   # stored shuffled
    table = load(engine, "t", shuffled).drop("row_id")
    src = fslab.from_sql(table, "y", row_id="rid", positive="yes")
    enc = fslab.Dataset.from_frame(frame, "y", positive="yes").discretize()   # the rows in rid order
    assert src.feature_names == enc.feature_names
    for name in ("zero-one", "balanced", "log-loss"):
        mem = measure(name).on(enc, estimate="cross-fitted", engine="plain")
        ev = measure(name).on(src, estimate="cross-fitted")
        np.testing.assert_allclose(ev.extensions([], [0, 1, 2]), mem.extensions([], [0, 1, 2]), atol=1e-12)
    want = fslab.select(enc, 2, "bayes-greedy", measure="balanced", estimate="cross-fitted")
    got = fslab.select(src, 2, "bayes-greedy", measure="balanced", estimate="cross-fitted")
    assert got.features == want.features
    src.close()


@pytest.mark.parametrize("engine", [pytest.param("postgres", marks=pytest.mark.slow)], indirect=True)
def test_postgres_needs_a_row_id(engine):
    data = coded(m=50)
    frame = pd.DataFrame({f"c{j}": data.X[:, j].astype(np.int64) for j in range(5)} | {"y": data.y})
    t = load(engine, "codes", frame)
    src = SqlSource(t.drop("row_id"), data.n_rows, data.arities, data.labels, data.feature_names, stored="codes")
    with pytest.raises(fslab.ParameterError, match="no stable row order.*row_id="):
        measure("zero-one").on(src, estimate="cross-fitted")
    with pytest.raises(fslab.ParameterError, match="no stable row order"):
        src.bootstrap(1)
    src.stored = None   # the test's own table


def test_the_sql_is_integer_arithmetic_only():
    """No division and no float anywhere in the fold and hash SQL (SQLite would divide integers, DuckDB's '/' is a
    float division); the hash's largest intermediate stays below 2**63."""
    sql = folded_sql("t", ["c0", "_o"], 5, 7, 3) + hash_round_sql("t", "1", '"i"', "u")
    assert "/" not in sql and "FLOAT" not in sql.upper() and "DOUBLE" not in sql.upper() and "REAL" not in sql.upper()
    P = row_hash.P
    assert (P - 1 + P - 1) * row_hash.MULT < 2**63 and (P - 1) ** 2 + row_hash.ADD < 2**63


def test_bad_options_are_parameter_errors():
    con = ibis.duckdb.connect()
    src = sql_source(con, coded(m=30))
    for bad in (1, 21, 2.5, True, "5"):
        with pytest.raises(fslab.ParameterError, match="folds must be a whole number from 2 to 20"):
            src.folded(bad, 0)
    for bad in (-1, 2**63, 1.0, None, "0"):
        with pytest.raises(fslab.ParameterError, match="split seed"):
            src.folded(5, bad)
    for bad in (-1, 2**31, 1.5, None, True):
        with pytest.raises(fslab.ParameterError, match="seed must be a whole number from 0 to 2\\*\\*31 - 1"):
            src.sample(10, seed=bad)
    with pytest.raises(fslab.ParameterError, match="seed"):
        measure("zero-one").on(src, estimate="cross-fitted", seed=-1)


def test_distinct_rows_is_numpys_unique_of_the_rows():
    from fslab.data.sql_source import _distinct_rows

    rng = np.random.default_rng(0)
    for radix in ([3, 7, 2], [300, 5, 10], [2], [100_000] * 4):   # the last: codes past 2**62, numpy's own path
        rows = np.column_stack([rng.integers(0, a, 3000) for a in radix])
        got, inverse = _distinct_rows(list(rows.T), radix)
        want, want_inverse = np.unique(rows, axis=0, return_inverse=True)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(inverse, want_inverse.ravel())
