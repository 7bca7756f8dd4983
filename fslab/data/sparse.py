"""Sparse samples: a ``scipy.sparse`` matrix counted from its non-zeros, never densified (issue 27.1).

Zero is one level of every feature (code 0); the non-zeros are binned (``SPARSE_METHODS``):

* ``mean-std`` (default): a column whose non-zeros all have one value is a presence indicator (as the dense path
  keeps a two-valued column as it is); any other column gets the paper's three bins at mean +- one sample standard
  deviation of the whole column, zeros included (Ahmed et al., footnote 6; PCMAC and BASEHOCK are encoded so,
  ``tools/make_samples.py``). The bins are relabelled so that zero's bin is code 0 and the other occupied bins
  follow in order: the same partition of the rows as the dense codes, so the same tables up to the order of cells;
* ``presence``: every non-zero is 1;
* ``codes``: the non-zero values are already codes (whole numbers below 256).

The codes are a CSC matrix of uint8 without explicit zeros (O(non-zeros) memory; ``sparse_codes`` checks and
encodes, ``sparse_io`` reads files); the counting engine (``fslab.counting.sparse``) reads them by rows (a CSR copy,
built on first use) and refinements read single columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import FrozenInstanceError
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..errors import DataError, ParameterError
from ..tables import JointTable, _Memo, readonly, recall_prefix
from .sparse_codes import (
    SPARSE_METHODS,
    check_sparse,
    check_sparse_size,
    check_structure,
    encode_sparse,
    segment_reduce,
)

_TABLE_BYTES = 64 << 20  # one batch of padded extension tables
_MEMO_SIZE = 64


def is_sparse(X) -> bool:
    """True for a scipy.sparse matrix or array."""
    return sp.issparse(X)


class SparseDataset:
    """A sample whose features are a sparse code matrix: a table source counted from the non-zeros.

    ``codes`` (m x n CSC, uint8, code 0 implicit), ``arities``, ``y`` (class index per row), ``labels``,
    ``class_names``, ``feature_names``, ``target``, ``task``, ``notes``, ``method`` (how it was encoded). Made by
    ``Dataset.from_arrays(sparse_X, y)``, :func:`fslab.read_svmlight` or :func:`fslab.read_sparse`; like an encoded
    dataset it stands wherever a Dataset can (``discretize()`` re-encodes the raw values kept from loading, or
    returns itself for its own method). A frozen record; caches (subset cell codes, the CSR copy) aside.
    """

    is_sample = True
    counter = "sparse"   # counted from its non-zeros: fslab.counting.sparse (fslab.counting.engines.counter_of)
    has_values = False  # raw values for Fisher's score are not offered (a dense float matrix)

    # the record's fields, set once by __init__
    codes: sp.csc_matrix
    arities: np.ndarray
    y: np.ndarray
    labels: np.ndarray
    feature_names: tuple[str, ...]
    class_names: tuple[str, ...]
    target: str
    task: str
    notes: tuple[str, ...]
    method: str
    _raw: Any
    _memo: _Memo
    _rows: list  # [the CSR copy of codes, or None until first use]

    def __init__(self, codes, arities, y, *, labels, feature_names=None, class_names=None, target: str = "y",
                 task: str | None = None, notes: tuple[str, ...] = (), method: str = "mean-std", raw=None):
        if sp.issparse(codes):
            check_structure(codes, "codes")   # scipy trusts the index arrays it converts
        codes = sp.csc_matrix(codes)
        if codes.dtype != np.uint8:
            raise DataError(f"sparse codes must be uint8; got {codes.dtype}")
        arities = np.array(arities, dtype=np.int64)
        m, n = codes.shape
        y = np.asarray(y, dtype=np.int64)
        labels = np.asarray(labels)
        if arities.shape != (n,) or (codes.nnz and np.any(_column_max(codes) >= arities)):
            raise DataError(f"need one arity per feature above its codes: {n} features, {arities.size} arities")
        if y.shape != (m,) or (y.size and (y.min() < 0 or y.max() >= labels.shape[0])):
            raise DataError(f"need one class index per row (in 0 .. {labels.shape[0] - 1}): {m} rows, got {y.shape}")
        names = tuple(str(v) for v in (feature_names if feature_names is not None else
                                        [f"X{j + 1}" for j in range(n)]))
        if len(names) != n:
            raise DataError(f"need one name per feature: {n} features, {len(names)} names")
        arities.flags.writeable = False
        labels = labels.copy()
        labels.flags.writeable = False
        for field, value in dict(codes=codes, arities=arities, y=readonly(y), labels=labels, feature_names=names,
                                 class_names=tuple(str(c) for c in (class_names if class_names is not None
                                                                    else labels)),
                                 target=target, task=task or ("binary" if labels.shape[0] == 2 else "multiclass"),
                                 notes=tuple(notes), method=method, _raw=raw, _memo=_Memo(),
                                 _rows=[None]).items():
            object.__setattr__(self, field, value)

    def __setattr__(self, name: str, value) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}: SparseDataset is a frozen record")

    def __getstate__(self) -> dict:
        return {k: v for k, v in vars(self).items() if k not in ("_memo", "_rows")}

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_memo", _Memo())
        object.__setattr__(self, "_rows", [None])

    def _fields(self) -> dict:
        return {"codes": self.codes, "arities": self.arities, "y": self.y, "labels": self.labels,
                "feature_names": self.feature_names, "class_names": self.class_names, "target": self.target,
                "task": self.task, "notes": self.notes, "method": self.method, "raw": self._raw}

    def replace(self, **changes) -> SparseDataset:
        return SparseDataset(**(self._fields() | changes))

    # --- shape and views ---------------------------------------------------------------------------------
    @property
    def n_rows(self) -> int:
        return self.codes.shape[0]

    @property
    def n_features(self) -> int:
        return self.codes.shape[1]

    @property
    def shape(self) -> tuple[int, int]:
        return self.codes.shape

    @property
    def nnz(self) -> int:
        return int(self.codes.nnz)

    @property
    def messages(self) -> tuple[str, ...]:
        return self.notes

    def positive_rate(self) -> float:
        return float(np.mean(self.y == 1)) if self.task == "binary" else float("nan")

    def by_rows(self) -> sp.csr_matrix:
        """The codes as CSR (built once; a cache): the counting engine gathers the entries of row sets."""
        if self._rows[0] is None:
            self._rows[0] = self.codes.tocsr()
        return self._rows[0]

    def column(self, j: int) -> np.ndarray:
        """Dense codes of feature j (m uint8): one column, never the matrix."""
        out = np.zeros(self.n_rows, dtype=np.uint8)
        lo, hi = self.codes.indptr[j], self.codes.indptr[j + 1]
        out[self.codes.indices[lo:hi]] = self.codes.data[lo:hi]
        return out

    def discretize(self, method: str | None = None, bins: int = 3) -> SparseDataset:
        """Itself for its own method (or None); else re-encoded from the raw values kept from loading."""
        if method is None or method == self.method:
            return self
        if self._raw is None:
            raise ParameterError(f"this sparse sample keeps only its {self.method!r} codes; load it again to encode "
                                 f"it by {method!r}")
        codes, arities = encode_sparse(check_sparse(self._raw), method)
        return self.replace(codes=codes, arities=arities, method=method)

    def subsample(self, rows: np.ndarray) -> SparseDataset:
        """The sample on the given rows (with repeats, as a bootstrap resample); raw values are not carried."""
        rows = np.asarray(rows)
        return self.replace(codes=sp.csc_matrix(self.by_rows()[rows]), y=self.y[rows], raw=None)

    # --- the TableSource protocol (the plain engine; the counter in fslab.counting.sparse is the fast one) -------
    def _check_subset(self, subset: Sequence[int]) -> tuple[int, ...]:
        subset = tuple(int(j) for j in subset)
        if len(set(subset)) != len(subset) or any(j < 0 or j >= self.n_features for j in subset):
            raise ParameterError(f"subset {subset} must hold distinct feature indices in 0 .. {self.n_features - 1}")
        return subset

    def cell_codes(self, subset: Sequence[int]) -> tuple[np.ndarray, int]:
        """One cell code per row for ``subset`` (mixed radix, compressed once there are more cells than rows)."""
        key = self._check_subset(subset)
        hit, start = recall_prefix(self._memo, key)
        if hit is not None:
            return hit
        codes, n_cells = self._memo.get(key[:start], (np.zeros(self.n_rows, dtype=np.int64), 1))
        for j in key[start:]:
            codes = codes * self.arities[j] + self.column(j)
            n_cells *= int(self.arities[j])
            if n_cells > max(self.n_rows, 1):
                uniques, codes = np.unique(codes, return_inverse=True)
                codes, n_cells = codes.astype(np.int64), len(uniques)
        codes.flags.writeable = False
        self._memo[key] = (codes, n_cells)
        while len(self._memo) > _MEMO_SIZE:
            self._memo.popitem(last=False)
        return codes, n_cells

    def table(self, subset: Sequence[int]) -> JointTable:
        codes, n_cells = self.cell_codes(subset)
        L = self.labels.shape[0]
        counts = np.bincount(codes * L + self.y, minlength=n_cells * L).reshape(n_cells, L)
        return JointTable(counts.astype(np.float64), self.labels)

    def extension_tables(self, subset: Sequence[int], candidates: Sequence[int]) -> JointTable:
        """Tables of subset + [j], cells (subset cell, value of X_j) padded to the widest candidate: every table
        starts as the subset's own (all rows at value 0) and each non-zero of X_j moves its row to its value."""
        subset = self._check_subset(subset)
        cand = np.asarray([int(j) for j in candidates], dtype=np.int64)
        if cand.size == 0:
            raise ParameterError("extension_tables needs at least one candidate")
        self._check_subset(tuple(cand))
        base, n_base = self.cell_codes(subset)
        L = self.labels.shape[0]
        width = int(self.arities[cand].max())
        cells = n_base * width
        base_counts = np.bincount(base * L + self.y, minlength=n_base * L).astype(np.float64)
        chunk = max(1, _TABLE_BYTES // (8 * cells * L))
        parts = []
        indptr, indices, data = self.codes.indptr, self.codes.indices, self.codes.data
        for s in range(0, cand.size, chunk):
            part = cand[s:s + chunk]
            out = np.zeros((part.size, n_base, width, L))
            out[:, :, 0, :] = base_counts.reshape(n_base, L)
            lens = indptr[part + 1] - indptr[part]
            idx = _ranges(indptr[part], lens)
            rows, vals = indices[idx], data[idx].astype(np.int64)
            lane = np.repeat(np.arange(part.size, dtype=np.int64) * cells, lens)
            at = (lane + base[rows] * width) * L + self.y[rows]
            size = part.size * cells * L
            out.ravel()[:] += np.bincount(at + vals * L, minlength=size) - np.bincount(at, minlength=size)
            parts.append(out.reshape(part.size, cells, L))
        return JointTable(np.concatenate(parts), self.labels)


def _ranges(starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """Concatenated index ranges [starts[i], starts[i] + lens[i])."""
    total = int(lens.sum())
    offsets = np.repeat(np.asarray(starts, dtype=np.int64) - (np.cumsum(lens) - lens), lens)
    return offsets + np.arange(total, dtype=np.int64)


def _column_max(codes: sp.csc_matrix) -> np.ndarray:
    return segment_reduce(np.maximum, codes.data, codes.indptr)


def from_sparse(X, y, feature_names=None, positive=None, target: str = "y", limits=None,
                method: str = "mean-std") -> SparseDataset:
    """A :class:`SparseDataset` from a scipy.sparse matrix of non-negative values and a target (what
    ``Dataset.from_arrays`` does with sparse input). Rows with a missing target are dropped, with a note. ``X`` is
    kept by reference for ``discretize(method)`` (not copied: do not change it afterwards)."""
    from .data_checks import check_names
    from .target import encode_target

    if method not in SPARSE_METHODS:
        raise ParameterError(f"sparse data are encoded by {', '.join(SPARSE_METHODS)}; got {method!r}")
    y = np.asarray(y)
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
        raise DataError(f"need X of shape (rows, features) and y of shape (rows,); got {X.shape} and {y.shape}")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise DataError(f"the sparse matrix is empty ({X.shape[0]} rows x {X.shape[1]} columns)")
    check_structure(X)
    check_sparse_size(X.shape, X.nnz, limits)   # before a name is made or a conversion allocates
    names = check_names(feature_names if feature_names is not None else [f"X{j + 1}" for j in range(X.shape[1])])
    if len(names) != X.shape[1]:
        raise DataError(f"need one name per feature: {X.shape[1]} features, {len(names)} names")
    key = str(target).strip()
    if key in set(names):
        raise DataError(f"the target name {target!r} is also a feature name; pass another target=")
    raw = checked = check_sparse(X)
    raw = X  # kept for discretize(method) by reference, not as the checked copy (as from_arrays keeps a dense X)
    column = pd.Series(y, name=key)
    notes = []
    missing = column.isna().to_numpy()
    if missing.all():
        raise DataError(f"target {key!r} is missing in every row")
    if missing.any():
        raw = checked = sp.csc_matrix(checked.tocsr()[~missing])
        column = column[~missing].reset_index(drop=True)
        notes.append(f"{int(missing.sum())} row(s) with a missing target were dropped; {raw.shape[0]} remain.")
    t = encode_target(column, key, positive)
    codes, arities = encode_sparse(checked, method)
    del checked
    share = codes.nnz / max(codes.shape[0] * codes.shape[1], 1)
    notes.append(f"Sparse features ({codes.nnz:,} non-zero codes, {share:.3%} of cells) encoded by {method}; zero is "
                 "one level of every feature.")
    return SparseDataset(codes, arities, t.y, labels=t.labels, feature_names=names, class_names=t.class_names,
                         target=key, task=t.task, notes=tuple(notes) + t.notes, method=method, raw=raw)


def sparse_sample(X, y_index: np.ndarray, classes, method: str = "mean-std") -> SparseDataset:
    """A :class:`SparseDataset` of a checked sparse matrix and class indices (``FeatureSelector.fit``)."""
    codes, arities = encode_sparse(check_sparse(X), method)
    return SparseDataset(codes, arities, y_index, labels=np.arange(len(classes)), class_names=[str(c) for c in classes],
                         method=method)


__all__ = ["SPARSE_METHODS", "SparseDataset", "encode_sparse", "from_sparse", "is_sparse", "sparse_sample"]
