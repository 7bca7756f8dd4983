"""Issue 32.5: a wide table through SQL. 1,200 columns of a small DuckDB table (small integers, reals with missing
values, three-level text, and a few columns of percentages, amounts with a currency sign and ISO dates, which the
plan parses) read by ``from_sql`` give ``Dataset.from_frame``'s plan and codes, in a few dozen queries: every
per-column statistic is one ``GROUP BY`` over the table in long form per batch of columns
(:func:`fslab.data.sql_stats.over_long`), not one query per column. The batches are cut to 400 columns, so the
table makes the batches 3,000 columns make at the default 1,000 (960 number columns in 3 batches, 240 text in 1),
at 2/5 of the cost (13 s of CPU for 3,000 columns). The time of 3,000 columns is measured in bench/README.md
(``bench_sql.py --wide``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fslab
from fslab.data import sql_read, sql_stats
from tests.sql_engines import ROW_ID, load
from tests.test_sql_plan import assert_same_codes, assert_same_plan

ibis = pytest.importorskip("ibis")
pytestmark = [
    pytest.mark.slow,   # 1,200 columns: seconds
    pytest.mark.filterwarnings("ignore:The 'future.infer_string' option is deprecated"),
    pytest.mark.filterwarnings("ignore:fetch_arrow_table\\(\\) is deprecated"),
    pytest.mark.filterwarnings("ignore:Left out"),
]


def wide_frame(n_columns: int, rows: int, seed: int = 0) -> pd.DataFrame:
    """40 % small integers, 40 % reals (10 % missing), the rest three-level text but 20 columns each of "62%",
    "$1,234.50" and ISO dates; a target that depends on the first integer column."""
    rng = np.random.default_rng(seed)
    ints, reals = int(0.4 * n_columns), int(0.4 * n_columns)
    parsed = 20
    columns = {f"i{j}": rng.integers(0, 4, size=rows) for j in range(ints)}
    columns |= {f"r{j}": np.where(rng.random(rows) < 0.1, np.nan, rng.normal(size=rows)) for j in range(reals)}
    columns |= {f"t{j}": rng.choice(["a", "b", "c"], size=rows) for j in range(n_columns - ints - reals - 3 * parsed)}
    columns |= {f"pct{j}": [f"{v}%" for v in rng.integers(0, 100, size=rows)] for j in range(parsed)}
    columns |= {f"amt{j}": [f"${v:,.2f}" for v in rng.lognormal(7.0, 0.8, size=rows)] for j in range(parsed)}
    day = pd.Timestamp("2021-01-01") + pd.to_timedelta(rng.integers(0, 700, size=(parsed, rows)).ravel(), unit="D")
    columns |= {f"day{j}": day[j * rows:(j + 1) * rows].strftime("%Y-%m-%d").tolist() for j in range(parsed)}
    y = np.where(columns["i0"] + rng.integers(0, 2, size=rows) > 2, "yes", "no")
    return pd.DataFrame(columns | {"y": y})


def test_twelve_hundred_columns_read_as_in_memory_in_a_few_queries(monkeypatch):
    monkeypatch.setattr(sql_stats, "LONG_COLUMNS", 400)
    frame = wide_frame(1200, 200)
    enc = fslab.Dataset.from_frame(frame, "y").discretize()
    queries: list[str] = []
    raw = sql_stats.raw_rows

    def counted(t, query, what, fetch=True):
        queries.append(what)
        return raw(t, query, what, fetch)

    monkeypatch.setattr(sql_stats, "raw_rows", counted)
    monkeypatch.setattr(sql_read, "raw_rows", counted)
    src = fslab.from_sql(load(ibis.duckdb.connect(), "wide", frame), "y", row_id=ROW_ID)
    assert src.n_features == enc.n_features == 1200
    kinds = {c.name: (c.type, c.rule, c.unit) for c in src.plan.kept}
    assert kinds["pct0"] == ("percent", "percent", "") and kinds["amt0"] == ("number", "number", "$")
    assert kinds["day0"] == ("date", "date-iso", "days") and kinds["t0"][0] == "text"
    assert_same_plan(src.plan, enc.plan)
    assert_same_codes(src, enc)
    outliers = [n for n in enc.notes if "outlier(s)" in n]   # memory's outlier sentences, word for word
    assert outliers and [n for n in src.notes if "outlier(s)" in n] == outliers
    # statistics of 960 number and 240 text columns, 3 parse rules, codes: a few dozen queries, not a thousand
    assert len(queries) <= 30, sorted(set(queries))
    src.close()
