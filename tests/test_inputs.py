"""The inputs people have (issue 27.6): .csv.gz, parquet, polars and pyarrow tables, and the memory check off Linux;
with the CSV path's guarantees (limits named, bombs refused after bounded work, only FslabErrors)."""

from __future__ import annotations

import gzip
import io
import sys
import types

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fslab import limits as limits_module
from fslab.data import (
    BinaryFileError,
    DataLimitError,
    Dataset,
    DuplicateColumnError,
    EmptyFileError,
    Limits,
    MalformedFileError,
    read_csv,
    read_table,
)
from fslab.errors import DataError
from fslab.limits import server_limits

CSV = b"a,b,c,y\n1,x,2.5,0\n2,y,3.5,1\n3,x,,1\n4,z,1.0,0\n"


def parquet_bytes(frame: pd.DataFrame, **kw) -> bytes:
    buf = io.BytesIO()
    frame.to_parquet(buf, **kw)
    return buf.getvalue()


def mixed_frame(m: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    small = pd.array(rng.integers(0, 5, m), dtype="Int16")
    small[::7] = pd.NA
    return pd.DataFrame({"small": small, "real": rng.normal(size=m), "word": rng.choice(["u", "v", "w"], m),
                         "cat": pd.Categorical(rng.choice(["p", "q"], m)), "y": rng.integers(0, 2, m)})


# --- gzip -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("limits", [None, server_limits()])
def test_gzip_csv_reads_as_the_plain_csv(limits, tmp_path):
    plain = read_table(CSV, limits=limits)
    path = tmp_path / "t.csv.gz"
    path.write_bytes(gzip.compress(CSV))
    for source in (gzip.compress(CSV), path, str(path), io.BytesIO(gzip.compress(CSV))):
        frame = read_table(source, limits=limits)
        pd.testing.assert_frame_equal(frame, plain)
        assert "The file was gzip-compressed; it was decompressed." in frame.attrs["fslab_notes"]
    a, b = read_csv(path, "y"), read_csv(CSV, "y")
    assert np.array_equal(a.discretize().X, b.discretize().X)


def test_a_gzip_bomb_is_refused_after_reading_the_limit(monkeypatch):
    """10 MB of text in ~10 KB: decompressed only up to the limit + 1 byte, never whole."""
    bomb = gzip.compress(b"0,1\n" * 2_500_000)
    assert len(bomb) < 50_000
    asked = []
    real = gzip.GzipFile.read

    def read(self, size=-1):
        asked.append(size)
        return real(self, size)

    monkeypatch.setattr(gzip.GzipFile, "read", read)
    with pytest.raises(DataLimitError, match=r"the gzip file decompresses to more than 1 MB; the limit is 1 MB .*"
                                             r"FSLAB_MAX_UPLOAD_MB"):
        read_table(bomb, limits=Limits(max_upload_mb=1))
    assert asked == [1_000_001]


def test_a_damaged_gzip_or_a_nested_archive_is_a_clear_error():
    with pytest.raises(MalformedFileError, match="starts like a gzip archive but does not decompress"):
        read_table(b"\x1f\x8b\x08\x00junk", limits=server_limits())
    with pytest.raises(MalformedFileError, match="starts like a gzip archive"):
        read_table(gzip.compress(CSV)[:-12])      # truncated
    with pytest.raises(BinaryFileError, match="looks like a gzip archive"):
        read_table(gzip.compress(gzip.compress(CSV)), limits=server_limits())   # one level only
    with pytest.raises(BinaryFileError, match="NUL bytes"):
        read_table(gzip.compress(b"a,y\n1\x00,0\n"))   # the text checks run on what it decompresses to


# --- parquet ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("limits", [None, server_limits()])
def test_parquet_reads_as_pandas_reads_it(limits, tmp_path):
    frame = mixed_frame()
    data = parquet_bytes(frame)
    assert data[:4] == b"PAR1"
    got = read_table(data, limits=limits)
    pd.testing.assert_frame_equal(got, pd.read_parquet(io.BytesIO(data)))
    pd.testing.assert_frame_equal(got, frame)
    path = tmp_path / "t.parquet"
    path.write_bytes(data)
    ds = read_csv(path, "y", limits=limits)
    same = Dataset.from_frame(frame, "y")
    assert np.array_equal(ds.discretize().X, same.discretize().X)
    assert ds.discretize().categories == same.discretize().categories
    assert read_table(gzip.compress(data), limits=limits).equals(got)      # a gzipped parquet file too


def test_parquet_index_and_all_numeric_tables():
    frame = pd.DataFrame({"a": [1, 2, 3], "y": [0, 1, 0]}, index=pd.Index([7, 8, 9], name="id"))
    got = read_table(parquet_bytes(frame))
    assert list(got.columns) == ["id", "a", "y"] and got.index.equals(pd.RangeIndex(3))   # a named index: a column
    got = read_table(parquet_bytes(frame.rename_axis(None)))
    assert list(got.columns) == ["a", "y"]      # an unnamed one is dropped, as a CSV has none
    assert got.dtypes.nunique() == 1 and got.dtypes.iloc[0] == np.uint8   # one compact block, as for a CSV


def test_parquet_is_never_put_through_the_text_checks(monkeypatch):
    from fslab.data import csv_io

    monkeypatch.setattr(csv_io, "_decode", lambda *a: pytest.fail("parquet bytes decoded as text"))
    assert read_table(parquet_bytes(mixed_frame()), limits=server_limits()).shape == (60, 5)


def test_parquet_limits_are_the_csv_limits():
    frame = mixed_frame(200)
    data = parquet_bytes(frame)
    with pytest.raises(DataLimitError, match="the data has 200 rows; the limit is 100 rows"):
        read_table(data, limits=Limits(max_rows=100))
    with pytest.raises(DataLimitError, match="the data has 5 columns; the limit is 3 columns"):
        read_table(data, limits=Limits(max_columns=3))
    big = parquet_bytes(pd.DataFrame({"a": np.random.default_rng(1).random(200_000), "y": 0}))
    assert len(big) > 10**6
    with pytest.raises(DataLimitError, match=r"the file has 1\.\d MB .*; the limit is 1 MB"):
        read_table(big, limits=Limits(max_upload_mb=1))
    long = pd.DataFrame({"t": ["x" * 300, "y"] * 5, "y": [0, 1] * 5})
    with pytest.raises(DataLimitError, match=r"column 't', a value, has 300 characters; the limit is 200"):
        read_table(parquet_bytes(long), limits=Limits(max_field_chars=200))
    named = pd.DataFrame({"n" * 300: [1, 2], "y": [0, 1]})
    with pytest.raises(DataLimitError, match="column name 'nnnn"):
        read_table(parquet_bytes(named), limits=Limits(max_field_chars=200))


@pytest.mark.slow  # 0.46 s measured (inner loop: unit and not slow)
def test_a_parquet_bomb_is_refused_before_its_text_is_spread_over_the_rows(monkeypatch):
    """One 50 KB value in 2,000 rows: a 4 KB file, 100 MB once pandas spreads it; dictionary-read and measured."""
    bomb = parquet_bytes(pd.DataFrame({"t": ["x" * 50_000] * 2000, "y": [0, 1] * 1000}))
    assert len(bomb) < 20_000
    monkeypatch.setattr(pd, "read_parquet", lambda *a, **k: pytest.fail("pandas decoded the bomb"))
    pool = pa.default_memory_pool()
    peak = pool.max_memory()       # the pool's peak so far (this test's process); the bomb is 100 MB decoded
    with pytest.raises(DataLimitError, match="the parquet file decompresses to more than 50 MB; the limit is 50 MB"):
        read_table(bomb, limits=server_limits())
    assert pool.max_memory() <= max(peak, 20_000_000)
    wide = parquet_bytes(pd.DataFrame(np.zeros((300_000, 30)), columns=[f"c{j}" for j in range(30)]))
    assert len(wide) < 1_000_000     # 72 MB of zeros once decoded
    with pytest.raises(DataLimitError, match="decompresses to more than 50 MB"):
        read_table(wide, limits=Limits(max_rows=10**6, max_cells=10**8))


def test_bad_parquet_files_are_fslab_errors():
    data = parquet_bytes(mixed_frame())
    for bad in (data[:200], b"PAR1" + b"\x00" * 40, data[:-30] + b"\x00" * 30):
        with pytest.raises(DataError):
            read_table(bad, limits=server_limits())
    nested = pa.table({"l": pa.array([[1, 2], [3]]), "y": [0, 1]})
    buf = io.BytesIO()
    pq.write_table(nested, buf)
    with pytest.raises(MalformedFileError, match=r"column 'l' of the parquet file holds nested values"):
        read_table(buf.getvalue())
    empty = parquet_bytes(pd.DataFrame({"a": pd.Series([], dtype=float), "y": pd.Series([], dtype=int)}))
    with pytest.raises(EmptyFileError, match="holds no data"):
        read_table(empty)
    dup = pa.table([pa.array([1, 2]), pa.array([0, 1])], names=["a", "a"])
    buf = io.BytesIO()
    pq.write_table(dup, buf)
    with pytest.raises(DuplicateColumnError, match="repeated: 'a'"):
        read_table(buf.getvalue())


# --- pyarrow and polars tables ----------------------------------------------------------------------------------


def test_pyarrow_tables_load_as_their_pandas_frame():
    frame = mixed_frame()
    table = pa.Table.from_pandas(frame, preserve_index=False)
    want = Dataset.from_frame(frame, "y").discretize()
    for source in (table, table.to_batches()[0]):
        got = Dataset.from_frame(source, "y").discretize()
        assert np.array_equal(got.X, want.X) and got.categories == want.categories
        assert np.array_equal(got.y, want.y)
    plain = pa.table({"a": pa.array([1, None, 3, 4] * 5, pa.int16()),
                      "b": pa.array(["x", "y", None, "z"] * 5).dictionary_encode(), "y": [0, 1] * 10})
    enc = Dataset.from_frame(plain, "y").discretize()
    assert enc.categories == (("1", "3", "4", "missing"), ("x", "y", "z", "missing"))


def test_polars_frames_convert_with_their_own_to_pandas(monkeypatch):
    """polars is not a dependency (not installed here): a stand-in with polars' module name and to_pandas()."""
    module = types.ModuleType("polars.dataframe.frame")

    class DataFrame:
        def __init__(self, frame):
            self.frame = frame

        def to_pandas(self):
            return self.frame

    class LazyFrame:
        pass

    DataFrame.__module__ = LazyFrame.__module__ = module.__name__
    monkeypatch.setitem(sys.modules, module.__name__, module)
    frame = mixed_frame()
    got = Dataset.from_frame(DataFrame(frame), "y").discretize()
    assert np.array_equal(got.X, Dataset.from_frame(frame, "y").discretize().X)
    with pytest.raises(DataError, match=r"got a polars LazyFrame: call \.collect\(\) on it first"):
        Dataset.from_frame(LazyFrame(), "y")
    with pytest.raises(DataError, match="expected a pandas DataFrame, a polars DataFrame or a pyarrow Table; got dict"):
        Dataset.from_frame({"a": [1]}, "y")


# --- the memory check -------------------------------------------------------------------------------------------


def test_available_memory_uses_psutil_when_it_can(monkeypatch):
    fake = types.SimpleNamespace(virtual_memory=lambda: types.SimpleNamespace(available=123_456_789, free=1))
    monkeypatch.setitem(sys.modules, "psutil", fake)
    assert limits_module.available_memory() == 123_456_789


def test_available_memory_falls_back_to_memavailable_never_free(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "psutil", None)     # import psutil -> ImportError (macOS without it, say)
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal: 16000000 kB\nMemFree:  100 kB\nMemAvailable: 8000000 kB\n")
    real = limits_module._meminfo_available
    monkeypatch.setattr(limits_module, "_meminfo_available", lambda: real(str(meminfo)))
    assert limits_module.available_memory() == 8_000_000 * 1024
    monkeypatch.setattr(limits_module, "_meminfo_available", lambda: real(str(tmp_path / "absent")))
    assert limits_module.available_memory() is None     # unknown: the check is skipped, nothing refused
    limits_module.check_memory(10**15, "anything")


def test_the_real_memory_check_reads_a_plausible_number():
    n = limits_module.available_memory()
    assert n is None or 10**7 < n < 10**14
