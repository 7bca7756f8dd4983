"""The generated messy tables (fslab.data.messy) read as a person reads them: IDs, row numbers and free text left
out, dates / percentages / units / thousands converted, high-cardinality categories kept, the planted signal there."""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np
import pandas as pd
import pytest

import fslab
from fslab.data import messy, read_csv


def _read(name: str):
    with pytest.warns(UserWarning, match="near-unique") if messy.MESS_DROPPED[name] else nullcontext():
        return read_csv(messy.to_csv_bytes(messy.TABLES[name]()), messy.TARGETS[name])


@pytest.mark.parametrize("name", list(messy.TABLES))
def test_generators_are_deterministic_text_tables(name):
    a, b = messy.TABLES[name](seed=3), messy.TABLES[name](seed=3)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(messy.TABLES[name](seed=4))
    assert set(messy.SIGNAL[name]) | set(messy.MESS[name]) <= set(a.columns)
    assert messy.TARGETS[name] in a.columns


@pytest.mark.parametrize("name", list(messy.TABLES))
def test_ids_left_out_and_text_numbers_converted(name):
    ds = _read(name)
    assert set(ds.left_out) == set(messy.MESS_DROPPED[name])
    assert set(messy.SIGNAL[name]) <= set(ds.feature_names)
    types = {t.column: t.type for t in ds.column_types}
    for column, kind in messy.CONVERTED[name].items():
        assert types[column] == kind, column
        assert pd.api.types.is_float_dtype(ds.features[column]), column
    summary = ds.summary().set_index("column")
    assert (summary.loc[list(ds.left_out), "role"] == "left out").all()


def test_customers_read_as_a_person_reads_them():
    ds = _read("customers")
    said = "\n".join(ds.messages)
    assert "'signup_date' read as dates (2021-01-0" in said and "binned as numbers" in said
    assert "'discount' read as percentages (0 .. 79)" in said
    assert ds.features["discount"].max() == 79.0
    assert "Missing values: 'age' 15 (2.5%)" in said
    assert "customer_id" in said and "--column-type customer_id=category" in said
    assert "outliers: quantile bins" in ds.flags()["tenure"]
    assert any("'tenure' has 1 outlier(s) (9999" in w for w in ds.warnings)
    assert "age" not in ds.flags() or "outliers" not in ds.flags()["age"]   # -1 is impossible, not ours to guess


def test_sensor_log_units_timestamps_and_decimal_commas():
    ds = _read("sensor_log")
    raw = messy.sensor_log()
    np.testing.assert_allclose(ds.features["vibration"], raw["vibration"].str.removesuffix(" mm/s").astype(float))
    np.testing.assert_allclose(ds.features["temperature"], raw["temperature"].str.replace(",", ".").astype(float))
    first = (pd.Timestamp(raw["timestamp"].iloc[0]) - pd.Timestamp("1970-01-01")).total_seconds()
    assert ds.features["timestamp"].iloc[0] == first
    assert "ID-like" not in ds.flags().get("timestamp", "")   # a timestamp is a number, not an ID
    assert "decimal commas read as decimal points" in "\n".join(ds.notes)


def test_loans_keep_high_cardinality_categories():
    ds = _read("loans")
    assert ds.left_out == ()
    assert ds.features["amount"].iloc[0] == float(messy.loans()["amount"].iloc[0].replace(",", ""))
    enc = ds.discretize()
    arity = dict(zip(enc.feature_names, enc.arities.tolist(), strict=True))
    assert arity["zip_prefix"] == 250 and arity["employer"] > 300 and arity["amount"] == 3


@pytest.mark.parametrize("name", list(messy.TABLES))
def test_planted_signal_is_in_the_codes(name):
    """The signal columns beat the prior clearly: balanced error of the first two <= 0.32 (0.5 is the prior)."""
    enc = _read(name).discretize()
    names = list(enc.feature_names)
    signal = [names.index(c) for c in messy.SIGNAL[name][:2]]
    assert -fslab.criterion(enc, signal, fslab.measure("balanced")) <= 0.32


def test_customers_plug_in_selection_no_longer_picks_ids():
    """Issue 22: BayesGreedy (balanced) picked customer_id, row and signup_date; now the signal comes first."""
    enc = _read("customers").discretize()
    picked = fslab.select(enc, 2, selector="bayes-greedy", measure="balanced").names
    assert set(picked) == {"support_calls", "plan"}
