"""A numeric target split into classes (issue 33.4): at the median (ties go below), at a threshold, or into quantile
classes, in the library (fslab.data.target.split_target, Dataset.from_frame(target_split=...)); numbers by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fslab.data import Dataset
from fslab.data.discretize import value_name
from fslab.data.target import parse_split, split_target, split_text
from fslab.errors import FslabError, ParameterError

# 10 values, median (5 + 6)/2 = 5.5 ... and one with ties at the median
Y = pd.Series([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], name="y")
TIES = pd.Series([1, 2, 3, 3, 3, 4, 9], name="y")   # median 3: the three 3s go below (<= 3): 5 below, 2 above


def test_median_split_by_hand():
    cut = split_target(Y, "y")
    assert cut.cuts == (5.5,) and cut.positive == "y > 5.5"
    assert cut.labels.tolist() == ["y <= 5.5"] * 5 + ["y > 5.5"] * 5
    assert "5.5 (the median)" in cut.note and "5 rows, 50.0%" in cut.note


def test_ties_at_the_median_go_below():
    cut = split_target(TIES, "y")
    assert cut.cuts == (3.0,)
    assert (cut.labels == "y > 3").sum() == 2 and (cut.labels == "y <= 3").sum() == 5


def test_threshold_and_its_range():
    cut = split_target(Y, "y", 8)
    assert cut.positive == "y > 8" and (cut.labels == "y > 8").sum() == 2 and "5.5" not in cut.note
    with pytest.raises(FslabError, match="from 1 up to, but not including, 10"):
        split_target(Y, "y", 10)    # nothing above the largest value
    with pytest.raises(FslabError, match="one class"):
        split_target(Y, "y", 0.5)


def test_quantile_classes_by_hand():
    # numpy's linear quantiles of 1..10 at 1/4, 2/4, 3/4: 3.25, 5.5, 7.75
    cut = split_target(Y, "y", ("quantiles", 4))
    assert cut.cuts == (3.25, 5.5, 7.75) and cut.positive is None
    assert pd.Series(cut.labels).value_counts().sort_index().tolist() == [3, 2, 2, 3]
    assert cut.labels[0] == "q1 (y <= 3.25)" and cut.labels[9] == "q4 (y > 7.75)"
    # ties: the 1/3 and 2/3 quantiles of TIES are 3 and 3: merged into one cut point, 2 classes, 3s below
    tied = split_target(TIES, "y", ("quantiles", 3))
    assert tied.cuts == (3.0,) and sorted(set(tied.labels)) == ["q1 (y <= 3)", "q2 (y > 3)"]
    assert "merged" in tied.note


@pytest.mark.parametrize("how", ["mean", 0, ("quantiles", 1), ("quantiles", 6), float("nan"), True, ("bins", 3)])
def test_bad_split_is_a_parameter_error(how):
    if how == 0:   # a number below every value: a class error, not a parameter error
        with pytest.raises(FslabError, match="one class"):
            split_target(Y, "y", how)
        return
    with pytest.raises(ParameterError, match="target_split must be"):
        split_target(Y, "y", how)


def test_text_target_cannot_be_split():
    with pytest.raises(FslabError, match="not numeric"):
        split_target(pd.Series(["a", "b", "a"]), "y")


def test_dataset_option_binary_and_quantiles():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 3, 200)
    frame = pd.DataFrame({"x": x, "noise": rng.integers(0, 2, 200), "y": x * 10.0 + rng.normal(size=200)})
    assert Dataset.from_frame(frame, "y").task == "regression"
    ds = Dataset.from_frame(frame, "y", target_split="median")
    median = float(np.median(frame["y"]))
    assert ds.task == "binary" and ds.positive == f"y > {value_name(median)}"
    assert ds.y.sum() == int((frame["y"] > median).sum()) == 100
    assert any("(the median)" in n for n in ds.notes)
    three = Dataset.from_frame(frame, "y", target_split=("quantiles", 3))
    assert three.task == "multiclass" and len(three.encoded_target.class_names) == 3
    assert np.bincount(three.y).tolist() == [67, 66, 67]   # 200 rows: ranks 1-67, 68-133, 134-200 (no ties)


def test_parse_split_as_a_command_line_writes_it():
    assert parse_split("median") == "median" and parse_split(" 12.5 ") == 12.5 and parse_split("q3") == ("quantiles", 3)
    for how in ("median", 12.5, -3.0, ("quantiles", 4)):
        assert parse_split(split_text(how)) == how
    assert split_text(("quantiles", 4)) == "q4" and split_text(12.5) == "12.5"
    for bad in ("q9", "half", "inf", ""):
        with pytest.raises(ParameterError):
            parse_split(bad)
