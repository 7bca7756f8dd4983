"""`fslab select FILE --split HOW` cuts a numeric target into classes as the Data page does
(fslab.data.target.split_target): the same dataset as `Dataset.from_frame(..., target_split=...)`."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fslab
from fslab.cli import main


@pytest.fixture(scope="module")
def progression(tmp_path_factory):
    """y = 10 a + noise: 'a' carries the signal whichever way y is cut; 'b' is noise."""
    rng = np.random.default_rng(1)
    m = 240
    a, b = rng.integers(0, 3, m), rng.integers(0, 3, m)
    y = 10 * a + rng.normal(0, 2, m).round(1)
    path = tmp_path_factory.mktemp("split") / "progression.csv"
    pd.DataFrame({"a": a, "b": b, "y": y}).to_csv(path, index=False)
    return path


@pytest.mark.slow  # reads the file in the capped child, as the app does
@pytest.mark.parametrize("how, classes", (("median", 2), ("q3", 3), ("12.5", 2)))
def test_split_on_the_command_line_is_the_librarys(capsys, progression, how, classes):
    code = main(["select", str(progression), "--target", "y", "--split", how, "--k", "1", "--measure", "zero-one",
                 "--estimate", "plug-in"])
    out = capsys.readouterr()
    assert code == 0, out.err
    ds = fslab.Dataset.from_frame(pd.read_csv(progression), "y", target_split=fslab.data.target.parse_split(how))
    assert len(ds.encoded_target.class_names) == classes
    want = fslab.bayes_value(ds.discretize(), [0], "zero-one")
    row = next(line for line in out.out.splitlines() if line.strip().startswith("1 "))
    assert "selected: a" in out.out and float(row.split()[3]) == pytest.approx(-want, abs=1e-6)
    assert ("split at 12.5" if how == "12.5" else "median" if how == "median" else "3 quantile classes") in out.out


def test_split_refusals_name_the_option(capsys, progression):
    for extra, message in ((("--split", "q9"), "q2..q5"), (("--split", "often"), "got 'often'"),
                           (("--split", "median", "--sql"), "--sql and --scheduler")):
        code = main(["select", str(progression), "--target", "y", "--k", "1", *extra])
        assert code != 0 and message in capsys.readouterr().err, extra
    code = main(["select", "mushroom", "--split", "median", "--k", "1"])
    assert code != 0 and "--split apply to a CSV file" in capsys.readouterr().err
