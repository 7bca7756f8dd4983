"""Reading a parquet file within the limits: a DataFrame as ``pd.read_parquet`` gives it, or a DataError.

Parquet is binary, so none of the text checks apply; the guarantees of the CSV path are kept from its metadata
before anything is decoded: rows, columns and cells (``check_size``), column names (unique, not too long),
only the Arrow types fslab can bin (numbers, booleans, text, dates and times, categories; a nested, binary
fixed-size or extension column is refused, a view column read as plain text), and with ``limits`` the decoded size
bounded as a gzip file's is: the column chunks' uncompressed bytes and the fixed-width columns' bytes within the
upload limit. Every BYTE_ARRAY column (text and binary, whatever its Arrow type) is then read dictionary-encoded,
one column at a time, so a value repeated in every row costs one copy and the decoded length and the longest
value are measured before the values are spread over the rows. A footer can understate its pages (a 1.9 MB file
claiming 1,000 bytes holds a gzip page of 2 GB), so the page headers are read too, before any page is decoded
(:func:`declared_page_bytes`): the decoder allocates what they say. What neither tells is caught by the memory limit
of the process reading the file (:mod:`fslab.limited`): a MemoryError is never reported as a broken file. Binary
values must be UTF-8 text. Nothing is executed: pyarrow refuses pickled extension types.
"""

from __future__ import annotations

import io

import pandas as pd

from ..errors import FslabError
from ..limits import MB, over_limit
from .data_checks import (
    DataLimitError,
    EmptyFileError,
    Limits,
    MalformedFileError,
    check_field,
    check_names,
    check_size,
)

MAGIC = b"PAR1"


def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq
    except ImportError:   # pandas reads parquet through pyarrow; it comes with Streamlit
        raise MalformedFileError("reading a parquet file needs pyarrow (pip install pyarrow); or save the table "
                                 "as CSV") from None
    return pa, pc, pq


def is_parquet(data: bytes) -> bool:
    """A parquet file starts AND ends with ``PAR1`` (a CSV whose header starts with PAR1 is a CSV)."""
    return len(data) >= 12 and data.startswith(MAGIC) and data.endswith(MAGIC)


def _malformed(err: Exception) -> MalformedFileError:
    first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return MalformedFileError(f"could not read the parquet file: {first[:200]}. Save it again, or as CSV")


def _text(pa, t) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) \
        or pa.types.is_large_binary(t) or pa.types.is_string_view(t) or pa.types.is_binary_view(t)


def _binnable(pa, t) -> bool:
    """The Arrow types fslab bins: numbers, booleans, text, dates and times, and categories of those."""
    if pa.types.is_dictionary(t):
        return _binnable(pa, t.value_type)
    return (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t) or pa.types.is_null(t)
            or pa.types.is_decimal(t) or pa.types.is_date(t) or pa.types.is_time(t) or pa.types.is_timestamp(t)
            or pa.types.is_duration(t) or _text(pa, t))


def _plain(pa, t):
    """The type a column becomes in the frame: text and binary as text (a view as its plain type), else ``t``."""
    return pa.string() if _text(pa, t) and not pa.types.is_large_string(t) else t


def _check_metadata(pf, pa, limits: Limits | None) -> list[str]:
    """Rows, columns, names and binnable types from the file's metadata; returns the BYTE_ARRAY columns' names
    (by physical type: whatever Arrow type the file claims for them)."""
    meta, schema = pf.metadata, pf.schema_arrow
    check_size(meta.num_rows, len(schema), limits)
    names = check_names(schema.names)
    if names:
        longest = max(names, key=len)
        check_field(f"column name {longest[:40]!r}...", len(longest), limits)
    for f in schema:
        if pa.types.is_nested(f.type) or pa.types.is_union(f.type):
            raise MalformedFileError(f"column {f.name[:40]!r} of the parquet file holds nested values ({f.type}); "
                                     "fslab reads flat tables: flatten it or leave it out")
        if not _binnable(pa, f.type):
            raise MalformedFileError(f"column {f.name[:40]!r} of the parquet file holds values of type {f.type}, "
                                     "which fslab does not read (numbers, booleans, text, dates and times only): "
                                     "convert it or leave it out")
    byte_arrays = {pf.schema.column(i).path for i in range(len(pf.schema)) if pf.schema.column(i).physical_type
                   == "BYTE_ARRAY"}
    return [f.name for f in schema if f.name in byte_arrays]


def _fixed_bytes(t) -> int:
    try:
        return max(t.bit_width, 8) // 8
    except ValueError:   # not a fixed-width type
        return 0


# Thrift compact protocol (the encoding of parquet's page headers): field types
_BOOLS, _BYTE, _INTS, _DOUBLE, _BINARY, _LISTS, _MAP, _STRUCT = (1, 2), 3, (4, 5, 6), 7, 8, (9, 10), 11, 12
_MAX_DEPTH = 16          # nesting of a page header's structs (parquet's own: 3)
MAX_PAGE_STEPS = 200_000  # thrift values read from the page headers of one file; past it the memory limit decides


class _Budget:
    def __init__(self, steps: int) -> None:
        self.steps = steps

    def spend(self) -> None:
        self.steps -= 1
        if self.steps < 0:
            raise _OverBudget


class _OverBudget(Exception):
    pass


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
        if shift > 70:
            raise ValueError("a thrift varint longer than 10 bytes")


def _signed(data: bytes, pos: int) -> tuple[int, int]:
    value, pos = _varint(data, pos)
    return (value >> 1) ^ -(value & 1), pos


def _skip(data: bytes, pos: int, kind: int, budget: _Budget, depth: int = 0) -> int:
    """The position after a thrift compact value of type ``kind`` at ``pos``."""
    budget.spend()
    if kind in _BOOLS:
        return pos
    if kind == _BYTE:
        return pos + 1
    if kind in _INTS:
        return _varint(data, pos)[1]
    if kind == _DOUBLE:
        return pos + 8
    if kind == _BINARY:
        size, pos = _varint(data, pos)
        return pos + size
    if depth >= _MAX_DEPTH:
        raise ValueError("thrift values nested too deeply")
    if kind in _LISTS:
        head = data[pos]
        size, elem, pos = head >> 4, head & 0x0F, pos + 1
        if size == 15:
            size, pos = _varint(data, pos)
        for _ in range(size):
            pos = pos + 1 if elem in _BOOLS else _skip(data, pos, elem, budget, depth + 1)
        return pos
    if kind == _MAP:
        size, pos = _varint(data, pos)
        if size:
            key, value, pos = data[pos] >> 4, data[pos] & 0x0F, pos + 1
            for _ in range(size):
                pos = _skip(data, _skip(data, pos, key, budget, depth + 1), value, budget, depth + 1)
        return pos
    if kind == _STRUCT:
        return _struct(data, pos, budget, depth + 1)[1]
    raise ValueError(f"thrift type {kind} unknown")


def _struct(data: bytes, pos: int, budget: _Budget, depth: int = 0) -> tuple[dict[int, int], int]:
    """The integer fields of a thrift compact struct at ``pos`` ({field id: value}; others skipped) and the
    position after it."""
    fields: dict[int, int] = {}
    last = 0
    while True:
        head = data[pos]
        pos += 1
        if head == 0:
            return fields, pos
        kind, delta = head & 0x0F, head >> 4
        if delta:
            last += delta
        else:
            last, pos = _signed(data, pos)
        if kind in _INTS:
            budget.spend()
            fields[last], pos = _signed(data, pos)
        else:
            pos = _skip(data, pos, kind, budget, depth)


def declared_page_bytes(data: bytes, meta, stop: int | None = None, steps: int = MAX_PAGE_STEPS) -> int | None:
    """The uncompressed bytes the page headers of every column chunk declare (PageHeader field 2,
    ``uncompressed_page_size``: what the decoder allocates for the page), read from the chunk's first page
    (``dictionary_page_offset``, else ``data_page_offset``) over its ``total_compressed_size``, one header after the
    other (field 3, ``compressed_page_size``, says where the next one starts). Stops once the sum passes ``stop``;
    None when the headers take more than ``steps`` thrift values to read (then the reading process's memory limit
    decides). A header that cannot be read, or a negative size, is a ValueError (a malformed file)."""
    budget, total = _Budget(steps), 0
    try:
        for g in range(meta.num_row_groups):
            group = meta.row_group(g)
            for c in range(group.num_columns):
                chunk = group.column(c)
                starts = [o for o in (chunk.dictionary_page_offset, chunk.data_page_offset) if o]
                pos = min(starts) if starts else 0
                end = min(pos + chunk.total_compressed_size, len(data))
                while pos < end:
                    header, pos = _struct(data, pos, budget)
                    size, packed = header.get(2, -1), header.get(3, -1)
                    if size < 0 or packed < 0:
                        raise ValueError(f"a page header at byte {pos:,} without its sizes")
                    total += size
                    if stop is not None and total > stop:
                        return total
                    pos += packed
    except _OverBudget:
        return None
    except IndexError:
        raise ValueError("a page header runs past the end of the file") from None
    return total


def _check_decoded(pf, limits: Limits, text: list[str], data: bytes) -> None:
    """The uncompressed pages (as the footer and the page headers say) and the fixed-width columns within the
    upload limit (before a page is decoded)."""
    cap = limits.max_upload_mb * MB
    meta = pf.metadata
    pages = sum(meta.row_group(g).column(c).total_uncompressed_size
                for g in range(meta.num_row_groups) for c in range(meta.num_columns))
    fixed = sum(_fixed_bytes(f.type) for f in pf.schema_arrow if f.name not in text) * meta.num_rows
    if max(pages, fixed) > cap:
        raise DataLimitError(over_limit("max_upload_mb", f"the parquet file decompresses to more than "
                                                         f"{cap // MB:,} MB", limits))
    headers = declared_page_bytes(data, meta, stop=cap)
    if headers is not None and headers > cap:
        raise DataLimitError(over_limit("max_upload_mb", f"the parquet file decompresses to more than {cap // MB:,} "
                                                         f"MB (its page headers say {headers:,} bytes or more, its "
                                                         f"footer {pages:,})", limits))


def _check_text(table, pa, pc, limits: Limits, text: list[str]) -> None:
    """Decoded length of the dictionary-read text columns and the longest text value of any column (categories
    stored as such included), within the limits."""
    total = 0
    for name, column in zip(table.column_names, table.columns, strict=True):
        if not pa.types.is_dictionary(column.type):
            total += column.nbytes
            continue
        for chunk in column.chunks:
            if not _text(pa, chunk.dictionary.type) or not len(chunk.dictionary):
                total += chunk.nbytes
                continue
            lengths = pc.binary_length(chunk.dictionary)
            check_field(f"column {name[:40]!r}, a value,", int(pc.max(lengths).as_py() or 0), limits)
            # a text column is spread over its rows by pandas; a stored category stays one copy per level
            total += (pc.sum(pc.take(lengths, chunk.indices)).as_py() or 0) + 8 * len(chunk) if name in text \
                else chunk.nbytes
    if total > limits.max_upload_mb * MB:
        raise DataLimitError(over_limit("max_upload_mb", f"the parquet file decompresses to more than "
                                                         f"{limits.max_upload_mb:,} MB", limits))


def _as_stored(table, pa, schema, stored_dictionary: set[str]):
    """The dictionary-read columns back to their plain types (text, categories kept), binary as UTF-8 text."""
    columns, fields = [], []
    for f, column in zip(schema, table.columns, strict=True):
        want = f.type if f.name in stored_dictionary else _plain(pa, f.type)
        if pa.types.is_dictionary(want) and _text(pa, want.value_type):
            want = pa.dictionary(want.index_type, _plain(pa, want.value_type), want.ordered)
        try:
            columns.append(column.cast(want))
        except pa.ArrowInvalid as err:
            if "utf8" not in str(err).lower():
                raise
            raise MalformedFileError(f"column {f.name[:40]!r} of the parquet file holds bytes that are not UTF-8 "
                                     "text; fslab reads text columns as UTF-8: convert it or leave it out") from None
        fields.append(f.with_type(want))
    return pa.table(columns, schema=pa.schema(fields, metadata=schema.metadata))


def read_parquet_frame(data: bytes, limits: Limits | None = None) -> pd.DataFrame:
    """The parquet file ``data`` as ``pd.read_parquet`` reads it (nullable integers, text, categories kept), with a
    default row index; a named index becomes a column. See the module docstring for the checks."""
    pa, pc, pq = _pyarrow()
    try:
        pf = pq.ParquetFile(io.BytesIO(data))
        text = _check_metadata(pf, pa, limits)
        if limits is not None:
            _check_decoded(pf, limits, text, data)
        # one column at a time with limits (parallel threads each decode a column: three bombs, three peaks)
        table = pq.read_table(io.BytesIO(data), read_dictionary=text, use_threads=limits is None)
        if limits is not None:
            _check_text(table, pa, pc, limits, text)
        stored = {f.name for f in pf.schema_arrow if pa.types.is_dictionary(f.type)}
        frame = _as_stored(table, pa, pf.schema_arrow, stored).to_pandas()
    except (FslabError, MemoryError):   # a MemoryError (ArrowMemoryError too) is a limit, not a broken file
        raise
    except (pa.ArrowException, OSError, ValueError, TypeError, KeyError, IndexError) as err:
        raise _malformed(err) from None
    if frame.shape[1] == 0 or frame.shape[0] == 0:
        raise EmptyFileError(f"the parquet file holds no data ({frame.shape[0]} rows x {frame.shape[1]} columns)")
    named = [n for n in frame.index.names if n is not None]
    frame = frame.reset_index(drop=not named)
    frame.columns = list(check_names(frame.columns))
    check_size(len(frame), frame.shape[1], limits)
    return frame
