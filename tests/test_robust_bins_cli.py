"""Robust bins on the command line and in recipes (issue 33.7): a file read without --method is binned by "auto"
and the notes say which column got quantile bins and why; a sample keeps the paper's mean-std; a recipe recorded
before robust bins (no method: mean-std) replays mean-std, one that says "auto" replays robust bins.
The file: ``amount`` is 1..20 ten times over with four rows times 500 (98 % of the rows in one mean-std bin; see
tests/test_robust_bins_engines.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fslab.cli import main
from fslab.recipe import load_dataset, sha256_hex

SAID = ("amount: quantile bins, because mean-std bins put 98% of the rows in one bin (outliers); quantile bins put "
        "at most 36% in one.")


def glitch_csv() -> bytes:
    reps = np.tile(np.arange(1.0, 21.0), 10)
    amount = reps.copy()
    amount[[3, 50, 101, 177]] *= 500
    return pd.DataFrame({"amount": amount, "plain": reps + 0.5, "churn": np.where((reps % 7) < 3, "yes", "no")}
                        ).to_csv(index=False).encode()


@pytest.mark.parametrize("method, said", [((), True), (("--method", "mean-std"), False)])
def test_a_file_gets_robust_bins_unless_a_method_is_given(capsys, tmp_path, method, said):
    path = tmp_path / "glitch.csv"
    path.write_bytes(glitch_csv())
    assert main(["select", str(path), "--target", "churn", "--k", "1", *method]) == 0
    out = capsys.readouterr()
    assert (SAID in out.out + out.err) is said


def test_recipes_replay_the_binning_they_recorded():
    data = glitch_csv()
    file = {"file": "glitch.csv", "sha256": sha256_hex(data), "target": "churn"}
    before = load_dataset(file, data)   # recorded before robust bins: no method, mean-std
    assert before.plan.options.method == "mean-std" and not any(c.binning for c in before.plan.kept)
    robust = load_dataset(file | {"method": "auto"}, data)
    assert [c.binning for c in robust.plan.kept if c.binning] == [SAID]
    j = robust.feature_names.index("amount")
    assert np.bincount(before.X[:, j]).tolist() == [0, 196, 4] and np.bincount(robust.X[:, j]).tolist() == [58, 69, 73]


def test_a_sample_keeps_the_papers_mean_std_on_the_command_line():
    from fslab.cli.sources import load_data

    for data in ("waveform", "sample:waveform"):
        loaded = load_data(data)
        assert loaded.source.plan.options.method == "mean-std", data
    assert load_data("waveform", method="auto").source.plan.options.method == "auto"   # asked: it wins
