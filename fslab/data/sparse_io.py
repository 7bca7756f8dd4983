"""Reading sparse samples from files: svmlight / libsvm text (scikit-learn's reader) and scipy.sparse .npz."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..errors import DataError, ParameterError
from .sparse import SparseDataset, from_sparse


def read_svmlight(path, positive=None, n_features: int | None = None, method: str = "mean-std",
                  zero_based="auto") -> SparseDataset:
    """An svmlight / libsvm file (``label index:value ...``, the format of a9a and many text sets) as a
    :class:`SparseDataset`, read by scikit-learn's ``load_svmlight_file``; features are named by their index in
    the file (``f1``, ``f2``, ... for one-based files)."""
    from sklearn.datasets import load_svmlight_file

    auto = zero_based == "auto"  # scikit-learn's rule: one-based unless some index is 0
    try:
        X, y = load_svmlight_file(str(path), n_features=None if n_features is None else n_features + auto,
                                  zero_based=True if auto else zero_based)
    except (ValueError, OSError) as err:
        raise DataError(f"cannot read {path!s} as svmlight / libsvm: {err}") from err
    first = 0 if zero_based is True else 1
    if auto:
        X = sp.csc_matrix(X)
        if X.shape[1] and X.indptr[1] == 0:  # no index 0: one-based, so column 0 is not a feature
            X = X[:, 1:]
        else:
            first = 0
            X = X[:, :n_features] if n_features is not None else X
    names = [f"f{j + first}" for j in range(X.shape[1])]
    return from_sparse(X, y, feature_names=names, positive=positive, method=method)


def read_sparse(path, y=None, positive=None, method: str = "mean-std", feature_names=None) -> SparseDataset:
    """A sparse sample from a file: ``.npz`` written by ``scipy.sparse.save_npz`` (the target as ``y``, or as an
    array ``y`` stored in the same file) or else an svmlight / libsvm file (:func:`read_svmlight`)."""
    if not str(path).endswith(".npz"):
        if y is not None:
            raise ParameterError("an svmlight file carries its own labels; pass y only with a .npz file")
        return read_svmlight(path, positive=positive, method=method)
    try:
        with np.load(path, allow_pickle=False) as stored:
            kept = stored["y"] if "y" in stored.files else None
        X = sp.load_npz(path)
    except (ValueError, OSError, KeyError) as err:
        raise DataError(f"cannot read {path!s} as a scipy.sparse .npz file: {err}") from err
    if y is None:
        if kept is None:
            raise DataError(f"{path!s} holds no target array 'y'; pass y=")
        y = kept
    return from_sparse(X, y, feature_names=feature_names, positive=positive, method=method)


__all__ = ["read_sparse", "read_svmlight"]
