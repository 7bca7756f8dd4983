"""`fslab select DATA --sql`: a parquet file, directory or glob counted in an embedded DuckDB (issue 23.3), the
same selection as in memory; bad combinations get one line."""

from __future__ import annotations

import json

import pytest

import fslab
from fslab.cli.main import main
from tests.test_sql_source import mixed_frame

pytestmark = [pytest.mark.cli, pytest.mark.slow]  # DuckDB tables: a second or two per test


@pytest.fixture(scope="module")
def parquet(tmp_path_factory):
    frame = mixed_frame()
    folder = tmp_path_factory.mktemp("parts")
    half = len(frame) // 2
    frame.iloc[:half].to_parquet(folder / "part-0.parquet")
    frame.iloc[half:].to_parquet(folder / "part-1.parquet")
    return frame, folder


def test_select_in_duckdb_equals_in_memory(parquet, capsys):
    frame, folder = parquet
    assert main(["select", str(folder / "*.parquet"), "--sql", "--target", "y", "--selector", "jmi", "--k", "3",
                 "--json", "-q"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = fslab.select(fslab.Dataset.from_frame(frame, "y").discretize(), k=3, selector="jmi")
    assert out["names"] == list(expected.names) and out["estimate"] == "plug-in"
    assert main(["select", str(folder), "--sql", "--target", "y", "--selector", "jmi", "--k", "3"]) == 0
    assert "in DuckDB the counts come back as tables" in capsys.readouterr().err  # notes go to stderr


@pytest.mark.parametrize("argv, message", [
    (["select", "{folder}", "--sql"], "--sql needs --target"),
    (["npfs", "{folder}", "--sql", "--target", "y", "--k", "2", "--n", "3"], "keeps its rows in the engine"),
    (["select", "{folder}/none-*.parquet", "--sql", "--target", "y"], "match"),
    (["select", "{folder}", "--sql", "--target", "y", "--missing", "drop"], "does not combine"),
])
def test_bad_input_is_one_line(parquet, capsys, argv, message):
    _, folder = parquet
    assert main([a.format(folder=folder) for a in argv]) in (1, 2)
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
