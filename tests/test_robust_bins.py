"""Robust bins for a user's file (issue 33.7): method "auto" bins a numeric column by mean-std unless its outliers
crowd at least 90 % of its rows into one mean-std bin and quantile bins crowd fewer; the plan says why in words.
Worked by hand on x = 1..19 and one outlier 1000 (20 rows)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fslab.data.dataset import Dataset
from fslab.data.discretize import (
    MEMORY_METHODS,
    METHODS,
    ROBUST_SHARE,
    bin_edges,
    check_method,
    encode_frame,
    largest_share,
)
from fslab.data.plan import TablePlan
from fslab.errors import ParameterError
from fslab.recipe import Recipe

OUTLIER = np.r_[np.arange(1.0, 20.0), 1000.0]   # 20 rows


def _frame(**columns) -> pd.DataFrame:
    return pd.DataFrame(columns)


def test_an_outlier_crowding_95_percent_into_one_mean_std_bin_gets_quantile_bins():
    """mu = 1190 / 20 = 59.5; s^2 = (2470 + 10^6 - 20 * 59.5^2) / 19 = 931665 / 19, s = 221.4: the edges
    -161.9 and 280.9 put 1..19 (19 rows, 95 %) in the middle bin and 1000 above. Quantile edges (numpy's linear
    rule at 19/3 and 38/3): 7.333 and 13.667, so 1..7 | 8..13 | 14..19, 1000: 7, 6 and 7 rows, at most 35 %."""
    ms = encode_frame(_frame(x=OUTLIER), "mean-std", 3)
    assert np.bincount(ms.X[:, 0]).tolist() == [0, 19, 1]
    assert ms.edges[0] == pytest.approx([59.5 - np.sqrt(931665 / 19), 59.5 + np.sqrt(931665 / 19)])
    auto = encode_frame(_frame(x=OUTLIER), "auto", 3)
    assert np.bincount(auto.X[:, 0]).tolist() == [7, 6, 7]
    assert auto.edges[0] == pytest.approx([7 + 1 / 3, 13 + 2 / 3])
    assert auto.robust == {0: (0.95, 0.35)}
    assert ("x: quantile bins, because mean-std bins put 95% of the rows in one bin (outliers); quantile bins put "
            "at most 35% in one.") in auto.notes
    assert bin_edges(OUTLIER, "auto", 3) == pytest.approx([7 + 1 / 3, 13 + 2 / 3])   # the Data page's preview rule


def test_ordinary_and_zero_inflated_columns_keep_mean_std():
    """A column of 1..20 (mean-std: 6 | 8 | 6 rows, 40 %) keeps mean-std; so does one of 19 zeros and a 5, where
    mean-std crowds 95 % and quantile bins cannot do better (both edges at 0 merge: one bin [0, inf) of 100 %)."""
    plain, zeros = np.arange(1.0, 21.0), np.r_[np.zeros(19), 5.0]
    frame = _frame(plain=plain, zeros=zeros)
    ms, auto = encode_frame(frame, "mean-std", 3), encode_frame(frame, "auto", 3)
    assert not auto.robust and np.array_equal(auto.X, ms.X)
    assert largest_share(zeros[:, None], np.array([[0.0, np.inf]]), 20) == pytest.approx([1.0])
    assert ROBUST_SHARE == 0.9


def test_the_users_choice_stands_and_auto_is_the_default_for_a_users_table():
    table = Dataset.from_frame(_frame(x=OUTLIER, y=[0, 1] * 10), "y")
    assert np.bincount(table.discretize("mean-std").X[:, 0]).tolist() == [0, 19, 1]   # explicit: kept
    assert np.bincount(table.discretize("auto").X[:, 0]).tolist() == [7, 6, 7]
    assert table.binning == "auto" and np.bincount(table.discretize().X[:, 0]).tolist() == [7, 6, 7]
    assert "auto" in METHODS and MEMORY_METHODS == METHODS   # every engine computes robust bins
    with pytest.raises(ParameterError, match="unknown discretisation method 'robust'"):
        check_method("robust", 3)
    assert check_method("auto", 3) == ("auto", 3)
    assert Recipe("select", {"sample": "adult", "method": "auto"}).data["method"] == "auto"


def test_a_sample_keeps_mean_std_through_to_frame():
    """A frame marked as a sample's (attrs["fslab_binning"] = "mean-std", as to_frame of a sample sets it) keeps
    mean-std when re-targeted; an explicit binning= wins over the mark."""
    sample = Dataset.from_frame(_frame(x=OUTLIER, y=[0, 1] * 10), "y", binning="mean-std")
    again = Dataset.from_frame(sample.to_frame(), "y")
    assert again.binning == "mean-std" and np.bincount(again.discretize().X[:, 0]).tolist() == [0, 19, 1]
    assert Dataset.from_frame(sample.to_frame(), "y", binning="auto").binning == "auto"
    with pytest.raises(ParameterError, match="unknown discretisation method"):
        Dataset.from_frame(_frame(x=OUTLIER, y=[0, 1] * 10), "y", binning="robust")


def test_the_plan_says_why_and_keeps_it_through_a_round_trip():
    table = Dataset.from_frame(_frame(income=OUTLIER, age=np.arange(20.0), y=[0, 1] * 10), "y")
    enc = encode_frame(table.features, "auto", 3, stats=table.stats)
    plan = table.plan.with_coding(enc.kinds, enc.categories, "auto", 3, enc.edges, enc.levels, robust=enc.robust)
    said = ("income: quantile bins, because mean-std bins put 95% of the rows in one bin (outliers); quantile bins "
            "put at most 35% in one.")
    assert said in plan.describe() and plan.column("age").binning == ""
    assert TablePlan.from_dict(plan.to_dict()).column("income").binning == said
