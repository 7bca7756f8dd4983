"""Reading a parquet file within the limits: a DataFrame as ``pd.read_parquet`` gives it, or a DataError.

Parquet is binary, so none of the text checks apply; the guarantees of the CSV path are kept from its metadata
before anything is decoded: rows, columns and cells (``check_size``), column names (unique, not too long),
flat columns only (a list or struct column is refused), and with ``limits`` the decoded size bounded as a
gzip file's is: the column chunks' uncompressed bytes and the fixed-width columns' bytes within the upload limit,
then text columns read dictionary-encoded (a value repeated in every row costs one copy) so that their decoded
length and their longest value are measured before the values are spread over the rows. Nothing is executed:
pyarrow refuses pickled extension types.
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


def _malformed(err: Exception) -> MalformedFileError:
    first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return MalformedFileError(f"could not read the parquet file: {first[:200]}. Save it again, or as CSV")


def _text(pa, t) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) \
        or pa.types.is_large_binary(t)


def _check_metadata(pf, pa, limits: Limits | None) -> list[str]:
    """Rows, columns, names and flat types from the file's metadata; returns the text columns' names."""
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
    return [f.name for f in schema if _text(pa, f.type)]


def _check_decoded(pf, pa, limits: Limits, text: list[str]) -> None:
    """The uncompressed pages and the fixed-width columns within the upload limit (before reading a row)."""
    cap = limits.max_upload_mb * MB
    meta = pf.metadata
    pages = sum(meta.row_group(g).column(c).total_uncompressed_size
                for g in range(meta.num_row_groups) for c in range(meta.num_columns))
    fixed = sum(max(f.type.bit_width, 8) // 8 for f in pf.schema_arrow if f.name not in text
                and pa.types.is_primitive(f.type) and not _text(pa, f.type)) * meta.num_rows
    if max(pages, fixed) > cap:
        raise DataLimitError(over_limit("max_upload_mb", f"the parquet file decompresses to more than "
                                                         f"{cap // MB:,} MB", limits))


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


def read_parquet_frame(data: bytes, limits: Limits | None = None) -> pd.DataFrame:
    """The parquet file ``data`` as ``pd.read_parquet`` reads it (nullable integers, text, categories kept), with a
    default row index; a named index becomes a column. See the module docstring for the checks."""
    pa, pc, pq = _pyarrow()
    try:
        pf = pq.ParquetFile(io.BytesIO(data))
        text = _check_metadata(pf, pa, limits)
        if limits is None:
            frame = pd.read_parquet(io.BytesIO(data))
        else:
            _check_decoded(pf, pa, limits, text)
            table = pq.read_table(io.BytesIO(data), read_dictionary=text)
            _check_text(table, pa, pc, limits, text)
            frame = table.cast(pf.schema_arrow).to_pandas()
    except FslabError:
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
