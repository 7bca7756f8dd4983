"""EncodedDataset: a sample as integer feature codes and class indices, ready for counting."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..errors import DataError, ParameterError
from ..tables import CodedSource, readonly
from .discretize import raw_matrix


class EncodedDataset(CodedSource):
    """A discretised sample: ``X`` (m x n int codes), ``y`` (class index per row), ``labels``.

    ``plan`` is the :class:`fslab.data.plan.TablePlan` the codes follow (how each column was read, left out,
    coded and estimated), for a dataset discretised from a table.

    Binary targets have ``labels == [0, 1]`` with 1 the positive class; ``class_names`` keeps the
    original class values (``class_names[1]`` is the positive one). Multiclass targets keep all
    classes; a real-valued target keeps its distinct values as ``labels`` (for the squared error).

    ``categories[j]`` names the values of feature j (a category or a bin such as ``[1.2, 3.4)``);
    ``values`` is the raw numeric matrix (float; NaN for text and missing cells) when some column's codes
    are not an affine image of its values (the Fisher score needs it), else None. It is built on first use
    from the raw source given as ``values=`` (an array, kept as a read-only view without a copy, or the features
    frame, kept by reference and only read).

    A frozen record (see :class:`~fslab.tables.CodedSource`): one shipped sample is shared by every session of
    the app, so nothing may change it. Every derivation is a :meth:`replace`: :meth:`subsample`,
    :meth:`keep_features`, ``replace(notes=...)``, ``replace(values=None)``.
    """

    y: np.ndarray  # a sample: always class indices
    class_names: tuple[str, ...]
    categories: tuple[tuple[str, ...], ...] | None
    notes: tuple[str, ...]
    _raw: np.ndarray | pd.DataFrame | None
    plan: object   # the fslab.data.plan.TablePlan the codes follow (None for arrays built directly)

    def __init__(self, X, y, *, labels=None, feature_names=None, arities=None, class_names=None,
                 categories=None, values=None, target: str = "y", task: str | None = None,
                 notes: tuple[str, ...] = (), plan=None):
        X = np.asarray(X)
        if X.ndim != 2:
            raise DataError(f"X needs a 2-d array (rows x features); got shape {X.shape}")
        y = np.asarray(y, dtype=np.int64)
        if labels is None:
            labels = np.arange(int(y.max()) + 1 if y.size else 0)
        labels = np.asarray(labels)
        if arities is None:
            arities = X.max(axis=0) + 1 if X.size else np.ones(X.shape[1], dtype=np.int64)
        super().__init__(X, arities, labels, y=y, feature_names=feature_names)
        if values is not None and not isinstance(values, pd.DataFrame):
            values = readonly(np.asarray(values))
            if values.shape != self.X.shape:
                raise DataError(f"values need the shape of X {self.X.shape}; got {values.shape}")
        if task is None:
            task = "binary" if len(labels) == 2 else "multiclass"
        self._set(class_names=tuple(str(c) for c in (class_names if class_names is not None else labels)),
                  categories=tuple(tuple(str(v) for v in c) for c in categories) if categories is not None else None,
                  _raw=values, target=target, task=task, notes=tuple(notes), plan=plan)

    def _fields(self) -> dict:
        return {"X": self.X, "y": self.y, "labels": self.labels, "feature_names": self.feature_names,
                "arities": self.arities, "class_names": self.class_names, "categories": self.categories,
                "values": self._raw, "target": self.target, "task": self.task, "notes": self.notes,
                "plan": self.plan}

    @property
    def values(self) -> np.ndarray | None:
        """Raw numeric values (float32 when the source's integers are exact there, else float64), or None.

        Built on each access from the raw source (not kept: a float copy of a wide table is large); test
        :attr:`has_values` to ask whether there are any without building them.
        """
        return raw_matrix(self._raw)

    @property
    def has_values(self) -> bool:
        """True when raw values are kept (some column's codes are not its values minus a constant)."""
        return self._raw is not None

    @property
    def shape(self) -> tuple[int, int]:
        return self.X.shape

    def positive_rate(self) -> float:
        """Fraction of rows in the positive class (class index 1) of a binary target."""
        return float(np.mean(self.y == 1)) if self.task == "binary" else float("nan")

    def subsample(self, rows: np.ndarray) -> EncodedDataset:
        """The same dataset on the given rows (with repeats, as a bootstrap resample)."""
        rows = np.asarray(rows)
        return self.replace(X=self.X[rows], y=self.y[rows],
                            values=None if self._raw is None else _take_rows(self._raw, rows))

    def keep_features(self, columns: Sequence[int]) -> EncodedDataset:
        """The same rows with only the feature columns ``columns`` (indices, in the order given): codes, arities,
        names, categories and raw values alike."""
        cols = np.asarray([int(j) for j in columns], dtype=np.int64)
        if len(set(cols.tolist())) != cols.size or np.any((cols < 0) | (cols >= self.n_features)):
            raise ParameterError(f"columns must be distinct feature indices in 0 .. {self.n_features - 1}; "
                                 f"got {cols.tolist()}")
        pick = lambda seq: None if seq is None else tuple(seq[j] for j in cols)  # noqa: E731
        return self.replace(X=self.X[:, cols], arities=self.arities[cols], feature_names=pick(self.feature_names),
                            categories=pick(self.categories),
                            values=None if self._raw is None else _take_columns(self._raw, cols))

    def discretize(self, *args, **kwargs) -> EncodedDataset:
        """Already encoded: returns itself, so an EncodedDataset can stand wherever a Dataset can."""
        return self


def _take_rows(raw, rows: np.ndarray):
    return raw.iloc[rows].reset_index(drop=True) if isinstance(raw, pd.DataFrame) else raw[rows]


def _take_columns(raw, cols: np.ndarray):
    return raw.iloc[:, cols] if isinstance(raw, pd.DataFrame) else raw[:, cols]
