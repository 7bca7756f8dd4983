"""The command line's default path on tables as analysts export them (issue 22): the planted signal is picked, never
an ID, a date, free text, a unit string or a many-level code; the estimate is named and held out for a user's file."""

from __future__ import annotations

import json

import pytest

from fslab.cli import main
from fslab.data import messy


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("messy")
    out = {}
    for name, make in messy.TABLES.items():
        path = folder / f"{name}.csv"
        path.write_bytes(messy.to_csv_bytes(make()))
        out[name] = str(path)
    return out


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("name", list(messy.TABLES))
@pytest.mark.parametrize("selector", [("--selector", "bayes-greedy", "--measure", "balanced"),
                                      ("--selector", "mi-greedy"), ("--selector", "jmi")])
def test_the_default_path_picks_the_planted_signal(capsys, files, name, selector):
    code, out, _ = run(capsys, "select", files[name], "--target", messy.TARGETS[name], "--k", "3", "--json",
                       *selector)
    assert code == 0
    record = json.loads(out)
    assert record["estimate"] == "cross-fitted" and record["folds"] == 5
    if name == "customers":   # tenure's export glitch (one 9999) made mean-std put 599 of 600 rows in one bin, a
        # near-constant third pick; robust bins (the default) cut it into quantile bins, and at 600 rows no third
        # feature gains held out: the two strong signals are pinned, the third is not
        assert {"support_calls", "plan"} <= set(record["names"])
    else:
        assert set(record["names"]) == set(messy.SIGNAL[name])
    assert not set(record["names"]) & set(messy.MESS[name])
    assert record["verdict"]["level"] in ("green", "amber")


def test_the_text_names_the_estimate_and_shows_both_values(capsys, files):
    code, out, _ = run(capsys, "select", files["loans"], "--target", "default", "--k", "3")
    assert code == 0
    assert "estimate: held-out (5-fold cross-fitted) (the default for your own file" in out
    assert "in-sample C(first t)" in out and "held-out C(first t)" in out
    assert "does this pick hold up?" in out


def test_the_papers_plug_in_on_request_fits_the_many_level_codes_and_is_flagged_red(capsys, files):
    code, out, _ = run(capsys, "select", files["loans"], "--target", "default", "--k", "3", "--measure", "balanced",
                       "--estimate", "plug-in", "--json")
    record = json.loads(out)
    assert code == 0 and record["estimate"] == "plug-in"
    assert {"employer", "zip_prefix"} <= set(record["names"])
    assert record["verdict"]["level"] == "red"


def test_samples_keep_the_papers_plug_in(capsys):
    code, out, _ = run(capsys, "select", "mushroom", "--k", "2", "--json")
    assert code == 0 and json.loads(out)["estimate"] == "plug-in"


def test_npfs_and_compare_take_the_estimate(capsys, files):
    code, out, _ = run(capsys, "npfs", files["loans"], "--target", "default", "--selector", "bayes-greedy",
                       "--measure", "balanced", "--k", "3", "--n", "20")
    assert code == 0
    assert "estimate of the base selector's criterion: held-out" in out
    relevant = next(line for line in out.splitlines() if line.startswith("k* ="))
    assert "grade" in relevant and "zip_prefix" not in relevant and "employer" not in relevant
    code, out, _ = run(capsys, "compare", files["customers"], "--target", "churn", "--k", "2", "--json",
                       "--selectors", "bayes-greedy,mi-greedy,jmi")
    record = json.loads(out)
    assert code == 0 and record["estimate"] == "cross-fitted"
    assert all(set(s["names"]) == {"support_calls", "plan"} for s in record["selections"].values())


def test_bad_estimate_requests_are_one_line_errors(capsys, files):
    code, _, err = run(capsys, "select", files["loans"], "--target", "default", "--folds", "1")
    assert code == 1 and err.startswith("fslab: error: folds must be")
    code, _, err = run(capsys, "select", "bayes-example-1", "--estimate", "cross-fitted")
    assert code == 1 and "exact distribution" in err and "\n" == err[-1] and err.count("\n") == 1
