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

from ..errors import DataError, ParameterError
from .column_types import ColumnTypeError
from .data_checks import EmptyFileError, TargetClassError, UnknownTargetError
from .discretize import MISSING, bin_names, check_method, is_discrete, uniform_edges, value_name
from .parse_rules import BY_NAME
from .plan import PlanOptions, TablePlan, decide
from .sql_parse import read_value, stage
from .sql_source import SqlError, SqlSource, code_column, fetch
from .sql_stats import (
    BIG,
    _count,
    _is_number,
    _to_sql,
    aggregate,
    distinct_values,
    number_stats,
    numeric_value,
    over_long,
    projection,
    quote_name,
    raw_rows,
    summarize_sql,
    target_pairs,
    target_value,
)
from .target import choose_classes

_CSV_TYPES = ["BIGINT", "DOUBLE", "VARCHAR"]   # CSV columns typed as pandas.read_csv types them (no yes/no booleans)


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


DUCKDB_MEMORY = "512MB"   # fslab's own DuckDB spills to disk past this (its default, 80 % of RAM: 4 GB on 10M rows)


def connect_duckdb(ibis):
    """An in-memory DuckDB that installs and loads no extension by itself (a path naming a URL or an unusual
    format would otherwise make it download one, e.g. httpfs) and spills to disk past :data:`DUCKDB_MEMORY`, so a
    10,000,000-row file is read in under 1 GB (bench/README.md)."""
    return ibis.duckdb.connect(autoinstall_known_extensions=False, autoload_known_extensions=False,
                               memory_limit=DUCKDB_MEMORY)


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


def _quantile_ranks(n: int, q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """numpy's linear quantile rule on n sorted values: the 0-based ranks below and above each virtual index
    (n - 1) q, and its fractional part (numpy's 'linear' method computes (n - 1) q itself: n q + 1 - q - 1 is
    the same number in exact arithmetic but not always in floating point, 29.55999999999999 for 29.56)."""
    virtual = (n - 1) * q
    below = np.floor(virtual)
    lo_rank = np.clip(below, 0, n - 1).astype(np.int64)
    hi_rank = np.clip(below + 1, 0, n - 1).astype(np.int64)
    return lo_rank, hi_rank, virtual - below


def _lerp(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    """numpy's _lerp of the order statistics a (below) and b (above) at the fractions t."""
    diff = b - a
    lerp = np.where(t >= 0.5, b - diff * (1 - t), a + diff * t)
    return np.where(a == b, a, lerp)


def _order_statistics(t, columns: list[str], ranks: list[np.ndarray], rows: int) -> list[dict[int, float]]:
    """{rank: value} of the non-missing values of each column of ``t`` sorted (0-based ranks ``ranks[i]``), by
    ``ROW_NUMBER()`` over each column of the long table (:func:`fslab.data.sql_stats.over_long`)."""
    out: list[dict[int, float]] = [{} for _ in columns]
    if not columns:
        return out

    def query(start: int, stop: int) -> str:   # the ranks wanted in this batch, as i * 2**32 + rank
        wanted = ", ".join(str((i << 32) + int(r) + 1) for i in range(start, stop) for r in ranks[i])
        return ('SELECT "i", "r" - 1 AS "r", "v" FROM (SELECT "i", "v", ROW_NUMBER() OVER (PARTITION BY "i" '
                'ORDER BY "v") AS "r" FROM fslab_long WHERE "v" IS NOT NULL) AS "q" WHERE CAST("i" AS BIGINT) * '
                f'4294967296 + "r" IN ({wanted})')

    got = over_long(t, _to_sql(t), [f'"{c}"' for c in columns], query, rows, "sort the columns for their quantiles")
    for i, r, v in zip(got.get("i", []), got.get("r", []), got.get("v", []), strict=True):
        out[int(i)][int(r)] = float(v)
    return out


def _classes(pairs: list, key: str, positive, boolean: bool, numeric: bool):
    """The target's classes from its (value, rows) pairs by :func:`fslab.data.target.choose_classes` (the rule of
    :func:`fslab.data.target.encode_target`), and the SQL CASE of ``_y`` giving each row's class index."""
    if positive is not None and boolean and str(positive).strip().lower() in ("true", "false"):
        positive = "1" if str(positive).strip().lower() == "true" else "0"   # positive=True on a bool column
    keys = [v for v, _ in pairs]
    names = [value_name(v) for v in keys] if numeric else [str(v) for v in keys]
    counts = np.asarray([n for _, n in pairs], dtype=np.int64)
    chosen = choose_classes(key, names, counts, np.asarray(keys, dtype=np.float64) if numeric else None, positive)
    literal = _sql_float if numeric else _sql_text
    whens = " ".join(f'WHEN "_y" = {literal(v)} THEN {int(c)}' for v, c in zip(keys, chosen.index, strict=True))
    return chosen, f"CAST(CASE {whens} ELSE -1 END AS INTEGER)"


def _sql_float(x) -> str:
    """A float64 literal, exact in every engine (the shortest text that reads back as the same double)."""
    return f"CAST({float(x)!r} AS DOUBLE PRECISION)"


def _sql_text(x) -> str:
    return "'" + str(x).replace("'", "''") + "'"


def from_sql(table_or_path, target: str, con=None, method: str = "auto", bins: int = 3, positive=None,
             feature_names=None, materialize: bool = True, *, near_unique: str = "drop",
             column_types: dict[str, str] | None = None, dayfirst: bool = False, constant: str = "drop",
             missing: str = "level", row_id: str | None = None) -> SqlSource:
    """A :class:`SqlSource` counting in a SQL engine: ``table_or_path`` is an Ibis table (any backend), a table
    name in the Ibis connection ``con``, or (``con=None``) a local parquet/CSV path, directory or glob read by an
    in-memory DuckDB (never a URL; no DuckDB extension is installed or loaded). Needs ``pip install 'fslab[sql]'``.

    The table is read by the same plan as ``Dataset.from_frame(frame, target, positive, ...).discretize(method,
    bins)`` of the same rows (:mod:`fslab.data.plan`): :func:`fslab.data.sql_stats.summarize_sql` counts the
    plan's statistics in the engine, :func:`fslab.data.plan.decide` makes the plan (``source.plan``), and the engine
    applies it: each text column parsed by its rule as a SQL expression (:mod:`fslab.data.sql_parse`: dates,
    percentages, units, currency, thousands separators, decimal commas, yes/no), IDs, constant and empty columns left
    out by the plan's rules, the codes by the in-memory coding (levels in sorted order; numbers with at most two
    values, or whole numbers with at most ``max(bins, 17)``, kept as they are; the others binned: mean-std mu -+ the
    sample std, quantile numpy's linear rule on exact order statistics, uniform min + k (max - min) / bins), a
    missing value a level of its own. ``column_types``, ``dayfirst``, ``near_unique``, ``constant``, ``missing`` and
    ``positive`` as in :meth:`Dataset.from_frame`. Mean and std are the engine's sums (exact ones for whole
    numbers), so a real value exactly on such an edge is the only way a code could differ. The notes end with
    memory's outlier sentences for the binning (:func:`fslab.data.data_checks.outlier_notes`, counted in the engine).

    ``feature_names``: the columns to use (default: every column but the target and ``row_id``). ``row_id``: a column
    numbering the rows (their order for held-out folds and bootstrap weights; PostgreSQL keeps no row order of its
    own), kept beside the codes, not a feature. ``materialize``: store the codes once in a temporary table of the
    engine (default), else recompute them in every count query.
    """
    method, bins = check_method(method, bins)
    _check_options(target, feature_names, materialize, near_unique, row_id)
    options = PlanOptions.of(column_types, dayfirst=dayfirst, missing=missing, near_unique=near_unique,
                             constant=constant, positive=None if positive is None else str(positive), method=method,
                             bins=bins)
    ibis = require_ibis()
    t = _open(ibis, table_or_path, con)
    _trust_no_statistics(t)
    try:
        schema = t.schema()
    except Exception as err:
        raise DataError(f"could not read the table's columns: {str(err).splitlines()[0][:200]}") from None
    names = list(schema.names)
    key = target.strip()
    if key not in names:
        raise UnknownTargetError(f"target column {key!r} is not in the table; its columns are {names[:10]}")
    if row_id is not None and (row_id not in names or row_id == key):
        raise DataError(f"row_id column {row_id!r} is not in the table (or names the target); its columns are "
                        f"{names[:10]}")
    features = [c for c in names if c not in (key, row_id)] if feature_names is None else list(feature_names)
    unknown = [c for c in features if c not in names or c in (key, row_id)]
    if unknown:
        raise DataError(f"feature column(s) {unknown[:10]} are not in the table (or name the target or row_id); "
                        f"its columns are {names[:10]}")
    if not features:
        raise DataError(f"the table has only the target column {key!r}; it needs at least one feature column")
    if column_types and key in {str(c).strip() for c in column_types}:
        raise ColumnTypeError(f"column_types names the target {key!r}; types apply to feature columns")
    unknown = [c for c in dict(options.column_types) if c not in features]
    if unknown:   # decide's own check, before the statistics are counted
        raise ColumnTypeError(f"column_types names {unknown[0]!r}, which is not a feature column of the data")
    total = fetch(t.aggregate(n=t.count()), "count the rows").column("n")[0].as_py()
    if total == 0:
        raise EmptyFileError("the table is empty (0 rows)")
    for c in [*features, key]:
        dtype = schema[c]
        if not (dtype.is_numeric() or dtype.is_boolean() or dtype.is_string() or _all_null(dtype)):
            raise DataError(f"column {c!r} has type {dtype}, which fslab does not read in SQL; cast it to a number "
                            "or to text in the table (or leave it out with feature_names=)")
    nan = _has_nan(t)
    tdtype = schema[key]
    t = t.filter(t[key].notnull() & ~t[key].cast("float64").isnan() if nan and tdtype.is_floating()
                 else t[key].notnull())
    summary, pairs = summarize_sql(t, features, key, schema, nan, total)
    rows = summary.n_rows_total - summary.target_missing
    if rows == 0:
        raise TargetClassError(f"target {key!r} is missing in every row; choose another target column")
    plan = decide(summary, options)
    if not plan.kept:
        raise DataError("every feature column was left out (near-unique, constant, empty or dropped as asked); keep "
                        "one with column_types={name: 'category'}, near_unique='keep' or constant='keep'")
    numeric_target, value = target_value(t, key, schema, nan)
    stored: list[str] = []   # parse once: every later query reads the stored values
    try:
        t = _stored_rows(t, plan, schema, nan, key, row_id, stored) if materialize else \
            _typed_table(t, plan, schema, nan, value, row_id)
        return _code_table(ibis, t, plan, summary, pairs, key, positive, numeric_target, tdtype.is_boolean(), rows,
                           total, method, bins, missing, row_id, materialize)
    finally:
        for name in stored:
            _drop(t, name)


def _drop(t, name: str) -> None:
    backend = t.get_backend()
    try:
        backend.drop_table(name, force=True)
    except Exception:   # Ibis 12's DROP on DuckDB 2 renders no name: say it in the engine's own SQL
        backend.raw_sql(f'DROP TABLE IF EXISTS "{name}"')


def _code_table(ibis, t, plan: TablePlan, summary, pairs, key: str, positive, numeric_target: bool, boolean: bool,
                rows: int, total: int, method: str, bins: int, missing: str, row_id, materialize: bool) -> SqlSource:
    """The SqlSource of the rows ``t`` read by the plan (:func:`_typed_table`): checks, coding, codes."""
    typed = {c.name: t[f"f{j}"] for j, c in enumerate(plan.kept)}
    _check_forced(t, plan, typed)
    notes = [f"SQL table: {rows:,} rows, counted in the engine ({_backend_name(t)})."]
    if total > rows:
        notes.append(f"{total - rows} row(s) with a missing target were dropped; {rows} remain.")
    dropped_rows = False
    if missing == "drop":
        t, rows, pairs, dropped = _drop_missing(ibis, t, typed, plan, key, numeric_target, rows)
        typed = {c.name: t[f"f{j}"] for j, c in enumerate(plan.kept)}
        dropped_rows = True
        if dropped:
            notes.append(f"{dropped} row(s) with a missing feature value were dropped (missing='drop'); {rows} "
                         "remain.")
    chosen, y_sql = _classes(pairs, key, positive, boolean, numeric_target)
    coding, robust, outliers = _coding(t, plan, typed, None if dropped_rows else summary, rows, method, bins)
    kinds = [coding[c.name][0] for c in plan.kept]
    categories = [coding[c.name][1] for c in plan.kept]
    plan = plan.with_coding(kinds, categories, method, bins,
                            {j: coding[c.name][2] for j, c in enumerate(plan.kept) if kinds[j] == "binned"},
                            {j: coding[c.name][2] for j, c in enumerate(plan.kept) if kinds[j] == "discrete"},
                            robust={j: robust[c.name] for j, c in enumerate(plan.kept) if c.name in robust})
    notes.extend(plan.describe(estimate=False))   # the selection run on the source says its estimate
    notes.extend(outliers)   # memory's words (Dataset.discretize's notes)
    columns = [f'{coding[c.name][3]} AS "{code_column(j)}"' for j, c in enumerate(plan.kept)]
    if row_id is not None:
        columns.append(f"{_quoted(t, row_id)} AS {_quoted(t, row_id)}")
    query = (f"WITH fslab_base AS ({_to_sql(t)}) SELECT {', '.join(columns)}, {y_sql} AS \"y\" "
             "FROM fslab_base")
    stored = None
    if materialize:   # the query as it is (Ibis would parse a wide one again): then read as a table
        stored = f"fslab_codes_{uuid.uuid4().hex}"
        raw_rows(t, f'CREATE TEMPORARY TABLE "{stored}" AS {query}', "store the codes in a temporary table",
                 fetch=False)
        codes = t.get_backend().table(stored)
    else:
        schema = {code_column(j): "int32" for j in range(len(plan.kept))} | \
            ({row_id: t.schema()[row_id]} if row_id is not None else {}) | {"y": "int32"}
        codes = t.get_backend().sql(query, schema=schema)
    source = SqlSource(codes, rows, [len(cats) for cats in categories], chosen.labels, [c.name for c in plan.kept],
                       class_names=chosen.class_names, task=chosen.task, target=key, categories=tuple(categories),
                       kinds=kinds, notes=notes, stored=stored, row_id=row_id, plan=plan)
    return source


def _typed_table(t, plan: TablePlan, schema, nan: bool, target, row_id: str | None):
    """The rows read by the plan, as an Ibis expression (``materialize=False``): ``f{j}`` the j-th kept column
    (float64 for numbers, dates in days or seconds since 1970-01-01; the stripped text for text and categories),
    ``_y`` the target's value, ``row_id``, and for a type the user set the raw value ``x{j}``. Parsed columns go
    through :func:`fslab.data.sql_parse.stage`."""
    keep = {"_y": target} | ({row_id: t[row_id]} if row_id is not None else {})
    texts, rules, parsed = {}, {}, {}
    for j, c in enumerate(plan.kept):
        if c.rule:
            texts[j] = t[c.name].cast("string").strip()
            rules[j] = [BY_NAME[c.rule]]
            parsed[j] = c
            if not c.inferred:
                keep[f"x{j}"] = t[c.name].cast("string")
        elif _is_number(schema[c.name]):
            keep[f"f{j}"] = numeric_value(t[c.name], schema[c.name], nan)
        else:
            keep[f"f{j}"] = t[c.name].cast("string").strip()
    if not parsed:
        return t.select(**keep)
    staged, group = stage(t, texts, rules, keep)
    return staged.select(*keep, **{f"f{j}": _read(c, group(j, BY_NAME[c.rule])) for j, c in parsed.items()})


def _read(c, groups: list):
    """The float64 expression of a parsed column ``c`` (its plan) from its rule's capture groups: dates in days,
    or seconds when the plan says so."""
    v = read_value(c.reading, groups)
    return v / 86400.0 if c.type == "date" and c.unit != "seconds" else v


def _stored_rows(t, plan: TablePlan, schema, nan: bool, key: str, row_id: str | None, stored: list[str]):
    """The rows of :func:`_typed_table` stored as a temporary table (its name appended to ``stored``), in plain SQL
    (:func:`fslab.data.sql_stats.projection`: a few Ibis compiles, not one Ibis expression per column). Parsed
    columns take two tables: first their capture groups ``g{j}_{k}`` (each regex once per row; inlined, SQLite and
    PostgreSQL ran it once per use of a group), then the values read from them."""
    columns: dict[str, tuple[str, object]] = {"_y": (key, "number" if _is_number(schema[key]) else "text")}
    if row_id is not None:
        columns[row_id] = (row_id, "raw")
    groups: dict[int, list[str]] = {}
    for j, c in enumerate(plan.kept):
        if c.rule:
            rule = BY_NAME[c.rule]
            groups[j] = [f"g{j}_{k}" for k in range(len(rule.groups))]
            columns |= {n: (c.name, ("group", rule.name, k)) for k, n in enumerate(groups[j])}
            if not c.inferred:
                columns[f"x{j}"] = (c.name, "string")
        else:
            columns[f"f{j}"] = (c.name, "number" if _is_number(schema[c.name]) else "text")
    name = _store_sql(t, projection(t, columns, schema, nan), stored)
    if not groups:
        return _temporary(t, name)
    import ibis

    dummy = ibis.table({n: "string" for names in groups.values() for n in names}, name="fslab_groups")
    values = dummy.select(**{f"f{j}": _read(plan.kept[j], [dummy[n] for n in names]).cast("float64")
                             for j, names in groups.items()})
    sql = str(ibis.to_sql(values, dialect=_backend_name(t), pretty=False)).strip()
    tail = ' FROM "fslab_groups" AS "t0"'
    if not (sql.startswith("SELECT ") and sql.endswith(tail)):
        raise SqlError(f"could not write the parsed columns' SQL for {_backend_name(t)}")   # never seen: Ibis's
    taken = {n for names in groups.values() for n in names}                                 # shape changed
    keep = ", ".join(f'"t0".{_quoted(t, n)}' for n in columns if n not in taken)
    return _temporary(t, _store_sql(t, f'SELECT {keep}, {sql[7:-len(tail)]} FROM "{name}" AS "t0"', stored))


def _temporary(t, name: str):
    """The Ibis table of the temporary table ``name`` of ``t``'s engine (SQLite keeps them in its "temp" schema)."""
    backend = t.get_backend()
    return backend.table(name, database="temp") if backend.name == "sqlite" else backend.table(name)


def _store_sql(t, query: str, stored: list[str]) -> str:
    """The rows of the SQL ``query`` stored as a new temporary table of ``t``'s engine (its name appended to
    ``stored`` and returned)."""
    stored.append(f"fslab_rows_{uuid.uuid4().hex}")
    try:
        raw_rows(t, f'CREATE TEMPORARY TABLE "{stored[-1]}" AS {query}', "store the parsed values in a temporary "
                 "table", fetch=False)
    except SqlError as err:
        raise SqlError(f"{err}; pass materialize=False") from None
    return stored[-1]


def _check_forced(t, plan: TablePlan, typed: dict) -> None:
    """A type the user set must read every non-missing value (as in memory): else a ColumnTypeError naming the
    column, how many values do not read and one of them."""
    forced = [(j, c) for j, c in enumerate(plan.kept) if not c.inferred and c.rule]
    if not forced:
        return
    bad = {j: t[f"x{j}"].notnull() & typed[c.name].isnull() for j, c in forced}
    got = aggregate(t, {f"b{j}": _count(bad[j]) for j, _ in forced}, "check the types set")
    for j, c in forced:
        n = int(got[f"b{j}"] or 0)
        if n:
            first = fetch(t.filter(bad[j]).select(v=t[f"x{j}"]).limit(1), "find a bad value")
            value = first.column("v")[0].as_py()
            raise ColumnTypeError(f"column {c.name!r} was set to {c.type} but the table holds {str(value)[:60]!r}, "
                                  f"which does not read as {c.type} ({n} such value(s)); fix the values or choose "
                                  "another type (category keeps them as text)")


def _drop_missing(ibis, t, typed: dict, plan: TablePlan, key: str, numeric: bool, rows: int):
    """missing='drop': the rows with every kept feature present (read by the plan), their count, the target's
    (value, rows) pairs over them, and how many rows went."""
    t = t.filter(ibis.and_(*[typed[c.name].notnull() for c in plan.kept]))
    pairs = target_pairs(t, t["_y"], numeric, key)
    left = int(sum(n for _, n in pairs))
    if left == 0:
        raise DataError("every row has a missing feature value, so missing='drop' leaves no data; use "
                        "missing='level'")
    return t, left, pairs, rows - left


def _coding(t, plan: TablePlan, typed: dict, summary, rows: int, method: str, bins: int
            ) -> tuple[dict, dict, list[str]]:
    """{column: (kind, code names, cut points or discrete values, SQL of its codes)} of the kept columns by
    :func:`fslab.data.discretize.encode_frame`'s rules, from statistics counted in the engine (``summary``: the
    plan's statistics when they hold for these rows, reused for the columns kept as numbers). ``typed`` {column:
    its column of ``t``, ``f{j}``}; and {column: (mean-std's fullest share, quantile's)} of the columns method
    "auto" gave quantile bins (:func:`_robust_edges`); and the outlier sentences of the binned columns
    (:func:`_outlier_sentences`)."""
    names = {c.name: typed[c.name].get_name() for c in plan.kept}
    numbers = [c for c in plan.kept if c.type not in ("text", "category")]
    texts = [c for c in plan.kept if c.type in ("text", "category")]
    summaries = {s.name: s for s in summary.columns} if summary is not None else {}
    stats: dict[str, tuple] = {}
    counted = []
    for c in numbers:
        s = summaries.get(c.name) if c.type == "numeric" else None
        if s is not None:
            stats[c.name] = (s.n_present, s.n_distinct, s.integral, s.lo, s.hi, s.total, s.total_sq)
        else:
            counted.append(c)
    got = number_stats(t, _to_sql(t), [f'"{names[c.name]}"' for c in counted], rows,
                       "read the parsed columns' statistics") if counted else []
    for c, g in zip(counted, got, strict=True):
        n = int(g["n"] or 0)
        stats[c.name] = (n, int(g["u"] or 0), bool(g["int"]) if n else True,
                         *(float(g[k] or 0.0) if n else math.nan for k in ("lo", "hi", "s", "q")))
    discrete = [c for c in numbers if is_discrete(stats[c.name][1], stats[c.name][2], bins)]
    binned = [c for c in numbers if not is_discrete(stats[c.name][1], stats[c.name][2], bins)]
    found = dict(zip([c.name for c in discrete], distinct_values(t, [names[c.name] for c in discrete], rows,
                                                                   "list the distinct values"), strict=True))
    shares: dict[str, tuple] = {}
    edges, robust = _robust_edges(t, binned, names, stats, bins, rows, shares) if method == "auto" else \
        (_edges(t, binned, names, stats, method, bins, rows), {})
    outliers = _outlier_sentences(t, binned, names, stats, edges, shares, method, bins, rows)
    strings = {c.name for c in texts if typed[c.name].type().is_string()}
    for group in ([c for c in texts if c.name in strings], [c for c in texts if c.name not in strings]):
        found |= dict(zip([c.name for c in group], distinct_values(t, [names[c.name] for c in group], rows,
                                                                     "list the categories"), strict=True))
    duckdb = _backend_name(t) == "duckdb"   # VARCHAR compares byte by byte: UTF-8 order is code point order
    out: dict[str, tuple] = {}
    for c in numbers:
        missing = stats[c.name][0] < rows
        if c.name in edges:
            cut, kind = edges[c.name], "binned"
        else:
            cut, kind = np.asarray(sorted(found[c.name]), dtype=np.float64), "discrete"
        sql, labels = _code(f'"{names[c.name]}"', kind, cut, missing, duckdb)
        out[c.name] = (kind, labels, cut, sql)
    for c in texts:
        missing = c.name in summaries and summaries[c.name].n_missing > 0   # missing='drop' left none
        if c.name in strings:
            levels = np.unique(np.asarray([str(v) for v in found[c.name]], dtype=object))
            sql, labels = _code(f'"{names[c.name]}"', "categorical", levels, missing, duckdb)
        else:   # numbers kept as category, as asked: levels are their texts, sorted as text (read_column's rule)
            sql, labels = _numeric_category(f'"{names[c.name]}"', np.asarray(sorted(found[c.name]), dtype=np.float64),
                                            missing)
        out[c.name] = ("categorical", labels, (), sql)
    return out, robust, outliers


def _edges(t, binned: list, names: dict, stats: dict, method: str, bins: int, rows: int) -> dict[str, np.ndarray]:
    """{column: sorted distinct inner cut points} of the binned columns by ``method`` (discretize's rules):
    mean-std from the exact sums for whole numbers (memory's exact integer moments), else by two passes (the mean,
    then the sum of squared deviations from it); uniform from the range; quantile from exact order statistics;
    auto by :func:`_robust_edges`."""
    if method == "auto":
        return _robust_edges(t, binned, names, stats, bins, rows)[0]
    out: dict[str, np.ndarray] = {}
    means: dict[str, float] = {}
    if method == "mean-std":
        inexact = [c for c in binned if not (stats[c.name][2] and abs(stats[c.name][6]) < BIG)]
        means = {c.name: stats[c.name][5] / stats[c.name][0] for c in inexact}
        got = over_long(t, _to_sql(t), [f'("{names[c.name]}" - {means[c.name]!r})' for c in inexact],
                        'SELECT "i", SUM("v" * "v") AS "d" FROM fslab_long GROUP BY "i"', rows,
                        "read the columns' deviations") if inexact else {}
        deviations = {inexact[int(i)].name: d for i, d in zip(got.get("i", []), got.get("d", []), strict=True)}
    elif method == "quantile":
        found = _quantiles(t, binned, names, stats, np.linspace(0.0, 1.0, bins + 1)[1:-1], rows)
    for c in binned:
        n, _, integral, lo, hi, s1, s2 = stats[c.name]
        if method == "mean-std":
            if c.name in means:
                mu, sd = means[c.name], math.sqrt(max(float(deviations.get(c.name) or 0.0), 0.0) / max(n - 1, 1))
            else:   # exact integer sums: memory's exact moments
                a, b = int(s1), int(s2)
                mu, sd = a / n, math.sqrt(max((n * b - a * a) / (n * max(n - 1, 1)), 0.0))
            edges = np.array([mu - sd, mu + sd])
        elif method == "uniform":
            edges = uniform_edges(np.array([lo]), np.array([hi]), bins)[0]
        else:
            edges = found[c.name]
        if not np.all(np.isfinite(edges)):
            raise DataError(f"column {c.name!r} has values too large to bin (|x| up to "
                            f"{max(abs(lo), abs(hi)):.3g}); rescale the column")
        out[c.name] = np.unique(edges)
    return out


def _quantiles(t, columns: list, names: dict, stats: dict, probs: np.ndarray, rows: int) -> dict[str, np.ndarray]:
    """{column: np.quantile(x, probs)} (numpy's linear rule) of each column's non-missing values, from exact order
    statistics (one query, :func:`_order_statistics`)."""
    ranks = {c.name: _quantile_ranks(stats[c.name][0], probs) for c in columns}
    found = _order_statistics(t, [names[c.name] for c in columns],
                              [np.union1d(ranks[c.name][0], ranks[c.name][1]) for c in columns], rows)
    return {c.name: _lerp(np.array([found[i][int(r)] for r in ranks[c.name][0]]),
                          np.array([found[i][int(r)] for r in ranks[c.name][1]]), ranks[c.name][2])
            for i, c in enumerate(columns)}


def _robust_edges(t, binned: list, names: dict, stats: dict, bins: int, rows: int, shares: dict | None = None
                  ) -> tuple[dict[str, np.ndarray], dict[str, tuple[float, float]]]:
    """``auto`` (discretize's robust bins) in the engine: the mean-std edges, one count of each binned column's rows
    per mean-std bin, the quantile edges (exact order statistics, ties merged) of the columns with at least
    ROBUST_SHARE of their rows in one bin, one count per quantile bin of those; quantile edges where they crowd
    fewer rows (:func:`fslab.data.discretize.robust_switch`). Returns ({column: edges}, {column: (mean-std's
    fullest share, quantile's)} of the columns switched); ``shares`` (a dict) gets {column: (mean-std's fullest
    share, quantile's, (Q1, Q3); None where not counted)} of every binned column."""
    from .discretize import ROBUST_SHARE, robust_switch

    edges = _edges(t, binned, names, stats, "mean-std", bins, rows)
    share = _fullest_shares(t, binned, names, stats, edges, rows)
    crowded = [c for c in binned if share[c.name] >= ROBUST_SHARE]
    levels = np.linspace(0.0, 1.0, bins + 1)[1:-1]   # and the quartiles, for the outlier sentences: one sort
    found = _quantiles(t, crowded, names, stats, np.concatenate([levels, [0.25, 0.75]]), rows) if crowded else {}
    for c in crowded:
        if not np.all(np.isfinite(found[c.name])):   # b - a overflowed between two huge order statistics
            raise DataError(f"column {c.name!r} has values too large to bin (|x| up to "
                            f"{max(abs(stats[c.name][3]), abs(stats[c.name][4])):.3g}); rescale the column")
    quantile = {c.name: np.unique(found[c.name][:levels.size]) for c in crowded}
    q_share = _fullest_shares(t, crowded, names, stats, quantile, rows)
    robust = {}
    for c in crowded:
        if robust_switch(share[c.name], q_share[c.name]):
            edges[c.name] = quantile[c.name]
            robust[c.name] = (share[c.name], q_share[c.name])
    if shares is not None:   # for the outlier sentences: mean-std's fullest share of every column, quantile's, Q1/Q3
        shares |= {c.name: (share[c.name], q_share.get(c.name), found[c.name][levels.size:] if c.name in found
                            else None) for c in binned}
    return edges, robust


def _outlier_sentences(t, binned: list, names: dict, stats: dict, edges: dict, shares: dict, method: str,
                       bins: int, rows: int) -> list[str]:
    """The sentences :func:`fslab.data.data_checks.outlier_notes` says in memory, from the engine: the binned
    columns with more than DISCRETE_MAX distinct values whose fullest bin under ``method`` (``edges``; "auto": the
    mean-std bins, ``shares`` from :func:`_robust_edges`) holds at least STRETCHED of their rows; their quartiles
    and quantile edges from one query of exact order statistics (numpy's linear rule), the quantile bins' fullest
    share from one GROUP BY (auto counted it already), then one query counting the rows beyond the fences with the
    three smallest distinct far values. Quantile bins: none."""
    from .data_checks import OUTLIER_IQR, STRETCHED, outlier_columns, outlier_words

    columns = [c for c in binned if bool(outlier_columns(stats[c.name][1], stats[c.name][2], bins))]
    if method == "quantile" or not columns:
        return []
    if method == "auto":
        share = {c.name: shares[c.name][0] for c in columns}
    else:
        share = _fullest_shares(t, columns, names, stats, edges, rows)
    crowded = [c for c in columns if share[c.name] >= STRETCHED]
    if not crowded:
        return []
    known = {c.name: shares[c.name] for c in crowded if method == "auto" and shares[c.name][1] is not None}
    counted = [c for c in crowded if c.name not in known]   # auto counted the others' quartiles and quantile share
    q = _quantiles(t, counted, names, stats, np.concatenate([[0.25, 0.75], np.linspace(0.0, 1.0, bins + 1)[1:-1]]),
                   rows) if counted else {}
    quantile = {c.name: np.unique(q[c.name][2:]) for c in counted}   # tied edges merged, as memory's mark_ties
    q_share = {name: known[name][1] for name in known} | _fullest_shares(t, counted, names, stats, quantile, rows)
    q |= {name: known[name][2] for name in known}
    fences = {c.name: (q[c.name][0] - OUTLIER_IQR * (q[c.name][1] - q[c.name][0]),
                       q[c.name][1] + OUTLIER_IQR * (q[c.name][1] - q[c.name][0])) for c in crowded}
    items = []
    for c in crowded:
        v, (lo, hi) = f'"{names[c.name]}"', fences[c.name]
        items.append(f"CASE WHEN {v} < {_sql_float(lo)} OR {v} > {_sql_float(hi)} THEN {v} END")
    got = over_long(t, _to_sql(t), items, 'SELECT "i", "v", "t" FROM (SELECT "i", "v", SUM(COUNT(*)) OVER (PARTITION '
                    'BY "i") AS "t", ROW_NUMBER() OVER (PARTITION BY "i" ORDER BY "v") AS "r" FROM fslab_long WHERE '
                    '"v" IS NOT NULL GROUP BY "i", "v") AS "q" WHERE "r" <= 3', rows, "count the outliers")
    far: dict[int, tuple[int, list[float]]] = {}
    for i, v, n in zip(got.get("i", []), got.get("v", []), got.get("t", []), strict=True):
        far.setdefault(int(i), (int(n), []))[1].append(float(v))
    out = []
    for i, c in enumerate(crowded):
        if i in far:
            n_far, first = far[i]
            out.append(outlier_words(c.name, n_far, sorted(first), float(fences[c.name][0]),
                                     float(fences[c.name][1]), method, bins, float(share[c.name]),
                                     float(q_share[c.name]))[1])
    return out


def _fullest_shares(t, columns: list, names: dict, stats: dict, edges: dict, rows: int) -> dict[str, float]:
    """{column: share of its non-missing rows in its fullest bin} under ``edges`` (code = #{e <= x}, as
    :func:`_code`), from one GROUP BY (column, code) over the long table of the codes."""
    from .discretize import fullest_share

    if not columns:
        return {}
    items = []
    for c in columns:
        v = f'"{names[c.name]}"'
        whens = " ".join(f"WHEN {v} < {_sql_float(e)} THEN {k}" for k, e in enumerate(edges[c.name]))
        items.append(f"CAST(CASE WHEN {v} IS NULL THEN NULL {whens} ELSE {len(edges[c.name])} END AS INTEGER)")
    got = over_long(t, _to_sql(t), items, 'SELECT "i", "v", COUNT(*) AS "n" FROM fslab_long WHERE "v" IS NOT NULL '
                    'GROUP BY "i", "v"', rows, "count the rows per bin")
    counts = np.zeros((len(columns), max(len(edges[c.name]) for c in columns) + 1), dtype=np.int64)
    for i, v, n in zip(got.get("i", []), got.get("v", []), got.get("n", []), strict=True):
        counts[int(i), int(v)] = int(n)
    share = fullest_share(counts, [stats[c.name][0] for c in columns])
    return {c.name: float(x) for c, x in zip(columns, share, strict=True)}


def _numeric_category(v: str, found: np.ndarray, missing: bool) -> tuple[str, tuple[str, ...]]:
    """SQL codes of a number column kept as category (as asked): its levels are the texts of its values (whole
    numbers without ".0"), sorted as text, as :func:`fslab.data.plan.read_column` reads them."""
    whole_numbers = bool(np.all(found % 1 == 0))
    texts = [str(int(x)) if whole_numbers else str(float(x)) for x in found]
    levels, rank = np.unique(np.asarray(texts, dtype=object), return_inverse=True)
    top = len(levels)
    whens = " ".join(f"WHEN {v} = {_sql_float(x)} THEN {int(r)}" for x, r in zip(found, rank.ravel(), strict=True))
    return _small(f"CASE WHEN {v} IS NULL THEN {top} {whens} ELSE 0 END", top), \
        tuple(str(x) for x in levels) + ((MISSING,) if missing else ())


def _small(case: str, top: int) -> str:
    return f"CAST({case} AS {'SMALLINT' if top < 32767 else 'INTEGER'})"


def _quoted(t, name: str) -> str:
    return quote_name(_backend_name(t), name)


def _check_options(target, feature_names, materialize, near_unique, row_id=None) -> None:
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
    if row_id is not None and (not isinstance(row_id, str) or not row_id):
        raise ParameterError(f"row_id must be a column name (text); got {row_id!r}")


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


def _all_null(dtype) -> bool:
    """A column of NULLs only (pyarrow's null type; DuckDB's NULL, which Ibis 12 calls unknown): text, all missing."""
    return dtype.is_null() or (dtype.is_unknown() and "NULL" in str(dtype).upper())


def _backend_name(t) -> str:
    try:
        return t.get_backend().name
    except Exception:
        return "unknown engine"


def _code(v: str, kind: str, cut, missing: bool, ordered_text: bool) -> tuple[str, tuple[str, ...]]:
    """The SQL of one feature's codes (``v``: its quoted column) and the names of its codes (discretize's rules):
    binned code(x) = #{edges e <= x}, discrete the rank of the value, categorical the rank of the text among the
    sorted categories; a missing value the last code."""
    if kind == "binned":
        whens = " ".join(f"WHEN {v} < {_sql_float(e)} THEN {k}" for k, e in enumerate(cut))
        body, names, top = f"{whens} ELSE {len(cut)}", bin_names(cut), len(cut) + 1
    elif kind == "discrete":
        whens = " ".join(f"WHEN {v} = {_sql_float(x)} THEN {k}" for k, x in enumerate(cut))
        body, names, top = f"{whens} ELSE 0", tuple(value_name(x) for x in cut), len(cut)
    else:
        texts = [str(x) for x in cut]
        body = f"ELSE {_text_rank(v, texts, 0, len(texts), ordered_text)}" if texts else "ELSE 0"
        names, top = tuple(texts), len(texts)
    return _small(f"CASE WHEN {v} IS NULL THEN {top} {body} END", top), names + ((MISSING,) if missing else ())


def _text_rank(v: str, texts: list[str], lo: int, hi: int, ordered: bool) -> str:
    """SQL rank of ``v`` among ``texts[lo:hi]`` (sorted by code point): a balanced tree of ``<`` comparisons (log2
    of the levels per row) where the engine compares text by code point (DuckDB), else one ``=`` per level."""
    if not ordered or hi - lo <= 8:
        whens = " ".join(f"WHEN {v} = {_sql_text(texts[k])} THEN {k}" for k in range(lo, hi))
        return f"CASE {whens} ELSE {lo} END"
    mid = (lo + hi) // 2
    return (f"CASE WHEN {v} < {_sql_text(texts[mid])} THEN {_text_rank(v, texts, lo, mid, ordered)} "
            f"ELSE {_text_rank(v, texts, mid, hi, ordered)} END")


__all__ = ["SqlMissingError", "connect_duckdb", "from_sql", "require_ibis"]
