"""Hostile inputs of issue 32, built at run time (small files; the bombs are a few KB): each one asks a reader for
far more memory or time than its size says. Used by tests/test_upload_*.py and bench/load_test.py."""

from __future__ import annotations

import io
import zlib

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


def _parquet(table: pa.Table, **kw) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf, **kw)
    return buf.getvalue()


def _target(rows: int) -> pa.Array:
    return pa.array(np.arange(rows) % 2)


def parquet_fixed_binary_bomb(rows: int = 200_000, width: int = 20_000) -> bytes:
    """One fixed_size_binary(width) value in every row, stored once in a dictionary page: rows x width bytes
    decoded (4 GB by default) from a file of 26 KB, written by hand (pyarrow's writer spreads the dictionary over
    the rows first: 32 s and 4 GB to build it). Without the Arrow schema, as other writers do; a target ``y``."""
    indices = bytes([1]) + _varint(rows << 1) + b"\0"   # bit width 1, one RLE run of ``rows`` zeros
    target = (np.arange(rows) % 2).astype("<i8").tobytes()
    return _hand_written(rows, [
        ("a", 7, width, CODECS["zstd"], [(DICTIONARY_PAGE, _zstd(b"x" * width), width, 1, PLAIN),
                                         (DATA_PAGE, _zstd(indices), len(indices), rows, RLE_DICTIONARY)], None),
        ("y", 2, None, CODECS["zstd"], [(DATA_PAGE, _zstd(target), len(target), rows, PLAIN)], None)])


def _string_view(rows: int, width: int) -> pa.Array:
    """``rows`` views of one ``width``-character value (16 bytes a row, one copy of the value)."""
    views = np.zeros((rows, 4), dtype=np.int32)
    views[:, 0] = width
    views[:, 1] = np.frombuffer(b"xxxx", dtype=np.int32)[0]
    return pa.StringViewArray.from_buffers(pa.string_view(), rows, [None, pa.py_buffer(views.tobytes()),
                                                                   pa.py_buffer(b"x" * width)])


def parquet_string_view_bomb(rows: int = 200_000, width: int = 2_000) -> bytes:
    """A string_view column of one value: rows x width bytes once decoded as views (400 MB by default)."""
    return _parquet(pa.table({"a": _string_view(rows, width), "y": _target(rows)}))


def parquet_json_bomb(rows: int = 200_000, width: int = 2_000) -> bytes:
    """The same over an ``arrow.json`` extension type (pyarrow does not read an extension dictionary-encoded)."""
    column = pa.ExtensionArray.from_storage(pa.json_(pa.string_view()), _string_view(rows, width))
    return _parquet(pa.table({"a": column, "y": _target(rows)}))


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _zigzag(n: int) -> bytes:
    return _varint((n << 1) ^ (n >> 63))


def parquet_lying_pages(rows: int = 100, width: int = 1_000_000, claim: int = 1_000) -> bytes:
    """One zstd page of rows x width zero bytes (100 MB by default; 4.7 KB on disk) whose footer claims ``claim``
    uncompressed bytes: the metadata checks pass, the page header asks for the real size. The footer is thrift
    compact; its two i64 sizes (column chunk and row group) are rewritten as zigzag varints and its length fixed."""
    arr = pa.array([b"\0" * width] * rows, pa.binary())
    data = _parquet(pa.table({"a": arr}), compression="zstd", compression_level=1, use_dictionary=False,
                    write_statistics=False, data_page_size=1 << 40, store_schema=False, write_page_index=False)
    del arr
    n = int.from_bytes(data[-8:-4], "little")
    footer = data[-8 - n:-8]
    meta = pq.ParquetFile(io.BytesIO(data)).metadata
    for size in {meta.row_group(0).column(0).total_uncompressed_size, meta.row_group(0).total_byte_size}:
        assert _zigzag(size) in footer
        footer = footer.replace(_zigzag(size), _zigzag(claim))
    return data[:-8 - n] + footer + len(footer).to_bytes(4, "little") + b"PAR1"


class _Thrift:
    """Thrift compact protocol, the few types a parquet footer and page header use (``field(id, type, value)``)."""

    I32, I64, BINARY, LIST, STRUCT = 5, 6, 8, 9, 12

    def __init__(self) -> None:
        self.out, self.last = bytearray(), [0]

    def field(self, fid: int, kind: int, value) -> _Thrift:
        delta = fid - self.last[-1]
        self.out += bytes([delta << 4 | kind]) if 0 < delta <= 15 else bytes([kind]) + _zigzag(fid)
        self.last[-1] = fid
        self._value(kind, value)
        return self

    def _value(self, kind: int, value) -> None:
        if kind in (self.I32, self.I64):
            self.out += _zigzag(value)
        elif kind == self.BINARY:
            self.out += _varint(len(value)) + value
        elif kind == self.LIST:   # (element type, [values])
            elem, values = value
            self.out += bytes([len(values) << 4 | elem]) if len(values) < 15 else bytes([0xF0 | elem]) + \
                _varint(len(values))
            for v in values:
                self._value(elem, v)
        else:   # a struct: a function that writes its fields
            self.last.append(0)
            value(self)
            self.out.append(0)
            self.last.pop()


def _deflated(stream_head: bytes, block: bytes, repeats: int, codec: str) -> bytes:
    """``stream_head`` then ``block`` ``repeats`` times, compressed without compressing every repeat: after a full
    flush deflate's output for the same input is the same bytes, so one block is compressed and its output repeated
    (gzip: the trailer's CRC-32 and size are computed, 2 s for 2 GB; zstd: one frame per block, concatenated)."""
    if codec == "zstd":
        pack = pa.Codec("zstd", compression_level=1)
        return pack.compress(stream_head, asbytes=True) + pack.compress(block, asbytes=True) * repeats
    pack = zlib.compressobj(9, zlib.DEFLATED, 31)
    head = pack.compress(stream_head) + pack.flush(zlib.Z_FULL_FLUSH)
    once = pack.compress(block) + pack.flush(zlib.Z_FULL_FLUSH)
    crc = zlib.crc32(stream_head)
    for _ in range(repeats):
        crc = zlib.crc32(block, crc)
    size = len(stream_head) + len(block) * repeats
    return head + once * repeats + b"\x03\x00" + crc.to_bytes(4, "little") + (size % 2**32).to_bytes(4, "little")


CODECS = {"none": 0, "gzip": 2, "zstd": 6}
PLAIN, RLE, RLE_DICTIONARY = 0, 3, 8
DATA_PAGE, DICTIONARY_PAGE = 0, 2


def _hand_written(rows: int, columns: list[tuple]) -> bytes:
    """A parquet file of one row group written byte by byte (thrift compact), as a hostile writer would: each
    column is (name, physical type, type length or None, codec, pages, claim), each page (kind, stored bytes,
    uncompressed size, values, encoding); ``claim``: the column's uncompressed size the footer states (None: the
    truth). Columns are REQUIRED (no definition levels)."""
    out, chunks = bytearray(b"PAR1"), []
    for name, physical, length, codec, pages, claim in columns:
        start, offsets = len(out), {}
        for kind, stored, size, values, encoding in pages:
            offsets.setdefault(kind, len(out))
            inner = (lambda t, v=values, e=encoding: t.field(1, t.I32, v).field(2, t.I32, e).field(3, t.I32, RLE)
                     .field(4, t.I32, RLE)) if kind == DATA_PAGE else \
                (lambda t, v=values, e=encoding: t.field(1, t.I32, v).field(2, t.I32, e))
            header = _Thrift().field(1, _Thrift.I32, kind).field(2, _Thrift.I32, size) \
                .field(3, _Thrift.I32, len(stored)).field(5 if kind == DATA_PAGE else 7, _Thrift.STRUCT, inner)
            out += header.out + b"\0" + stored
        size = len(out) - start
        chunks.append((name, physical, length, codec, start, size, size if claim is None else claim, offsets,
                       sorted({e for *_, e in pages} | {RLE})))

    def element(name, physical, length):
        def write(t: _Thrift) -> None:
            t.field(1, t.I32, physical)
            if length:
                t.field(2, t.I32, length)
            t.field(3, t.I32, 0).field(4, t.BINARY, name.encode())
        return write

    def chunk(name, physical, codec, start, size, claimed, offsets, encodings):
        def meta(t: _Thrift) -> None:
            t.field(1, t.I32, physical).field(2, t.LIST, (t.I32, encodings)) \
                .field(3, t.LIST, (t.BINARY, [name.encode()])).field(4, t.I32, codec).field(5, t.I64, rows) \
                .field(6, t.I64, claimed).field(7, t.I64, size).field(9, t.I64, offsets[DATA_PAGE])
            if DICTIONARY_PAGE in offsets:
                t.field(11, t.I64, offsets[DICTIONARY_PAGE])
        return lambda t: t.field(2, t.I64, start + size).field(3, t.STRUCT, meta)

    def row_group(t: _Thrift) -> None:
        t.field(1, t.LIST, (t.STRUCT, [chunk(n, p, c, s0, z, cl, o, e) for n, p, _, c, s0, z, cl, o, e in chunks])) \
            .field(2, t.I64, sum(c[6] for c in chunks)).field(3, t.I64, rows)

    schema = [lambda t: t.field(4, t.BINARY, b"schema").field(5, t.I32, len(columns))]
    schema += [element(n, p, ln) for n, p, ln, *_ in columns]
    footer = _Thrift().field(1, _Thrift.I32, 1).field(2, _Thrift.LIST, (_Thrift.STRUCT, schema)) \
        .field(3, _Thrift.I64, rows).field(4, _Thrift.LIST, (_Thrift.STRUCT, [row_group])).out + b"\0"
    return bytes(out) + footer + len(footer).to_bytes(4, "little") + b"PAR1"


def _zstd(data: bytes) -> bytes:
    return pa.Codec("zstd", compression_level=1).compress(data, asbytes=True)


def parquet_page_bomb(rows: int = 100, width: int = 20_000_000, claim: int = 1_000, codec: str = "gzip") -> bytes:
    """The issue's lying page header: one required binary column ``a`` of ``rows`` values of ``width`` zero bytes
    in one data page (PLAIN, ``codec``) whose header says its real size, rows x (width + 4) bytes (2 GB by default,
    the most a page header can say is 2^31 - 1), while the footer claims ``claim`` uncompressed bytes for the column
    and the row group. 1.9 MB with gzip, built in 2-3 s (one value's 20 MB is compressed, then repeated; the CRC-32
    of 2 GB takes most of it); 63 KB with zstd, built in 0.05 s. With ``claim`` = the real size it is an honest
    file (pyarrow reads it back: tests/test_upload_page_headers.py)."""
    value = width.to_bytes(4, "little") + bytes(width)
    page = _deflated(b"", value, rows, codec)
    return _hand_written(rows, [("a", 6, None, CODECS[codec], [(DATA_PAGE, page, rows * len(value), rows, PLAIN)],
                                 claim)])


def parquet_non_utf8() -> bytes:
    return _parquet(pa.table({"t": pa.array([b"ok", b"\xff\xfe", b"ok", b"no"], pa.binary()), "y": [0, 1, 0, 1]}))


def csv_starting_with_par1() -> bytes:
    return b"PAR1,b,y\n1,2,0\n3,4,1\n5,6,0\n"


def gzip_bomb(mb: int = 256) -> bytes:
    """A CSV of ``mb`` MiB (a header, then one digit per line) gzip-compressed by chunks: ~260 KB at 256 MiB."""
    pack = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [pack.compress(b"a,y\n")]
    chunk = b"1,0\n" * (1 << 18)
    parts += [pack.compress(chunk) for _ in range(mb)]
    return b"".join(parts + [pack.flush()])


def pathological_cells(n_cells: int = 50, chars: int = 99_990) -> bytes:
    """The issue's 5 MB CSV: ``n_cells`` distinct European-style numbers of ``chars`` characters, "7.234.234...,5"
    (quoted): every dot is followed by three digits and a non-digit, and a thousands-separator regex with a lookahead
    for the decimal comma scans to the end of the cell from each dot (quadratic in the cell's length)."""
    groups = ".234" * ((chars - 10) // 4)
    rows = "\n".join(f'"{i}{groups},5",{i % 2}' for i in range(n_cells))
    return ("a,y\n" + rows + "\n").encode()


def npz(path, indices, indptr, shape, fmt: str = "csr") -> None:
    """A scipy.sparse .npz written by hand (as a corrupt or hostile file would be), with a target ``y``."""
    np.savez(path, indices=np.asarray(indices, np.int32), indptr=np.asarray(indptr, np.int32),
             format=fmt.encode(), shape=np.asarray(shape), data=np.ones(len(indices)),
             y=np.arange(shape[0]) % 2)


def svmlight(index: int) -> str:
    return f"1 1:1 {index}:1\n0 2:1\n1 1:1\n"


def write_all(directory) -> dict[str, str]:
    """Every hostile file of this module in ``directory``; {name: path}."""
    from pathlib import Path

    directory = Path(directory)
    files = {"fixed.parquet": parquet_fixed_binary_bomb(), "view.parquet": parquet_string_view_bomb(),
             "json.parquet": parquet_json_bomb(), "lying.parquet": parquet_lying_pages(),
             "page_gzip.parquet": parquet_page_bomb(codec="gzip"), "page_zstd.parquet": parquet_page_bomb(codec="zstd"),
             "non_utf8.parquet": parquet_non_utf8(), "par1.csv": csv_starting_with_par1(),
             "bomb.csv.gz": gzip_bomb(), "svm_2p31m1.txt": svmlight(2**31 - 1).encode(),
             "svm_2p31p1.txt": svmlight(2**31 + 1).encode(), "svm_1e7.txt": svmlight(10_000_000).encode()}
    files["bomb.csv"] = files["bomb.csv.gz"]   # the same gzip bytes, renamed
    paths = {}
    for name, data in files.items():
        (directory / name).write_bytes(data)
        paths[name] = str(directory / name)
    for name, indices, indptr, shape in (("past.npz", [0, 5], [0, 1, 2, 2, 2], (4, 3)),
                                         ("negative.npz", [0, -3], [0, 1, 2, 2, 2], (4, 3)),
                                         ("indptr.npz", [0, 1], [0, 2, 1, 2, 2], (4, 3)),
                                         ("wide.npz", [0, 1], [0, 1, 2, 2, 2], (4, 2**31))):
        npz(directory / name, indices, indptr, shape)
        paths[name] = str(directory / name)
    return paths


if __name__ == "__main__":
    import json
    import sys

    print(json.dumps(write_all(sys.argv[1])))
