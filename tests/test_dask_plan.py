"""from_dask follows the one plan (fslab.data.plan), on Dask's synchronous scheduler (the inner loop): the plan made
from the partitions' merged summaries is Dataset.from_frame's, columns are parsed on the workers (dates in several
formats, "62%", "$1,234.50", decimal commas), IDs and constant columns are left out by the same rule, the coding
is the same; a partition that lacks a column or holds another dtype is an error naming both. The same on a
LocalCluster, with held-out selections: tests/test_dask_plan_cluster.py."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fslab
from fslab.data import messy
from fslab.data.plan import PlanError

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

from fslab.data.dask_read import from_dask  # noqa: E402


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


MONTHS = np.array(["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"])
FULL = np.array(["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                 "November", "December"])


def export(m: int = 900, seed: int = 0) -> pd.DataFrame:
    """An analyst's export: a customer ID, a row number, dates in three formats (ISO, 04-Mar-2021, March 04, 2021),
    a rate ("62%"), an amount ("$1,234.50"), a weight with a decimal comma ("3,5 kg"), a 300-level employer code,
    a constant column, a 3-level plan and missing values; the target depends on rate, amount and plan."""
    rng = np.random.default_rng(seed)
    day = pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 900, m), unit="D")
    rate = rng.integers(5, 95, m)
    amount = rng.gamma(2.0, 600.0, m).round(2)
    plan = rng.choice(["basic", "plus", "pro"], m)
    logit = 0.05 * (rate - 50) + 1.2 * (amount > 1500) + 1.0 * (plan == "pro") - 0.3
    y = np.where(rng.random(m) < 1 / (1 + np.exp(-logit)), "yes", "no")
    frame = pd.DataFrame({
        "customer_id": [f"C-{i:06d}" for i in rng.permutation(m)],
        "row": np.arange(1, m + 1),
        "signup": day.strftime("%Y-%m-%d"),
        "renewal": (day + pd.Timedelta(days=365)).strftime("%d-") + MONTHS[(day.month - 1) % 12] +
        (day + pd.Timedelta(days=365)).strftime("-%Y"),
        "last_call": FULL[day.month - 1] + day.strftime(" %d, %Y"),
        "rate": [f"{r}%" for r in rate],
        "amount": [f"${a:,.2f}" for a in amount],
        "weight": [f"{w:.1f} kg".replace(".", ",") for w in rng.normal(70, 12, m)],
        "employer": [f"E{e:03d}" for e in rng.integers(0, 300, m)],
        "region": "north",
        "plan": plan,
        "churn": y,
    })
    frame.loc[rng.random(m) < 0.05, "rate"] = None
    frame.loc[rng.random(m) < 0.03, "plan"] = None
    return frame


def tables():
    yield "export", export(), "churn"
    for name, make in messy.TABLES.items():
        yield name, make(), messy.TARGETS[name]


def in_memory(df: pd.DataFrame, target: str, **kw):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # the left-out columns' warnings
        return fslab.Dataset.from_frame(df, target).discretize(**kw)


def plan_record(plan, unknown=()) -> list[dict]:
    """The plan's columns without the cut points (mean and std are summed per partition: the last bit may differ);
    the distinct counts of ``unknown`` columns set to -1."""
    return [{k: (-1 if k == "n_distinct" and c["name"] in unknown else v) for k, v in c.items() if k != "edges"}
            for c in plan.to_dict()["columns"]]


@pytest.mark.slow  # 1.4 s measured
@pytest.mark.parametrize("parts", [1, 4])
def test_plan_and_codes_equal_in_memory(parts):
    for name, df, target in tables():
        enc = in_memory(df, target)
        src = from_dask(dd.from_pandas(df, npartitions=parts, sort=False), target)
        # many numbers that cannot all differ (no ID): Dask does not count them (that would ship every value)
        unknown = {c.name for c in src.plan.columns if c.n_distinct == -1}
        assert all(c.type == "numeric" and c.n_distinct > 128 and not c.left_out for c in enc.plan.columns
                   if c.name in unknown)
        assert plan_record(src.plan) == plan_record(enc.plan, unknown), name
        for a, b in zip(src.plan.columns, enc.plan.columns, strict=True):
            np.testing.assert_allclose(a.edges, b.edges, rtol=1e-12)
        assert src.plan.target == enc.plan.target and src.plan.options == enc.plan.options
        assert src.feature_names == enc.feature_names and src.categories == enc.categories
        np.testing.assert_array_equal(src.to_encoded().X, enc.X)
        np.testing.assert_array_equal(src.to_encoded().y, enc.y)
        assert src.class_names == enc.class_names and src.task == enc.task


@pytest.mark.slow  # 0.6 s
def test_the_export_is_read_as_a_person_reads_it():
    """Worked by hand: the ID, the row number and the constant region are left out; the three date formats, the
    percentage, the currency and the decimal-comma weight are numbers; the employer code stays a category."""
    src = from_dask(dd.from_pandas(export(), npartitions=3, sort=False), "churn")
    plan = src.plan
    read = {c.name: (c.type, c.left_out) for c in plan.columns}
    assert read == {"customer_id": ("text", "near-unique"), "row": ("numeric", "near-unique"),
                    "signup": ("date", ""), "renewal": ("date", ""), "last_call": ("date", ""),
                    "rate": ("percent", ""), "amount": ("number", ""), "weight": ("number", ""),
                    "employer": ("text", ""), "region": ("text", "constant"), "plan": ("text", "")}
    assert plan.column("weight").mark == "," and plan.column("amount").unit == "$"
    assert src.feature_names == ("signup", "renewal", "last_call", "rate", "amount", "weight", "employer", "plan")
    assert src.arities[list(src.feature_names).index("rate")] == 4   # 3 mean-std bins and "missing"
    assert src.class_names == ("no", "yes") and any("near-unique" in n for n in src.notes)


@pytest.mark.slow  # 0.4 s
def test_dayfirst_and_column_types_reach_the_plan():
    df = pd.DataFrame({"when": ["03/04/2021", "05/06/2021", "07/08/2021", "01/02/2021"] * 25,
                       "code": ["1", "2", "3", "4"] * 25, "y": [0, 1] * 50})
    month = from_dask(dd.from_pandas(df, npartitions=2, sort=False), "y")
    day = from_dask(dd.from_pandas(df, npartitions=2, sort=False), "y", dayfirst=True,
                    column_types={"code": "category"})
    assert month.plan.column("when").order == "mdy" and day.plan.column("when").order == "dmy"
    assert month.plan.column("code").type == "number" and day.plan.column("code").type == "category"
    assert day.plan.column("code").levels == ("1", "2", "3", "4")


def test_a_partition_without_a_column_or_with_another_dtype_is_named():
    good = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": ["x", "y", "x"], "y": [0, 1, 0]})
    lacks = good.drop(columns="b")
    texty = good.assign(a=["p", "q", "r"])
    for bad, says in [(lacks, "column 'b' is missing from partition 1"),
                      (texty, "column 'a' holds text .* in partition 1 but numbers in the data's schema")]:
        frame = dd.from_delayed([dask.delayed(lambda f: f)(good), dask.delayed(lambda f: f)(bad)], meta=good.iloc[:0],
                                verify_meta=False)
        with pytest.raises(PlanError, match=says):
            from_dask(frame, "y")


@pytest.mark.slow  # 0.4 s
def test_an_empty_partition_changes_nothing():
    """A partition with no rows (a filter's leftover): the same plan, codes and held-out picks as in memory."""
    df = export(m=120, seed=3)
    parts = [df.iloc[:50], df.iloc[:0], df.iloc[50:]]
    frame = dd.from_delayed([dask.delayed(lambda f: f)(p) for p in parts], meta=df.iloc[:0])
    src = from_dask(frame, "churn")
    enc = in_memory(df, "churn")
    assert src.feature_names == enc.feature_names
    np.testing.assert_array_equal(src.to_encoded().X, enc.X)
    got = fslab.select(src, 2, measure="balanced", estimate="cross-fitted")
    assert got.features == fslab.select(enc, 2, measure="balanced", estimate="cross-fitted").features


@pytest.mark.slow  # 0.5 s
def test_a_sample_frame_keeps_its_constant_columns_as_in_memory():
    """Dataset.to_frame marks a sample's frame attrs['fslab_constant'] = 'keep' (a sample keeps its constant
    columns); dask carries the attrs to its partitions and from_dask reads them, as Dataset.from_frame does."""
    df = export(m=200, seed=5)
    df.attrs = {"fslab_constant": "keep"}
    src = from_dask(dd.from_pandas(df, npartitions=2, sort=False), "churn")
    assert "region" in src.feature_names and src.feature_names == in_memory(df, "churn").feature_names
    df.attrs = {}
    assert "region" not in from_dask(dd.from_pandas(df, npartitions=2, sort=False), "churn").feature_names
