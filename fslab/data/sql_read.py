"""Reading a table in a SQL engine into a :class:`~fslab.data.sql_source.SqlSource`: :func:`from_sql`.

The cut points come from SQL aggregates over the whole table, by the in-memory rules of
:mod:`fslab.data.discretize` and :func:`fslab.data.target.encode_target`: one aggregate query (count, min, max,
whole-number test, approximate distinct count, mean and sample std of every numeric column), the distinct values
of the columns with few of them (kept as they are) and of the text columns (categories), and for quantile bins the
exact order statistics numpy's linear rule interpolates (``row_number()`` over the sorted column). The codes are
then SQL expressions (``CASE``) over the table; with ``materialize`` the engine stores them once as a temporary
table of small integers, so every later count scans codes, not the source files (``SqlSource.close()`` drops it;
else it lasts as long as the connection).
"""

from __future__ import annotations

import glob
import math
import os
import re
import uuid

import numpy as np
import pandas as pd

from ..errors import DataError, ParameterError
from .column_types import ID_MIN_ROWS, NEAR_UNIQUE, id_message, near_unique_text
from .data_checks import EmptyFileError, InfiniteValueError, TargetClassError, UnknownTargetError
from .discretize import DISCRETE_MAX, MISSING, bin_names, check_method, kind_notes, uniform_edges, value_name
from .sql_source import SqlError, SqlSource, code_column, fetch
from .target import encode_target

_CSV_TYPES = ["BIGINT", "DOUBLE", "VARCHAR"]   # CSV columns typed as pandas.read_csv types them (no yes/no booleans)
MAX_LEVELS = 10_000   # text columns with more distinct values (IDs, free text) are left out, with a note


class SqlMissingError(DataError, ImportError):
    """Ibis (with a backend) was asked for but is not installed."""


def require_ibis():
    """Import ibis or raise SqlMissingError saying what to install."""
    try:
        import ibis
    except ImportError as err:
        raise SqlMissingError("counting in a SQL engine needs Ibis: pip install 'fslab[sql]' "
                              "(or pip install 'ibis-framework[duckdb]')") from err
    return ibis


_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")   # any scheme: http://, https://, s3://, gcs://, file://, ...


def connect_duckdb(ibis):
    """An in-memory DuckDB that installs and loads no extension by itself (a path naming a URL or an unusual
    format would otherwise make it download one, e.g. httpfs)."""
    return ibis.duckdb.connect(autoinstall_known_extensions=False, autoload_known_extensions=False)


def _open(ibis, table_or_path, con):
    """An Ibis table: the expression given, ``con.table(name)``, or DuckDB reading a local parquet/CSV path or glob
    (never a URL: local files and connections only)."""
    if isinstance(table_or_path, ibis.Table):
        if con is not None:
            raise ParameterError("con= is for a table name; an Ibis table carries its own connection (drop con=)")
        return table_or_path
    if not isinstance(table_or_path, str | os.PathLike):
        raise DataError(f"from_sql needs an Ibis table, a table name (with con=) or a parquet/CSV path; got "
                        f"{type(table_or_path).__name__}")
    name = os.fspath(table_or_path)
    if not isinstance(name, str):
        raise DataError(f"from_sql needs a text path; got {type(name).__name__}")
    if con is not None:
        if not callable(getattr(con, "table", None)):
            raise ParameterError(f"con must be an Ibis connection (e.g. ibis.duckdb.connect()); got "
                                 f"{type(con).__name__}")
        try:
            return con.table(name)
        except Exception as err:   # each backend has its own "table not found"
            raise DataError(f"the connection has no table {name!r} ({type(err).__name__}); name one of its tables "
                            "or pass an Ibis table") from None
    if _URL.match(name.strip()):
        raise DataError(f"from_sql reads local files and connections only, not a URL ({name[:80]!r}); download the "
                        "file first, or pass an Ibis table or con= of an engine that reads it")
    if not (glob.glob(name) if glob.has_magic(name) else os.path.exists(name)):
        raise DataError(f"no file matches {name!r}" + (" (a glob that matched nothing)" if glob.has_magic(name)
                                                       else "") + "; give a parquet or CSV path or glob")
    if os.path.isdir(name):   # a directory: its parquet files, else its CSV files (subfolders too)
        name = next((pattern for ext in ("parquet", "csv") if glob.glob(pattern := os.path.join(name, "**", f"*.{ext}"),
                                                                         recursive=True)), name)
        if os.path.isdir(name):
            raise DataError(f"directory {name!r} holds no .parquet or .csv file")
    lower = name.lower()
    kind = "parquet" if lower.endswith((".parquet", ".pq")) else \
        "csv" if lower.endswith((".csv", ".csv.gz", ".tsv", ".txt")) else None
    if kind is None:
        raise DataError(f"cannot tell the format of {name!r}: name a .parquet or .csv file (or glob), or pass an "
                        "Ibis table")
    con = connect_duckdb(ibis)
    try:
        if kind == "parquet":
            return con.read_parquet(name)
        return con.read_csv(name, auto_type_candidates=_CSV_TYPES)
    except Exception as err:
        raise DataError(f"DuckDB could not read {name!r} as {kind}: {str(err).splitlines()[0][:200]}") from None


def _values(column, dtype, nan: bool):
    """The column as float64 with NaN read as missing (NULL), as pandas reads a float column (``nan``: the engine
    has NaN; SQLite, for one, stores it as NULL)."""
    import ibis

    v = column.cast("float64")
    return ibis.ifelse(v.isnan(), ibis.null("float64"), v) if nan and dtype.is_floating() else v


def _linear_quantiles(ranks_of, n: int, q: np.ndarray) -> np.ndarray:
    """np.quantile(x, q) (linear method) from the order statistics ``ranks_of(ranks) -> {rank: value}`` (0-based
    ranks of the sorted non-missing values): numpy's virtual index n q + 1 - q - 1, then its lerp."""
    virtual = n * q + (1 + q * (1 - 1 - 1)) - 1   # numpy's _compute_virtual_index with alpha = beta = 1
    below = np.floor(virtual)
    lo_rank = np.clip(below, 0, n - 1).astype(np.int64)
    hi_rank = np.clip(below + 1, 0, n - 1).astype(np.int64)
    found = ranks_of(np.union1d(lo_rank, hi_rank))
    a = np.array([found[int(r)] for r in lo_rank], dtype=np.float64)
    b = np.array([found[int(r)] for r in hi_rank], dtype=np.float64)
    t = virtual - below
    diff = b - a
    lerp = np.where(t >= 0.5, b - diff * (1 - t), a + diff * t)
    return np.where(a == b, a, lerp)


def _order_statistics(ibis, t, v, ranks: np.ndarray) -> dict[int, float]:
    """{rank: value} of the non-missing values of ``v`` sorted (0-based ranks), by row_number() in the engine
    (Ibis numbers rows from 0)."""
    numbered = t.select(v=v).filter(ibis._.v.notnull())
    numbered = numbered.mutate(r=ibis.row_number().over(order_by=numbered.v))
    got = fetch(numbered.filter(numbered.r.isin([int(r) for r in ranks])).select("r", "v"),
                "sort a column for its quantiles")
    return dict(zip(got.column("r").to_pylist(), got.column("v").to_pylist(), strict=True))


def _encode_target_column(ibis, t, target: str, numeric: bool, positive):
    """Classes of the target from its distinct values and counts (encode_target's rule); a CASE giving each row's
    class index."""
    counts = fetch(t.group_by(v=t[target]).aggregate(n=t.count()), "count the target's classes")
    raw = counts.column("v").to_pylist()
    n = np.asarray(counts.column("n").to_pylist(), dtype=np.int64)
    keys = [float(x) for x in raw] if numeric else [str(x).strip() for x in raw]
    uniques, inverse = np.unique(np.asarray(keys, dtype=np.float64 if numeric else object), return_inverse=True)
    totals = np.bincount(inverse.ravel(), weights=n).astype(np.int64)
    weights = np.ones(uniques.size, dtype=np.int64)
    if uniques.size == 2 and totals[0] != totals[1]:
        weights[np.argmax(totals)] = 2   # the stand-in column keeps which class is less frequent
    stand_in = pd.Series(np.repeat(uniques, weights), dtype=np.float64 if numeric else object)
    encoded = encode_target(stand_in, target, positive)
    classes = encoded.y[np.cumsum(weights) - 1]
    per_raw = classes[inverse.ravel()]
    y = t[target].cases(*[(r, int(c)) for r, c in zip(raw, per_raw, strict=True)], else_=-1)
    return encoded, y, np.bincount(classes, weights=totals, minlength=len(encoded.class_names))


def from_sql(table_or_path, target: str, con=None, method: str = "mean-std", bins: int = 3, positive=None,
             feature_names=None, materialize: bool = True, *, near_unique: str = "drop") -> SqlSource:
    """A :class:`SqlSource` counting in a SQL engine: ``table_or_path`` is an Ibis table (any backend), a table
    name in the Ibis connection ``con``, or (``con=None``) a parquet/CSV path, directory or glob read by an
    in-memory DuckDB. Needs ``pip install 'fslab[sql]'``.

    The codes equal ``Dataset.from_frame(frame, target, positive).discretize(method, bins)`` of the same rows
    read by pandas, column types as the engine holds them: rows with a missing target dropped, the same positive
    class, numbers with at most two values or whole numbers with at most ``max(bins, 17)`` values kept as they are,
    the others binned (mean-std: mu -+ the sample std; quantile: numpy's linear rule on exact order statistics;
    uniform: min + k (max - min) / bins), text as sorted categories, a missing value (NULL, or NaN in a float
    column) as a level of its own. Near-unique columns are left out by :meth:`Dataset.from_frame`'s rule
    (``near_unique="drop"``, the default; "keep" keeps them): text with a distinct value in at least half of the rows
    (IDs, free text), whole numbers with a different value in every row (row numbers, numeric IDs), counted exactly
    in the engine. Unlike :meth:`Dataset.from_frame`, text is not re-read as dates or numbers, and text columns
    with more than ``MAX_LEVELS`` values are left out whatever ``near_unique`` says. Mean and std are the engine's
    sums, so they can differ from numpy's in the last bit: a value exactly on such an edge is the only way a code
    could differ. ``feature_names``: the columns to use (default: every column but the target). ``materialize``: store
    the codes once in a temporary table of the engine (default), else recompute them in every count query.
    """
    method, bins = check_method(method, bins)
    _check_options(target, feature_names, materialize, near_unique)
    ibis = require_ibis()
    t = _open(ibis, table_or_path, con)
    _trust_no_statistics(t)
    try:
        schema = t.schema()
    except Exception as err:
        raise DataError(f"could not read the table's columns: {str(err).splitlines()[0][:200]}") from None
    names = list(schema.names)
    key = str(target).strip() if target is not None else ""
    if key not in names:
        raise UnknownTargetError(f"target column {key!r} is not in the table; its columns are {names[:10]}")
    features = [c for c in names if c != key] if feature_names is None else list(feature_names)
    unknown = [c for c in features if c not in names or c == key]
    if unknown:
        raise DataError(f"feature column(s) {unknown[:10]} are not in the table (or name the target); its columns "
                        f"are {names[:10]}")
    if not features:
        raise DataError(f"the table has only the target column {key!r}; it needs at least one feature column")
    total = fetch(t.aggregate(n=t.count()), "count the rows").column("n")[0].as_py()
    if total == 0:
        raise EmptyFileError("the table is empty (0 rows)")
    numeric, text = [], []
    for c in features:
        dtype = schema[c]
        if dtype.is_numeric() or dtype.is_boolean():
            numeric.append(c)
        elif dtype.is_string() or dtype.is_null():   # a column of NULLs only: one level, "missing"
            text.append(c)
        else:
            raise DataError(f"column {c!r} has type {dtype}, which fslab does not bin in SQL; cast it to a number "
                            "or to text in the table (or leave it out with feature_names=)")
    tdtype = schema[key]
    target_numeric = tdtype.is_numeric() or tdtype.is_boolean()
    nan = _has_nan(t)
    keep = t[key].notnull() & ~t[key].cast("float64").isnan() if nan and tdtype.is_floating() else t[key].notnull()
    t = t.filter(keep)
    vals = {c: _values(t[c], schema[c], nan) for c in numeric}

    aggs = {"rows": t.count()}
    for i, c in enumerate(numeric):
        v = vals[c]
        aggs |= {f"n{i}": v.count(), f"lo{i}": v.min(), f"hi{i}": v.max(),
                 f"int{i}": (v % 1.0 == 0).all(), f"d{i}": v.approx_nunique()}
        if method == "mean-std":
            aggs |= {f"mu{i}": v.mean(), f"sd{i}": v.std(how="sample")}
    for i, c in enumerate(text):
        aggs |= {f"tn{i}": t[c].count(), f"td{i}": t[c].approx_nunique()}
    s = fetch(t.aggregate(**aggs), "read the columns' statistics").to_pylist()[0]
    rows = int(s["rows"])
    if rows == 0:
        raise TargetClassError(f"target {key!r} is missing in every row; choose another target column")
    encoded, y_expr, class_counts = _encode_target_column(ibis, t, key, target_numeric, positive)
    notes = [f"SQL table: {rows:,} rows, counted in the engine ({_backend_name(t)})."]
    if total > rows:
        notes.append(f"{total - rows} row(s) with a missing target were dropped; {rows} remain.")
    if encoded.task == "binary":
        notes.append(f"Positive class: {encoded.class_names[1]!r} ({class_counts[1] / rows:.1%} of rows).")
    else:
        notes.extend(encoded.notes)

    gone = _near_unique(t, numeric, text, vals, s, rows) if near_unique == "drop" else {}
    if gone:
        said = id_message(list(gone), gone)
        notes.append(said[:said.index("To keep one")] + 'To keep them, pass near_unique="keep".')
    columns = _numeric_cuts(ibis, t, numeric, vals, s, rows, method, bins)
    for c in gone:
        columns.pop(c, None)
    left_out = [c for i, c in enumerate(text) if (s[f"td{i}"] or 0) > MAX_LEVELS]
    for i, c in enumerate(text):
        if c not in left_out and c not in gone:   # an ID's values never leave the engine
            got = fetch(t.select(v=t[c]).filter(ibis._.v.notnull()).distinct(), "list the categories")
            columns[c] = ("categorical", np.unique(np.asarray(got.column("v").to_pylist(), dtype=object)),
                          int(s[f"tn{i}"]) < rows)
    many = [(c, columns[c][1].size) for c in text if c in columns and columns[c][1].size > max(DISCRETE_MAX, rows / 10)]
    if many:
        notes.append("Text column(s) with many levels for the rows: " + ", ".join(
            f"{c!r} ({n:,} levels)" for c, n in many[:10]) + f", {rows:,} rows. The in-sample plug-in favours a column "
            "for its number of levels, and a SQL source has no rows to hold out: cast such a column to a number in "
            "the engine, or check the pick held out in memory on a sample (source.sample(n)).")
    if left_out:
        notes.append(f"Left out {len(left_out)} text column(s) with more than {MAX_LEVELS:,} distinct values "
                     f"(IDs or free text): {', '.join(repr(c) for c in left_out[:10])}.")
    kept = [c for c in features if c in columns]
    if not kept:
        raise DataError("every feature column was left out (text with too many distinct values)")
    exprs, categories, kinds = {}, [], []
    duckdb = _backend_name(t) == "duckdb"   # VARCHAR compares byte by byte: UTF-8 order is code point order
    for j, c in enumerate(kept):
        kind, cut, missing = columns[c]
        expr, names_j = _code(ibis, t[c], vals.get(c), kind, cut, missing, ordered_text=duckdb)
        exprs[code_column(j)] = expr
        categories.append(names_j)
        kinds.append(kind)
    codes = t.select(**exprs, y=y_expr.cast("int32"))
    stored = None
    if materialize:
        stored = f"fslab_codes_{uuid.uuid4().hex}"
        try:
            codes = codes.get_backend().create_table(stored, codes, temp=True)
        except Exception as err:
            raise SqlError(f"the engine could not store the codes in a temporary table ({type(err).__name__}: "
                           f"{(str(err).splitlines() or [''])[0][:200]}); pass materialize=False") from None
    notes.extend(kind_notes(kinds, categories, method, bins, " (cut points from SQL aggregates over the whole table)"))
    return SqlSource(codes, rows, [len(cats) for cats in categories], encoded.labels, kept,
                     class_names=encoded.class_names, task=encoded.task, target=key, categories=tuple(categories),
                     kinds=kinds, notes=notes, stored=stored)


def _near_unique(t, numeric: list[str], text: list[str], vals: dict, s: dict, rows: int) -> dict[str, str]:
    """{column: why} of the ID-like columns, by :meth:`Dataset.from_frame`'s rule, counted exactly in the engine:
    text with distinct values in at least NEAR_UNIQUE of the rows; whole numbers, none missing, a different one in
    every row. The approximate counts of the statistics pass pick the candidates; one query counts them exactly.
    Every feature ID-like: none is left out (as in memory)."""
    if rows < ID_MIN_ROWS:
        return {}
    near = 0.8 * NEAR_UNIQUE * rows   # below it, HyperLogLog's few-percent error cannot reach the rule
    ask = [c for i, c in enumerate(text) if (s[f"td{i}"] or 0) >= near]
    ask += [c for i, c in enumerate(numeric) if int(s[f"n{i}"]) == rows and bool(s[f"int{i}"])
            and (s[f"d{i}"] or 0) >= 0.8 * rows and float(s[f"hi{i}"]) - float(s[f"lo{i}"]) + 1 >= rows]
    if not ask:
        return {}
    counts = fetch(t.aggregate(**{f"u{j}": (vals[c] if c in vals else t[c]).nunique() for j, c in enumerate(ask)}),
                   "count distinct values").to_pylist()[0]
    gone = {}
    for j, c in enumerate(ask):
        n = int(counts[f"u{j}"])
        if c in vals and n == rows:
            gone[c] = "whole numbers, a different one in every row"
        elif c not in vals and near_unique_text(n, rows):
            gone[c] = "a different value in every row" if n == rows else f"{n / rows:.0%} of rows distinct"
    return {} if len(gone) == len(numeric) + len(text) else gone


def _numeric_cuts(ibis, t, numeric: list[str], vals: dict, s: dict, rows: int, method: str, bins: int) -> dict:
    """{column: ("discrete", its values, has missing) or ("binned", its inner edges, has missing)} of the numeric
    columns, from the statistics ``s`` (discretize's rules: kept as is with at most two values, or whole numbers
    with at most max(bins, 17); else binned by ``method``)."""
    cap = max(bins, DISCRETE_MAX)
    few = [i for i in range(len(numeric)) if (s[f"d{i}"] or 0) <= 2 * cap + 16]   # HLL: the rest has more than cap
    distinct = _distinct(ibis, t, [vals[numeric[i]] for i in few], cap + 1)
    columns = {}
    for i, c in enumerate(numeric):
        n, lo, hi = int(s[f"n{i}"]), s[f"lo{i}"], s[f"hi{i}"]
        if n and (math.isinf(lo) or math.isinf(hi)):
            raise InfiniteValueError(f"column {c!r} holds an infinite value; replace it (or leave the column out "
                                     "with feature_names=)")
        found = distinct[few.index(i)] if i in few else None
        integral = bool(s[f"int{i}"]) if n else True
        if found is not None and (found.size <= 2 or (integral and found.size <= cap)):
            columns[c] = ("discrete", found, n < rows)
            continue
        if method == "mean-std":
            mu, sd = float(s[f"mu{i}"]), float(s[f"sd{i}"] or 0.0)
            edges = np.array([mu - sd, mu + sd])
        elif method == "uniform":
            edges = uniform_edges(np.array([float(lo)]), np.array([float(hi)]), bins)[0]
        else:
            q = np.linspace(0.0, 1.0, bins + 1)[1:-1]
            edges = _linear_quantiles(lambda r, v=vals[c]: _order_statistics(ibis, t, v, r), n, q)
        if not np.all(np.isfinite(edges)):
            raise DataError(f"column {c!r} has values too large to bin (|x| up to "
                            f"{max(abs(float(lo)), abs(float(hi))):.3g}); rescale the column")
        columns[c] = ("binned", np.unique(edges), n < rows)
    return columns


def _check_options(target, feature_names, materialize, near_unique) -> None:
    """Every from_sql option of the right kind, else a ParameterError saying what is expected."""
    if not isinstance(target, str) or not target.strip():
        raise ParameterError(f"target must be a column name (text); got {target!r}")
    if feature_names is not None and (isinstance(feature_names, str | bytes) or not all(
            isinstance(c, str) for c in _as_list(feature_names))):
        raise ParameterError(f"feature_names must be a list of column names; got {feature_names!r:.80}")
    if not isinstance(materialize, bool | np.bool_):
        raise ParameterError(f"materialize must be True or False; got {materialize!r}")
    if near_unique not in ("drop", "keep"):
        raise ParameterError(f"near_unique must be 'drop' or 'keep'; got {near_unique!r}")


def _as_list(values) -> list:
    try:
        return list(values)
    except TypeError:
        raise ParameterError(f"feature_names must be a list of column names; got {values!r:.80}") from None


def _trust_no_statistics(t) -> None:
    """On DuckDB, turn off statistics propagation: parquet min/max statistics leave NaN out (as the format says),
    and DuckDB 2.0 then folds ``isnan(x)`` to false and miscounts NaN as a value (seen on pyarrow-written files)."""
    try:
        backend = t.get_backend()
    except Exception:   # an unbound table: nothing to set
        return
    if backend.name == "duckdb":
        backend.raw_sql("SET disabled_optimizers = 'statistics_propagation'")


def _has_nan(t) -> bool:
    """The engine knows NaN (DuckDB, Postgres, ...), so a float column's NaN must be read as missing."""
    import ibis.expr.operations as ops

    try:
        return bool(t.get_backend().has_operation(ops.IsNan))
    except Exception:
        return True


def _backend_name(t) -> str:
    try:
        return t.get_backend().name
    except Exception:
        return "unknown engine"


def _distinct(ibis, t, values: list, limit: int) -> dict[int, np.ndarray | None]:
    """Sorted distinct non-missing values of each expression, or None when it has ``limit`` or more: one query."""
    if not values:
        return {}
    parts = [t.select(i=ibis.literal(i, type="int32"), v=v).filter(ibis._.v.notnull()).distinct().limit(limit)
             for i, v in enumerate(values)]
    got = fetch(ibis.union(*parts, distinct=False) if len(parts) > 1 else parts[0], "list the distinct values")
    index = np.asarray(got.column("i").to_pylist(), dtype=np.int64)
    v = np.asarray(got.column("v").to_pylist(), dtype=np.float64)
    out = {}
    for i in range(len(values)):
        mine = np.unique(v[index == i])
        out[i] = mine if mine.size < limit else None
    return out


def _code(ibis, column, value, kind: str, cut, missing: bool, ordered_text: bool):
    """The SQL expression of one feature's codes and the names of its codes (discretize's rules)."""
    if kind == "binned":   # code(x) = #{edges e <= x}; missing last
        expr = ibis.cases(*[(value < float(e), k) for k, e in enumerate(cut)], else_=len(cut))
        names, top = bin_names(cut), len(cut) + 1
    elif kind == "discrete":   # rank of the value
        expr = ibis.cases(*[(value == float(x), k) for k, x in enumerate(cut)], else_=0) if len(cut) else 0
        names, top = tuple(value_name(x) for x in cut), len(cut)
    else:   # rank of the text among the sorted categories
        texts = [str(x) for x in cut]
        expr = _text_rank(ibis, column, texts, 0, len(texts), ordered_text) if texts else 0
        names, top = tuple(texts), len(texts)
    null = (value if value is not None else column).isnull()
    dtype = "int8" if top < 127 else "int16"
    return ibis.ifelse(null, top, expr).cast(dtype), names + ((MISSING,) if missing else ())


def _text_rank(ibis, column, texts: list[str], lo: int, hi: int, ordered: bool):
    """Rank of ``column`` among ``texts[lo:hi]`` (sorted by code point): a balanced tree of ``<`` comparisons
    (log2 of the levels per row) where the engine compares text by code point (DuckDB), else one ``=`` per level."""
    if not ordered or hi - lo <= 8:
        return ibis.cases(*[(column == texts[k], k) for k in range(lo, hi)], else_=lo)
    mid = (lo + hi) // 2
    return ibis.ifelse(column < texts[mid], _text_rank(ibis, column, texts, lo, mid, ordered),
                       _text_rank(ibis, column, texts, mid, hi, ordered))


__all__ = ["MAX_LEVELS", "SqlMissingError", "from_sql", "require_ibis"]
