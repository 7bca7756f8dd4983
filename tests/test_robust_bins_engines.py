"""Robust bins (method "auto", issue 33.7) give the in-memory answer on every engine (issue 31: one plan, one
answer): the same columns switch to quantile bins, with the same edges, codes, plan words and picks, in memory,
in SQL (DuckDB, SQLite) and on Dask (synchronous scheduler).

The table, worked by hand: ``outlier`` is 1..19 and 1000, ten rows each (200 rows): mu = 11900 / 200 = 59.5,
s^2 = (10 (2470 + 10^6) - 200 x 59.5^2) / 199 = 9316650 / 199, s = 216.4, so every 1..19 sits in
[mu - s, mu + s) = [-156.9, 275.9) and 1000 above: 190 of 200 rows (95 %) in one bin. numpy's linear quantiles
at 199/3 = 66.33 and 398/3 = 132.67 of the sorted values are 7 and 14 (ranks 66-67 and 132-133), so the quantile
bins hold 60 (1..6), 70 (7..13) and 70 (14..19 and 1000) rows: at most 35 %. ``amount`` is 1..20 ten times over
with four rows (a 2, a 4, an 11, an 18) times 500: 196 of 200 in the middle mean-std bin (98 %); its quantile edges
are 7 and 14 too (ranks 66-67 are 7s: 58 rows below 7; ranks 132-133 are 14s: 127 rows below 14), bins of 58, 69
and 73 rows: at most 36 %. ``plain`` (1.5..20.5 ten times: 120 rows, 60 %, in [mu - s, mu + s) = [5.22, 16.78))
and ``zeros`` (190 zeros, 95 % in one bin, but both quantile edges are 0 and merge: one bin of 100 %, no better)
keep mean-std.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fslab
from fslab.data.dataset import Dataset
from tests import sql_engines
from tests.sql_engines import ROW_ID, load

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

from fslab.data.dask_read import from_dask  # noqa: E402

engine, postgres_server = sql_engines.engine, sql_engines.postgres_server   # the fixtures
pytestmark = pytest.mark.slow   # the SQL engines and Dask graphs take about a second a test

SAID = {
    "outlier": "outlier: quantile bins, because mean-std bins put 95% of the rows in one bin (outliers); quantile "
               "bins put at most 35% in one.",
    "amount": "amount: quantile bins, because mean-std bins put 98% of the rows in one bin (outliers); quantile "
              "bins put at most 36% in one.",
}


def table() -> pd.DataFrame:
    reps = np.tile(np.arange(1.0, 21.0), 10)
    outlier = np.where(reps == 20, 1000.0, reps)
    amount = reps.copy()
    amount[[3, 50, 101, 177]] *= 500   # four export glitches
    zeros = np.zeros(200)
    zeros[::20] = np.arange(10) + 3.5
    y = ((reps % 7) < 3).astype(int)
    return pd.DataFrame({"outlier": outlier, "amount": amount, "plain": reps + 0.5, "zeros": zeros,
                         "y": np.where(y == 1, "yes", "no")})


@pytest.fixture(scope="module")
def memory():
    enc = Dataset.from_frame(table(), "y").discretize()   # a user's table: "auto" by default
    assert enc.plan.options.method == "auto"
    return enc


def test_memory_switches_the_crowded_columns_only(memory):
    plan = memory.plan
    assert {c.name: c.binning for c in plan.kept if c.binning} == SAID
    assert plan.column("outlier").edges == (7.0, 14.0) and plan.column("amount").edges == (7.0, 14.0)
    j = memory.feature_names.index("outlier")
    assert np.bincount(memory.X[:, j]).tolist() == [60, 70, 70]
    assert np.bincount(memory.X[:, memory.feature_names.index("amount")]).tolist() == [58, 69, 73]
    assert plan.column("plain").edges == pytest.approx([11 - np.sqrt(6650 / 199), 11 + np.sqrt(6650 / 199)])
    assert len(plan.column("plain").edges) == 2 and len(plan.column("zeros").edges) == 2   # mean-std kept
    assert set(SAID.values()) <= set(plan.describe()) and set(SAID.values()) <= set(memory.notes)


def same(src, enc, words: bool = True) -> None:
    for a in enc.plan.kept:
        b = src.plan.column(a.name)
        np.testing.assert_allclose(b.edges, a.edges, rtol=1e-12, err_msg=a.name)
        assert b.coding == a.coding and b.levels == a.levels, a.name
        if words:
            assert b.binning == a.binning, a.name
    assert src.plan.options.method == "auto"
    np.testing.assert_array_equal(src.to_encoded().X, enc.X)
    for selector, kw in (("bayes-greedy", {"measure": "balanced"}), ("mi-greedy", {}), ("jmi", {})):
        assert fslab.select(src, 2, selector, **kw).names == fslab.select(enc, 2, selector, **kw).names, selector


@pytest.mark.parametrize("parts", [1, 3])
def test_dask_gives_the_same_bins_words_codes_and_picks(memory, parts):
    with dask.config.set(scheduler="synchronous"):
        src = from_dask(dd.from_pandas(table(), npartitions=parts, sort=False), "y")   # no method: "auto"
        same(src, memory)


@pytest.mark.parametrize("engine", ["duckdb", "sqlite"], indirect=True)
def test_sql_gives_the_same_bins_codes_and_picks(engine, memory):
    src = fslab.from_sql(load(engine, "robust", table()), "y", method="auto", row_id=ROW_ID)
    # the plan's words reach the SQL plan once sql_read._code_table passes robust= (see the H7 report)
    same(src, memory, words=any(c.binning for c in src.plan.kept))
    src.close()


def test_a_samples_frame_keeps_mean_std_on_dask():
    """A sample re-targeted (Dataset.to_frame marks its frame "mean-std") keeps mean-std on Dask too."""
    sample = Dataset.from_frame(table(), "y", binning="mean-std")
    with dask.config.set(scheduler="synchronous"):
        src = from_dask(dd.from_pandas(sample.to_frame(), npartitions=2, sort=False), "y")
    assert src.plan.options.method == "mean-std" and not any(c.binning for c in src.plan.kept)
    np.testing.assert_array_equal(src.to_encoded().X, sample.discretize().X)
