"""The plan's statistics of a table held by a SQL engine: :class:`fslab.data.plan.TableSummary` from SQL aggregates.

:func:`summarize_sql` gives :func:`fslab.data.plan.decide` the counts :func:`fslab.data.plan.summarize` gives it in
memory, counted by the engine over its own rows (only the numbers leave it):

* numbers: present values, distinct values (exact), minimum, maximum, whole-number test, sums; the evenly-spaced
  test of unique reals (``|r - round(r)| <= 1e-6`` with ``r = (x - lo) / step``, as
  :func:`fslab.data.column_types.evenly_spaced`);
* text (stripped): present values, distinct values (exact), and for every parse rule of
  :mod:`fslab.data.parse_rules` the rows it matches; then, for the rules some value matches, the rows each reading
  reads with the range of its values (:mod:`fslab.data.sql_parse`), the decimal commas seen, the timestamps, and
  the rows per unit of the number rule;
* the target: rows per distinct value (stripped text, or the number).

**Wide tables: one long table, one GROUP BY.** Every per-column statistic is asked of the table in long form, one
row ``(i, v)`` per (row, column) pair (:func:`long_sql`: ``UNNEST`` of two arrays on DuckDB and PostgreSQL, a
``UNION ALL`` of one ``SELECT`` per column elsewhere), grouped by the column index ``i``: one query per batch of
columns (at most :data:`LONG_COLUMNS`, and :data:`LONG_CELLS` pairs), whose text is one expression per column
plus the statistics written once (:func:`over_long`). A parse rule's SQL is compiled by Ibis once, over a
two-column table, not once per column, and each query projects only its batch's columns. 3,000 columns of 300
rows: still running after 300 s before (a GROUP BY per column in unions of 100, 300 aggregates a query, Ibis
projections of every column; 1,000 columns ran DuckDB out of its 512 MB), 8-16 s of CPU now on a loaded machine
(bench/README.md).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable

import numpy as np

from . import parse_rules as pr
from . import sql_parse as sp
from .data_checks import ID_MIN_ROWS, InfiniteValueError
from .plan import TEXT_CAP, VALUES_CAP, ColumnSummary, TableSummary
from .sql_source import SqlError, engine_errors, fetch

BATCH = 300     # Ibis aggregate expressions per query (a type set by hand: few columns)
LONG_COLUMNS = 1_000   # columns per long-form query at most
LONG_CELLS = 4_000_000   # (row, column) pairs per long-form query at most (at least one column a query)
COMPOUND = 250   # SELECTs per UNION ALL where the engine has no UNNEST (SQLite allows 500)
UNNEST = ("duckdb", "postgres")   # engines that unnest two arrays in step: SELECT UNNEST(ARRAY[..]), UNNEST(..)
MATERIALIZED = ("duckdb", "postgres", "sqlite")   # engines that take WITH x AS MATERIALIZED (...)
EXAMPLE_ROWS = 100   # rows read for each column's example value (its first non-missing one)
BIG = 4503599627370496.0   # 2**52: every double at least this large is a whole number
NUMBER_STATS = ('COUNT("v") AS "n", COUNT(DISTINCT "v") AS "u", MIN("v") AS "lo", MAX("v") AS "hi", '
                f'MIN(CASE WHEN "v" IS NULL OR ABS("v") >= {BIG!r} THEN 1 WHEN CAST(CAST("v" AS BIGINT) AS DOUBLE '
                'PRECISION) = "v" THEN 1 ELSE 0 END) AS "int", SUM("v") AS "s", SUM("v" * "v") AS "q"')


def aggregate(t, aggs: dict, what: str) -> dict:
    """The values of the Ibis aggregate expressions ``aggs`` {name: expression} over ``t``: one query per
    :data:`BATCH` of them (for a few columns; a statistic of every column goes through :func:`over_long`)."""
    out: dict = {}
    items = list(aggs.items())
    for start in range(0, len(items), BATCH):
        got = fetch(t.aggregate(**dict(items[start:start + BATCH])), what).to_pylist()
        out |= got[0] if got else {}
    return out


def _count(cond):
    import ibis

    return ibis.ifelse(cond, 1, 0).sum()


def numeric_value(column, dtype, nan: bool):
    """A number column as float64 with NaN read as missing (NULL), as pandas reads a float column (``nan``: the
    engine has NaN; SQLite stores it as NULL)."""
    import ibis

    v = column.cast("float64")
    return ibis.ifelse(v.isnan(), ibis.null("float64"), v) if nan and dtype.is_floating() else v


def dialect(t) -> str:
    """The name of ``t``'s engine (Ibis's backend name: "duckdb", "postgres", "sqlite", ...)."""
    return t.get_backend().name


def long_sql(engine: str, items: list[str], start: int) -> str:
    """SQL of the long form of ``fslab_b``: for each of its rows and each k, the row ``(i, v)`` = ``(start + k,
    items[k])`` (``items``: SQL expressions of one type over its columns; NULL values kept). DuckDB and PostgreSQL
    unnest two arrays in step (one scan); other engines get a ``UNION ALL`` of one ``SELECT`` per item."""
    if engine in UNNEST:
        keys = ", ".join(str(start + k) for k in range(len(items)))
        return f'SELECT UNNEST(ARRAY[{keys}]) AS "i", UNNEST(ARRAY[{", ".join(items)}]) AS "v" FROM fslab_b'
    return " UNION ALL ".join(f'SELECT {start + k} AS "i", {x} AS "v" FROM fslab_b' for k, x in enumerate(items))


def over_long(t, base: str | Callable[[list[str]], str], items: list[str], query: str | Callable[[int, int], str],
              rows: int, what: str, staged: str | None = None) -> dict[str, list]:
    """The rows of ``query`` (SQL over ``fslab_long``, the long form of ``items`` over the rows of the SQL ``base``:
    :func:`long_sql`), one query per batch of items, as {column: values}: at most :data:`LONG_COLUMNS` items
    and :data:`LONG_CELLS` (row, item) pairs a query (``rows``: the rows of ``base``), :data:`COMPOUND` where the
    long form is a UNION ALL. ``query`` may depend on the batch's items ``[start, stop)``. ``staged``: SQL over
    ``fslab_long`` that ``query`` reads as ``fslab_staged``, computed once (``MATERIALIZED``: SQLite and
    PostgreSQL would otherwise inline it and run a capture group's regex once per use, 30 times per row). ``base``
    may be a function of the batch's items giving the SQL of only the columns they read (:func:`_summary_base`)."""
    engine = dialect(t)
    step = max(1, min(LONG_COLUMNS, LONG_CELLS // max(rows, 1), COMPOUND if engine not in UNNEST else LONG_COLUMNS))
    out: dict[str, list] = {}
    for start in range(0, len(items), step):
        stop = min(start + step, len(items))
        sql = query(start, stop) if callable(query) else query
        rows_sql = base(items[start:stop]) if callable(base) else base
        tables = f"fslab_b AS ({rows_sql}), fslab_long AS ({long_sql(engine, items[start:stop], start)})"
        if staged is not None:
            tables += f", fslab_staged AS {'MATERIALIZED ' if engine in MATERIALIZED else ''}({staged})"
        if sql.lstrip()[:5].upper() == "WITH ":   # Ibis's own CTEs join ours (a subquery would nest deeper than
            sql = ", " + sql.lstrip()[5:]         # SQLite's parser allows for the month-name date rules)
        got = raw_rows(t, f"WITH {tables} {sql}", what)
        for k, v in got.items():
            out.setdefault(k, []).extend(v)
    return out


def long_template(engine: str, vtype: str, build, name: str = "fslab_long", schema: dict | None = None) -> str:
    """The SQL, in ``engine``'s dialect, of the Ibis expression ``build(long)`` over the unbound table ``name``
    (``fslab_long``: ``i`` int64, ``v`` of type ``vtype``; else of ``schema``): a statistic written once for every
    column of a batch."""
    import ibis

    table = ibis.table(schema or {"i": "int64", "v": vtype}, name=name)
    return str(ibis.to_sql(build(table), dialect=engine, pretty=False))


@functools.lru_cache(maxsize=64)
def rule_templates(engine: str, name: str) -> tuple[str, str, tuple, str]:
    """The SQL of a parse rule's statistics over the long table of stripped texts, in ``engine``'s dialect (compiled
    once per process): the staged rows (``i`` and the capture groups, :func:`fslab.data.sql_parse.stage`), the
    readings per column over them (``fslab_staged``, :func:`_reading_query`) with their (value column, key, kind),
    and for the number rule the rows per (column, unit) (:func:`_units_query`; else "")."""
    rule = pr.BY_NAME[name]
    out: dict = {}

    def build(long):
        staged, group = sp.stage(long, {0: long.v}, {0: [rule]}, {"i": long.i})
        out["names"] = [g.get_name() for g in group(0, rule)]
        out["table"] = staged.select("i", *out["names"])
        return out["table"]

    staged = long_template(engine, "string", build)
    names, schema = out["names"], dict(out["table"].schema().items())
    plan: list[tuple[str, str, str]] = []
    readings = long_template(engine, "", lambda g: _reading_query(g, [g[n] for n in names], rule, plan),
                             "fslab_staged", schema)
    units = long_template(engine, "", lambda g: _units_query(g, [g[n] for n in names]), "fslab_staged",
                          schema) if name == "number" else ""
    return staged, readings, tuple(plan), units


def number_stats(t, base, items: list[str], rows: int, what: str) -> list[dict]:
    """For each float64 expression ``items[k]`` over ``base``: present values ``n``, distinct values ``u``, ``lo``,
    ``hi``, whole-number test ``int`` (a round trip through BIGINT below 2**52), sum ``s`` and sum of squares
    ``q`` (None where nothing is present)."""
    got = over_long(t, base, items, f'SELECT "i", {NUMBER_STATS} FROM fslab_long GROUP BY "i"', rows, what)
    return _by_index(got, len(items), {"n": 0, "u": 0, "lo": None, "hi": None, "int": None, "s": None, "q": None})


def _by_index(got: dict[str, list], n: int, empty: dict) -> list[dict]:
    """Rows of a long-form GROUP BY "i" as one dict per item 0..n-1 (``empty`` for an item with no row)."""
    out = [dict(empty) for _ in range(n)]
    names = [k for k in got if k != "i"]
    for r, i in enumerate(got.get("i", [])):
        out[int(i)] = {k: got[k][r] for k in names}
    return out


def _examples(t, names: list[str]) -> dict[str, str]:
    """The first non-missing value of each column among the first :data:`EXAMPLE_ROWS` rows, as text."""
    if not names:
        return {}
    columns = ", ".join(_quote(t, c) for c in names)
    got = raw_rows(t, f'SELECT {columns} FROM ({_to_sql(t)}) AS "t0" LIMIT {EXAMPLE_ROWS}', "read the first rows")
    out = {}
    for name, values in zip(names, got.values(), strict=True):
        first = next((v for v in values if v is not None and v == v), None)   # v == v: NaN is missing
        out[name] = "" if first is None else str(first)
    return out


def summarize_sql(t, features: list[str], target: str, schema, nan: bool, total: int) -> tuple[TableSummary, list]:
    """(the plan's TableSummary, the target's (value, rows) pairs) of the rows of ``t`` (those whose target is
    present) of a table of ``total`` rows, counted in the engine."""
    numeric = [c for c in features if _is_number(schema[c])]
    numbers = set(numeric)
    text = [c for c in features if c not in numbers]
    target_summary, pairs = _target(t, target, schema, nan)
    rows = target_summary.n_rows
    base = _summary_base(t, {f"v{i}": (c, "number") for i, c in enumerate(numeric)}
                         | {f"s{i}": (c, "text") for i, c in enumerate(text)}, schema, nan)
    stats = number_stats(t, base, [f'"v{i}"' for i in range(len(numeric))], rows,
                         "read the number columns' statistics") if numeric else []
    examples = _examples(t, features)
    summaries: dict[str, ColumnSummary] = {}
    for c, got in zip(numeric, stats, strict=True):
        n = int(got["n"])
        lo, hi = (float(got[k]) if n else math.nan for k in ("lo", "hi"))
        if n and (math.isinf(lo) or math.isinf(hi)):
            raise InfiniteValueError(f"column {c!r} holds an infinite value; replace it (or leave the column out "
                                     "with feature_names=)")
        nd = int(got["u"])
        summaries[c] = ColumnSummary(
            c, "numeric", rows, rows - n, levels=(lo,) if nd == 1 else None, n_distinct=nd, distinct_exact=True,
            lo=lo, hi=hi, integral=bool(got["int"]) if n else True, total=float(got["s"] or 0.0),
            total_sq=float(got["q"] or 0.0), example=examples.get(c, ""))
    _evenly_spaced(t, {c: f"v{i}" for i, c in enumerate(numeric)}, summaries, rows, base)
    matched = _text_stats(t, base, len(text), rows)
    readings = _text_readings(t, base, text, matched, rows)
    for i, c in enumerate(text):
        got = matched[i]
        n, nd = int(got["tn"]), int(got["tu"])
        counts, lows, highs = readings[c]
        summaries[c] = ColumnSummary(c, "text", rows, rows - n, counts, lows, highs,
                                     levels=(str(got["tm"]),) if nd == 1 else None, n_distinct=nd,
                                     distinct_exact=True, example=examples.get(c, ""))
    summaries[target] = target_summary
    return TableSummary(tuple(summaries[c] for c in [*features, target]), target, total, total - rows), pairs


def _summary_base(t, columns: dict[str, tuple], schema, nan: bool) -> Callable[[list[str]], str]:
    """The SQL of the :func:`projection` of ``columns`` ("v{i}" numbers, "s{i}" texts) that a batch of items reads
    (the names quoted in them): a query binds its own batch's expressions, not the whole table's."""

    def base(items: list[str]) -> str:
        read = set(re.findall(r'"([vs][0-9]+)"', " ".join(items)))
        return projection(t, {n: c for n, c in columns.items() if n in read}, schema, nan)

    return base


def _is_number(dtype) -> bool:
    return dtype.is_numeric() or dtype.is_boolean()


def _text_stats(t, base, n: int, rows: int) -> list[dict]:
    """For each stripped text column ``s{i}`` of ``base``: present values ``tn``, distinct values ``tu``, the least
    value ``tm``, and ``r{k}`` the rows rule k of :data:`fslab.data.parse_rules.RULES` matches
    (:func:`text_template`)."""
    if not n:
        return []
    got = over_long(t, base, [f'"s{i}"' for i in range(n)], text_template(dialect(t)), rows,
                    "read the text columns' statistics")
    return _by_index(got, n, {"tn": 0, "tu": 0, "tm": None} | {f"r{k}": 0 for k in range(len(pr.RULES))})


@functools.lru_cache(maxsize=8)
def text_template(engine: str) -> str:
    """The SQL of the text statistics per column of the long table (:func:`_text_stats`), compiled once."""

    def build(long):
        short = sp.short_text(long.v)
        return long.group_by("i").aggregate(
            tn=long.v.count(), tu=long.v.nunique(), tm=long.v.min(),
            **{f"r{k}": _count(sp.matches(rule, short)) for k, rule in enumerate(pr.RULES)})

    return long_template(engine, "string", build)


def _evenly_spaced(t, names: dict[str, str], summaries: dict, rows: int, base) -> None:
    """Set ``evenly_spaced`` of the unique real columns with no missing value (what the ID rule asks):
    max |r - round(r)| <= 1e-6 with r = (x - lo) / step (:func:`fslab.data.column_types.evenly_spaced`); ``names``
    {column: its name in ``base``, the SQL projection of the number columns}."""
    ask = [c for c, s in summaries.items() if rows >= max(ID_MIN_ROWS, 3) and s.n_distinct == rows
           and not s.n_missing and not s.integral and (s.hi - s.lo) / (rows - 1) > 0]
    if not ask:
        return
    items = []
    for c in ask:
        s = summaries[c]
        items.append(f'(("{names[c]}" - {s.lo!r}) / {(s.hi - s.lo) / (rows - 1)!r})')
    got = _by_index(over_long(t, base, items, 'SELECT "i", MAX(ABS("v" - ROUND("v"))) AS "e" FROM fslab_long '
                                              'GROUP BY "i"', rows, "test evenly spaced values"),
                    len(ask), {"e": None})
    for c, g in zip(ask, got, strict=True):
        summaries[c] = _replace(summaries[c], evenly_spaced=g["e"] is not None and float(g["e"]) <= 1e-6)


def _replace(s: ColumnSummary, **changes) -> ColumnSummary:
    from dataclasses import replace

    return replace(s, **changes)


def _text_readings(t, base, text: list[str], matched: list[dict], rows: int
                   ) -> dict[str, tuple[dict, dict, dict]]:
    """{column: (counts, lows, highs)} of the text columns by every reading of the rules some value matches
    (the keys of :class:`fslab.data.plan.ColumnSummary`): per rule, one query over the columns it matches, its
    capture groups staged once per row (:func:`over_long`)."""
    out: dict[str, tuple[dict, dict, dict]] = {c: ({}, {}, {}) for c in text}
    for k, rule in enumerate(pr.RULES):
        columns = [(i, c) for i, c in enumerate(text) if matched[i][f"r{k}"]]
        if not columns:
            continue
        staged, query, plan, units = rule_templates(dialect(t), rule.name)
        items = [f'"s{i}"' for i, _ in columns]
        got = _by_index(over_long(t, base, items, query, rows, "read the text columns' readings", staged),
                        len(items), {})
        for (_, c), g in zip(columns, got, strict=True):
            counts, lows, highs = out[c]
            for name, key, kind in plan:
                n = int(g.get(name + "n") or 0)
                if n:
                    counts[key] = n
                    if kind == "range":
                        lows[key], highs[key] = float(g[name + "lo"]), float(g[name + "hi"])
        if units:
            _units(t, base, columns, rows, out, units, staged)
    return out


def _reading_query(staged, g: list, rule, plan: list):
    """Per column ``i`` of the staged long table (capture groups ``g`` of ``rule``): the rows each reading of the
    rule reads with their range, the decimal commas, the timestamps (``plan`` receives (value column, key, kind)
    for each)."""
    values: dict = {}
    if rule.kind == "boolean":
        _reading(values, plan, "b", pr.Reading(rule.name), sp.boolean_value(g))
    elif rule.kind == "date":
        for o, order in enumerate(rule.orders):
            reading = pr.Reading(rule.name, order)
            v = sp.date_value(rule, g, order)
            _reading(values, plan, f"d{o}", reading, v)
            values[f"d{o}t"] = _flag(v.notnull() & (v != (v / 86400.0).floor().cast("float64") * 86400.0))
            plan.append((f"d{o}t", "time|" + reading.key(), "count"))
    else:
        num = g[0] if rule.kind == "percent" else g[1]
        values["c"] = _flag(num.notnull() & sp.comma_decimal(num))
        plan.append(("c", "comma|" + rule.name, "count"))
        if rule.kind == "percent":
            for mark in (".", ","):
                _reading(values, plan, f"p{mark == ','}", pr.Reading(rule.name, "", mark),
                         sp.number_value(num, mark == ","))
    third = staged.select("i", **values)
    aggs: dict = {}
    for name, _, kind in plan:
        v = third[name]
        aggs |= {name + "n": v.sum()} if kind == "count" else \
            {name + "n": v.count(), name + "lo": v.min(), name + "hi": v.max()}
    return third.group_by("i").aggregate(**aggs)


def _flag(cond):
    """1 where ``cond`` holds, else 0 (NULL counts as false)."""
    import ibis

    return ibis.ifelse(cond, 1, 0)


def _reading(values: dict, plan: list, name: str, reading, v) -> None:
    values[name] = v
    plan.append((name, "read|" + reading.key(), "range"))


def _units_query(staged, g: list):
    """Rows per (column, unit) of the number rule's matches (capture groups ``g``), with each decimal mark's rows
    and range."""
    x = staged.select("i", u=sp.number_unit(g), p=sp.number_value(g[1], False), c=sp.number_value(g[1], True))
    x = x.filter(x.u.notnull())
    return x.group_by(["i", "u"]).aggregate(n=x.count(), n0=x.p.count(), lo0=x.p.min(), hi0=x.p.max(),
                                            n1=x.c.count(), lo1=x.c.min(), hi1=x.c.max())


def _units(t, base, columns: list[tuple[int, str]], rows: int, out: dict, query: str, staged: str) -> None:
    """Rows per unit of the number rule and each (mark, unit) reading's rows and range (:func:`_units_query`) of the
    text ``columns`` (index in ``base``, name) the rule matches."""
    got = over_long(t, base, [f'"s{i}"' for i, _ in columns], query, rows, "count the units of numbers", staged)
    for r in range(len(got.get("i", []))):
        counts, lows, highs = out[columns[int(got["i"][r])][1]]
        unit = str(got["u"][r])
        counts["unit|" + unit] = counts.get("unit|" + unit, 0) + int(got["n"][r])
        for m, mark in enumerate((".", ",")):
            n = int(got[f"n{m}"][r] or 0)
            if n:
                key = "read|" + pr.Reading("number", "", mark, unit).key()
                counts[key] = n
                lows[key], highs[key] = float(got[f"lo{m}"][r]), float(got[f"hi{m}"][r])


def target_pairs(t, value, numeric: bool, target: str) -> list:
    """The target's sorted (value, rows) pairs (``value``: its expression, numbers as float64, text stripped):
    one GROUP BY."""
    got = fetch(t.group_by(v=value).aggregate(n=t.count()), "count the target's classes")
    raw = got.column("v").to_pylist()
    n = np.asarray(got.column("n").to_pylist(), dtype=np.int64)
    keys = np.asarray([float(x) for x in raw] if numeric else [str(x) for x in raw],
                      dtype=np.float64 if numeric else object)
    order = np.argsort(keys, kind="stable")
    keys, n = keys[order], n[order]
    if numeric and keys.size and not np.isfinite(keys).all():
        raise InfiniteValueError(f"target {target!r} holds an infinite value; replace it or choose another target")
    return list(zip(keys.tolist(), n.tolist(), strict=True))


def target_value(t, target: str, schema, nan: bool):
    """(whether the target is a number, its expression as the classes read it: float64, or the stripped text)."""
    dtype = schema[target]
    numeric = _is_number(dtype)
    return numeric, numeric_value(t[target], dtype, nan) if numeric else t[target].cast("string").strip()


def raw_rows(t, query: str, what: str, fetch: bool = True) -> dict[str, list]:
    """The result of the plain-SQL ``query`` on ``t``'s engine as {column: values}: run as it is (Ibis's
    ``Backend.sql`` would parse it again with sqlglot, seconds for a wide table's query); the engine's errors become
    one SqlError. ``fetch=False``: a statement with no result (CREATE ...)."""
    backend = t.get_backend()
    with engine_errors(what):
        cursor = backend.raw_sql(query)
        try:
            rows = cursor.fetchall() if fetch else []
            names = [d[0] for d in cursor.description] if fetch else []
        finally:
            if backend.name != "duckdb":   # DuckDB's raw_sql gives the connection itself: keep it open
                cursor.close()
    return {name: [row[k] for row in rows] for k, name in enumerate(names)}


def projection(t, columns: dict[str, tuple], schema, nan: bool) -> str:
    """The SQL of ``t`` projected to ``columns`` {new name: (column, kind)}: kind "number" the column as float64 with
    NaN read as missing (:func:`numeric_value`), "text" its stripped text, "string" its text, "raw" the column as it
    is, ("group", rule, k) the k-th capture group of the parse rule in its stripped text (NULL where the rule does
    not match; :func:`fslab.data.sql_parse.groups`). Each expression is compiled by Ibis once per (kind, dtype), on
    a one-column table, and written for every column of that dtype, so a table of 3,000 columns costs a few
    compiles, not 3,000."""
    engine = dialect(t)
    parts = []
    for name, (c, kind) in columns.items():
        sql = _column_template(engine, kind, schema[c], nan).replace(chr(34) + "fslab_x" + chr(34), _quote(t, c))
        if kind != "raw":   # a declared type (SQLite types a CREATE TABLE ... AS column by it)
            sql = f"CAST({sql} AS {'DOUBLE PRECISION' if kind == 'number' else 'TEXT'})"
        parts.append(f"{sql} AS {_quote(t, name)}")
    return f'SELECT {", ".join(parts) or "1 AS fslab_none"} FROM ({_to_sql(t)}) AS "t0"'


@functools.lru_cache(maxsize=256)
def _column_template(engine: str, kind, dtype, nan: bool) -> str:
    """The SQL of one :func:`projection` expression over the column ``"t0"."fslab_x"``."""
    import ibis

    dummy = ibis.table({"fslab_x": dtype}, name="fslab_dummy")
    x = dummy.fslab_x
    if kind == "number":
        value = numeric_value(x, dtype, nan)
    elif kind == "text":
        value = x.cast("string").strip()
    elif kind == "string":
        value = x.cast("string")
    elif kind == "raw":
        value = x
    else:
        value = sp.groups(pr.BY_NAME[kind[1]], sp.short_text(x.cast("string").strip()))[kind[2]]
    sql = str(ibis.to_sql(dummy.select(fslab_v=value), dialect=engine, pretty=False))
    head, _, tail = sql.partition("SELECT")
    expression, _, rest = tail.rpartition('AS "fslab_v"')
    if head.strip() or '"fslab_x"' not in expression or "fslab_dummy" not in rest:
        raise SqlError(f"could not write the columns' SQL for {engine}")   # never seen: Ibis's shape changed
    return expression.strip()


DOUBLE_QUOTED = ("duckdb", "postgres", "sqlite")   # engines whose quoted names are "..." with " doubled


def quote_name(engine: str, name: str) -> str:
    """``name`` as a quoted identifier of ``engine``'s SQL: sqlglot's quoting, written directly on the engines that
    double a '"' (sqlglot took 0.3 ms a name: 3,000 columns are quoted some 15,000 times)."""
    if engine in DOUBLE_QUOTED:
        return '"' + name.replace('"', '""') + '"'
    return _sqlglot_quote(engine, name)


@functools.lru_cache(maxsize=4096)
def _sqlglot_quote(engine: str, name: str) -> str:
    import sqlglot as sg

    return sg.to_identifier(name, quoted=True).sql(engine)


def _quote(t, name: str) -> str:
    return quote_name(dialect(t), name)


@functools.lru_cache(maxsize=16)
def _to_sql(expr) -> str:
    """The SQL of an Ibis table expression, compiled once (every statistic of one table reads the same projection)."""
    import ibis

    return str(ibis.to_sql(expr))


def distinct_values(t, names: list[str], rows: int, what: str) -> list[list]:
    """The distinct non-missing values of each column ``names`` of ``t`` (of one type), one ``GROUP BY`` (column,
    value) over the long table (:func:`over_long`)."""
    out: list[list] = [[] for _ in names]
    if not names:
        return out
    got = over_long(t, _to_sql(t), [f'"{n}"' for n in names],
                    'SELECT "i", "v" FROM fslab_long WHERE "v" IS NOT NULL GROUP BY "i", "v"', rows, what)
    for i, v in zip(got.get("i", []), got.get("v", []), strict=True):
        out[int(i)].append(v)
    return out


def _target(t, target: str, schema, nan: bool) -> tuple[ColumnSummary, list]:
    """The target's summary (class counts while under the cap; ``n_rows``: the rows of ``t``) and its (value, rows)
    pairs."""
    numeric, value = target_value(t, target, schema, nan)
    pairs = target_pairs(t, value, numeric, target)
    keys = np.asarray([k for k, _ in pairs], dtype=np.float64 if numeric else object)
    n = np.asarray([c for _, c in pairs], dtype=np.int64)
    rows = int(n.sum())
    cap = VALUES_CAP if numeric else TEXT_CAP
    levels = tuple(keys.tolist()) if keys.size <= cap else None
    summary = ColumnSummary(target, "numeric" if numeric else "text", rows, 0, levels=levels,
                            level_counts=tuple(int(x) for x in n) if levels is not None else None,
                            n_distinct=int(keys.size), distinct_exact=True,
                            lo=float(keys[0]) if numeric and keys.size else math.nan,
                            hi=float(keys[-1]) if numeric and keys.size else math.nan)
    return summary, pairs


__all__ = ["BATCH", "LONG_CELLS", "LONG_COLUMNS", "aggregate", "distinct_values", "long_sql", "long_template",
           "number_stats", "numeric_value", "over_long", "projection", "quote_name", "raw_rows", "rule_templates",
           "summarize_sql", "target_pairs", "target_value", "text_template"]
