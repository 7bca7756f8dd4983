"""Dataset: a validated table with a named target, its raw values kept, ready to be discretised.

Conventions (DESIGN.md): a binary target becomes y in {0, 1} with 1 the positive class the user
named; with no ``positive`` the default is a value that reads as "yes" (1, true, yes, +1, positive)
or else the less frequent class, and a note says which. A multiclass target keeps its classes unless
``positive`` is given (then one-vs-rest). A numeric target with more than
``REGRESSION_MIN_DISTINCT`` distinct values is real-valued (task "regression", for the squared error).
Rows with a missing target are dropped and counted in a note.

A user's table (``from_frame``, ``read_csv``) is read as a person reads it, by the table's plan
(:mod:`fslab.data.plan`, kept as ``.plan``; :mod:`fslab.data.column_types`): dates, percentages, numbers with
units or separators and yes/no text become numbers, near-unique columns (IDs, row numbers, free text) and
constant or empty columns are left out with a warning (also a ``UserWarning``), outliers that stretch the
mean-std bins are flagged, and missing feature values are counted; ``column_types=`` overrides the reading of
any column, ``dayfirst=True`` reads ambiguous dates day-first, ``constant="keep"`` keeps constant columns,
``missing="drop"`` drops the rows with a missing feature value instead of coding "missing" as a level of its
own. ``from_arrays`` on numeric arrays keeps every column (an array has no types; near-unique
columns are flagged), unless ``near_unique="drop"``.
"""

from __future__ import annotations

import warnings as _warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import numpy as np
import pandas as pd

from ..errors import DataError
from ..limits import check_memory
from .column_stats import ColumnStats, NumericSource
from .column_types import TYPES as COLUMN_TYPES
from .column_types import ColumnType, ColumnTypeError, check_column_types, column_type, id_message
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
    check_names,
    check_size,
    column_stats,
    outlier_notes,
    profile,
    profile_column,
)
from .discretize import check_method, encode_frame, value_name
from .encoded import EncodedDataset
from .plan import PlanOptions, TablePlan, TableSummary, apply, decide, left_out_message, summarize, summarize_numbers
from .target import (  # noqa: F401
    POSITIVE_WORDS,
    REGRESSION_MIN_DISTINCT,
    TASKS,
    Target,
    _listed,
    encode_target,
    split_target,
)

if TYPE_CHECKING:
    from .sparse import SparseDataset

MISSING_RULES = ("level", "drop")
NEAR_UNIQUE_RULES = ("drop", "keep")
CONSTANT_RULES = ("drop", "keep")


@dataclass(frozen=True, eq=False)
class Dataset:
    """A validated table: raw feature columns, the encoded target, per-column summary and messages.

    ``notes`` say what was done (delimiter, dropped rows, positive class, columns read as dates or numbers,
    missing values); ``warnings`` flag what deserves a look (near-unique columns left out, constant, all missing,
    ID-like, numbers stored as text, outliers). ``column_types`` says how each column of the table was read
    (:class:`fslab.data.column_types.ColumnType`), ``left_out`` names the near-unique columns that were left out.
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
    column_types: tuple[ColumnType, ...] = field(default=(), repr=False)   # how each column was read
    left_out: tuple[str, ...] = ()   # near-unique columns left out of the features (see column_types)
    text_codes: dict = field(default_factory=dict, repr=False)   # the column typing's hashing of text columns
    # (TypedFrame.text_codes; empty once rows were dropped), reused by discretize
    plan: TablePlan | None = field(default=None, repr=False)   # how the table was read and left out
    # (fslab.data.plan); discretize records its coding in the encoded dataset's plan
    binning: str = "auto"   # discretize()'s method when none is given: robust bins for a user's table, "mean-std"
    # for the papers' samples (kept through to_frame as attrs["fslab_binning"])
    outliers: tuple[str, ...] | None = field(default=None, repr=False)   # the outlier sentences among warnings,
    # for ``binning`` (None: not checked, as for arrays); discretize(method) says those of its method instead

    @classmethod
    def from_frame(cls, df: pd.DataFrame, target: str, positive=None, limits: Limits | None = None, *,
                   column_types: dict[str, str] | None = None, missing: str = "level",
                   near_unique: str = "drop", dayfirst: bool = False, constant: str | None = None,
                   target_split=None, binning: str | None = None) -> Dataset:
        """Validate ``df`` and encode its ``target`` column; every other column is a feature, read as a person
        reads it by the table's plan (see the module docstring and :mod:`fslab.data.plan`; ``.plan`` holds it).

        ``limits``: None (the library's default) applies no size caps; the app and the command line pass
        ``fslab.limits.server_limits()`` (see :mod:`fslab.limits`).
        ``column_types``: {column: type} with type one of ``auto``, ``number``, ``date``, ``percent``,
        ``boolean``, ``category`` (keep as text levels), ``drop`` (leave out); a given type that does not fit
        the values raises :class:`ColumnTypeError` (column, first bad data row, value). Any given type keeps a
        near-unique column. ``missing``: "level" (a missing value is a code of its own, "missing") or "drop"
        (rows with a missing feature value are dropped, with a note). ``near_unique``: "drop" (the default:
        IDs, row numbers and free text are left out, with a warning and a ``UserWarning``) or "keep".
        ``dayfirst``: read dates whose day and month fit both orders (03/04/2021) day-first (the default reads
        them month-first, and says so). ``constant``: "drop" (the default: a column with one value in every row,
        missing aside, or none at all, is left out with a warning) or "keep" (the default for a frame made by
        :meth:`to_frame` of a dataset that kept them, such as a sample). ``target_split``: None (the default: a
        numeric target with many values is real-valued, task "regression") or how to cut a numeric target into
        classes (:func:`fslab.data.target.split_target`): "median" (``target > median`` is the positive class; a
        value equal to the median goes below), a number t (``target > t``), or ("quantiles", q) for q = 2..5
        quantile classes; a note says the threshold or cut points, and the split target is ``target_values``.
        ``binning``: the method :meth:`discretize` uses when given none (:data:`fslab.data.discretize.METHODS`):
        None (the default) is the frame's ``attrs["fslab_binning"]`` (a sample's "mean-std", set by
        :meth:`to_frame`), else "auto", robust bins for a user's table.
        """
        df = as_pandas(df)
        constant = constant or str(df.attrs.get("fslab_constant", "drop"))
        binning = check_method(binning or str(df.attrs.get("fslab_binning", "auto")), 3)[0]
        check_rules(missing, near_unique, constant)
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
        if column_types and key in {str(c).strip() for c in column_types}:
            raise ColumnTypeError(f"column_types names the target {key!r}; types apply to feature columns")
        given = check_column_types(column_types, [n for n in names if n != key])
        notes = list(df.attrs.get("fslab_notes", ()))
        target_column = frame[key]
        target_missing = target_column.isna().to_numpy()
        if target_missing.all():
            raise TargetClassError(f"target {key!r} is missing in every row; choose another target column")
        if target_missing.any():
            frame = frame.loc[~target_missing].reset_index(drop=True)
            target_column = frame[key]
            notes.append(f"{int(target_missing.sum())} row(s) with a missing target were dropped; "
                         f"{len(frame)} remain.")
        if target_split is not None:   # a numeric target cut into classes, before the plan reads the target
            cut = split_target(target_column, key, target_split)
            frame = frame.assign(**{key: cut.labels})
            target_column = frame[key]
            notes.append(cut.note)
            positive = cut.positive if positive is None else positive
        raw = frame.drop(columns=[key])
        raw.attrs = {}
        stats = column_stats(raw)
        cache: dict = {}
        summary = summarize(raw, stats=stats, cache=cache, moments=False)
        whole = TableSummary(summary.columns + summarize(frame[[key]], key).columns, key, len(df),
                             int(target_missing.sum()))
        options = PlanOptions.of(given, dayfirst=bool(dayfirst), missing=missing, near_unique=near_unique,
                                 constant=constant, positive=None if positive is None else str(positive))
        plan = decide(whole, options)
        text_codes: dict = {}
        features = apply(plan, raw, cache, text_codes)
        features.attrs = {}
        same = features is raw or (list(features.columns) == list(raw.columns) and
                                   all(a is b for a, b in zip(features.dtypes, raw.dtypes, strict=True)))
        notes += [c.message for c in plan.columns if c.message]
        return cls._build(features, target_column, key, positive, notes, tuple(df.attrs.get("fslab_warnings", ())),
                          single_block(features), plan=plan, user=True, missing=missing,
                          stats=stats if same and not any(c.rule for c in plan.kept) else None,
                          text_codes=text_codes, binning=binning)

    @classmethod
    def _build(cls, features: pd.DataFrame, target_column: pd.Series, key: str, positive,
               notes: tuple[str, ...] | list[str],
               warnings: tuple[str, ...], array: np.ndarray | None = None, *, plan: TablePlan | None = None,
               user: bool = False, missing: str = "level", near_unique: str = "keep",
               stats: ColumnStats | None = None, text_codes: dict | None = None, binning: str = "auto") -> Dataset:
        """Drop rows with a missing target, encode the target, leave out what the plan leaves out (for arrays,
        numeric IDs when asked), handle missing feature values, profile the features (shared by both loaders;
        ``plan`` made by ``from_frame`` for a user's table, ``user``: a user's table)."""
        notes = list(notes)
        warnings = tuple(warnings)
        target_info = profile_column(key, target_column)
        target_missing = target_column.isna().to_numpy()
        if target_missing.all():
            raise TargetClassError(f"target {key!r} is missing in every row; choose another target column")
        if target_missing.any():
            keep = ~target_missing
            features, target_column, array = _rows(features, target_column, array, keep)
            stats = None
            notes.append(f"{int(target_missing.sum())} row(s) with a missing target were dropped; "
                         f"{len(features)} remain.")
        encoded = encode_target(target_column, key, positive)
        stats = column_stats(features, array) if stats is None else stats
        if plan is None:   # arrays: every column numeric; numeric IDs left out only when asked
            whole = TableSummary(tuple(summarize_numbers(features, stats, moments=False)), None, len(features))
            plan = decide(whole, PlanOptions(near_unique=near_unique, constant="keep"))
            if plan.left_out:
                if len(plan.kept) == 0:
                    plan = decide(whole, PlanOptions(near_unique="keep", constant="keep"))
                else:
                    features = features[[c.name for c in plan.kept]]
                    array = single_block(features)
                    stats = column_stats(features, array)
        elif len(plan.kept) == 0:
            raise DataError("every feature column was left out (near-unique, constant, empty or dropped as asked); "
                            "keep one with column_types={name: 'category'}, near_unique='keep' or constant='keep'")
        types = [column_type(c) for c in plan.columns] if user else \
            [column_type(c) for c in plan.columns if c.left_out]
        near = [c for c in plan.columns if c.left_out == "near-unique"]
        said = []
        if near:
            said.append(id_message([c.name for c in near], {c.name: c.why for c in near}))
        for reason in ("constant", "all missing"):
            gone = [c.name for c in plan.columns if c.left_out == reason]
            if gone:
                said.append(left_out_message(reason, gone))
        for sentence in said:
            warnings += (sentence,)
            _warnings.warn(sentence, UserWarning, stacklevel=3)
        left_out = tuple(c.name for c in plan.columns if c.left_out and c.left_out != "asked")
        if user:
            counted = _missing_counts(features, stats)
            if counted and missing == "drop":
                rows = features.isna().any(axis=1).to_numpy()
                if rows.all():
                    raise DataError("every row has a missing feature value, so missing='drop' leaves no data; "
                                    "use missing='level'")
                features, target_column, array = _rows(features, target_column, array, ~rows)
                encoded = encode_target(target_column, key, positive)
                stats = column_stats(features, array)
                text_codes = {}
                notes.append(f"{int(rows.sum())} row(s) with a missing feature value were dropped (missing='drop'; "
                             f"{_missing_text(counted, len(rows))}); {len(features)} remain.")
            elif counted:
                notes.append(f"Missing values: {_missing_text(counted, len(features))}. Each is a level of its own "
                             "('missing' in the coding table); missing='drop' (command line: --missing drop) "
                             "drops those rows instead.")
        text_codes = {c: v for c, v in (text_codes or {}).items() if c in features.columns}
        table, flags = profile(features, array, stats, text_codes)
        converted = {c.name for c in plan.kept if c.rule}
        if converted:   # a date or an amount read from text is a number, not an ID
            id_flags = tuple(f"Column {c!r} has a different value in every row" for c in converted)
            flags = tuple(f for f in flags if not f.startswith(id_flags))
            conv = table["column"].isin(list(converted)).to_numpy()
            table.loc[conv, "flags"] = table.loc[conv, "flags"].str.replace(r"(, )?ID-like", "", regex=True) \
                .str.lstrip(", ")
        outliers: tuple[str, ...] | None = None
        if user:   # far outliers under the default binning (discretize says them again for another)
            found = outlier_notes(features, array, stats, binning)
            if found:   # the flags as one list (a .at read per column costs ~40 us: 0.1 s at 2,500 columns)
                said_flags = table["flags"].tolist()
                table.loc[list(found), "flags"] = [
                    ", ".join(filter(None, [said_flags[j], found[j][0]])) for j in found]
            outliers = tuple(said for _, said in found.values())
            flags += outliers
        target_row = {k: v for k, v in target_info.items() if k != "_sentences"} | {"flags": ""}
        table = pd.concat([pd.DataFrame([target_row]), table], ignore_index=True)
        table.insert(1, "role", ["target"] + ["feature"] * (len(table) - 1))
        table = _with_types(table, types, features)
        return cls(features, key, target_column, encoded, table, tuple(notes) + encoded.notes, warnings + flags,
                   array, stats, tuple(types), left_out, text_codes, plan, binning, outliers)

    @staticmethod
    def from_dask(frame, target, positive=None, method: str | None = None, bins: int = 3, **options):
        """Partitioned data on a Dask cluster as a table source (:func:`fslab.data.dask_read.from_dask`, whose
        ``options`` it takes: ``near_unique``, ``max_levels``, ``persist``): a ``dask.dataframe.DataFrame`` and its
        target column, or a ``dask.array`` pair ``(X, y)``; codes as ``from_frame(...).discretize(method, bins)``,
        counted on the workers. Needs ``pip install fslab[dask]``."""
        from .dask_read import from_dask

        return from_dask(frame, target, positive=positive, method=method, bins=bins, **options)

    @classmethod
    def from_arrays(cls, X, y, feature_names=None, positive=None, target: str = "y",
                    limits: Limits | None = None, *, near_unique: str = "keep", binning: str = "auto"
                    ) -> Dataset | SparseDataset:
        """A Dataset from a 2-d array of features and a 1-d array of targets.

        A numeric ``X`` is not copied: the dataset, its profile and its discretisation read it in blocks of
        columns (so do not change ``X`` afterwards). ``limits`` as in :meth:`from_frame`. ``near_unique``: "keep"
        (the default: an array has no types, and a pipeline needs one output per input column; near-unique
        columns are flagged) or "drop" (whole-number or evenly spaced columns with a different value in every
        row are left out, found from the column statistics at no extra pass). Text arrays go through
        :meth:`from_frame`'s reading of column types. A scipy.sparse ``X`` gives a ``fslab.data.sparse.SparseDataset``,
        counted from its non-zeros and never densified. ``binning`` as in :meth:`from_frame` ("auto"; a sample passes
        "mean-std").
        """
        from .sparse import from_sparse, is_sparse

        if is_sparse(X):
            return from_sparse(X, y, feature_names=feature_names, positive=positive, target=target, limits=limits)
        X, y = np.asarray(X), np.asarray(y)
        if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
            raise DataError(f"need X of shape (rows, features) and y of shape (rows,); got {X.shape} and {y.shape}")
        names: list[str] | tuple[str, ...] = (list(feature_names) if feature_names is not None
                                              else [f"X{j + 1}" for j in range(X.shape[1])])
        if len(names) != X.shape[1]:
            raise DataError(f"need one name per feature: {X.shape[1]} features, {len(names)} names")
        if str(target).strip() in {str(n).strip() for n in names}:
            raise DuplicateColumnError(f"the target name {target!r} is also a feature name; pass another target=")
        if X.dtype.kind not in "biuf" or X.size == 0:   # text or object arrays: the general path
            frame = pd.DataFrame(X, columns=names)
            frame[target] = y
            return cls.from_frame(frame, target, positive=positive, limits=limits, near_unique=near_unique,
                                  binning=binning)
        names = check_names(names)
        check_size(X.shape[0], X.shape[1] + 1, limits)
        longest = max(names, key=len)
        check_field(f"column name {longest[:40]!r}...", len(longest), limits)
        key = str(target).strip()
        features = pd.DataFrame(X, columns=list(names), copy=False)
        check_rules("level", near_unique)
        return cls._build(features, pd.Series(y, name=key), key, positive, (), (), X, near_unique=near_unique,
                          binning=check_method(binning, 3)[0])

    @property
    def messages(self) -> tuple[str, ...]:
        """Every note (what was done) and warning (flagged columns), as plain sentences."""
        return self.notes + self.warnings

    def notes_for(self, method: str, bins: int = 3) -> tuple[str, ...]:
        """:attr:`messages` with the outlier sentences of the binning ``method`` (bins) in place of the default's
        (:func:`fslab.data.data_checks.outlier_notes`: what the outliers do to those bins)."""
        if self.outliers is None or (method, bins) == (self.binning, 3):
            return self.messages
        now = outlier_notes(self.features, self.array, self.stats, method, bins) if self.stats is not None else {}
        return tuple(m for m in self.messages if m not in self.outliers) + tuple(s for _, s in now.values())

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
        """Features and the raw target column as one table, so it can be re-targeted like an upload (its
        ``attrs["fslab_constant"]`` carries the constant-column rule it was loaded with: a sample keeps them;
        ``attrs["fslab_binning"]`` its default binning: a sample keeps mean-std)."""
        frame = self.features.copy()
        frame[self.target] = self.target_values.to_numpy()
        # a sample re-targeted keeps its constant columns: from_frame reads this unless told otherwise
        frame.attrs = {"fslab_constant": self.plan.options.constant if self.plan is not None else "keep",
                       "fslab_binning": self.binning}
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

    def discretize(self, method: str | None = None, bins: int = 3) -> EncodedDataset:
        """Integer codes of every feature (see :mod:`fslab.discretize`), with the target and notes. ``method``:
        one of :data:`fslab.data.discretize.METHODS`; None is :attr:`binning` ("auto", robust bins, for a user's
        table: mean-std, quantile where outliers crowd 90 % of a column's rows into one bin, said in the notes;
        "mean-std" for the papers' samples)."""
        method = self.binning if method is None else method
        enc = encode_frame(self.features, method, bins, array=self.array, stats=self.stats,
                           check_memory=check_memory, factorized=self.text_codes)
        t = self.encoded_target
        plan = None
        if self.plan is not None and len(self.plan.kept) == enc.X.shape[1]:
            plan = self.plan.with_coding(enc.kinds, enc.categories, method, bins, enc.edges, enc.levels,
                                         robust=enc.robust)
        return EncodedDataset(
            enc.X, t.y, labels=t.labels, feature_names=self.feature_names, arities=enc.arities,
            class_names=t.class_names, categories=enc.categories, values=enc.raw, target=self.target,
            task=t.task, notes=self.notes_for(method, bins) + enc.notes, plan=plan,
        )


_TABLE_LIBRARIES = ("polars", "pyarrow")   # tables that convert themselves with .to_pandas()


def as_pandas(table) -> pd.DataFrame:
    """A pandas DataFrame as it is; a polars DataFrame or a pyarrow Table (or RecordBatch) converted by its own
    ``to_pandas()`` (pyarrow's keeps nullable integers and categories as pandas reads them from parquet).
    Anything else is a DataError naming what was given."""
    if isinstance(table, pd.DataFrame):
        return table
    library = type(table).__module__.partition(".")[0]
    kind = f"{library}.{type(table).__name__}" if library in _TABLE_LIBRARIES else type(table).__name__
    if library == "polars" and type(table).__name__ == "LazyFrame":
        raise DataError("expected a table; got a polars LazyFrame: call .collect() on it first")
    if library not in _TABLE_LIBRARIES or not callable(getattr(table, "to_pandas", None)):
        raise DataError(f"expected a pandas DataFrame, a polars DataFrame or a pyarrow Table; got {kind}")
    try:
        frame = table.to_pandas()
    except (ImportError, ValueError, TypeError, NotImplementedError, ArithmeticError) as err:
        raise DataError(f"could not convert the {kind} to a pandas DataFrame: {str(err)[:200]}") from None
    if not isinstance(frame, pd.DataFrame):
        raise DataError(f"expected a table; the {kind} converted to {type(frame).__name__}, not a DataFrame")
    return frame


def check_rules(missing: str, near_unique: str, constant: str = "drop") -> None:
    if missing not in MISSING_RULES:
        raise DataError(f"missing must be one of {', '.join(MISSING_RULES)}; got {missing!r}")
    if near_unique not in NEAR_UNIQUE_RULES:
        raise DataError(f"near_unique must be one of {', '.join(NEAR_UNIQUE_RULES)}; got {near_unique!r}")
    if constant not in CONSTANT_RULES:
        raise DataError(f"constant must be one of {', '.join(CONSTANT_RULES)}; got {constant!r}")


def _rows(features: pd.DataFrame, target_column: pd.Series, array: np.ndarray | None, keep: np.ndarray):
    """The rows ``keep`` of the features, the target and the array (one block again when there was one)."""
    target_column = target_column.loc[keep].reset_index(drop=True)
    if array is not None:
        array = array[keep]
        return pd.DataFrame(array, columns=features.columns, copy=False), target_column, array
    return features.loc[keep].reset_index(drop=True), target_column, None


def _missing_counts(features: pd.DataFrame, stats: ColumnStats) -> dict[str, int]:
    """{column: missing count} of the feature columns with any (numeric ones from the statistics)."""
    source = NumericSource.of(features, None)
    counts = np.zeros(features.shape[1], dtype=np.int64)
    if source.n_columns == stats.n_missing.size:
        counts[source.positions] = stats.n_missing
    text = np.setdiff1d(np.arange(features.shape[1]), source.positions)
    for j in text:
        counts[j] = int(features.iloc[:, j].isna().sum())
    return {str(features.columns[j]): int(counts[j]) for j in np.flatnonzero(counts)}


def _missing_text(counted: dict[str, int], n_rows: int) -> str:
    items = list(counted.items())
    shown = ", ".join(f"{name!r} {k} ({k / max(n_rows, 1):.1%})" for name, k in items[:10])
    return shown + (f", ... ({len(items)} columns in all)" if len(items) > 10 else "")


_READ_AS = {"date": "date", "percent": "percent", "number": "number", "boolean": "yes/no", "category": "category",
            "text": "category", "numeric": "number", "dropped": "left out"}


def _with_types(table: pd.DataFrame, types: list[ColumnType], features: pd.DataFrame) -> pd.DataFrame:
    """The per-column table with ``read as`` and ``example`` columns, and a row per left-out column."""
    if not types:
        return table
    by_name = {t.column: t for t in types}
    read_as = []
    for name in table["column"]:
        t = by_name.get(name)
        read_as.append("" if t is None else _READ_AS.get(t.type, t.type) + ("" if t.inferred else " (as asked)"))
    table = table.copy()
    table.insert(3, "read as", read_as)
    examples = [by_name[n].example if n in by_name else "" for n in table["column"]]
    if len(features):   # the first row's value where the typing gave none (one list, not a cell write a column)
        first = features.iloc[0].to_numpy()   # the same scalars as first[name] (numpy's, or the objects held)
        position = {str(c): j for j, c in enumerate(features.columns)}
        for i, name in enumerate(table["column"]):
            if not examples[i] and name in position:
                v = first[position[name]]
                examples[i] = ("" if pd.isna(v) else value_name(cast(float, v))  # numpy numbers name as floats do
                               if isinstance(v, int | float | np.number) else str(v))
    table["example"] = examples
    gone = [t for t in types if t.dropped]
    if gone:
        rows = pd.DataFrame({"column": [t.column for t in gone], "role": "left out",
                             "type": [_READ_AS.get(t.type, t.type) for t in gone],
                             "read as": ["left out" + ("" if t.why == "asked" else f" ({_reason(t)})") for t in gone],
                             "distinct": [max(t.n_distinct, 0) for t in gone], "missing": 0,
                             "flags": ["dropped as asked" if t.why == "asked" else f"{_reason(t)}: {t.why}"
                                       for t in gone],
                             "example": [t.example for t in gone]})
        table = pd.concat([table, rows], ignore_index=True)
    return table


def _reason(t: ColumnType) -> str:
    """Why a column was left out, in the table's words: near-unique, constant or empty."""
    if t.why.startswith("one value"):
        return "constant"
    if t.why == "no value in any row":
        return "empty"
    return "near-unique"


def single_block(frame: pd.DataFrame) -> np.ndarray | None:
    """The frame's values as one numeric array without a copy (a view of its one block), or None."""
    dtypes = set(frame.dtypes)
    if len(dtypes) != 1 or not isinstance(next(iter(dtypes)), np.dtype) or next(iter(dtypes)).kind not in "biuf":
        return None
    values = frame.to_numpy()
    return values if frame.shape[1] and np.shares_memory(values, frame.iloc[:, 0].to_numpy()) else None


def read_csv(path_or_buffer, target: str, positive=None, limits: Limits | None = None, *,
             column_types: dict[str, str] | None = None, missing: str = "level", near_unique: str = "drop",
             dayfirst: bool = False, constant: str | None = None, target_split=None) -> Dataset:
    """Read a delimited text file (path, bytes or upload) and validate it as a Dataset.

    ``limits``: None (the library's default) applies no size caps; the app passes ``server_limits()``.
    ``column_types``, ``missing``, ``near_unique``, ``dayfirst``, ``constant`` and ``target_split`` as in
    :meth:`Dataset.from_frame`."""
    return Dataset.from_frame(read_table(path_or_buffer, limits=limits), target, positive=positive, limits=limits,
                              column_types=column_types, missing=missing, near_unique=near_unique,
                              dayfirst=dayfirst, constant=constant, target_split=target_split)


__all__ = [
    "COLUMN_TYPES", "BinaryFileError", "ColumnTypeError", "DataLimitError", "Dataset", "DuplicateColumnError",
    "EmptyFileError",
    "InfiniteValueError", "Limits", "MalformedFileError", "NoHeaderError", "Target", "TargetClassError",
    "UnknownTargetError", "check_method", "encode_target", "read_csv", "read_table",
]
