"""Dataset: a validated table with a named target, its raw values kept, ready to be discretised.

Conventions (DESIGN.md): a binary target becomes y in {0, 1} with 1 the positive class the user
named; with no ``positive`` the default is a value that reads as "yes" (1, true, yes, +1, positive)
or else the less frequent class, and a note says which. A multiclass target keeps its classes unless
``positive`` is given (then one-vs-rest). A numeric target with more than
``REGRESSION_MIN_DISTINCT`` distinct values is real-valued (task "regression", for the squared error).
Rows with a missing target are dropped and counted in a note.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import DataError
from ..limits import check_memory, deprecated_limits
from .column_stats import ColumnStats
from .csv_io import read_table
from .data_checks import (
    BinaryFileError,
    DataLimitError,
    DuplicateColumnError,
    EmptyFileError,
    InfiniteValueError,
    Limits,
    MalformedFileError,
    NoHeaderError,
    TargetClassError,
    UnknownTargetError,
    check_field,
    check_finite,
    check_names,
    check_size,
    column_stats,
    profile,
    profile_column,
)
from .discretize import check_method, distinct_values, encode_frame, numeric_values, value_name
from .encoded import EncodedDataset

REGRESSION_MIN_DISTINCT = 20
POSITIVE_WORDS = ("1", "true", "yes", "y", "+1", "positive", "pos")
TASKS = ("binary", "multiclass", "regression")


@dataclass(frozen=True)
class Target:
    """An encoded target: class index per row, labels, class names, task and how it was chosen."""

    y: np.ndarray
    labels: np.ndarray
    class_names: tuple[str, ...]
    task: str
    positive: str | None
    notes: tuple[str, ...]


def _listed(names, limit: int = 10) -> str:
    names = [repr(n) for n in names]
    return ", ".join(names[:limit]) + (f", ... ({len(names)} in all)" if len(names) > limit else "")


def encode_target(column: pd.Series, name: str, positive=None) -> Target:
    """Class indices of a target column with no missing values (see the module docstring for the rules)."""
    values = numeric_values(column)
    if values is not None:
        check_finite(name, values)
        uniques, rank, _ = distinct_values(values)
        names = [value_name(v) for v in uniques]
    else:
        text = column.astype(str).str.strip().to_numpy(dtype=object)
        uniques, rank = np.unique(text, return_inverse=True)
        names = [str(u) for u in uniques]
    if len(names) < 2:
        raise TargetClassError(
            f"target {name!r} has only one class ({_listed(names)}); feature selection needs at least two. "
            "Choose another target column."
        )
    counts = np.bincount(rank, minlength=len(names))
    if positive is not None:
        pos = str(positive).strip()
        hits = [i for i, n in enumerate(names) if n == pos]
        if not hits and values is not None:
            try:
                hits = [i for i, v in enumerate(uniques) if v == float(pos)]
            except ValueError:
                hits = []
        if not hits:
            raise TargetClassError(
                f"positive class {pos!r} does not occur in target {name!r}; its values are {_listed(names)}"
            )
        p = hits[0]
        if len(names) == 2:
            notes = (f"Positive class: {names[p]!r} ({counts[p] / counts.sum():.1%} of rows).",)
            class_names = (names[1 - p], names[p])
        else:
            notes = (f"Target {name!r} has {len(names)} classes; {names[p]!r} is the positive class and the "
                     f"other {len(names) - 1} together are the negative class (one-vs-rest).",)
            class_names = (f"not {names[p]}", names[p])
        return Target((rank == p).astype(np.int64), np.array([0, 1]), class_names, "binary", names[p], notes)
    if values is not None and len(names) > REGRESSION_MIN_DISTINCT:
        note = (f"Target {name!r} has {len(names)} distinct numbers, so it is treated as real-valued "
                "(regression): the squared-error measure applies. Name a positive class to make it binary.")
        return Target(rank.astype(np.int64), uniques.astype(np.float64), tuple(names), "regression", None, (note,))
    if len(names) > 2:
        note = (f"Target {name!r} has {len(names)} classes ({_listed(names)}); measures for two classes need "
                "a positive class (one-vs-rest).")
        # Labels are the class values: numbers stay numbers (the squared error needs them), text stays text
        # (so the squared error refuses it instead of treating class numbers as values).
        labels = uniques.astype(np.float64) if values is not None else np.asarray(names)
        return Target(rank.astype(np.int64), labels, tuple(names), "multiclass", None, (note,))
    words = [i for i, n in enumerate(names) if n.lower() in POSITIVE_WORDS]
    if len(words) == 1:
        p, why = words[0], "a usual name for the positive class"
    else:
        p, why = (0, "the less frequent class") if counts[0] < counts[1] else (1, "the less frequent class")
    note = (f"Positive class: {names[p]!r} ({why}, {counts[p] / counts.sum():.1%} of rows); choose the other "
            f"class ({names[1 - p]!r}) if that is the one you care about.")
    return Target((rank == p).astype(np.int64), np.array([0, 1]), (names[1 - p], names[p]), "binary", names[p],
                  (note,))


@dataclass(frozen=True, eq=False)
class Dataset:
    """A validated table: raw feature columns, the encoded target, per-column summary and messages.

    ``notes`` say what was done (delimiter, dropped rows, positive class); ``warnings`` flag columns
    that are kept but deserve a look (constant, all missing, ID-like, numbers stored as text).
    """

    features: pd.DataFrame
    target: str
    target_values: pd.Series
    encoded_target: Target
    columns: pd.DataFrame
    notes: tuple[str, ...]
    warnings: tuple[str, ...]
    array: np.ndarray | None = field(default=None, repr=False)   # the features as one numeric array (no copy)
    stats: ColumnStats | None = field(default=None, repr=False)  # numeric columns' statistics, for discretize

    @classmethod
    def from_frame(cls, df: pd.DataFrame, target: str, positive=None, limits: Limits | None = None) -> Dataset:
        """Validate ``df`` and encode its ``target`` column; every other column is a feature.

        ``limits``: None (the library's default) applies no size caps; the app and the command line pass
        ``fslab.limits.server_limits()`` (see :mod:`fslab.limits`).
        """
        if not isinstance(df, pd.DataFrame):
            raise DataError(f"expected a pandas DataFrame; got {type(df).__name__}")
        names = check_names(df.columns)
        if df.shape[0] == 0 or df.shape[1] == 0:
            raise EmptyFileError(f"the table is empty ({df.shape[0]} rows x {df.shape[1]} columns)")
        check_size(df.shape[0], df.shape[1], limits)
        longest = max(names, key=len)
        check_field(f"column name {longest[:40]!r}...", len(longest), limits)
        key = str(target).strip() if target is not None else ""
        if key not in names:
            raise UnknownTargetError(f"target column {key!r} is not in the data; the columns are {_listed(names)}")
        if len(names) < 2:
            raise DataError(f"the data has only the target column {key!r}; it needs at least one feature column")
        frame = df.set_axis(list(names), axis=1)
        features = frame.drop(columns=[key])
        features.attrs = {}
        notes = tuple(df.attrs.get("fslab_notes", ()))
        return cls._build(features, frame[key], key, positive, notes, tuple(df.attrs.get("fslab_warnings", ())),
                          single_block(features))

    @classmethod
    def _build(cls, features: pd.DataFrame, target_column: pd.Series, key: str, positive, notes: tuple[str, ...],
               warnings: tuple[str, ...], array: np.ndarray | None = None) -> Dataset:
        """Drop rows with a missing target, encode the target, profile the features (shared by both loaders)."""
        notes = list(notes)
        target_info = profile_column(key, target_column)
        missing = target_column.isna().to_numpy()
        if missing.all():
            raise TargetClassError(f"target {key!r} is missing in every row; choose another target column")
        if missing.any():
            keep = ~missing
            features = features.loc[keep].reset_index(drop=True)
            target_column = target_column.loc[keep].reset_index(drop=True)
            array = None if array is None else array[keep]
            if array is not None:
                features = pd.DataFrame(array, columns=features.columns, copy=False)
            notes.append(f"{int(missing.sum())} row(s) with a missing target were dropped; {len(features)} remain.")
        encoded = encode_target(target_column, key, positive)
        stats = column_stats(features, array)
        table, flags = profile(features, array, stats)
        target_row = {k: v for k, v in target_info.items() if k != "_sentences"} | {"flags": ""}
        table = pd.concat([pd.DataFrame([target_row]), table], ignore_index=True)
        table.insert(1, "role", ["target"] + ["feature"] * (len(table) - 1))
        return cls(features, key, target_column, encoded, table, tuple(notes) + encoded.notes, warnings + flags,
                   array, stats)

    @staticmethod
    def from_dask(frame, target, positive=None, method: str = "mean-std", bins: int = 3):
        """Partitioned data on a Dask cluster as a table source (``fslab.distributed.from_dask``): a
        ``dask.dataframe.DataFrame`` and its target column, or a ``dask.array`` pair ``(X, y)``; codes as
        ``from_frame(...).discretize(method, bins)``, counted on the workers. Needs ``pip install fslab[dask]``."""
        from .distributed import from_dask

        return from_dask(frame, target, positive=positive, method=method, bins=bins)

    @classmethod
    def from_arrays(cls, X, y, feature_names=None, positive=None, target: str = "y",
                    limits: Limits | None = None) -> Dataset:
        """A Dataset from a 2-d array of features and a 1-d array of targets.

        A numeric ``X`` is not copied: the dataset, its profile and its discretisation read it in blocks of
        columns (so do not change ``X`` afterwards). ``limits`` as in :meth:`from_frame`.
        """
        X, y = np.asarray(X), np.asarray(y)
        if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
            raise DataError(f"need X of shape (rows, features) and y of shape (rows,); got {X.shape} and {y.shape}")
        names = list(feature_names) if feature_names is not None else [f"X{j + 1}" for j in range(X.shape[1])]
        if len(names) != X.shape[1]:
            raise DataError(f"need one name per feature: {X.shape[1]} features, {len(names)} names")
        if str(target).strip() in {str(n).strip() for n in names}:
            raise DuplicateColumnError(f"the target name {target!r} is also a feature name; pass another target=")
        if X.dtype.kind not in "biuf" or X.size == 0:   # text or object arrays: the general path
            frame = pd.DataFrame(X, columns=names)
            frame[target] = y
            return cls.from_frame(frame, target, positive=positive, limits=limits)
        names = check_names(names)
        check_size(X.shape[0], X.shape[1] + 1, limits)
        longest = max(names, key=len)
        check_field(f"column name {longest[:40]!r}...", len(longest), limits)
        key = str(target).strip()
        features = pd.DataFrame(X, columns=list(names), copy=False)
        return cls._build(features, pd.Series(y, name=key), key, positive, (), (), X)

    @property
    def messages(self) -> tuple[str, ...]:
        """Every note (what was done) and warning (flagged columns), as plain sentences."""
        return self.notes + self.warnings

    @property
    def feature_names(self) -> tuple[str, ...]:
        # tolist(): iterating a pyarrow-backed string index costs ~10x more (1.4 ms for PCMAC's 3,289 names)
        return tuple(self.features.columns.tolist())

    @property
    def n_rows(self) -> int:
        return self.features.shape[0]

    @property
    def n_features(self) -> int:
        return self.features.shape[1]

    @property
    def shape(self) -> tuple[int, int]:
        return self.features.shape

    @property
    def task(self) -> str:
        return self.encoded_target.task

    @property
    def positive(self) -> str | None:
        return self.encoded_target.positive

    @property
    def y(self) -> np.ndarray:
        return self.encoded_target.y

    def to_frame(self) -> pd.DataFrame:
        """Features and the raw target column as one table, so it can be re-targeted like an upload."""
        frame = self.features.copy()
        frame[self.target] = self.target_values.to_numpy()
        frame.attrs = {}
        return frame

    def flags(self) -> dict[str, str]:
        """Flags of the columns that have any: {column: "constant, ID-like", ...}."""
        return {r.column: r.flags for r in self.columns.itertuples() if r.flags}

    def summary(self) -> pd.DataFrame:
        """Per column: role, type, distinct (non-missing) values, missing count, flags."""
        return self.columns.copy()

    def class_balance(self) -> pd.DataFrame:
        """Rows per class (class index order; for a binary target the last row is the positive class)."""
        t = self.encoded_target
        counts = np.bincount(t.y, minlength=len(t.class_names))
        return pd.DataFrame({"class": list(t.class_names), "count": counts, "fraction": counts / counts.sum(),
                             "positive": [t.task == "binary" and i == 1 for i in range(len(counts))]})

    def positive_rate(self) -> float:
        """Fraction of rows in the positive class (binary targets; NaN otherwise)."""
        return float(np.mean(self.y == 1)) if self.task == "binary" else float("nan")

    def discretize(self, method: str = "mean-std", bins: int = 3) -> EncodedDataset:
        """Integer codes of every feature (see :mod:`fslab.discretize`), with the target and notes."""
        enc = encode_frame(self.features, method, bins, array=self.array, stats=self.stats,
                           check_memory=check_memory)
        t = self.encoded_target
        return EncodedDataset(
            enc.X, t.y, labels=t.labels, feature_names=self.feature_names, arities=enc.arities,
            class_names=t.class_names, categories=enc.categories, values=enc.raw, target=self.target,
            task=t.task, notes=self.messages + enc.notes,
        )


def single_block(frame: pd.DataFrame) -> np.ndarray | None:
    """The frame's values as one numeric array without a copy (a view of its one block), or None."""
    dtypes = set(frame.dtypes)
    if len(dtypes) != 1 or not isinstance(next(iter(dtypes)), np.dtype) or next(iter(dtypes)).kind not in "biuf":
        return None
    values = frame.to_numpy()
    return values if frame.shape[1] and np.shares_memory(values, frame.iloc[:, 0].to_numpy()) else None


def read_csv(path_or_buffer, target: str, positive=None, limits: Limits | None = None) -> Dataset:
    """Read a delimited text file (path, bytes or upload) and validate it as a Dataset.

    ``limits``: None (the library's default) applies no size caps; the app passes ``server_limits()``."""
    return Dataset.from_frame(read_table(path_or_buffer, limits=limits), target, positive=positive, limits=limits)


__all__ = [
    "BinaryFileError", "DataLimitError", "Dataset", "DuplicateColumnError", "EmptyFileError",
    "InfiniteValueError", "Limits", "MalformedFileError", "NoHeaderError", "Target", "TargetClassError",
    "UnknownTargetError", "check_method", "encode_target", "read_csv", "read_table",
]
__getattr__ = deprecated_limits(__name__)  # LIMITS, the old re-export: server_limits() read on use
