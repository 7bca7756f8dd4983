"""fslab.data.column_types: text columns read as a person reads them, overrides, near-unique columns left out."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fslab
from fslab.data import ColumnTypeError, Dataset, read_csv
from fslab.data.column_types import MIN_PARSED, type_column

N = 40


def _frame(**columns) -> pd.DataFrame:
    frame = pd.DataFrame(columns)
    frame["t"] = ["a", "b"] * (len(frame) // 2)
    return frame


def _load(frame, **kw) -> Dataset:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return Dataset.from_frame(frame, "t", **kw)


@pytest.mark.parametrize(("values", "kind", "expected", "said"), [
    (["2021-01-01", "2021-01-03", None, "2023-12-31"], "date", [18628, 18630, np.nan, 19722],
     "'c' read as dates (2021-01-01 .. 2023-12-31), binned as numbers"),
    (["2024-03-01T00:00:10", "2024-03-01 00:01:00"], "date", [1709251210, 1709251260], "read as timestamps"),
    (["31/12/2021", "01/02/2022"], "date", [18992, 19024], "dates"),           # day first: 31 is no month
    (["62%", "5 %", "100%", "-2.5%"], "percent", [62, 5, 100, -2.5], "percentages (-2.5 .. 100)"),
    (["1.86 mm/s", "2 mm/s", "0.5 mm/s"], "number", [1.86, 2, 0.5], "numbers in mm/s"),
    (["$1,234.50", "$12", "$0.99"], "number", [1234.5, 12, 0.99], "numbers in $"),
    (["€ 12", "€ 1.234,5", "€ 3"], "number", [12, 1234.5, 3], "decimal commas"),
    (["6,243", "12", "1,000,000"], "number", [6243, 12, 1e6], "numbers (12 .. 1e+06)"),
    (["59,8", "76.1", "3"], "number", [59.8, 76.1, 3], "decimal commas read as decimal points"),
    (["12kg", "3kg"], "number", [12, 3], "numbers in kg"),
    (["yes", "No", "Y", "n", "TRUE", "false"], "boolean", [1, 0, 1, 0, 1, 0], "yes/no values"),
])
def test_each_inference_on_a_hand_made_column(values, kind, expected, said):
    converted, info = type_column("c", pd.Series(values, dtype=object))
    assert info.type == kind and info.inferred and said in info.message
    np.testing.assert_allclose(converted.to_numpy(), np.array(expected, dtype=float))


@pytest.mark.parametrize("values", [["274xx", "993xx"], ["A1", "B2"], ["12A", "3B"], ["red", "green"],
                                    ["yes", "no", "maybe"], ["3 kg", "4 m"]])
def test_codes_and_words_stay_text(values):
    converted, info = type_column("c", pd.Series(values * 10, dtype=object))
    assert converted is None and info.type == "text"


def test_at_least_95_percent_must_parse_and_the_rest_is_counted():
    good = [f"{i}%" for i in range(96)]
    converted, info = type_column("c", pd.Series(good + ["n/a", "?", "--", "unknown"]))
    assert MIN_PARSED == 0.95 and info.type == "percent" and info.n_unparsed == 4
    assert "4 value(s) that do not read as percentages became missing" in info.message
    assert int(converted.isna().sum()) == 4
    _, info = type_column("c", pd.Series(good[:90] + ["n/a"] * 10))   # 90 %: stays text
    assert info.type == "text"


def test_override_forces_a_type_and_category_keeps_text():
    frame = _frame(d=[f"2022-01-{i % 28 + 1:02d}" for i in range(N)], p=["1%", "2%"] * (N // 2),
                   n=np.arange(N) % 5)
    ds = _load(frame, column_types={"d": "category", "n": "category", "p": "drop"})
    assert ds.feature_names == ("d", "n")
    assert ds.features["d"].iloc[0] == "2022-01-01" and ds.features["n"].iloc[1] == "1"
    assert any("'p' left out, as asked." in n for n in ds.notes)
    ds = _load(frame, column_types={"p": "percent"})
    assert ds.features["p"].tolist()[:2] == [1.0, 2.0]


def test_forced_type_that_does_not_parse_names_column_row_and_value():
    frame = _frame(x=["1.5 kg"] * 6 + ["heavy"] + ["2 kg"] * (N - 7))
    with pytest.raises(ColumnTypeError, match=r"column 'x' was set to number but data row 7 holds 'heavy'"):
        _load(frame, column_types={"x": "number"})
    with pytest.raises(ColumnTypeError, match="unknown column type 'money'"):
        _load(frame, column_types={"x": "money"})
    with pytest.raises(ColumnTypeError, match="'nope', which is not a feature column"):
        _load(frame, column_types={"nope": "number"})
    with pytest.raises(ColumnTypeError, match="the target 't'"):
        _load(frame, column_types={"t": "category"})
    assert isinstance(ColumnTypeError("x"), fslab.DataError)


def test_near_unique_columns_left_out_with_a_user_warning_and_kept_on_request():
    rng = np.random.default_rng(0)
    frame = _frame(customer=[f"C{i:05d}" for i in range(N)], row=np.arange(1, N + 1),
                   reading=100001.0 + np.arange(N), step=np.arange(N) * 0.25,
                   height=rng.normal(170, 10, N),            # real-valued and unique: a measurement, kept
                   city=["x", "y", "z", "w"] * (N // 4), notes=[f"note {i % 30}" for i in range(N)])
    with pytest.warns(UserWarning, match=r"Left out 5 near-unique column\(s\): 'customer'"):
        ds = Dataset.from_frame(frame, "t")
    assert set(ds.left_out) == {"customer", "row", "reading", "step", "notes"}   # notes: 75 % distinct
    assert ds.feature_names == ("height", "city")
    assert "column_types={'customer': 'category'}" in ds.warnings[0]
    kept = _load(frame, column_types={"customer": "category", "row": "number"})
    assert {"customer", "row"} <= set(kept.feature_names) and "customer" not in kept.left_out
    assert _load(frame, near_unique="keep").n_features == 7


def test_only_near_unique_columns_are_kept_rather_than_nothing():
    ds = _load(_frame(a=np.arange(N)))
    assert ds.feature_names == ("a",) and ds.left_out == ()


def test_outlier_stretching_the_mean_std_bins_is_flagged():
    x = np.tile(np.arange(1, 41), 3).astype(float)
    x[5] = 9999
    ds = _load(pd.DataFrame({"tenure": x, "calls": np.arange(120) % 4, "t": ["a", "b"] * 60}))
    assert ds.flags() == {"tenure": "outliers: quantile bins"}   # robust bins (auto) already switched it
    assert any("robust bins (auto) give it 3 quantile bins" in w and "9999" in w for w in ds.warnings)
    assert any("at most 35%" in n for n in ds.discretize("mean-std").notes)   # mean-std keeps the crowded bin: said
    ok = _load(pd.DataFrame({"tenure": np.tile(np.arange(1, 41), 3), "t": ["a", "b"] * 60}))
    assert ok.flags() == {}
    assert fslab.Dataset.from_arrays(x[:, None], np.arange(120) % 2).flags() == {}   # arrays: no extra pass


def test_missing_values_counted_and_level_or_drop():
    age = [float(i % 50 + 20) for i in range(N)]
    age[3] = age[10] = np.nan
    frame = _frame(age=age, plan=["a", None] + ["b", "c"] * (N // 2 - 1))
    ds = _load(frame)
    assert "Missing values: 'age' 2 (5.0%), 'plan' 1 (2.5%)." in " ".join(ds.notes)
    assert ds.n_rows == N and ds.discretize().categories[0][-1] == "missing"
    dropped = _load(frame, missing="drop")
    assert dropped.n_rows == N - 3 and "missing" not in dropped.discretize().categories[0]
    assert any("3 row(s) with a missing feature value were dropped" in n for n in dropped.notes)
    with pytest.raises(fslab.DataError, match="missing must be one of level, drop"):
        _load(frame, missing="zero")


def test_read_csv_takes_the_same_options():
    text = b"id,when,share,t\n" + b"".join(f"{i},2020-01-{i % 28 + 1:02d},{i % 7}%,{'ab'[i % 2]}\n".encode()
                                           for i in range(N))
    with pytest.warns(UserWarning, match="'id'"):
        ds = read_csv(text, "t")
    assert ds.feature_names == ("when", "share") and ds.features["share"].max() == 6.0
    ds = read_csv(text, "t", column_types={"id": "number", "share": "category"})
    assert ds.feature_names == ("id", "when", "share") and ds.features["share"].iloc[1] == "1%"


def test_samples_are_not_retyped_or_dropped():
    """The shipped samples carry the papers' encodings: no column converted, dropped or flagged as outlier."""
    for name in ("mushroom", "waveform", "splice"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)
            ds = fslab.load_sample(name)
        assert ds.left_out == () and ds.n_features == fslab.SAMPLES[name].n_features
        assert all(t.type in ("numeric",) for t in ds.column_types)
        assert not any("read as" in n for n in ds.notes)


@pytest.mark.slow  # 0.40 s measured (inner loop: unit and not slow)
@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False).map(lambda v: round(v, 2)), min_size=3, max_size=30),
       st.sampled_from(["thousands", "percent", "unit", "currency"]))
def test_formatted_numbers_read_back(values, style):
    fmt = {"thousands": "{:,.2f}", "percent": "{:.2f}%", "unit": "{:.2f} units", "currency": "${:,.2f}"}[style]
    text = pd.Series([fmt.format(v) for v in values], dtype=object)
    converted, info = type_column("c", text)
    assert info.type == ("percent" if style == "percent" else "number")
    np.testing.assert_allclose(converted.to_numpy(), values, rtol=0, atol=1e-9)


@pytest.mark.slow  # over 0.25 s of CPU: out of the inner loop
def test_command_line_column_type_and_missing(tmp_path, capsys):
    from fslab.cli.main import main

    frame = _frame(id=[f"C{i:04d}" for i in range(N)], share=[f"{i % 5}%" for i in range(N)],
                   age=[np.nan if i % 10 == 0 else i % 30 for i in range(N)])
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    assert main(["select", str(path), "--target", "t", "--k", "1", "-q"]) == 0
    out = capsys.readouterr().out
    assert "Left out 1 near-unique column(s): 'id'" in out and "'share' read as percentages" in out
    assert main(["select", str(path), "--target", "t", "--k", "1", "-q", "--column-type", "id=category",
                 "--missing", "drop"]) == 0
    out = capsys.readouterr().out
    assert "near-unique" not in out and "4 row(s) with a missing feature value were dropped" in out
    assert main(["select", str(path), "--target", "t", "--column-type", "share=date", "-q"]) == 1
    assert "column 'share' was set to date but data row 1 holds '0%'" in capsys.readouterr().err
    assert main(["select", str(path), "--column-type", "share", "-q"]) == 1
    assert "--column-type needs COL=TYPE" in capsys.readouterr().err
    assert main(["select", "mushroom", "--missing", "drop", "-q"]) == 1
    assert main(["select", str(path), "--missing", "zero", "-q"]) == 2   # argparse choices: a usage error


def test_number_columns_can_be_set_to_dates_or_booleans():
    frame = _frame(d=[20210101 + i % 28 for i in range(N)], b=[0, 1] * (N // 2))
    ds = _load(frame, column_types={"d": "date", "b": "boolean"})
    assert ds.features["d"].iloc[0] == 18628.0 and ds.features["b"].tolist()[:2] == [0.0, 1.0]
    with pytest.raises(ColumnTypeError, match="data row 1 holds '20210101'"):
        _load(frame, column_types={"d": "boolean"})


def test_first_bad_row_is_positional_with_a_repeated_index():
    frame = pd.DataFrame({"x": ["1 kg", None, "2 kg", "heavy"] * 5, "t": ["a", "b"] * 10}, index=[0, 0] * 10)
    with pytest.raises(ColumnTypeError, match="data row 4 holds 'heavy'"):
        _load(frame, column_types={"x": "number"})
