"""--sql holds a user's file out by default, as in memory (issue 31.2): DuckDB counts by (fold, class, cell) through
the cross-fitted evaluator's seam (SqlSource.folded) and the command line gives the in-memory held-out selection,
scores and verdict, fewer folds on a small class included; NPFS in the engine stays on the plug-in, with a note."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import fslab
from fslab.cli import main

pytest.importorskip("duckdb")
pytest.importorskip("ibis")


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    assert "nan" not in (captured.out + captured.err).lower()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    rng = np.random.default_rng(4)
    m = 400
    signal = rng.integers(0, 3, m)
    frame = pd.DataFrame({"noise": rng.integers(0, 4, m), "signal": signal, "other": rng.integers(0, 2, m),
                          "y": np.where((signal == 2) ^ (rng.random(m) < 0.15), "yes", "no")})
    path = tmp_path_factory.mktemp("engine") / "t.csv"
    frame.to_csv(path, index=False)
    return frame, str(path)


@pytest.mark.slow  # DuckDB: ~1 s
def test_sql_holds_out_by_default_like_in_memory(capsys, table):
    frame, path = table
    code, out, err = run(capsys, "select", path, "--sql", "--target", "y", "--k", "2", "--json", "-q")
    assert code == 0 and "no rows to hold out" not in err
    record = json.loads(out)
    want = fslab.select(fslab.Dataset.from_frame(frame, "y").discretize(), 2, estimate="cross-fitted")
    assert record["estimate"] == "cross-fitted" and record["folds"] == 5
    assert record["names"] == list(want.names)
    np.testing.assert_allclose(record["scores"], want.scores, rtol=1e-12)
    assert record["verdict"]["held_out_folds"] == 5
    code, out, _ = run(capsys, "select", path, "--sql", "--target", "y", "--k", "2", "--json", "-q",
                       "--estimate", "plug-in")
    assert code == 0 and json.loads(out)["estimate"] == "plug-in"


@pytest.mark.slow  # DuckDB: ~1 s
def test_sql_npfs_holds_each_bootstrap_out_like_memory(capsys, table):
    """Each Poisson-weighted bootstrap in DuckDB is selected held out, its rows in the original rows' folds, as
    fslab.npfs does on the same SqlSource (tests/test_sql_npfs.py: equal to Dask's on the same rows)."""
    _, path = table
    code, out, err = run(capsys, "npfs", path, "--sql", "--target", "y", "--k", "1", "--n", "3", "-q")
    assert code == 0 and "Poisson-weighted tables" not in err
    assert "estimate of the base selector's criterion: held-out" in out
