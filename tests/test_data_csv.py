"""read_csv / read_table: every bad-input case gets its own FslabError; arbitrary bytes never crash."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fslab.data import (
    BinaryFileError,
    DataLimitError,
    Dataset,
    DuplicateColumnError,
    EmptyFileError,
    InfiniteValueError,
    Limits,
    MalformedFileError,
    NoHeaderError,
    TargetClassError,
    UnknownTargetError,
    read_csv,
    read_table,
)
from fslab.errors import FslabError
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures"


@pytest.mark.parametrize(("data", "error", "text"), [
    (b"", EmptyFileError, "empty"),
    (b" \n\n\t\n", EmptyFileError, "empty"),
    (b"a,b,y\n", EmptyFileError, "no data rows"),
    (b"PK\x03\x04\x14\x00rest", BinaryFileError, "Excel .xlsx"),
    (b"\x89PNG\r\n\x1a\n", BinaryFileError, "PNG"),
    (b"\x80\x04\x95pickle", BinaryFileError, "pickle"),
    (b"a,b\x00c\n1,2\n", BinaryFileError, "NUL"),
    (bytes(range(1, 32)) * 20, BinaryFileError, "control characters"),
    (b"1,2,3\n4,5,6\n", NoHeaderError, "no header row"),
    (b"0.5;1e3\n1;2\n", NoHeaderError, "(0.5, 1e3)"),
    (b"a,b,a\n1,2,3\n", DuplicateColumnError, "'a' (columns 1, 3)"),
    (b"a,b,y\n1,2,0\n3,4,1,5\n", MalformedFileError, "line 3 has 4 fields but the header has 3"),
    (b"a,b,y\n1,2,0\n3,4,1\n", UnknownTargetError, "'target' is not in the data"),
])
def test_bad_files(data, error, text):
    with pytest.raises(error) as info:
        read_csv(data, "target")
    assert text in str(info.value)


def test_short_rows_are_warned_about():
    """Line 4 ("5,6") lacks the target field: pandas reads it as missing, the row is dropped, and both are said."""
    d = read_csv(b"a,b,y\n1,2,0\n3,4,1\n5,6\n", "y")
    assert d.n_rows == 2
    assert any("1 row(s) have fewer fields than the header (the first on line 4)" in w for w in d.warnings)
    assert any("1 row(s) with a missing target were dropped" in n for n in d.notes)


def test_utf16_is_converted():
    d = read_csv("a\tcity\ty\n1\tKöln\t0\n2\tParis\t1\n".encode("utf-16"), "y")
    assert d.features["city"].tolist() == ["Köln", "Paris"] and any("UTF-16" in n for n in d.notes)


def test_malformed_fixture():
    with pytest.raises(MalformedFileError, match="as many fields as the header"):
        read_csv(FIXTURES / "malformed.csv", "outcome")


def test_missing_path_is_a_data_error():
    with pytest.raises(FslabError, match="cannot open"):
        read_csv(FIXTURES / "no-such-file.csv", "y")


def test_semicolon_and_decimal_commas():
    """semicolon.csv: x = 1,5; 2,25; 3,0; 4,75 (decimal commas) -> 1.5, 2.25, 3.0, 4.75."""
    frame = read_table(FIXTURES / "semicolon.csv")
    assert list(frame.columns) == ["x", "y", "label"]
    assert frame["x"].tolist() == [1.5, 2.25, 3.0, 4.75]
    notes = frame.attrs["fslab_notes"]
    assert "Columns are separated by semicolons." in notes and any("Decimal commas" in n for n in notes)
    d = read_csv(FIXTURES / "semicolon.csv", "label", positive="A")
    assert d.task == "binary" and d.y.tolist() == [1, 0, 1, 0]
    assert d.encoded_target.class_names == ("not A", "A")


def test_tab_and_quoted_fields():
    frame = read_table(b"a\tb\ty\n1\tx y\t0\n2\tz\t1\n")
    assert frame.shape == (2, 3) and frame["b"].tolist() == ["x y", "z"]
    quoted = read_table(b'name,"note, with comma",y\n"Smith, J",3,0\nLee,4,1\n')
    assert list(quoted.columns) == ["name", "note, with comma", "y"] and quoted["name"][0] == "Smith, J"


def test_latin1_fallback_and_utf8_bom():
    d = read_csv("a,city,y\n1,Köln,0\n2,Zürich,1\n".encode("latin-1"), "y")
    assert d.features["city"].tolist() == ["Köln", "Zürich"]
    assert any("Latin-1" in m for m in d.messages)
    bom = read_table("\ufeffa,y\n1,0\n2,1\n".encode())
    assert list(bom.columns) == ["a", "y"]


def test_numbers_in_the_header_are_noted():
    """adult.data has no header: its first row (39, State-gov, 77516, ...) would become the names."""
    frame = read_table(b"39,State-gov,77516,<=50K\n50,Private,83311,>50K\n")
    assert any("(39, 77516)" in n for n in frame.attrs["fslab_notes"])


def test_uploaded_buffer_and_unnamed_columns():
    frame = read_table(io.BytesIO(b",a,y\n0,1,0\n1,2,1\n"))
    assert list(frame.columns) == ["column 1", "a", "y"]


def test_infinite_value_names_the_column():
    with pytest.raises(InfiniteValueError, match="column 'b' has 1 infinite value"):
        read_csv(b"a,b,y\n1,-inf,0\n2,3,1\n", "y")


def test_one_class_and_absent_positive():
    with pytest.raises(TargetClassError, match="only one class"):
        read_csv(b"a,y\n1,ok\n2,ok\n", "y")
    with pytest.raises(TargetClassError, match="positive class 'maybe' does not occur"):
        read_csv(b"a,y\n1,ok\n2,bad\n", "y", positive="maybe")


def test_row_and_column_limits():
    data = ("a,y\n" + "1,0\n2,1\n" * 10).encode()
    with pytest.raises(DataLimitError, match="limit is 5 rows"):
        read_table(data, limits=Limits(max_rows=5))
    wide = (",".join(f"c{i}" for i in range(30)) + "\n" + ",".join(["1"] * 30) + "\n").encode()
    with pytest.raises(DataLimitError, match="30 columns; the limit is 10"):
        read_table(wide, limits=Limits(max_columns=10))


CSV_ALPHABET = st.sampled_from(list("ab1.-e,;\t\n\"' xyz0\r") + ["inf", "nan", "NA", "\x00", "é"])


@pytest.mark.slow  # 0.31 s measured (inner loop: unit and not slow)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.binary(max_size=300), st.lists(CSV_ALPHABET, max_size=120).map(lambda s: "".join(s).encode())))
def test_arbitrary_bytes_raise_only_fslab_errors(data):
    for target in ("a", "y"):
        try:
            d = read_csv(data, target)
        except FslabError:
            continue
        enc = d.discretize()
        assert enc.X.shape == (d.n_rows, d.n_features)
        assert enc.y.min() >= 0 and enc.y.max() < len(enc.labels)


CELLS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=True, allow_infinity=True),
                  st.text(max_size=3))


@st.composite
def frames(draw):
    n_cols = draw(st.integers(1, 4))
    n_rows = draw(st.integers(0, 12))
    names = draw(st.lists(st.one_of(st.text(max_size=2), st.integers(0, 3)), min_size=n_cols, max_size=n_cols))
    cols = [draw(st.lists(CELLS, min_size=n_rows, max_size=n_rows)) for _ in range(n_cols)]
    frame = pd.DataFrame(dict(enumerate(cols))) if n_rows else pd.DataFrame(columns=range(n_cols))
    frame.columns = names
    return frame


@pytest.mark.slow  # 0.94 s measured (inner loop: unit and not slow)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames(), st.sampled_from(["mean-std", "quantile", "uniform"]))
def test_arbitrary_frames_raise_only_fslab_errors(frame, method):
    target = frame.columns[-1]
    try:
        d = Dataset.from_frame(frame, target)
        enc = d.discretize(method, 3)
    except FslabError:
        return
    assert enc.X.shape == (d.n_rows, d.n_features) and d.n_rows <= len(frame)
    assert np.all(enc.X < enc.arities) and np.all(enc.X >= 0)
    assert len(set(enc.y.tolist())) >= 2


# --- issue 18: loaders that accept what they should question ------------------------------------------------

def test_rfc4180_quoting_loads_delimiters_quotes_and_line_breaks_inside_fields():
    data = (b'"first\nname",note,y\n"Smith, J","said ""hi""\nthen left",0\nLee,"a,b",1\n'
            b'"Kim",plain,0\n')
    frame = read_table(data)
    assert list(frame.columns) == ["first\nname", "note", "y"]
    assert frame["note"].tolist() == ['said "hi"\nthen left', "a,b", "plain"]
    assert frame["first\nname"].tolist() == ["Smith, J", "Lee", "Kim"] and frame["y"].tolist() == [0, 1, 0]


@pytest.mark.parametrize("data, delim", [(b"a,b,y,\n1,2,0,\n3,4,1,\n", "comma"),
                                         (b"a;b;y;\n1;2;0;\n3;4;1;\n", "semicolon")])
def test_a_delimiter_at_the_end_of_every_line_adds_no_column(data, delim):
    frame = read_table(data)
    assert list(frame.columns) == ["a", "b", "y"] and frame.to_numpy().tolist() == [[1, 2, 0], [3, 4, 1]]
    assert f"The lines end with a {delim}; the empty column after the last name was dropped." in \
        frame.attrs["fslab_notes"]


def test_rows_ending_with_a_delimiter_under_a_plain_header_keep_their_fields():
    """pandas alone would make the first field an index and shift every value one column left."""
    frame = read_table(b"a,b,y\n1,2,0,\n3,4,1,\n")
    assert frame.to_dict("list") == {"a": [1, 3], "b": [2, 4], "y": [0, 1]}
    assert "2 row(s) end with a comma after the last column (line(s) 2, 3); the empty field there was ignored." \
        in frame.attrs["fslab_notes"]


def test_a_row_with_more_fields_than_the_header_is_refused():
    with pytest.raises(MalformedFileError, match=r"line 2 has 4 fields but the header has 3 \(1 such row\(s\)\)"):
        read_table(b"a,b,y\n1,2,0,9\n3,4,1\n")


def test_rows_with_another_delimiter_are_refused_naming_them():
    with pytest.raises(MalformedFileError, match=r"line\(s\) 3, 5 are separated by semicolons but the header uses "
                                                 r"commas; use one separator in the whole file"):
        read_table(b"a,b,y\n1,2,0\n3;4;1\n5,6,1\n7;8;0\n")


@pytest.mark.parametrize("dtype, values", [("boolean", [True, None, False, True, False]),
                                           ("Int64", [1, None, 0, 1, 0])])
def test_nullable_targets_with_missing_values_load_correctly(dtype, values):
    frame = pd.DataFrame({"x": [1.5, 2.5, 3.5, 4.5, 5.5], "t": pd.array(values, dtype=dtype)})
    ds = Dataset.from_frame(frame, "t")
    assert ds.n_rows == 4 and ds.y.tolist() == [1, 0, 1, 0] and ds.positive == "1"
    assert "1 row(s) with a missing target were dropped; 4 remain." in ds.notes
    enc = Dataset.from_frame(frame.rename(columns={"t": "f", "x": "t"}).assign(t=[0, 1, 0, 1, 1]), "t").discretize()
    assert enc.X[:, 0].tolist() == [1, 2, 0, 1, 0] and enc.categories[0] == ("0", "1", "missing")
