"""The plan (fslab.data.plan): summaries that add across row partitions, one deterministic decision, the same
reading in memory as described in words, date formats and the day/month rule, constant columns, the portable
parse rules, and typing time linear in the cell length."""

from __future__ import annotations

import json
import re
import time
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fslab.data import messy
from fslab.data import parse_rules as pr
from fslab.data.column_types import ColumnTypeError
from fslab.data.dataset import Dataset
from fslab.data.plan import PlanError, PlanOptions, TablePlan, apply, code, decide, merge, summarize

MARCH_4 = 18690   # 2021-03-04, days since 1970-01-01 (worked with pd.Timestamp)
APRIL_3 = 18720   # 2021-04-03


def _load(frame, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return Dataset.from_frame(frame, "t", **options)


def _frame(n=24, **columns):
    return pd.DataFrame({**columns, "t": ["a", "b"] * (n // 2)})


# ---- the plan of a table, in words and as a record


@pytest.mark.slow  # 0.25-0.3 s CPU each: load, discretize, apply and code a 600-1,500-row table
@pytest.mark.parametrize("name", list(messy.TARGETS))
def test_messy_plan_round_trips_and_codes_as_in_memory(name):
    frame = getattr(messy, name)()
    ds = _load(frame.rename(columns={messy.TARGETS[name]: "t"}))
    enc = ds.discretize("quantile", 4)
    plan = enc.plan
    assert plan is not None and plan.coded and [c.name for c in plan.kept] == list(ds.feature_names)
    record = plan.to_dict()
    assert TablePlan.from_dict(json.loads(json.dumps(record))) == plan   # JSON-able, and the same plan back
    # the recorded coding alone codes the typed rows exactly as the in-memory discretisation did
    typed = apply(plan, frame.drop(columns=[messy.TARGETS[name]]))
    np.testing.assert_array_equal(code(plan, typed), enc.X.astype(np.int64))
    chunk = frame.iloc[100:250].drop(columns=[messy.TARGETS[name]])   # one partition's rows, coded alone
    np.testing.assert_array_equal(code(plan, apply(plan, chunk)), enc.X[100:250].astype(np.int64))
    words = plan.describe()
    assert words[-1] == "Estimate: in-sample (plug-in, as in the papers)."
    assert any("binned into 4 bins of about equal counts" in s for s in words)
    for gone in messy.MESS[name]:
        if gone in (c.name for c in plan.left_out):
            assert repr(gone) in " ".join(words)
    table = plan.to_frame()
    assert table["column"].tolist() == [c for c in frame.columns if c != messy.TARGETS[name]]


@pytest.mark.slow  # summaries of three partitions of each messy table
@pytest.mark.parametrize("name", list(messy.TARGETS))
def test_partitions_merged_reach_the_in_memory_plan(name):
    """What the Dask path does: summarize each partition, merge, let the engine count the distinct values the
    capped summaries cannot (numbers with more than VALUES_CAP values: Dask's nunique, SQL's COUNT(DISTINCT)),
    decide. The plan is the one Dataset.from_frame made."""
    from dataclasses import replace as with_fields

    from fslab.data.column_types import evenly_spaced

    frame, target = getattr(messy, name)(), messy.TARGETS[name]
    ds = _load(frame.rename(columns={target: "t"}))
    frame = frame.rename(columns={target: "t"})
    parts = [summarize(frame.iloc[a:b].reset_index(drop=True), "t") for a, b in ((0, 200), (200, 450), (450, None))]
    merged = merge(merge(parts[0], parts[1]), parts[2])
    exact = []
    for s in merged.columns:
        if not s.distinct_exact:
            x = frame[s.name].dropna()
            spaced = evenly_spaced(x.to_numpy(dtype=float)) if x.nunique() == len(frame) else None
            s = with_fields(s, n_distinct=int(x.nunique()), distinct_exact=True, evenly_spaced=spaced)
        exact.append(s)
    assert decide(with_fields(merged, columns=tuple(exact)), ds.plan.options) == ds.plan


def test_customers_plan_says_what_a_person_sees():
    ds = _load(messy.customers().rename(columns={"churn": "t"}))
    plan = ds.plan
    read = {c.name: (c.type, c.left_out) for c in plan.columns}
    assert read["signup_date"] == ("date", "") and read["discount"] == ("percent", "")
    assert read["customer_id"] == ("text", "near-unique") and read["row"] == ("numeric", "near-unique")
    assert read["notes"] == ("text", "near-unique") and read["support_calls"] == ("numeric", "")
    assert plan.target is not None and plan.target.positive == "yes" and plan.target.classes == ("no", "yes")
    said = " ".join(plan.describe())
    assert "'discount' read as percentages (0 .. 79), binned as numbers." in said
    rules = plan.to_frame().set_index("column")["rule"]
    assert (rules["signup_date"], rules["discount"], rules["tenure"], rules["plan"]) == \
        ("date-iso, days", "percent", "number", "")
    assert "Left out 3 near-unique column(s): 'customer_id' (a different value in every row)" in said


def test_estimate_and_coding_overrides_are_recorded():
    ds = _load(messy.loans().rename(columns={"default": "t"}))
    plan = ds.plan.with_estimate("cross-fitted", folds=4, seed=7)
    assert (plan.options.estimate, plan.options.folds, plan.options.seed) == ("cross-fitted", 4, 7)
    assert plan.describe()[-1] == "Estimate: held-out (4-fold cross-fitted), folds seeded with 7."
    assert TablePlan.from_dict(plan.to_dict()).options == plan.options
    with pytest.raises(Exception, match="folds must be a whole number"):
        plan.with_estimate(folds=1)
    coded = ds.discretize("uniform", 5).plan
    assert (coded.options.method, coded.options.bins) == ("uniform", 5)
    amount = coded.column("amount")
    assert amount.coding == "binned" and len(amount.edges) == 4   # 5 equal-width bins: 4 inner cut points
    lo, hi = ds.features["amount"].min(), ds.features["amount"].max()
    np.testing.assert_allclose(amount.edges, lo + np.arange(1, 5) * (hi - lo) / 5)


def test_from_dict_refuses_what_is_not_a_plan():
    with pytest.raises(Exception, match="not a plan record"):
        TablePlan.from_dict({"columns": [{"nome": "x"}]})


def test_apply_names_a_missing_column_and_code_an_unknown_level():
    frame = _frame(c=["red", "green", "blue"] * 8)
    enc = _load(frame).discretize()
    with pytest.raises(PlanError, match="'c'"):
        apply(enc.plan, pd.DataFrame({"d": [1]}))
    with pytest.raises(PlanError, match="row 1 holds 'purple'"):
        code(enc.plan, pd.DataFrame({"c": ["purple"]}))


# ---- summaries add across partitions; decide() is deterministic

_TEXTS = ["2021-03-04", "04/03/2021", "13/04/2021", "4 March 2021", "Mar 4, 2021", "62%", "5,5%", "$1,234.50",
          "59,8", "1.86 mm/s", "12kg", "6,243", "yes", "no", "Y", "red", "green", "", " a ", "a", "x" * 70]


@st.composite
def _table_and_cuts(draw):
    n = draw(st.integers(2, 40))
    text = draw(st.lists(st.sampled_from(_TEXTS + [None]), min_size=n, max_size=n))
    same = draw(st.sampled_from(["yes", "no", "2021-03-04"]))
    ints = draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n))
    reals = draw(st.lists(st.one_of(st.none(), st.floats(-5, 5, allow_nan=False).map(lambda v: round(v, 1))),
                          min_size=n, max_size=n))
    target = draw(st.lists(st.sampled_from(["p", "q", None]), min_size=n, max_size=n))
    frame = pd.DataFrame({"text": pd.Series(text, dtype=object), "one": [same] * n, "ints": ints,
                          "reals": pd.Series(reals, dtype=float), "t": pd.Series(target, dtype=object)})
    cuts = sorted(draw(st.lists(st.integers(1, n - 1), max_size=3, unique=True)))
    return frame, cuts


def _same_summary(a, b):
    for x, y in zip(a.columns, b.columns, strict=True):
        assert (x.name, x.source, x.n_rows, x.n_missing, x.counts, x.lows, x.highs, x.levels, x.level_counts,
                x.n_distinct, x.distinct_exact, x.integral) == \
            (y.name, y.source, y.n_rows, y.n_missing, y.counts, y.lows, y.highs, y.levels, y.level_counts,
             y.n_distinct, y.distinct_exact, y.integral)
        assert np.allclose([x.lo, x.hi, x.total, x.total_sq], [y.lo, y.hi, y.total, y.total_sq], equal_nan=True)
    assert (a.n_rows_total, a.target_missing) == (b.n_rows_total, b.target_missing)


@pytest.mark.slow  # ~5 s: 25 random tables split at random rows
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_table_and_cuts(), st.booleans())
def test_summaries_of_any_row_split_merge_to_the_whole(table, dayfirst):
    frame, cuts = table
    whole = summarize(frame, "t")
    bounds = [0, *cuts, len(frame)]
    parts = [summarize(frame.iloc[a:b].reset_index(drop=True), "t")
             for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    merged = parts[0]
    for part in parts[1:]:
        merged = merge(merged, part)
    _same_summary(merged, whole)
    if whole.target_missing == len(frame) or len(set(frame["t"].dropna())) < 2:
        return
    options = PlanOptions(dayfirst=dayfirst)
    assert decide(merged, options) == decide(whole, options) == decide(whole, options)


def test_merge_refuses_a_column_typed_differently_in_two_partitions():
    a = summarize(pd.DataFrame({"x": [1, 2]}))
    b = summarize(pd.DataFrame({"x": ["u", "v"]}))
    with pytest.raises(PlanError, match="column 'x' is numeric in one partition and text in another"):
        merge(a, b)


# ---- dates: the common formats, and the day/month rule


@pytest.mark.parametrize("text", ["2021-03-04", "04-Mar-2021", "4 March 2021", "March 04, 2021", "Mar 4, 2021",
                                  "03/04/2021", "03-04-2021", "03.04.2021", "2021/03/04", "4-march-2021",
                                  "Sept 4, 2021"])
def test_each_date_format_reads_the_same_day(text):
    day = MARCH_4 if "Sep" not in text else MARCH_4 + 184   # 2021-09-04
    ds = _load(_frame(d=[text] * 23 + [None], x=list(range(24))), constant="keep")
    assert ds.plan.column("d").type == "date" and ds.features["d"].iloc[0] == day
    assert np.isnan(ds.features["d"].iloc[23])


def _dates(values):
    n = len(values) + len(values) % 2
    return _frame(n=n, d=list(values) + [None] * (n - len(values)))


def test_ambiguous_dates_read_month_first_and_say_so():
    ds = _load(_dates(["03/04/2021", "01/02/2021", "12/11/2021", "05/06/2021"] * 3))
    col = ds.plan.column("d")
    assert (col.type, col.order) == ("date", "mdy") and ds.features["d"].iloc[0] == MARCH_4
    assert "fit both orders (every value <= 12 in both places): read month-first" in col.message
    assert "dayfirst=True reads them day-first" in col.message
    first = _load(_dates(["03/04/2021", "01/02/2021", "12/11/2021", "05/06/2021"] * 3), dayfirst=True)
    col = first.plan.column("d")
    assert (col.order, first.features["d"].iloc[0]) == ("dmy", APRIL_3)
    assert "read day-first, as asked (dayfirst=True)" in col.message
    assert first.plan.options.dayfirst and first.plan.to_dict()["options"]["dayfirst"] is True


def test_a_column_that_only_fits_day_first_is_read_day_first_and_said():
    ds = _load(_dates(["03/04/2021", "13/04/2021", "31/12/2021", "01/02/2021"] * 3))
    col = ds.plan.column("d")
    assert col.order == "dmy" and ds.features["d"].iloc[0] == APRIL_3 and ds.features["d"].iloc[2] == 18992
    assert "only fit day/month" in col.message
    mdy = _load(_dates(["03/04/2021", "04/13/2021", "12/31/2021", "01/02/2021"] * 3), dayfirst=True)
    assert mdy.plan.column("d").order == "mdy" and mdy.features["d"].iloc[0] == MARCH_4
    assert "dayfirst=True was asked, but the values do not fit it" in mdy.plan.column("d").message


def test_invalid_dates_do_not_parse():
    assert np.isnan(pr.read_values(pr.Reading("date-iso"), pd.Series(["2021-02-29", "2021-13-01"]))).all()
    assert pr.read_values(pr.Reading("date-iso"), pd.Series(["2020-02-29"]))[0] == 18321 * 86400
    stamp = pr.read_values(pr.Reading("date-iso"), pd.Series(["2021-03-04T10:30:00+02:00"]))[0]
    assert stamp == MARCH_4 * 86400 + 8.5 * 3600   # 10:30 at UTC+2 is 08:30 UTC


def test_days_from_civil_agrees_with_pandas():
    days = np.arange(-200_000, 200_000, 997)
    when = pd.Timestamp("1970-01-01") + pd.to_timedelta(days, unit="D")
    got = pr.days_from_civil(when.year.to_numpy(np.int64), when.month.to_numpy(np.int64),
                             when.day.to_numpy(np.int64))
    np.testing.assert_array_equal(got, days)


# ---- constant and empty columns; overrides


def test_constant_and_empty_columns_are_left_out_with_a_message():
    frame = _frame(k=["same"] * 23 + [None], e=[None] * 24, x=list(range(12)) * 2, seven=[7] * 24)
    with pytest.warns(UserWarning, match="Left out 2 constant column"):
        ds = Dataset.from_frame(frame, "t")
    assert ds.feature_names == ("x",) and ds.left_out == ("k", "e", "seven")
    assert ds.plan.column("k").why == "one value (same) in every row"
    assert ds.plan.column("seven").why == "one value (7) in every row"
    assert ds.summary().set_index("column").loc["seven", "read as"] == "left out (constant)"
    kept = _load(frame, constant="keep")
    assert kept.feature_names == ("k", "e", "x", "seven")


def test_overrides_column_types_missing_and_near_unique():
    frame = _frame(p=[f"{i}%" for i in range(24)], id=[f"C{i}" for i in range(24)])
    ds = _load(frame, column_types={"p": "category"}, near_unique="keep", missing="drop")
    assert ds.plan.column("p").type == "category" and not ds.plan.column("id").left_out
    assert ds.plan.options.missing == "drop" and ds.plan.options.near_unique == "keep"
    with pytest.raises(ColumnTypeError, match="data row 3 holds 'x'"):
        _load(_frame(p=["1%", "2%", "x"] + ["3%"] * 21), column_types={"p": "percent"})


# ---- the parse rules: one table, portable regexes, bounded work per value


def test_rules_use_the_portable_regex_subset():
    for rule in pr.RULES:
        for banned in ("(?=", "(?!", "(?<", "(?P", "\\1", "+?", "*?", "}?", "??"):
            assert banned not in rule.pattern, (rule.name, banned)
        assert rule.pattern.startswith(("^", "(?i)^")) and rule.pattern.endswith("$")
        re.compile(rule.pattern)


@pytest.mark.slow  # DuckDB's import and one query per rule and value
def test_rules_match_the_same_values_in_duckdb():
    duckdb = pytest.importorskip("duckdb")
    values = [v for v in _TEXTS if v] + ["Sept 4, 2021", "2021-03-04T10:30:00+02:00", "20210304", "1 234 kg"]
    con = duckdb.connect()
    for rule in pr.RULES:
        python = [re.search(rule.pattern, v) is not None for v in values]
        engine = [bool(con.execute("SELECT regexp_matches(?, ?)", [v, rule.pattern]).fetchone()[0])
                  for v in values]
        assert engine == python, rule.name


def test_long_values_are_text():
    long = "1" * 65
    assert np.isnan(pr.read_values(pr.Reading("number"), pd.Series([long, "1" * 64])))[0]
    ds = _load(_frame(n=24, v=[long] * 12 + ["2"] * 12), near_unique="keep")
    assert ds.plan.column("v").type == "text"


@pytest.mark.slow  # ~2 s: 50 cells of 20,000 and of 200,000 characters
def test_typing_time_is_linear_in_the_cell_length():
    """The old thousands-dot pattern scanned to the end of the cell from every dot: cells "1.234.234...,5" of 5,000,
    10,000 and 20,000 characters cost 0.2, 0.6 and 2.1 s CPU (then an InfiniteValueError); now a value over 64
    characters is never parsed (text), so ten times longer cells cost about ten times more."""
    def seconds(length):
        cell = "1" + ".234" * (length // 4) + ",5"
        frame = pd.DataFrame({"c": [cell + str(i) for i in range(50)], "t": ["a", "b"] * 25})
        start = time.process_time()
        _load(frame, near_unique="keep")
        return time.process_time() - start

    seconds(1000)   # warm-up
    short, long = seconds(20_000), seconds(200_000)
    assert long < 2.0 and long / max(short, 0.05) < 20   # (a floor on the short time: a busy machine's noise)


def test_the_plan_page_shows_what_the_library_says(capsys):
    """docs/plan.md's first example prints the sentences its text block shows (wrapped lines joined)."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "plan.md").read_text()
    code_block = re.search(r"```python\n(.*?)```", page, flags=re.S).group(1)
    shown = re.search(r"```text\n(.*?)```", page, flags=re.S).group(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        exec(compile(code_block, "docs/plan.md", "exec"), {})
    printed = capsys.readouterr().out
    assert " ".join(printed.split()) == " ".join(shown.split())


def test_a_sample_re_targeted_keeps_its_constant_columns():
    """A sample's table (Dataset.to_frame) carries its constant-column rule: the Data page and the command line
    re-target samples through from_frame, and mushroom's constant veil-type stays (the paper's encoding)."""
    frame = _frame(k=["same"] * 24, x=list(range(12)) * 2)
    sample = _load(frame, constant="keep")
    again = _load(sample.to_frame())
    assert again.feature_names == ("k", "x") and again.plan.options.constant == "keep"
    user = _load(frame)
    assert user.feature_names == ("x",) and _load(user.to_frame()).feature_names == ("x",)
