"""Reading sparse samples from files: svmlight / libsvm text (scikit-learn's reader) and scipy.sparse .npz.

A file is checked before scipy converts it (its index arrays, ``check_structure``) and its shape before any name
is made or index array allocated (``check_sparse_size``: ``limits`` and the memory available), so a corrupt or
hostile file is a DataError or a limit error, never a crash, a MemoryError or an OverflowError.
"""

from __future__ import annotations

import os
import zipfile

import numpy as np
import scipy.sparse as sp

from ..errors import DataError, ParameterError
from ..limits import MB, check_memory
from .data_checks import DataLimitError, Limits, check_bytes
from .sparse import SparseDataset, from_sparse
from .sparse_codes import check_sparse_size, check_structure


def read_svmlight(path, positive=None, n_features: int | None = None, method: str = "mean-std",
                  zero_based="auto", limits: Limits | None = None) -> SparseDataset:
    """An svmlight / libsvm file (``label index:value ...``, the format of a9a and many text sets) as a
    :class:`SparseDataset`, read by scikit-learn's ``load_svmlight_file``; features are named by their index in
    the file (``f1``, ``f2``, ... for one-based files). ``limits``: None (the library's default) applies no size
    caps, only the memory check."""
    from sklearn.datasets import load_svmlight_file

    _check_file(path, limits)
    auto = zero_based == "auto"  # scikit-learn's rule: one-based unless some index is 0
    try:
        X, y = load_svmlight_file(str(path), n_features=None if n_features is None else n_features + auto,
                                  zero_based=True if auto else zero_based)
    except (ValueError, OSError, OverflowError) as err:
        raise DataError(f"cannot read {path!s} as svmlight / libsvm: {err}") from None
    check_structure(X)
    check_sparse_size(X.shape, X.nnz, limits, f"the svmlight file {path!s}")
    first = 0 if zero_based is True else 1
    if auto:
        if X.shape[1] and not (X.indices[:X.nnz] == 0).any():  # no index 0: one-based, column 0 is no feature
            X = X[:, 1:]
        else:
            first = 0
            X = X[:, :n_features] if n_features is not None else X
    names = [f"f{j + first}" for j in range(X.shape[1])]
    return from_sparse(X, y, feature_names=names, positive=positive, method=method, limits=limits)


def _check_file(path, limits: Limits | None) -> None:
    try:
        check_bytes(os.path.getsize(path), limits)
    except OSError as err:
        raise DataError(f"cannot open {path!s}: {err.strerror or err}") from None


def _check_npz(path, limits: Limits | None) -> None:
    """The arrays' sizes as the archive declares them (what ``np.load`` inflates), within the upload limit
    (``limits``) and the memory available, before any is read."""
    try:
        with zipfile.ZipFile(path) as archive:
            inflated = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError) as err:
        raise DataError(f"cannot read {path!s} as a scipy.sparse .npz file: {err}") from None
    if limits is not None and inflated > limits.max_upload_mb * MB:
        from ..limits import over_limit

        raise DataLimitError(over_limit("max_upload_mb", f"the arrays of {path!s} decompress to {inflated / MB:,.0f} "
                                                         "MB", limits))
    check_memory(inflated, f"the arrays of {path!s}")


def read_sparse(path, y=None, positive=None, method: str = "mean-std", feature_names=None,
                limits: Limits | None = None) -> SparseDataset:
    """A sparse sample from a file: ``.npz`` written by ``scipy.sparse.save_npz`` (the target as ``y``, or as an
    array ``y`` stored in the same file) or else an svmlight / libsvm file (:func:`read_svmlight`). The stored
    index arrays are checked before any conversion (module docstring)."""
    if not str(path).endswith(".npz"):
        if y is not None:
            raise ParameterError("an svmlight file carries its own labels; pass y only with a .npz file")
        return read_svmlight(path, positive=positive, method=method, limits=limits)
    _check_file(path, limits)
    _check_npz(path, limits)
    try:
        with np.load(path, allow_pickle=False) as stored:
            kept = stored["y"] if "y" in stored.files else None
        X = sp.load_npz(path)
    except (ValueError, OSError, KeyError, OverflowError, zipfile.BadZipFile) as err:
        raise DataError(f"cannot read {path!s} as a scipy.sparse .npz file: {err}") from None
    if y is None:
        if kept is None:
            raise DataError(f"{path!s} holds no target array 'y'; pass y=")
        y = kept
    return from_sparse(X, y, feature_names=feature_names, positive=positive, method=method, limits=limits)


__all__ = ["read_sparse", "read_svmlight"]
