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
    # a user's file is held out by default, in the engine as in memory (issue 31.2): same folds, same picks
    expected = fslab.select(fslab.Dataset.from_frame(frame, "y").discretize(), k=3, selector="jmi",
                            estimate="cross-fitted")
    assert out["names"] == list(expected.names) and out["estimate"] == "cross-fitted"
    assert out["scores"] == pytest.approx(list(expected.scores), abs=1e-12)
    assert not any("no rows to hold out" in n for n in out.get("notes", []))
    assert main(["select", str(folder), "--sql", "--target", "y", "--selector", "jmi", "--k", "3"]) == 0
    shown = capsys.readouterr().out
    assert "counted in the engine (duckdb)" in shown and "held-out" in shown
    assert "Estimate: in-sample" not in shown   # the source's notes no longer contradict the run's estimate


@pytest.mark.parametrize("argv, message", [
    (["select", "{folder}", "--sql"], "--sql needs --target"),
    (["select", "{folder}/none-*.parquet", "--sql", "--target", "y"], "match"),
])
def test_bad_input_is_one_line(parquet, capsys, argv, message):
    _, folder = parquet
    assert main([a.format(folder=folder) for a in argv]) in (1, 2)
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_npfs_in_duckdb_runs_in_the_engine(parquet, capsys):
    _, folder = parquet   # NPFS on a SQL source (issue 31.3): Poisson bootstraps weighted in the engine
    assert main(["npfs", str(folder), "--sql", "--target", "y", "--selector", "jmi", "--k", "2", "--n", "5",
                 "--json", "-q"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["counts"]) == 7 and sum(out["counts"]) == 2 * 5   # 7 features; k = 2 picked in each of 5
