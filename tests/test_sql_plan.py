"""from_sql reads a table by the same plan as memory (issue 31.1 on SQL), on DuckDB, SQLite and PostgreSQL.

On every table of fslab.data.messy and on exports built here (IDs, names, dates in five formats, ambiguous and
day-first dates, "62%", "$1,234.50", decimal commas "59,8", units, timestamps with a UTC offset, yes/no, a 51-level
code, a constant and an empty column, a planted signal), read as pandas reads the CSV and stored in each engine:
``from_sql(...).plan`` equals ``Dataset.from_frame(...).discretize().plan`` (types, parse readings, left out and
why, messages, coding; mean-std cut points to 1e-12, the engine's sums), the codes equal the in-memory codes row for
row (rows in ``row_id`` order), and BayesGreedy (balanced error), MIGreedy and JMI pick the same features.
"""

from __future__ import annotations

import functools
import io

import numpy as np
import pandas as pd
import pytest

import fslab
from fslab.data import messy
from tests import sql_engines
from tests.sql_engines import ENGINES, ROW_ID, load

engine, postgres_server = sql_engines.engine, sql_engines.postgres_server   # the engines' fixtures

ibis = pytest.importorskip("ibis")
pytestmark = [
    pytest.mark.slow,   # every test builds engine tables and runs a few dozen queries: seconds each
    pytest.mark.filterwarnings("ignore:The 'future.infer_string' option is deprecated"),
    pytest.mark.filterwarnings("ignore:fetch_arrow_table\\(\\) is deprecated"),
    pytest.mark.filterwarnings("ignore:Left out"),
]
SELECTIONS = [("bayes-greedy", {"measure": "balanced"}), ("mi-greedy", {}), ("jmi", {})]
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def exports(n: int = 800, seed: int = 0) -> pd.DataFrame:
    """An export with every kind of mess: churn depends on rate, amount and score only."""
    rng = np.random.default_rng(seed)
    rate = rng.integers(0, 100, size=n)
    amount = np.round(rng.lognormal(7.0, 0.8, size=n), 2)
    score = np.round(rng.normal(60.0, 8.0, size=n), 1)
    logit = 0.04 * (rate - 50) + 0.9 * (np.log(amount) - 7.0) + 0.08 * (score - 60.0)
    churn = rng.random(n) < 1 / (1 + np.exp(-logit))
    day = pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 900, size=n), unit="D")
    small = pd.Timestamp("2021-01-01") + pd.to_timedelta(rng.integers(0, 340, size=n), unit="D")
    seconds = pd.Timestamp("2022-05-01") + pd.to_timedelta(rng.integers(0, 86400 * 60, size=n), unit="s")
    states = np.array([f"S{i:02d}" for i in range(51)])
    score_text = np.array([f"{s:.1f}".replace(".", ",") for s in score], dtype=object)
    frame = pd.DataFrame({
        "customer": [f"Customer {i}" for i in rng.permutation(n)],
        "account_no": rng.permutation(np.arange(10_000, 10_000 + n)),
        "signed": [f"{d.day:02d}-{MONTHS[d.month - 1][:3]}-{d.year}" for d in day],
        "renewal": [f"{MONTHS[d.month - 1]} {d.day:02d}, {d.year}" for d in day],
        "visit": [f"{d.month:02d}/{min(d.day, 12):02d}/{d.year}" for d in small],
        "shipped": [f"{d.day:02d}/{d.month:02d}/{d.year}" for d in day],
        "stamp": [f"{s.isoformat()}{rng.choice(['+01:00', '-05:30', 'Z'])}" for s in seconds],
        "rate": [f"{r}%" for r in rate],
        "amount": [f"${a:,.2f}" for a in amount],
        "score": score_text,
        "weight": [f"{w:.1f} kg" for w in rng.normal(70, 12, size=n)],
        "state": states[rng.integers(0, 51, size=n)],
        "member": rng.choice(["yes", "no", "Yes"], size=n),
        "constant": "x",
        "empty": np.nan,
        "churned": np.where(churn, "yes", "no"),
    })
    frame.loc[rng.choice(n, size=20, replace=False), "amount"] = np.nan
    return frame


TABLES = {name: (make, messy.TARGETS[name]) for name, make in messy.TABLES.items()} | {"exports": (exports, "churned")}


def as_read(frame: pd.DataFrame) -> pd.DataFrame:
    """The table as pandas reads its CSV export (what both paths start from)."""
    return pd.read_csv(io.BytesIO(messy.to_csv_bytes(frame)))


def assert_same_plan(got, want) -> None:
    assert got.coded and want.coded and got.n_rows == want.n_rows and got.target == want.target
    assert got.options == want.options
    assert [c.name for c in got.columns] == [c.name for c in want.columns]
    for a, b in zip(got.columns, want.columns, strict=True):
        np.testing.assert_allclose(a.edges, b.edges, rtol=1e-12, err_msg=a.name)
        same = {f: getattr(a, f) for f in a.__dataclass_fields__ if f not in ("example", "edges")}
        assert same == {f: getattr(b, f) for f in same}, a.name


def assert_same_codes(src, enc) -> None:
    got = src.to_encoded(src.codes.order_by(ROW_ID))
    np.testing.assert_array_equal(got.X, enc.X)
    np.testing.assert_array_equal(got.y, enc.y)
    assert src.categories == enc.categories and src.feature_names == enc.feature_names
    assert src.class_names == enc.class_names and src.task == enc.task
    np.testing.assert_array_equal(src.labels, enc.labels)


@functools.cache
def frame_of(name: str) -> pd.DataFrame:
    """The table ``name`` as read from its CSV, made once per process (a function, not a module-scoped fixture:
    tests/conftest.py would then keep the whole file on one pytest-xdist worker, and its PostgreSQL cases apart from
    the other files' on that server's worker). Tests only read it; ``load`` stores a copy."""
    make, _ = TABLES[name]
    return as_read(make())


# Every table on DuckDB; on SQLite and PostgreSQL the export (every parse rule, reading order, mark and unit, the
# constant and empty columns) and the customers table (what the export lacks: number columns kept as numbers, their
# numbering threshold and mean-std cut points from the engine's sums, an ISO date in days, a near-unique number).
# sensor_log and loans add no rule, type or left-out reason to those two on the other engines.
OTHER_ENGINES_TABLES = ("customers", "exports")
CASES = [pytest.param(name, "duckdb") for name in TABLES] + [pytest.param(name, "sqlite") for name in
                                                              OTHER_ENGINES_TABLES] + [
    pytest.param(name, "postgres", marks=pytest.mark.slow) for name in OTHER_ENGINES_TABLES]


@pytest.mark.parametrize(("name", "engine"), CASES, indirect=["engine"])
def test_same_plan_codes_and_picks_as_in_memory(engine, name):
    frame, target = frame_of(name), TABLES[name][1]
    enc = fslab.Dataset.from_frame(frame, target).discretize()
    src = fslab.from_sql(load(engine, name, frame), target, row_id=ROW_ID)
    assert_same_plan(src.plan, enc.plan)
    assert_same_codes(src, enc)
    for selector, kw in SELECTIONS:
        assert fslab.select(src, 3, selector, **kw).names == fslab.select(enc, 3, selector, **kw).names, selector
    src.close()


def test_the_exports_plan_reads_what_a_person_reads():
    """What the plan of the export says, worked by hand: the readings, the left-out columns and the picks."""
    con = ibis.duckdb.connect()
    src = fslab.from_sql(load(con, "exports", frame_of("exports")), "churned", row_id=ROW_ID)
    plan = src.plan
    read = {c.name: (c.type, c.rule, c.order, c.mark, c.unit) for c in plan.kept}
    assert read == {
        "signed": ("date", "date-dmy-name", "", ".", "days"), "renewal": ("date", "date-mdy-name", "", ".", "days"),
        "visit": ("date", "date-slash", "mdy", ".", "days"), "shipped": ("date", "date-slash", "dmy", ".", "days"),
        "stamp": ("date", "date-iso", "", ".", "seconds"), "rate": ("percent", "percent", "", ".", ""),
        "amount": ("number", "number", "", ".", "$"), "score": ("number", "number", "", ",", ""),
        "weight": ("number", "number", "", ".", "kg"), "state": ("text", "", "", ".", ""),
        "member": ("boolean", "boolean", "", ".", "")}
    assert {c.name: c.left_out for c in plan.left_out} == {"customer": "near-unique", "account_no": "near-unique",
                                                           "constant": "constant", "empty": "all missing"}
    said = " ".join(plan.describe())
    assert "read month-first (03/04 is March 4)" in said and "Read day-first" in said
    assert src.arities[src.feature_names.index("member")] == 2   # yes, no, Yes: two values, 1 and 0
    held_out = fslab.select(src, 2, "bayes-greedy", measure="balanced", estimate="cross-fitted").names
    assert set(held_out) <= {"rate", "amount", "score"}, held_out   # the planted signal, held out
    assert "state" in fslab.select(src, 3, "bayes-greedy", measure="balanced").names   # in-sample: 51 levels win


@pytest.mark.parametrize("engine", ENGINES, indirect=True)
def test_overrides_as_in_memory(engine):
    """dayfirst, column types (a number kept as category, a text dropped, a date set), missing='drop' and quantile
    bins give the in-memory plan and codes on every engine."""
    frame = frame_of("exports")
    options = {"dayfirst": True, "missing": "drop", "column_types": {"account_no": "category", "state": "drop",
                                                                     "visit": "date", "customer": "category"}}
    enc = fslab.Dataset.from_frame(frame, "churned", **options).discretize("quantile", 4)
    src = fslab.from_sql(load(engine, "exports", frame), "churned", row_id=ROW_ID, method="quantile", bins=4,
                         **options)
    assert src.plan.column("visit").order == "dmy" and src.plan.column("state").left_out == "asked"
    assert src.n_rows == enc.n_rows == len(frame) - 20   # the rows with a missing amount are dropped
    assert_same_plan(src.plan, enc.plan)
    assert_same_codes(src, enc)


@pytest.mark.parametrize("engine", ENGINES, indirect=True)
def test_a_plan_that_cannot_be_applied_names_the_column(engine):
    table = load(engine, "exports", frame_of("exports"))
    with pytest.raises(fslab.data.column_types.ColumnTypeError, match=r"column 'state' was set to date .*'S\d\d'"):
        # two columns, not the export's 15: the check reads the forced column (PostgreSQL: 5-11 s -> ~1 s)
        fslab.from_sql(table, "churned", column_types={"state": "date"}, feature_names=["rate", "state"])
    with pytest.raises(fslab.data.column_types.ColumnTypeError, match="'nope'"):
        fslab.from_sql(table, "churned", column_types={"nope": "number"})
    with pytest.raises(fslab.DataError, match=r"\['nope'\] are not in the table"):
        fslab.from_sql(table, "churned", feature_names=["rate", "nope"])


@pytest.mark.parametrize("engine", ["duckdb", "sqlite"], indirect=True)
def test_a_wide_table_counted_in_batches(engine, monkeypatch):
    """Issue 32.5: statistics in batches of columns. 260 columns (small integers, reals with NaN, text) with the
    batches made small (25 columns a long-form query: 8 batches of the 200 number columns, 3 of the 60 text ones)
    so every statistic crosses batch boundaries: the codes still equal memory's row for row. (7 columns a query
    made 29 and 9 batches for the same crossings: 3.1-3.6 s of CPU against 2.2 s on DuckDB.)"""
    from fslab.data import sql_stats

    monkeypatch.setattr(sql_stats, "LONG_COLUMNS", 25)
    rng = np.random.default_rng(3)
    m = 120
    columns = {f"i{j}": rng.integers(0, 4, size=m) for j in range(100)}
    columns |= {f"r{j}": np.where(rng.random(m) < 0.1, np.nan, rng.normal(size=m)) for j in range(100)}
    columns |= {f"t{j}": rng.choice(["a", "b", "c"], size=m) for j in range(60)}
    frame = pd.DataFrame(columns | {"y": rng.choice(["no", "yes"], size=m)})
    for method in ("mean-std", "quantile"):
        enc = fslab.Dataset.from_frame(frame, "y").discretize(method, 3)
        src = fslab.from_sql(load(engine, f"wide_{method[0]}", frame), "y", row_id=ROW_ID, method=method)
        assert src.n_features == 260
        assert_same_plan(src.plan, enc.plan)
        assert_same_codes(src, enc)
