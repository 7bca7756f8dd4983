"""The command line checks a job's predicted cost before running it (issue 18): over the limit, one message and
exit code 1; a long job within the limit says its estimate on stderr first. No test runs a long job."""

from __future__ import annotations

from fslab import cost
from fslab.cli.main import main


def test_s6_link_on_adult_is_refused_before_work(capsys):
    assert main(["select", "adult", "--selector", "bayes-greedy", "--k", "123", "--s", "6"]) == 1
    err = capsys.readouterr().err
    assert "work limit" in err and "FSLAB_MAX_WORK" in err and "smaller s" in err and "Traceback" not in err


def test_npfs_5000_bootstraps_on_adult_is_refused(capsys):
    assert main(["npfs", "adult", "--selector", "bayes-greedy", "--k", "10", "--n", "5000"]) == 1
    assert "fewer bootstraps" in capsys.readouterr().err


def test_exhaustive_beyond_the_subset_limit_keeps_its_own_message(capsys):
    assert main(["select", "mushroom", "--selector", "exhaustive", "--k", "5"]) == 1
    assert "k <= 2 fits" in capsys.readouterr().err


def test_a_long_job_announces_its_estimate(capsys, monkeypatch):
    slow = {path: seconds * 1e6 for path, seconds in cost.SECONDS_PER_ROW_TABLE.items()}
    monkeypatch.setattr(cost, "SECONDS_PER_ROW_TABLE", slow)
    assert main(["select", "mushroom", "--k", "2", "-q"]) == 0
    err = capsys.readouterr().err
    assert "subset tables" in err and "starting now" in err
