"""from_sql on hostile or wrong input (issue 32.6): URLs refused before any engine sees them, no DuckDB extension
installed or loaded by the connection from_sql opens, every option checked with a ParameterError."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fslab

ibis = pytest.importorskip("ibis")
pytest.importorskip("duckdb")
pytestmark = [
    pytest.mark.filterwarnings("ignore:The 'future.infer_string' option is deprecated"),
    pytest.mark.filterwarnings("ignore:fetch_arrow_table\\(\\) is deprecated"),
]


@pytest.fixture(scope="module")
def parquet(tmp_path_factory):
    path = tmp_path_factory.mktemp("hostile") / "small.parquet"
    pd.DataFrame({"a": np.arange(60) % 3, "b": np.arange(60) % 4, "y": np.arange(60) % 2}).to_parquet(path)
    return str(path)


@pytest.mark.parametrize("url", ["http://127.0.0.1:9/x.parquet", "https://example.org/data.csv",
                                 "s3://bucket/key.parquet", "S3://bucket/*.csv", "gcs://b/x.csv",
                                 "file:///etc/passwd.csv", " hf://datasets/x.parquet"])
def test_urls_are_refused_before_any_engine(url):
    with pytest.raises(fslab.DataError, match="local files and connections only, not a URL"):
        fslab.from_sql(url, "y")


@pytest.mark.slow  # opens DuckDB: 0.3 s
def test_the_connection_from_sql_opens_loads_no_extension(parquet):
    src = fslab.from_sql(parquet, "y")
    con = src.codes.get_backend()
    got = con.raw_sql("SELECT current_setting('autoinstall_known_extensions'), "
                      "current_setting('autoload_known_extensions')").fetchall()
    assert got == [(False, False)]
    with pytest.raises(Exception, match="httpfs"):   # what a URL inside a query now meets: no download
        con.raw_sql("SELECT * FROM read_csv('http://127.0.0.1:9/x.csv')").fetchall()


@pytest.mark.parametrize("kwargs, message", [
    ({"target": 3}, "target must be a column name"),
    ({"target": "  "}, "target must be a column name"),
    ({"feature_names": "a"}, "feature_names must be a list of column names"),
    ({"feature_names": [1, 2]}, "feature_names must be a list of column names"),
    ({"feature_names": 7}, "feature_names must be a list of column names"),
    ({"materialize": "yes"}, "materialize must be True or False"),
    ({"near_unique": "maybe"}, "near_unique must be 'drop' or 'keep'"),
    ({"method": "kmeans"}, "unknown discretisation method"),
    ({"bins": 1}, "bins must be an integer from 2"),
    ({"bins": 2.5}, "bins must be an integer from 2"),
    ({"con": 5}, "con must be an Ibis connection"),
])
def test_every_option_is_checked(parquet, kwargs, message):
    args = {"target": "y"} | kwargs
    with pytest.raises(fslab.ParameterError, match=message):
        fslab.from_sql(parquet, **args)


@pytest.mark.slow  # opens DuckDB: 0.2 s
def test_an_ibis_table_with_a_connection_too_is_refused():
    con = ibis.duckdb.connect()
    t = con.create_table("t", ibis.memtable({"a": [1, 2], "y": [0, 1]}))
    with pytest.raises(fslab.ParameterError, match="carries its own connection"):
        fslab.from_sql(t, "y", con=con)
