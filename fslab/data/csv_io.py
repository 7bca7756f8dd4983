"""Reading delimited text safely: bytes in, a DataFrame out, or a DataError saying what is wrong.

Nothing is executed or unpickled: the bytes are decoded (UTF-8, else Latin-1), checked to be text,
the delimiter is chosen among comma, semicolon and tab by how consistently it splits the first lines,
and pandas parses the text with its C parser. Notes (decoding, delimiter, decimal commas) travel
in ``frame.attrs["fslab_notes"]`` so :meth:`fslab.data.Dataset.from_frame` can show them.
"""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import os
import re
import warnings
import zlib
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import DataError
from ..limits import check_memory, over_limit
from . import parquet_io
from .data_checks import (
    MB,
    BinaryFileError,
    DataLimitError,
    EmptyFileError,
    Limits,
    MalformedFileError,
    NoHeaderError,
    check_bytes,
    check_field,
    check_names,
    check_size,
)

DELIMITERS = (",", ";", "\t")
_DELIM_NAMES = {",": "comma", ";": "semicolon", "\t": "tab"}
_SNIFF_LINES = 30
# Archives are refused by their magic number, never decompressed (a small file can inflate to gigabytes); gzip
# alone is decompressed, within the upload limit (:func:`gunzip`), and a gzip inside it is refused by this table.
_MAGIC = {b"PK\x03\x04": "a zip archive or an Excel .xlsx file", b"PK\x05\x06": "an empty zip archive",
          b"\xd0\xcf\x11\xe0": "an old Excel .xls file", b"%PDF": "a PDF", b"\x89PNG": "a PNG image",
          b"\x1f\x8b": "a gzip archive", b"BZh": "a bzip2 archive", b"\xfd7zXZ\x00": "an xz archive",
          b"7z\xbc\xaf\x27\x1c": "a 7z archive", b"\x28\xb5\x2f\xfd": "a zstd archive",
          b"\x04\x22\x4d\x18": "an lz4 archive", b"Rar!": "a rar archive", b"\x80": "a pickle"}
_DECIMAL_COMMA = re.compile(r"^[+-]?\d+,\d+$")
_RAGGED = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


def _read_bytes(source, limits: Limits | None) -> bytes:
    """The bytes of a path, bytes or buffer; the size is checked before a file is read."""
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
    elif isinstance(source, str | os.PathLike):
        try:
            check_bytes(os.path.getsize(source), limits)
            with open(source, "rb") as fh:
                data = fh.read()
        except OSError as err:
            raise DataError(f"cannot open {os.fspath(source)!r}: {err.strerror or err}") from None
    elif hasattr(source, "getvalue"):
        data = source.getvalue()
    elif hasattr(source, "read"):
        data = source.read() if limits is None else source.read(limits.max_upload_mb * MB + 1)
    else:
        raise DataError(f"expected a file path, bytes or an open file; got {type(source).__name__}")
    data = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    check_bytes(len(data), limits)
    return data


def gunzip(data: bytes, limits: Limits | None, notes: list[str]) -> bytes:
    """The decompressed bytes of a gzip file (a ``.csv.gz``); with ``limits``, decompressed only up to the upload
    limit + 1 byte, so a small file that inflates to gigabytes is refused after that much work."""
    cap = None if limits is None else limits.max_upload_mb * MB
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as gz:
            out = gz.read(cap + 1) if cap is not None else _gunzip_within_memory(gz)
    except (OSError, EOFError, zlib.error) as err:
        raise MalformedFileError(f"the file starts like a gzip archive but does not decompress ({err}); "
                                 "decompress it or upload the plain CSV") from None
    if cap is not None and len(out) > cap:
        raise DataLimitError(over_limit("max_upload_mb", f"the gzip file decompresses to more than {cap // MB:,} MB",
                                        limits))
    notes.append("The file was gzip-compressed; it was decompressed.")
    return out


_GZIP_CHUNK = 1 << 26   # decompressed bytes read at a time without limits
_TEXT_FACTOR = 4        # memory of a parsed text table per byte of text (text, its str, the parser's columns)


def _gunzip_within_memory(gz) -> bytes:
    """All of a gzip stream, by chunks, each time checking that the text so far and its table
    (:data:`_TEXT_FACTOR` x its bytes) fit the memory available (``check_memory``: the library without limits
    still refuses a bomb cleanly, NotEnoughMemoryError, before the allocation that would fail)."""
    parts, size = [], 0
    while chunk := gz.read(_GZIP_CHUNK):
        size += len(chunk)
        check_memory(size * _TEXT_FACTOR, f"the gzip file (at least {size / MB:,.0f} MB once decompressed) and its "
                                          "table")
        parts.append(chunk)
    return b"".join(parts)


def _fields(line: str, delim: str) -> int:
    """Fields of one line (quotes respected); the separator count + 1 when the csv module refuses the line."""
    try:
        return len(next(csv.reader([line], delimiter=delim), []))
    except csv.Error:   # e.g. one field longer than csv.field_size_limit()
        return line.count(delim) + 1


def check_header_line(text: str, limits: Limits | None) -> None:
    """Refuse a header with too many columns or characters before pandas builds anything.

    Counting separators is linear and allocates nothing; only a header that might be too wide is split.
    """
    end = text.find("\n")
    line = text if end < 0 else text[:end]
    if limits is not None and max(line.count(d) for d in DELIMITERS) + 1 > limits.max_columns:
        widest = max(_fields(line, d) for d in DELIMITERS)
        if widest > limits.max_columns:
            raise DataLimitError(over_limit("max_columns", f"the header line has {widest:,} columns", limits))
    check_field("the first line" if end >= 0 else "the file (a single line)", len(line.rstrip("\r")), limits)


def _decode(data: bytes, notes: list[str]) -> str:
    if data.startswith(parquet_io.MAGIC) and b"\x00" in data[:65536]:   # binary, but without parquet's last bytes
        raise MalformedFileError("the file starts like a parquet file but does not end like one (PAR1): it was cut "
                                 "short or damaged. Save it again, or as CSV")
    for magic, what in _MAGIC.items():
        if data.startswith(magic):
            raise BinaryFileError(f"this looks like {what}, not a text table. Save it as CSV and upload that")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):   # Excel's "Unicode text" export
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError:
            raise BinaryFileError("the file starts like UTF-16 text but does not decode; save it as CSV") from None
        notes.append("The file is UTF-16 text; it was converted.")
        data = text.encode("utf-8")
    if b"\x00" in data[:65536]:
        raise BinaryFileError("the file holds binary data (NUL bytes), not text. Save it as CSV and upload that")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
        notes.append("The file is not valid UTF-8; it was read as Latin-1.")
    sample = text[:65536]
    control = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\t\n\r") + sample.count("\x7f")
    if control > max(3, 0.01 * len(sample)):
        raise BinaryFileError("the file holds binary data (control characters), not text. Save it as CSV")
    return text


@dataclass
class RowCheck:
    """What a row-by-row pass with the csv module found (pandas silently pads short rows and drops the fields
    of long ones): short rows, rows split by another delimiter, rows with fields past the header's."""

    short: list[int] = field(default_factory=list)        # line numbers of rows with too few fields
    foreign: dict[str, list[int]] = field(default_factory=dict)   # other delimiter -> lines it splits right
    long_empty: list[int] = field(default_factory=list)   # lines whose extra fields are all empty
    long_full: list[tuple[int, int]] = field(default_factory=list)   # (line, fields) with non-empty extra fields


def check_rows(text: str, delim: str, n_fields: int) -> RowCheck:
    """Every non-blank row's field count against the header's ``n_fields`` (quotes respected)."""
    found = RowCheck()
    reader = csv.reader(io.StringIO(text), delimiter=delim)
    try:
        for row in reader:
            if not row or not any(f.strip() for f in row):
                continue
            if len(row) < n_fields:
                found.short.append(reader.line_num)
                joined = delim.join(row)
                for other in DELIMITERS:
                    if other != delim and len(next(csv.reader([joined], delimiter=other), [])) == n_fields:
                        found.foreign.setdefault(other, []).append(reader.line_num)
            elif len(row) > n_fields:
                extra = any(f.strip() for f in row[n_fields:])
                (found.long_full.append((reader.line_num, len(row))) if extra
                 else found.long_empty.append(reader.line_num))
    except csv.Error:   # pandas parsed it; this check is only advisory
        pass
    return found


def short_rows(text: str, delim: str, n_fields: int) -> tuple[int, int]:
    """(number of non-blank rows with fewer than ``n_fields`` fields, line of the first one)."""
    short = check_rows(text, delim, n_fields).short
    return len(short), short[0] if short else 0


def _lines(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:5])
    return shown + (f", ... ({len(numbers)} in all)" if len(numbers) > 5 else "")


def _head(text: str, n_lines: int) -> str:
    """The first ``n_lines`` lines of ``text`` (without splitting the whole file)."""
    end = 0
    for _ in range(n_lines):
        end = text.find("\n", end) + 1
        if end == 0:
            return text
    return text[:end]


def sniff_delimiter(lines: list[str]) -> str:
    """The delimiter that splits the first lines into the same number (> 1) of fields; most fields wins.

    If none is consistent, the one giving the header the most fields; comma for a single column.
    """
    best, best_key = ",", (-1, -1)
    for delim in DELIMITERS:
        try:
            counts = [len(row) for row in csv.reader(lines, delimiter=delim)]
        except csv.Error:
            continue
        if not counts:
            continue
        consistent = int(len(set(counts)) == 1 and counts[0] > 1)
        key = (consistent, counts[0])
        if key > best_key:
            best, best_key = delim, key
    return best


def _is_number(field: str) -> bool:
    try:
        float(field.replace(",", ".") if _DECIMAL_COMMA.match(field.strip()) else field)
        return True
    except ValueError:
        return False


def _fix_decimal_commas(frame: pd.DataFrame, notes: list[str]) -> pd.DataFrame:
    """With ';' as delimiter, '3,14' usually means 3.14: convert text columns that are all such numbers."""
    fixed = []
    for c in frame.columns:
        col = frame[c]
        if pd.api.types.is_numeric_dtype(col) or col.isna().all():
            continue
        text = col.dropna().astype(str).str.strip()
        if text.str.match(r"^[+-]?\d+(,\d+)?$").all() and text.str.contains(",").any():
            frame[c] = pd.to_numeric(col.astype(str).str.replace(",", ".", regex=False), errors="coerce")
            fixed.append(str(c))
    if fixed:
        notes.append(f"Decimal commas were read as decimal points in: {', '.join(fixed[:10])}.")
    return frame


def check_cells(frame: pd.DataFrame, limits: Limits | None) -> None:
    """Refuse a text cell longer than ``max_field_chars`` (an enormous field would be copied into every view)."""
    if limits is None:
        return
    for c in frame.columns:
        col = frame[c]
        if pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            continue
        lengths = col.dropna().astype(str).str.len()
        if len(lengths) and int(lengths.max()) > limits.max_field_chars:
            row = int(lengths.idxmax())
            check_field(f"column {str(c)[:40]!r}, data row {row + 1},", int(lengths.max()), limits)


def compact_numeric(frame: pd.DataFrame) -> pd.DataFrame:
    """An all-numeric frame as one block of the smallest dtype that holds every value exactly.

    pandas' parser returns one int64 or float64 array per column; integer tables (word counts, pixels,
    indicators) fit int8/int16, and one block lets the data layer read blocks of rows at numpy speed.
    Frames with text or nullable columns are returned as they are.
    """
    dtypes = list(frame.dtypes)
    if not dtypes or not all(isinstance(t, np.dtype) and t.kind in "biuf" for t in dtypes):
        return frame
    if any(t.kind == "f" for t in dtypes):
        return _one_block(frame, frame.to_numpy(dtype=np.float64))
    if any(t == np.uint64 for t in dtypes):
        return frame
    kinds = {t.kind for t in dtypes}
    if kinds == {"b"}:
        return _one_block(frame, frame.to_numpy())
    if frame.size == 0:
        return frame
    # the parser's column arrays are read where they are: the range first, then each column written once into
    # the compact matrix (no int64 interleave of the whole table, whose fresh pages cost more than the copy)
    arrays = [column.to_numpy() for _, column in frame.items()]
    lo, hi = min(int(a.min()) for a in arrays), max(int(a.max()) for a in arrays)
    dtype = np.result_type(np.min_scalar_type(lo), np.min_scalar_type(hi))
    if dtype.kind not in "biu":
        return frame
    out = np.empty(frame.shape, dtype=dtype, order="F")
    for j, a in enumerate(arrays):
        out[:, j] = a
    return _one_block(frame, out)


def _one_block(frame: pd.DataFrame, matrix: np.ndarray) -> pd.DataFrame:
    out = pd.DataFrame(matrix, columns=frame.columns, copy=False)
    out.attrs = dict(frame.attrs)
    return out


def read_table(source, limits: Limits | None = None) -> pd.DataFrame:
    """Parse a delimited text file (path, bytes or uploaded buffer) into a DataFrame with a header.

    A gzip file (``.csv.gz``) is decompressed first, within ``limits``; a parquet file (told by its magic
    number, ``PAR1``, at both ends) is read as ``pd.read_parquet`` reads it (:mod:`fslab.data.parquet_io`),
    without the text checks. Raises EmptyFileError, BinaryFileError, NoHeaderError, DuplicateColumnError,
    MalformedFileError or DataLimitError (file size, decompressed size, header width and length, rows, columns,
    cells, cell length: ``limits``) with a message a user can act on. ``limits``: None (the library's default)
    applies no size caps; the app and the command line pass ``server_limits()``.
    """
    notes: list[str] = []
    data = _read_bytes(source, limits)
    if data.startswith(b"\x1f\x8b"):
        data = gunzip(data, limits, notes)
    if parquet_io.is_parquet(data):
        frame = compact_numeric(parquet_io.read_parquet_frame(data, limits))
        frame.attrs["fslab_notes"] = tuple(notes)
        return frame
    if not data.strip():
        raise EmptyFileError("the file is empty; upload a CSV with a header row and at least one data row")
    text = _decode(data, notes)
    check_header_line(text, limits)
    lines = [ln for ln in _head(text, _SNIFF_LINES * 2).splitlines() if ln.strip()][:_SNIFF_LINES]
    if not lines:
        raise EmptyFileError("the file holds only blank characters; upload a CSV with a header and data rows")
    delim = sniff_delimiter(lines)
    try:   # the first record, not the first line: a quoted name may hold a line break (RFC 4180)
        header = next(csv.reader(io.StringIO(_head(text, _SNIFF_LINES * 2)), delimiter=delim), [])
    except csv.Error as err:
        raise MalformedFileError(f"could not read the header line: {err}") from None
    if header and all(_is_number(h) for h in header if h.strip()) and any(h.strip() for h in header):
        raise NoHeaderError(
            f"the first row ({', '.join(h.strip() for h in header[:6])}{', ...' if len(header) > 6 else ''}) "
            "holds only numbers, so the file seems to have no header row. Add a first line with column names"
        )
    numeric = [h.strip() for h in header if h.strip() and _is_number(h)]
    if numeric:
        notes.append(f"Some column names are numbers ({', '.join(numeric[:4])}); if the first row is data rather "
                     "than names, add a header row.")
    names = check_names(h.strip() or f"column {i + 1}" for i, h in enumerate(header))
    check_size(max(len(lines) - 1, text.count("\n") - 1), len(names), limits)
    try:
        with warnings.catch_warnings(record=True) as caught:   # index_col=False: a longer row never becomes
            warnings.simplefilter("always", pd.errors.ParserWarning)   # an index (that shifts every field)
            frame = pd.read_csv(io.StringIO(text), sep=delim, engine="c", skipinitialspace=True,
                                skip_blank_lines=True, low_memory=False, index_col=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError, csv.Error, OverflowError) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        ragged = _RAGGED.search(first)
        if ragged:
            want, line, got = ragged.groups()
            first = f"line {line} has {got} fields but the header has {want}"
        raise MalformedFileError(
            f"could not read the file as a {_DELIM_NAMES[delim]}-separated table: {first}. "
            "Check that every row has as many fields as the header (quote fields that contain the separator)"
        ) from None
    if len(frame.columns) != len(names):
        raise MalformedFileError(f"the header has {len(names)} names but the rows have {len(frame.columns)} fields")
    frame.columns = list(names)
    # rows that pandas padded (last column missing) or cut (a ParserWarning) are checked row by row
    long = any(issubclass(w.category, pd.errors.ParserWarning) for w in caught) or (
        len(lines) > 1 and lines[1].rstrip().endswith(delim))   # pandas drops a trailing empty field silently
    rows = check_rows(text, delim, len(names)) if long or frame.iloc[:, -1].isna().any() else RowCheck()
    name = _DELIM_NAMES[delim]
    for other, where in rows.foreign.items():
        raise MalformedFileError(
            f"line(s) {_lines(where)} are separated by {_DELIM_NAMES[other]}s but the header uses {name}s; "
            f"use one separator in the whole file")
    if rows.long_full:
        line, got = rows.long_full[0]
        raise MalformedFileError(
            f"line {line} has {got} fields but the header has {len(names)} ({len(rows.long_full)} such row(s)); "
            "add the missing column names or quote fields that contain the separator")
    if rows.long_empty:
        notes.append(f"{len(rows.long_empty)} row(s) end with a {name} after the last column (line(s) "
                     f"{_lines(rows.long_empty)}); the empty field there was ignored.")
    trailing = len(header) > 1 and not header[-1].strip() and frame.iloc[:, -1].isna().all()
    if trailing:   # "a,b,y," over rows "1,2,0,": a delimiter at the end of every line, not a column
        frame = frame.iloc[:, :-1]
        names, header = names[:-1], header[:-1]
        notes.append(f"The lines end with a {name}; the empty column after the last name was dropped.")
    if any(not h.strip() for h in header):
        notes.append("Columns without a name were called 'column <position>'.")
    if frame.empty:
        raise EmptyFileError("the file has a header but no data rows")
    check_size(len(frame), len(frame.columns), limits)
    check_cells(frame, limits)
    if delim == ";":
        frame = _fix_decimal_commas(frame, notes)
    short = [] if trailing else rows.short   # (a short row leaves the last column missing: checked above)
    if short:
        frame.attrs["fslab_warnings"] = (
            f"{len(short)} row(s) have fewer fields than the header (the first on line {short[0]}); their last "
            "fields were read as missing values. Check the file if that is not what you meant.",)
    if delim != ",":
        notes.insert(0, f"Columns are separated by {_DELIM_NAMES[delim]}s.")
    frame = compact_numeric(frame)
    frame.attrs["fslab_notes"] = tuple(notes)
    return frame

