"""Sparse codes: a non-negative scipy.sparse matrix checked and binned column by column, zero being code 0
(the encodings of ``fslab.data.sparse``: mean-std, presence, codes), by blocks of whole columns."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..errors import DataError, ParameterError

SPARSE_METHODS = ("mean-std", "presence", "codes")
_ENCODE_ENTRIES = 1 << 22  # non-zeros encoded per block (their float temporaries: ~100 MB)


_COMPRESSED = {"csr": ("rows", "columns"), "csc": ("columns", "rows"), "bsr": ("block rows", "block columns")}
_NAME_BYTES = 100  # memory of one feature name and its slot (a short str in a tuple, and its hash entry)


def check_structure(X, what: str = "X") -> None:
    """Refuse a sparse matrix whose index arrays disagree with its shape, before scipy converts it.

    scipy trusts its arrays: converting a CSR or CSC matrix with an index past the shape writes out of bounds (a
    segfault), a negative index corrupts the heap. Checked here, vectorised, with a DataError naming the fault:
    the shape non-negative; CSR/CSC/BSR: ``indptr`` of length (rows or columns) + 1, starting at 0,
    non-decreasing, ending at the number of stored entries (at most the lengths of ``indices`` and ``data``),
    integer ``indices`` in [0, other dimension); COO: as many row and column indices as values, each in range.
    Duplicate entries are legal here (``check_sparse`` adds them up). Other formats (LIL, DOK, DIA) are built by
    scipy itself from checked operations."""
    shape = tuple(int(d) for d in X.shape)
    if len(shape) != 2 or min(shape) < 0:
        raise DataError(f"sparse {what} needs a 2-d shape of non-negative sizes; got {X.shape}")
    fmt = getattr(X, "format", "")
    if fmt in _COMPRESSED:
        block = X.blocksize if fmt == "bsr" else (1, 1)
        if fmt == "bsr" and (not block[0] or not block[1] or shape[0] % block[0] or shape[1] % block[1]):
            raise DataError(f"sparse {what} (BSR) has blocks {block} that do not divide its shape {shape}")
        dims = (shape[0] // block[0], shape[1] // block[1])
        major, minor = dims if fmt != "csc" else dims[::-1]
        where = f"sparse {what} ({fmt.upper()}, {shape[0]:,} x {shape[1]:,})"
        indptr, indices = np.asarray(X.indptr), np.asarray(X.indices)
        outer, inner = _COMPRESSED[fmt]
        if indptr.dtype.kind not in "iu" or indices.dtype.kind not in "iu" or indptr.ndim != 1 or indices.ndim != 1:
            raise DataError(f"{where} needs 1-d integer indptr and indices; got {indptr.dtype} and {indices.dtype}")
        if indptr.size != major + 1:
            raise DataError(f"{where} needs an indptr of {major + 1:,} entries (one per {outer[:-1]} + 1); "
                            f"got {indptr.size:,}")
        stored = int(indptr[-1])
        if int(indptr[0]) != 0 or (np.diff(indptr) < 0).any():
            raise DataError(f"{where} needs an indptr that starts at 0 and never decreases; this one does not, so "
                            "the file or arrays are corrupt")
        if stored > min(indices.size, np.asarray(X.data).shape[0]):
            raise DataError(f"{where}: indptr ends at {stored:,} but there are {indices.size:,} indices and "
                            f"{np.asarray(X.data).shape[0]:,} values")
        used = indices[:stored]
        if used.size and (int(used.min()) < 0 or int(used.max()) >= minor):
            bad = used[(used < 0) | (used >= minor)]
            raise DataError(f"{where} has {bad.size:,} {inner[:-1]} index(es) outside 0 .. {minor - 1:,} (the first: "
                            f"{int(bad[0]):,}); the file or arrays are corrupt")
    elif fmt == "coo":
        coords = [np.asarray(c) for c in X.coords]
        if any(c.ndim != 1 or c.size != np.asarray(X.data).size or c.dtype.kind not in "iu" for c in coords):
            raise DataError(f"sparse {what} (COO) needs one integer row and column index per value")
        for c, size, name in zip(coords, shape, ("row", "column"), strict=True):
            if c.size and (int(c.min()) < 0 or int(c.max()) >= size):
                raise DataError(f"sparse {what} (COO) has a {name} index outside 0 .. {size - 1:,}; the file or "
                                "arrays are corrupt")


def check_sparse_size(shape: tuple[int, int], nnz: int, limits=None, what: str = "the sparse matrix") -> None:
    """Rows and columns within ``limits`` (None: no caps) and the memory of its columns (an index pointer and a
    name each) and non-zeros within what is available, before any conversion or name is made."""
    from ..limits import check_memory
    from .data_checks import check_size

    m, n = shape
    check_size(m, n + 1, limits)
    check_memory(n * (8 + _NAME_BYTES) + m * 8 + nnz * 17,
                 f"the columns and non-zeros of {what} ({m:,} rows x {n:,} columns, {nnz:,} non-zeros)")


def check_sparse(X, what: str = "X") -> sp.csc_matrix:
    """The matrix as canonical CSC (sorted, no duplicates, no explicit zeros), the caller's matrix untouched;
    DataError on inconsistent index arrays (:func:`check_structure`, checked first), a non-numeric, negative or
    non-finite value."""
    if X.ndim != 2:
        raise DataError(f"need a 2-d sparse matrix {what}; got {X.ndim} dimensions")
    check_structure(X, what)
    check_sparse_size(X.shape, X.nnz, None, f"sparse {what}")
    if X.dtype.kind not in "biuf":
        raise DataError(f"sparse {what} needs numbers (bool, integer or float); got dtype {X.dtype}")
    csc = sp.csc_matrix(X)  # no copy when X is already a CSC matrix
    if not csc.has_canonical_format or (csc.data == 0).any():
        csc = csc.copy()
        csc.sum_duplicates()
        csc.eliminate_zeros()
    data = csc.data
    bad = ~np.isfinite(data) if data.dtype.kind == "f" else None
    if bad is not None and bad.any():
        row, col = _where(csc, int(np.argmax(bad)))
        raise DataError(f"sparse {what} has {int(bad.sum()):,} non-finite value(s) (NaN or infinity; the first at row "
                        f"{row}, column {col}); replace them before loading (fslab never fills them in)")
    if data.dtype.kind in "if" and (data < 0).any():
        neg = data < 0
        row, col = _where(csc, int(np.argmax(neg)))
        raise DataError(f"sparse {what} has {int(neg.sum()):,} negative value(s) (the first, {data[neg][0]:g}, at row "
                        f"{row}, column {col}); sparse data are counted as counts or weights, zero being one level: "
                        "shift or take absolute values first, or pass a dense array")
    return csc


def _where(csc: sp.csc_matrix, entry: int) -> tuple[int, int]:
    return int(csc.indices[entry]), int(np.searchsorted(csc.indptr, entry, side="right") - 1)


def encode_sparse(X: sp.csc_matrix, method: str = "mean-std") -> tuple[sp.csc_matrix, np.ndarray]:
    """Codes (CSC uint8, no explicit zeros) and arities of a checked non-negative CSC matrix (module docstring),
    computed by blocks of about _ENCODE_ENTRIES non-zeros, so the float temporaries stay small."""
    if method not in SPARSE_METHODS:
        raise ParameterError(f"sparse data are encoded by {', '.join(SPARSE_METHODS)}; got {method!r}")
    if method == "codes" and X.data.size and (np.any(X.data != np.round(X.data)) or X.data.max() > 255):
        raise DataError("method='codes' needs whole-number codes from 0 to 255 in the sparse matrix")
    m, n = X.shape
    codes = np.empty(X.nnz, dtype=np.uint8)
    arities = np.ones(n, dtype=np.int64)
    kept = np.zeros(n, dtype=np.int64)
    c0 = 0
    while c0 < n:  # blocks of whole columns
        c1 = max(c0 + 1, int(np.searchsorted(X.indptr, X.indptr[c0] + _ENCODE_ENTRIES, side="right")) - 1)
        c1 = min(c1, n)
        lo, hi = X.indptr[c0], X.indptr[c1]
        block, arities[c0:c1], kept[c0:c1] = _encode_block(X.data[lo:hi], X.indptr[c0:c1 + 1] - lo, m, method)
        codes[lo:hi] = block
        c0 = c1
    keep = codes > 0
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(kept, out=indptr[1:])
    out = sp.csc_matrix((codes[keep], X.indices[keep], indptr), shape=(m, n))
    out.has_sorted_indices = True
    return out, arities


def _encode_block(data: np.ndarray, indptr: np.ndarray, m: int, method: str):
    """Codes, arities and numbers of non-zero codes of a block of whole CSC columns."""
    n = indptr.size - 1
    nnz = np.diff(indptr)
    col = np.repeat(np.arange(n, dtype=np.int32), nnz)
    if method == "codes":
        codes = data.astype(np.uint8)
    elif method == "presence":
        codes = np.ones(data.size, dtype=np.uint8)
    else:
        x = data.astype(np.float64)
        mu = np.bincount(col, weights=x, minlength=n) / max(m, 1)
        dev = np.bincount(col, weights=(x - mu[col]) ** 2, minlength=n) + (m - nnz) * mu ** 2
        sigma = np.sqrt(dev / max(m - 1, 1))
        lo, hi = mu - sigma, mu + sigma
        binned = (x >= lo[col]).astype(np.int8) + (x >= hi[col])
        zero_bin = ((0 >= lo).astype(np.int8) + (0 >= hi))[col]
        codes = np.where(binned == zero_bin, 0, np.where(binned < zero_bin, binned + 1, binned)).astype(np.uint8)
        one_value = (segment_reduce(np.minimum, x, indptr) == segment_reduce(np.maximum, x, indptr))[col]
        codes[one_value] = 1  # the non-zeros of this column all have one value: presence
    # compress each column's codes to the occupied ones (zero's code 0 always kept)
    width = int(codes.max()) + 1 if codes.size else 1
    present = np.zeros((n, width), dtype=bool)
    present[col, codes] = True
    present[:, 0] = True
    codes = (np.cumsum(present, axis=1) - 1).astype(np.uint8)[col, codes]
    return codes, present.sum(axis=1), np.bincount(col[codes > 0], minlength=n)


def segment_reduce(ufunc, values: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    """``ufunc.reduce`` of each column's segment of CSC data (0 for an empty column)."""
    n = indptr.size - 1
    out = np.zeros(n, dtype=values.dtype)
    full = np.flatnonzero(np.diff(indptr) > 0)
    if full.size:
        out[full] = ufunc.reduceat(values, indptr[full])
    return out


__all__ = ["SPARSE_METHODS", "check_sparse", "check_sparse_size", "check_structure", "encode_sparse", "segment_reduce"]
