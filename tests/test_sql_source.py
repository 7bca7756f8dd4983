"""fslab.from_sql on DuckDB (through Ibis): the same codes, count tables and selections (features, order, scores)
as the in-memory path on parquet, CSV and a DuckDB database table; bad input gets one clear FslabError."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import fslab
from fslab.compare import compare_selectors
from fslab.data.sql_read import SqlMissingError, require_ibis
from fslab.data.sql_source import SqlError, SqlSource, fold_cells

ibis = pytest.importorskip("ibis")
pytest.importorskip("duckdb")
pytestmark = [
    # every test builds DuckDB tables through Ibis: 0.2-3 s each, out of the inner loop (issue 25.6)
    pytest.mark.slow,
    # Ibis 12's own calls into pandas 3 and DuckDB 2, not fslab's
    pytest.mark.filterwarnings("ignore:The 'future.infer_string' option is deprecated"),
    pytest.mark.filterwarnings("ignore:fetch_arrow_table\\(\\) is deprecated"),
]

SELECTIONS = [("mi-greedy", {}), ("jmi", {}), ("mrmr", {}), ("cmim", {}),
              ("bayes-greedy", {"measure": "zero-one"}), ("bayes-greedy", {"measure": "balanced"})]


def mixed_frame(seed: int = 0, m: int = 1500) -> pd.DataFrame:
    """Reals with missing values, a skewed real, small integers, two-valued reals, text with missing values, a
    150-level text column (int16 codes beside int8 ones), a binary text target that depends on three of them."""
    rng = np.random.default_rng(seed)
    real = rng.normal(size=m)
    real[rng.random(m) < 0.1] = np.nan
    small = rng.integers(0, 5, size=m)
    text = pd.Series(rng.choice(["blue", "red", "green", None], size=m), dtype=object)
    score = np.nan_to_num(real) + small / 2 + (text == "red") + rng.normal(size=m)
    return pd.DataFrame({
        "real": real, "skewed": rng.exponential(size=m), "small_int": small,
        "many_int": rng.integers(0, 60, size=m), "two_reals": rng.choice([0.25, 7.5], size=m),
        "colour": text, "level": np.array([f"L{i:03d}" for i in range(150)])[rng.integers(0, 150, size=m)],
        "y": np.where(score > 1.5, "yes", "no"),
    })


def sorted_rows(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    A = np.column_stack([X, y]).astype(np.int64)
    return A[np.lexsort(A.T[::-1])]


def assert_same_codes(src: SqlSource, enc) -> None:
    got = src.to_encoded()   # rows come in the engine's order: compare them as a multiset
    np.testing.assert_array_equal(sorted_rows(got.X, got.y), sorted_rows(enc.X, enc.y))
    np.testing.assert_array_equal(src.arities, enc.arities)
    np.testing.assert_array_equal(src.labels, enc.labels)
    assert src.categories == enc.categories and src.feature_names == enc.feature_names
    assert src.class_names == enc.class_names and src.task == enc.task and src.n_rows == enc.n_rows


def assert_same_selections(src, enc, k: int = 4) -> None:
    for name, kw in SELECTIONS:
        want = fslab.select(enc, k, name, engine="plain", **kw)   # the in-memory oracle's arithmetic
        got = fslab.select(src, k, name, **kw)
        assert got.features == want.features and got.names == want.names, (name, kw)
        np.testing.assert_array_equal(got.scores, want.scores)
        np.testing.assert_array_equal(got.trace["value"], want.trace["value"])
        assert fslab.select(enc, k, name, **kw).features == want.features   # the fast engine agrees too


@pytest.fixture(scope="module")
def frame():
    return mixed_frame()


@pytest.mark.slow  # 3.95 s measured (inner loop: unit and not slow)
@pytest.mark.parametrize("method,bins", [("mean-std", 3), ("quantile", 4), ("uniform", 5)])
def test_parquet_codes_and_selections_equal_in_memory(tmp_path, frame, method, bins):
    path = tmp_path / "mixed.parquet"
    frame.to_parquet(path)
    enc = fslab.Dataset.from_frame(frame, "y").discretize(method, bins)
    src = fslab.from_sql(str(path), "y", method=method, bins=bins)
    assert_same_selections(src, enc)
    assert src.queries > 0
    assert_same_codes(src, enc)


def test_nan_written_by_pyarrow_is_missing(tmp_path):
    """pyarrow keeps NaN as NaN (pandas writes null) and leaves it out of the parquet min/max statistics: DuckDB
    must still count it as missing (its statistics propagation would fold isnan() to false)."""
    rng = np.random.default_rng(2)
    x = rng.normal(size=3000)
    x[::7] = np.nan
    y = (np.nan_to_num(x) + rng.normal(size=3000) > 0).astype(np.int64)
    path = tmp_path / "nan.parquet"
    pq.write_table(pa.table({"x": x, "z": rng.integers(0, 3, size=3000), "y": y}), path)
    enc = fslab.Dataset.from_frame(pd.DataFrame({"x": x, "z": pd.read_parquet(path)["z"], "y": y}), "y").discretize()
    src = fslab.from_sql(str(path), "y")
    assert src.categories[0][-1] == "missing"
    assert_same_codes(src, enc)


@pytest.mark.slow  # 2.85 s measured (inner loop: unit and not slow)
def test_csv_glob_and_duckdb_table(tmp_path, frame):
    half = len(frame) // 2
    frame.iloc[:half].to_csv(tmp_path / "part1.csv", index=False)
    frame.iloc[half:].to_csv(tmp_path / "part2.csv", index=False)
    enc = fslab.Dataset.from_frame(frame, "y", positive="yes").discretize("quantile", 3)
    src = fslab.from_sql(str(tmp_path / "part*.csv"), "y", positive="yes", method="quantile")
    assert_same_codes(src, enc)
    assert_same_codes(fslab.from_sql(str(tmp_path), "y", positive="yes", method="quantile"), enc)   # a directory
    (tmp_path / "parts").mkdir()
    frame.iloc[:half].to_parquet(tmp_path / "parts" / "a.parquet")
    frame.iloc[half:].to_parquet(tmp_path / "parts" / "b.parquet")
    assert_same_codes(fslab.from_sql(str(tmp_path / "parts"), "y", positive="yes", method="quantile"), enc)
    assert_same_selections(src, enc, k=3)

    frame.to_parquet(tmp_path / "mixed.parquet")
    con = ibis.duckdb.connect(str(tmp_path / "data.duckdb"))   # a table in a DuckDB database file
    # (SQL, not con.create_table(name, frame): Ibis 12 cannot drop its pandas view on DuckDB 2.0)
    con.raw_sql(f"CREATE TABLE mixed AS SELECT * FROM read_parquet('{tmp_path / 'mixed.parquet'}')")
    src = fslab.from_sql("mixed", "y", con=con, feature_names=["real", "colour", "small_int"])
    sub = fslab.Dataset.from_frame(frame[["real", "colour", "small_int", "y"]], "y").discretize()
    assert_same_codes(src, sub)
    assert_same_selections(src, sub, k=2)
    lazy = fslab.from_sql(con.table("mixed"), "y", materialize=False)   # an Ibis table; codes recomputed per query
    assert lazy.stored is None
    assert_same_codes(lazy, fslab.Dataset.from_frame(frame, "y").discretize())
    src_name = src.stored
    src.close()
    with pytest.raises(SqlError, match=src_name):   # the stored codes are gone
        src.table([0])


@pytest.mark.parametrize("method,bins", [("mean-std", 3), ("quantile", 4)])
def test_another_engine_sqlite_equals_in_memory(tmp_path, frame, method, bins):
    """A second engine through the same Ibis code: SQLite has no NaN (it stores NULL), text compared by '=' (no
    code-point tree), the codes stored in its temporary table."""
    import sqlite3

    path = tmp_path / "mixed.sqlite"
    with sqlite3.connect(path) as db:
        frame.to_sql("mixed", db, index=False)
    src = fslab.from_sql("mixed", "y", con=ibis.sqlite.connect(str(path)), method=method, bins=bins)
    assert "sqlite" in src.notes[0] and src.stored is not None
    enc = fslab.Dataset.from_frame(frame, "y").discretize(method, bins)
    assert_same_codes(src, enc)
    assert_same_selections(src, enc, k=3)


def test_multiclass_one_vs_rest_and_real_valued_targets(tmp_path):
    """A 3-class float target with missing values (dropped), one-vs-rest, a real-valued target; boolean, constant
    and wide-range integer features."""
    rng = np.random.default_rng(0)
    m = 400
    frame = pd.DataFrame({"real": rng.normal(size=m), "small_int": rng.integers(0, 5, size=m),
                          "wide_int": rng.choice([0, 100_000, 250_000], size=m), "constant": np.ones(m),
                          "flag": rng.random(m) < 0.3, "target": rng.integers(0, 3, size=m).astype(float)})
    frame.loc[frame.index[::37], "target"] = np.nan
    frame.to_parquet(tmp_path / "multi.parquet")
    for positive, task in ((None, "multiclass"), ("2", "binary")):
        enc = fslab.Dataset.from_frame(frame, "target", positive=positive).discretize("quantile", 4)
        src = fslab.from_sql(str(tmp_path / "multi.parquet"), "target", positive=positive, method="quantile", bins=4)
        assert src.task == task and src.n_rows == m - len(frame.index[::37])
        assert_same_codes(src, enc)
        for measure in ("zero-one", "log-loss"):
            assert (fslab.select(src, 3, "bayes-greedy", measure=measure).features
                    == fslab.select(enc, 3, "bayes-greedy", measure=measure).features)
    frame.assign(target=rng.normal(size=m)).to_parquet(tmp_path / "real.parquet")
    enc = fslab.Dataset.from_frame(pd.read_parquet(tmp_path / "real.parquet"), "target").discretize()
    src = fslab.from_sql(str(tmp_path / "real.parquet"), "target")
    assert src.task == "regression" and len(src.labels) == m
    assert_same_codes(src, enc)
    assert fslab.bayes_value(src, [0, 1], "squared") == fslab.bayes_value(enc, [0, 1], "squared")


def test_tables_equal_in_memory_including_relabelled_and_occupied_cells(tmp_path):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.integers(0, 3, size=(60, 8)), columns=[f"f{j}" for j in range(8)])
    frame["y"] = rng.integers(0, 3, size=60)   # three classes
    frame.to_parquet(tmp_path / "ints.parquet")
    enc = fslab.Dataset.from_frame(frame, "y").discretize()
    src = fslab.from_sql(str(tmp_path / "ints.parquet"), "y")
    # 3^5 = 243 cells > 60 rows: CodedSource keeps the occupied ones, numbered by rank; deeper still, extension
    # tables keep each candidate's occupied cells
    for subset in [(), (0,), (4, 1), (0, 1, 2, 3, 4), (7, 6, 5, 4, 3, 2, 1)]:
        np.testing.assert_array_equal(src.table(subset).counts, enc.table(subset).counts)
        rest = [j for j in range(8) if j not in subset]
        if rest:
            np.testing.assert_array_equal(src.extension_tables(subset, rest).counts,
                                          enc.extension_tables(subset, rest).counts)
    for name in ("zero-one", "log-loss", "mi"):
        assert fslab.bayes_value(src, [0, 3, 5], name) == fslab.bayes_value(enc, [0, 3, 5], name)
    with pytest.raises(fslab.ParameterError, match="at least one candidate"):
        src.extension_tables([0], [])
    with pytest.raises(fslab.ParameterError):
        src.extension_tables([0], [0, 1])


def test_only_occupied_counts_come_back(tmp_path):
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(rng.integers(0, 2, size=(20_000, 4)), columns=list("abcd"))
    frame["y"] = frame["a"] ^ frame["b"]
    frame.to_parquet(tmp_path / "bits.parquet")
    src = fslab.from_sql(str(tmp_path / "bits.parquet"), "y")
    before = src.bytes_received
    src.extension_tables([0], [1, 2, 3])
    # 3 candidates x (2 x 2 cells) x 2 classes = 24 groups at most, each (c0, v, y, n, i): a few hundred bytes,
    # against 100,000 bytes for the 20,000 x 5 codes
    assert src.queries == 1 and 0 < src.bytes_received - before <= 24 * 5 * 8


def test_fold_cells_is_coded_sources_rule():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 4, size=(30, 5))
    coded = fslab.CodedSource(X, [4] * 5, [0, 1], y=rng.integers(0, 2, size=30))
    codes, n_cells = coded.cell_codes((2, 0, 4, 1))
    got, n = fold_cells(X[:, [2, 0, 4, 1]], [4] * 4, 30)
    assert n == n_cells
    np.testing.assert_array_equal(got, codes)


@pytest.mark.slow  # 0.91 s measured (inner loop: unit and not slow)
def test_bad_input_gets_one_clear_error(tmp_path, frame):
    path = tmp_path / "mixed.parquet"
    frame.to_parquet(path)
    with pytest.raises(fslab.UnknownTargetError, match="'nope' is not in the table"):
        fslab.from_sql(str(path), "nope")
    with pytest.raises(fslab.DataError, match=r"\['missing_col'\] are not in the table"):
        fslab.from_sql(str(path), "y", feature_names=["real", "missing_col"])
    con = ibis.duckdb.connect()
    con.raw_sql("CREATE TABLE other AS SELECT * FROM (VALUES (1, 0), (2, 1)) AS v(a, b)")
    with pytest.raises(fslab.UnknownTargetError, match="not in the table"):
        fslab.from_sql("other", "y", con=con)
    with pytest.raises(fslab.DataError, match="no table 'absent'"):
        fslab.from_sql("absent", "y", con=con)
    with pytest.raises(fslab.DataError, match="a glob that matched nothing"):
        fslab.from_sql(str(tmp_path / "nothing*.parquet"), "y")
    with pytest.raises(fslab.DataError, match="no file matches"):
        fslab.from_sql(str(tmp_path / "absent.parquet"), "y")
    frame.iloc[:0].to_parquet(tmp_path / "empty.parquet")
    with pytest.raises(fslab.EmptyFileError, match="empty"):
        fslab.from_sql(str(tmp_path / "empty.parquet"), "y")
    frame.assign(y="yes").to_parquet(tmp_path / "one.parquet")
    with pytest.raises(fslab.TargetClassError, match="only one class"):
        fslab.from_sql(str(tmp_path / "one.parquet"), "y")
    frame.assign(y=None).to_parquet(tmp_path / "none.parquet")
    with pytest.raises(fslab.TargetClassError, match="missing in every row"):
        fslab.from_sql(str(tmp_path / "none.parquet"), "y")
    frame.assign(real=np.where(np.arange(len(frame)) == 5, np.inf, frame["real"])).to_parquet(tmp_path / "inf.parquet")
    with pytest.raises(fslab.InfiniteValueError, match="'real'"):
        fslab.from_sql(str(tmp_path / "inf.parquet"), "y")
    with pytest.raises(fslab.ParameterError, match="method"):
        fslab.from_sql(str(path), "y", method="kmeans")
    rows = ["a,b,y"] + [f"{i % 7},{i % 3},{i % 2}" for i in range(30_000)]
    rows[25_000] = "seven,1,0"   # past DuckDB's type sniffing: the scan itself fails
    (tmp_path / "late.csv").write_text("\n".join(rows) + "\n")
    with pytest.raises(SqlError, match="could not .*CSV Error on Line: 25001"):
        fslab.from_sql(str(tmp_path / "late.csv"), "y")
    (tmp_path / "nothing").mkdir()
    with pytest.raises(fslab.DataError, match="holds no .parquet or .csv file"):
        fslab.from_sql(str(tmp_path / "nothing"), "y")
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(fslab.DataError, match="cannot tell the format"):
        fslab.from_sql(str(tmp_path / "x.json"), "y")


@pytest.mark.slow  # 1.43 s measured (inner loop: unit and not slow)
def test_rows_never_needed_and_a_sample_coded_by_the_source(tmp_path, frame):
    path = tmp_path / "mixed.parquet"
    frame.to_parquet(path)
    src = fslab.from_sql(str(path), "y")
    assert isinstance(src, fslab.TableSource) and not isinstance(src, fslab.CodedSource)
    with pytest.raises(fslab.ParameterError, match="needs the rows in memory"):
        fslab.select(src, 2, "fisher")
    part = src.sample(600, seed=1)   # what NPFS runs on: a sample coded with the whole table's cut points
    assert isinstance(part, fslab.EncodedDataset) and 400 < part.n_rows < 800
    assert part.categories == src.categories and part.class_names == src.class_names
    assert fslab.npfs(part, "jmi", k=2, n_bootstraps=3, seed=0).matrix.shape == (src.n_features, 3)
    assert src.sample(10 * len(frame)).n_rows == len(frame)
    with pytest.raises(fslab.ParameterError, match="positive whole number"):
        src.sample(0)

    enc = fslab.Dataset.from_frame(frame, "y").discretize()
    got, want = (compare_selectors(s, 3, selectors=("mi-greedy", "jmi", "bayes-greedy")) for s in (src, enc))
    pd.testing.assert_frame_equal(got.features, want.features)


def test_missing_ibis_says_what_to_install(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ibis", None)
    with pytest.raises(SqlMissingError, match=r"pip install 'fslab\[sql\]'"):
        require_ibis()


def test_compare_on_a_count_only_source_leaves_out_what_reads_rows(tmp_path, frame):
    """compare_selectors' default list runs on a SQL source: the Fisher score (it reads rows) is left out with a
    note, the rest equal in memory; named explicitly, it is refused."""
    path = tmp_path / "mixed.parquet"
    frame.to_parquet(path)
    src = fslab.from_sql(str(path), "y")
    enc = fslab.Dataset.from_frame(frame, "y").discretize()
    got = compare_selectors(src, 2)
    assert "fisher" not in got.selections and "Fisher" in got.note and "SqlSource" in got.note
    want = compare_selectors(enc, 2, selectors=tuple(got.selections))
    assert {n: s.features for n, s in got.selections.items()} == {n: s.features for n, s in want.selections.items()}
    with pytest.raises(fslab.ParameterError, match="needs the rows in memory"):
        compare_selectors(src, 2, selectors=("jmi", "fisher"))


def test_a_messy_export_leaves_out_its_ids_as_in_memory(tmp_path):
    """The analyst's table (fslab.data.messy.customers: an ID, a row number, free text, a date as text, "62%"
    strings): the engine reads "62%" as a percentage and the ISO dates as days, leaves out the ID-like columns by
    the plan's rule (counted exactly in the engine), and the pick is the planted signal, not an ID. With
    near_unique="keep" they stay (and the in-sample plug-in then picks one: the reason for the rule)."""
    from fslab.data import messy

    path = tmp_path / "customers.csv"
    path.write_bytes(messy.to_csv_bytes(messy.customers()))
    src = fslab.from_sql(str(path), "churn")
    assert not {"customer_id", "row", "notes"} & set(src.feature_names)
    assert {c.name: c.left_out for c in src.plan.left_out} == {"customer_id": "near-unique", "row": "near-unique",
                                                                 "notes": "near-unique"}
    assert src.plan.column("discount").type == "percent" and src.plan.column("signup_date").type == "date"
    assert any("near-unique" in n and "column_types=" in n for n in src.notes)
    assert any("'discount' read as percentages (0 .. 79)" in n for n in src.notes)
    picked = fslab.select(src, k=1, selector="bayes-greedy").names
    assert tuple(picked) == ("support_calls",) and picked[0] in messy.SIGNAL["customers"]
    kept = fslab.from_sql(str(path), "churn", near_unique="keep")
    assert {"customer_id", "row", "notes"} <= set(kept.feature_names)
    assert fslab.select(kept, k=1, selector="bayes-greedy").names[0] in {"customer_id", "row", "notes"}
    with pytest.raises(fslab.ParameterError, match="near_unique"):
        fslab.from_sql(str(path), "churn", near_unique="maybe")
