"""Dataset: targets, positive class, flags, summary, class balance and the encoded dataset (hand-checked)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fslab.data import (
    DataLimitError,
    Dataset,
    DuplicateColumnError,
    EmptyFileError,
    InfiniteValueError,
    Limits,
    TargetClassError,
    UnknownTargetError,
    read_csv,
)
from fslab.data.encoded import EncodedDataset
from fslab.errors import DataError, FslabError, TooLargeError
from tests.conftest import ROOT

PATIENTS = ROOT / "tests" / "fixtures" / "patients.csv"


def small() -> pd.DataFrame:
    return pd.DataFrame({"colour": ["r", "g", "r", "b", "g", "r"], "n": [1, 2, 1, 3, 2, 1],
                         "y": ["no", "yes", "no", "yes", "no", "no"]})


def test_binary_target_counts_by_hand():
    """y = no, yes, no, yes, no, no: 'yes' is the positive class (2 of 6 rows).
    colour codes (sorted b, g, r): r=2, g=1, r=2, b=0, g=1, r=2. Table of colour x y:
    b: (0 no, 1 yes), g: (1, 1), r: (3, 0)."""
    enc = Dataset.from_frame(small(), "y").discretize()
    assert isinstance(enc, EncodedDataset)
    assert enc.task == "binary" and enc.class_names == ("no", "yes") and enc.labels.tolist() == [0, 1]
    assert enc.y.tolist() == [0, 1, 0, 1, 0, 0]
    assert enc.X[:, 0].tolist() == [2, 1, 2, 0, 1, 2]
    assert enc.categories[0] == ("b", "g", "r") and enc.categories[1] == ("1", "2", "3")
    assert enc.table([0]).counts.tolist() == [[0, 1], [1, 1], [3, 0]]
    assert enc.feature_names == ("colour", "n") and enc.target == "y"
    assert enc.positive_rate() == pytest.approx(2 / 6)
    assert enc.values is None   # n takes every integer 1..3: its codes are its values - 1, no raw copy (issue 13)


def test_explicit_positive_flips_the_labels():
    d = Dataset.from_frame(small(), "y", positive="no")
    assert d.encoded_target.class_names == ("yes", "no") and d.y.tolist() == [1, 0, 1, 0, 1, 1]
    assert d.positive == "no"


def test_default_positive_is_the_minority_without_a_yes_word():
    """e: 3 rows, p: 1 row -> p (the less frequent class) is positive, as mushroom's 'p' in the paper."""
    d = Dataset.from_frame(pd.DataFrame({"a": [1, 2, 3, 4], "t": ["e", "e", "p", "e"]}), "t")
    assert d.positive == "p" and d.positive_rate() == 0.25
    assert any("less frequent" in m for m in d.messages)


def test_numeric_positive_given_as_text():
    d = Dataset.from_frame(pd.DataFrame({"a": [1, 2, 3, 4], "t": [-1, 1, 1, -1]}), "t", positive="-1")
    assert d.y.tolist() == [1, 0, 0, 1] and d.encoded_target.class_names == ("1", "-1")


def test_multiclass_kept_or_one_vs_rest():
    frame = pd.DataFrame({"a": range(6), "t": ["x", "y", "z", "x", "y", "x"]})
    d = Dataset.from_frame(frame, "t")
    assert d.task == "multiclass" and d.encoded_target.class_names == ("x", "y", "z")
    assert d.y.tolist() == [0, 1, 2, 0, 1, 0]
    ovr = Dataset.from_frame(frame, "t", positive="y")
    assert ovr.task == "binary" and ovr.encoded_target.class_names == ("not y", "y")
    assert ovr.y.tolist() == [0, 1, 0, 0, 1, 0]
    assert ovr.class_balance()["count"].tolist() == [4, 2]


def test_real_target_is_regression():
    rng = np.random.default_rng(0)
    y = rng.normal(size=50)
    d = Dataset.from_arrays(rng.integers(0, 3, (50, 2)), y)
    enc = d.discretize()
    assert enc.task == "regression"
    np.testing.assert_allclose(enc.labels[enc.y], y)     # labels[y] gives back the target values


def test_missing_target_rows_are_dropped_and_counted():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "t": ["u", None, "v", "u"]})
    d = Dataset.from_frame(frame, "t")
    assert d.n_rows == 3 and d.features["a"].tolist() == [1.0, 3.0, 4.0]
    assert "1 row(s) with a missing target were dropped; 3 remain." in d.messages


def test_flags_constant_all_missing_id_like():
    m = 12
    frame = pd.DataFrame({"id": [f"r{i}" for i in range(m)], "const": 7, "empty": [np.nan] * m,
                          "x": [1.5, 2.5] * 6, "t": [0, 1] * 6})
    with pytest.warns(UserWarning, match="'id'"):   # by default the ID, the constant and the empty column go
        left = Dataset.from_frame(frame, "t")
    assert left.left_out == ("id", "const", "empty") and left.feature_names == ("x",)
    assert [c.left_out for c in left.plan.left_out] == ["near-unique", "constant", "all missing"]
    assert any("Left out 1 constant column(s): 'const'" in w for w in left.warnings)
    d = Dataset.from_frame(frame, "t", near_unique="keep", constant="keep")
    assert d.flags() == {"id": "ID-like", "const": "constant", "empty": "all missing"}
    summary = d.summary().set_index("column")
    assert summary.loc["t", "role"] == "target"
    assert summary.loc["empty", "missing"] == m and summary.loc["x", "distinct"] == 2
    assert summary.loc["x", "type"] == "real" and summary.loc["id", "type"] == "text"
    enc = d.discretize()
    assert enc.arities.tolist() == [m, 1, 1, 2]          # flagged columns are kept
    assert any("like an ID" in s for s in enc.notes)


def test_patients_fixture():
    """tests/fixtures/patients.csv: 60 rows, 2 missing outcomes (21 sick, 37 healthy), 3 missing ages."""
    with pytest.warns(UserWarning, match="patient_id"):
        d = read_csv(PATIENTS, "outcome", positive="sick", near_unique="keep", constant="keep")
        assert read_csv(PATIENTS, "outcome", positive="sick").left_out == ("patient_id", "clinic")
    assert d.shape == (58, 6)
    balance = d.class_balance()
    assert balance["class"].tolist() == ["healthy", "sick"] and balance["count"].tolist() == [37, 21]
    assert balance["positive"].tolist() == [False, True]
    assert d.flags() == {"patient_id": "ID-like", "clinic": "constant"}
    enc = d.discretize("quantile", 4)
    age = d.feature_names.index("age")
    assert enc.categories[age][-1] == "missing" and len(enc.categories[age]) == 5


@pytest.mark.parametrize(("frame", "target", "positive", "error", "text"), [
    (pd.DataFrame({"a": [1, 2]}), "b", None, UnknownTargetError, "'b' is not in the data"),
    (pd.DataFrame({"a": [1, 2], "t": [3, 3]}), "t", None, TargetClassError, "only one class"),
    (pd.DataFrame({"a": [1, 2], "t": [3, 4]}), "t", "5", TargetClassError, "'5' does not occur"),
    (pd.DataFrame({"a": [1, 2], "t": [None, None]}), "t", None, TargetClassError, "missing in every row"),
    (pd.DataFrame({"a": [1.0, np.inf], "t": [0, 1]}), "t", None, InfiniteValueError, "column 'a'"),
    (pd.DataFrame({"t": [0, 1]}), "t", None, DataError, "at least one feature"),
    (pd.DataFrame(columns=["a", "t"]), "t", None, EmptyFileError, "empty"),
    (pd.DataFrame([[1, 2, 3]], columns=["a", "a", "t"]), "t", None, DuplicateColumnError, "'a' (columns 1, 2)"),
])
def test_errors(frame, target, positive, error, text):
    with pytest.raises(error, match=None) as info:
        Dataset.from_frame(frame, target, positive=positive)
    assert text in str(info.value)


def test_limits_say_how_to_raise_them():
    frame = pd.DataFrame({"a": range(30), "t": [0, 1] * 15})
    with pytest.raises(DataLimitError, match="limit is 20 rows") as info:
        Dataset.from_frame(frame, "t", limits=Limits(max_rows=20))
    assert isinstance(info.value, TooLargeError) and "Limits(" in str(info.value)
    with pytest.raises(DataLimitError, match="limit is 1 columns"):
        Dataset.from_frame(frame, "t", limits=Limits(max_columns=1))
    assert Dataset.from_frame(frame, "t", limits=Limits(max_rows=30)).n_rows == 30


def test_from_arrays_checks_shapes():
    with pytest.raises(DataError, match="shape"):
        Dataset.from_arrays(np.zeros((3, 2)), np.zeros(4))
    with pytest.raises(DuplicateColumnError):
        Dataset.from_arrays(np.zeros((2, 1)), [0, 1], feature_names=["y"])
    d = Dataset.from_arrays(np.array([[0, 1], [1, 1]]), [0, 1])
    assert d.feature_names == ("X1", "X2") and isinstance(d.messages, tuple)


def test_dataset_errors_are_fslab_errors():
    with pytest.raises(FslabError):
        Dataset.from_frame("not a frame", "t")


def test_to_frame_gives_back_the_table_the_dataset_was_read_from():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": ["x", "y", "x", "y"], "t": ["p", "n", "p", "n"]})
    ds = Dataset.from_frame(frame, "t", positive="p")
    pd.testing.assert_frame_equal(ds.to_frame(), frame)
    again = Dataset.from_frame(ds.to_frame(), "b", positive="x")  # re-targeted like an upload
    assert again.target == "b" and "t" in again.feature_names


def test_raw_values_are_kept_by_reference_and_only_when_codes_lose_them():
    """Issue 13.3: codes are uint8; a binary or 0..a-1 column's codes are its values (no raw copy); a binned
    column keeps the caller's array by reference and values are built (float32 for 16-bit ints) on demand."""
    binary = np.array([[0, 1], [1, 0], [1, 1], [0, 0]], dtype=np.uint8)
    enc = Dataset.from_arrays(binary, np.array([0, 1, 1, 0])).discretize()
    assert enc.X.dtype == np.uint8 and not enc.has_values and enc.values is None
    counts = np.arange(40, dtype=np.int16).reshape(20, 2)
    ds = Dataset.from_arrays(counts, np.arange(20) % 2)
    enc = ds.discretize()
    assert enc.has_values and np.shares_memory(enc._raw, counts) and ds.array is counts  # a read-only view, no copy
    assert counts.flags.writeable  # the caller's array keeps its flag
    assert enc.values.dtype == np.float32 and np.array_equal(enc.values, counts)
    assert enc.subsample(np.array([3, 1])).values.tolist() == counts[[3, 1]].tolist()
