"""Issue 32.2, the lying page header: fslab.data.parquet_io.declared_page_bytes reads each page header's
uncompressed size (what the decoder allocates) before a page is decoded, so a footer that understates its pages
is refused from the headers. The files are written by hand (tests/upload_bombs.parquet_page_bomb) or by pyarrow,
with sizes worked out by hand."""

from __future__ import annotations

import io
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fslab.data.data_checks import DataLimitError, MalformedFileError
from fslab.data.parquet_io import declared_page_bytes, read_parquet_frame
from fslab.limits import Limits
from tests.upload_bombs import parquet_page_bomb


def _meta(data: bytes):
    return pq.ParquetFile(io.BytesIO(data)).metadata


@pytest.mark.parametrize("codec", ["gzip", "zstd"])
def test_an_honest_hand_written_page_reads_back_and_declares_its_size(codec):
    data = parquet_page_bomb(rows=10, width=1_000, claim=10 * 1_004, codec=codec)
    table = pq.read_table(io.BytesIO(data))                       # pyarrow reads the hand-written file
    assert table.num_rows == 10 and table.column("a")[7].as_py() == bytes(1_000)
    assert declared_page_bytes(data, _meta(data)) == 10 * (4 + 1_000)   # PLAIN: a 4-byte length, then the bytes


def test_pyarrow_pages_declare_the_plain_bytes_of_their_values():
    """A required int64 column of 10,000 rows, PLAIN, uncompressed, in pages of about 4 KB: the pages hold
    8 x 10,000 = 80,000 bytes, however many pages there are; two row groups of 5,000 rows too."""
    schema = pa.schema([pa.field("x", pa.int64(), nullable=False)])
    table = pa.table({"x": np.arange(10_000)}, schema=schema)
    for groups in (10_000, 5_000):
        buf = io.BytesIO()
        pq.write_table(table, buf, compression="none", use_dictionary=False, data_page_size=4_096,
                       row_group_size=groups, write_statistics=False)
        data = buf.getvalue()
        assert declared_page_bytes(data, _meta(data)) == 80_000


def test_the_bomb_is_refused_from_its_headers_before_a_page_is_decoded():
    data = parquet_page_bomb(codec="zstd")    # 63 KB; 2,000,000,400 bytes once decoded
    meta = _meta(data)
    assert meta.row_group(0).column(0).total_uncompressed_size == 1_000 and meta.num_rows == 100
    assert declared_page_bytes(data, meta) == 100 * (4 + 20_000_000)
    start = time.perf_counter()
    with pytest.raises(DataLimitError, match=r"its page headers say 2,000,000,400 bytes or more, its footer 1,000\)"
                                             r"; the limit is 50 MB .*FSLAB_MAX_UPLOAD_MB"):
        read_parquet_frame(data, Limits())
    assert time.perf_counter() - start < 2      # nothing decoded (0.01 s idle)


def test_a_header_cut_short_or_without_sizes_is_a_malformed_file():
    data = parquet_page_bomb(rows=10, width=1_000, claim=10 * 1_004, codec="zstd")
    cut = data[:6] + bytes(len(data) - 6 - 8 - int.from_bytes(data[-8:-4], "little")) + data[-8 - int.from_bytes(
        data[-8:-4], "little"):]                # the page header zeroed after its first two bytes: no sizes
    with pytest.raises(MalformedFileError, match="could not read the parquet file: a page header at byte .* without"):
        read_parquet_frame(cut, Limits())


def test_reading_stops_at_the_step_budget():
    data = parquet_page_bomb(rows=10, width=1_000, claim=10 * 1_004, codec="zstd")
    # the page header is 8 thrift values: 3 sizes and a struct of 4
    assert declared_page_bytes(data, _meta(data), steps=7) is None
    assert declared_page_bytes(data, _meta(data), steps=8) == 10_040


def test_the_hand_written_dictionary_bomb_is_a_file_pyarrow_reads():
    """tests/upload_bombs.parquet_fixed_binary_bomb at 10 rows of 30 bytes: one dictionary value in every row."""
    from tests.upload_bombs import parquet_fixed_binary_bomb

    table = pq.read_table(io.BytesIO(parquet_fixed_binary_bomb(rows=10, width=30)))
    assert str(table.schema.field("a").type) == "fixed_size_binary[30]"
    assert table.column("a").to_pylist() == [b"x" * 30] * 10 and table.column("y").to_pylist() == [0, 1] * 5
