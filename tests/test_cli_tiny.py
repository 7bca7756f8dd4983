"""The command line on files of 3 and 7 rows (issue 31.5): a plain message, never nan. 7 rows (4 'no', 3 'yes')
are held out over 3 folds with a note; 3 rows (one 'yes') fall back to the plug-in with the reason, or are refused
in plain words when --estimate cross-fitted is asked."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from fslab.cli import main

ROWS = ["0,x,0.362,no", "1,y,0.947,yes", "1,x,-0.704,no", "1,y,-0.623,yes", "2,x,0.041,no", "1,y,-0.219,yes",
        "2,x,-1.246,no"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny")
    out = {}
    for m in (3, 7):
        path = folder / f"r{m}.csv"
        path.write_text("a,b,c,y\n" + "\n".join(ROWS[:m]) + "\n")
        out[m] = str(path)
    return out


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    assert "nan" not in (captured.out + captured.err).lower()
    return code, captured.out, captured.err


def test_seven_rows_are_held_out_over_three_folds_with_a_note(capsys, files):
    code, out, err = run(capsys, "select", files[7], "-q")
    assert code == 0
    assert "note: held out over 3 folds instead of 5: the class 'yes' has only 3 rows" in err
    assert "estimate: held-out (3-fold cross-fitted)" in out
    assert "does this pick hold up? " in out and "(held out over 3 folds against in-sample)" in out


def test_seven_rows_as_json(capsys, files):
    code, out, _ = run(capsys, "select", files[7], "-q", "--json")
    record = json.loads(out)
    assert code == 0 and record["folds"] == 3 and record["verdict"]["held_out_folds"] == 3
    assert any("3 folds instead of 5" in note for note in record["notes"])


@pytest.mark.slow  # 1.5 s measured (npfs: 100 bootstraps)
@pytest.mark.parametrize("command", ["npfs", "compare"])
def test_seven_rows_npfs_and_compare_say_three_folds(capsys, files, command):
    code, out, err = run(capsys, command, files[7], "-q")
    assert code == 0 and "held-out (3-fold cross-fitted)" in out and "3 folds instead of 5" in err


def test_three_rows_fall_back_to_the_plug_in_with_the_reason(capsys, files):
    code, out, err = run(capsys, "select", files[3], "-q")
    assert code == 0
    why = "too few rows to hold out: the class 'yes' has a single row of 3"
    assert why in err and "the estimate is the papers' in-sample plug-in" in err
    assert f"estimate: in-sample (plug-in, as in the papers) ({why}" in out
    assert "hold up" not in out   # no verdict without held-out rows


def test_three_rows_asked_to_hold_out_is_a_plain_error(capsys, files):
    code, out, err = run(capsys, "select", files[3], "--estimate", "cross-fitted")
    assert code == 1 and out == ""
    assert err.startswith("fslab: error: too few rows to hold out: the class 'yes' has a single row of 3")


def test_dayfirst_is_refused_on_a_sample(capsys):
    code, _, err = run(capsys, "select", "mushroom", "--dayfirst")
    assert code == 1 and "--dayfirst and --split apply to a CSV file" in err


DATES = "d,y\n03/04/2021,a\n01/02/2021,b\n05/06/2021,a\n07/08/2021,b\n02/01/2021,a\n09/10/2021,b\n"


@pytest.mark.parametrize("engine", [(), pytest.param(("--sql",), marks=pytest.mark.slow)])
def test_dayfirst_reads_ambiguous_dates_day_first(capsys, tmp_path, engine):
    """Every date fits both orders: month first by default (09/10 is September 10), day first with --dayfirst
    (9 October), in memory and in DuckDB."""
    if engine:
        pytest.importorskip("duckdb")
    path = tmp_path / "dates.csv"
    path.write_text(DATES)
    _, out, _ = run(capsys, "select", str(path), "--target", "y", "-q", *engine)
    assert "'d' read as dates (2021-01-02 .. 2021-09-10)" in out and "read month-first" in out
    _, out, _ = run(capsys, "select", str(path), "--target", "y", "-q", "--dayfirst", *engine)
    assert "'d' read as dates (2021-01-02 .. 2021-10-09)" in out and "read day-first, as asked" in out


def test_a_real_valued_target_is_held_out_by_default(capsys, tmp_path):
    """Each value its own class, most with one row: held out (no fold empty), not refused as a single-row class."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.integers(0, 3, 200), "b": rng.integers(0, 4, 200)})
    frame["t"] = frame["a"] * 1.5 + rng.normal(size=200)
    path = tmp_path / "reg.csv"
    frame.to_csv(path, index=False)
    code, out, err = run(capsys, "select", str(path), "-q")
    assert code == 0 and "single row" not in err and "estimate: held-out (5-fold cross-fitted)" in out
