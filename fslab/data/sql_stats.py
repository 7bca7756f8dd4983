"""The plan's statistics of a table held by a SQL engine: :class:`fslab.data.plan.TableSummary` from SQL aggregates.

:func:`summarize_sql` gives :func:`fslab.data.plan.decide` the counts :func:`fslab.data.plan.summarize` gives it in
memory, counted by the engine over its own rows (only the numbers leave it):

* numbers: present values, distinct values (exact), minimum, maximum, whole-number test, sums; the evenly-spaced
  test of unique reals (``|r - round(r)| <= 1e-6`` with ``r = (x - lo) / step``, as
  :func:`fslab.data.column_types.evenly_spaced`);
* text (stripped): present values, distinct values (exact), and for every parse rule of
  :mod:`fslab.data.parse_rules` the rows it matches; then, for the rules some value matches, the rows each reading
  reads with the range of its values (:mod:`fslab.data.sql_parse`), the decimal commas seen, the timestamps, and
  the rows per unit of the number rule (one ``GROUP BY`` unit per column);
* the target: rows per distinct value (stripped text, or the number).

Wide tables cost what their columns cost: the aggregates go to the engine in batches of :data:`BATCH` expressions
(one query each) and the per-column ``GROUP BY`` queries in unions of :data:`UNION` columns, never one statement per
table, so compiling and planning stay linear in the number of columns.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..errors import FslabError
from . import parse_rules as pr
from . import sql_parse as sp
from .data_checks import ID_MIN_ROWS, InfiniteValueError
from .plan import TEXT_CAP, VALUES_CAP, ColumnSummary, TableSummary
from .sql_source import SqlError, fetch

BATCH = 300     # aggregate expressions per query (DuckDB holds each one's state: 1,200 needed over 512 MB)
UNION = 100     # per-column GROUP BY queries per UNION ALL
TEXT_BATCH = 24   # text columns whose readings one staged query counts
EXAMPLE_ROWS = 100   # rows read for each column's example value (its first non-missing one)
BIG = 4503599627370496.0   # 2**52: every double at least this large is a whole number


def aggregate(t, aggs: dict, what: str) -> dict:
    """The values of the aggregate expressions ``aggs`` {name: expression} over ``t``: one query per
    :data:`BATCH` of them."""
    out: dict = {}
    items = list(aggs.items())
    for start in range(0, len(items), BATCH):
        got = fetch(t.aggregate(**dict(items[start:start + BATCH])), what).to_pylist()
        out |= got[0] if got else {}
    return out


def _count(cond):
    import ibis

    return ibis.ifelse(cond, 1, 0).sum()


def whole(v):
    """Whether a float64 value is a whole number (a round trip through int64 below 2**52; above, always)."""
    import ibis

    return ibis.ifelse(v.abs() < BIG, v.cast("int64").cast("float64") == v, True)


def numeric_value(column, dtype, nan: bool):
    """A number column as float64 with NaN read as missing (NULL), as pandas reads a float column (``nan``: the
    engine has NaN; SQLite stores it as NULL)."""
    import ibis

    v = column.cast("float64")
    return ibis.ifelse(v.isnan(), ibis.null("float64"), v) if nan and dtype.is_floating() else v


def _examples(t, names: list[str]) -> dict[str, str]:
    """The first non-missing value of each column among the first :data:`EXAMPLE_ROWS` rows, as text."""
    if not names:
        return {}
    got = fetch(t.select(*names).limit(EXAMPLE_ROWS), "read the first rows").to_pydict()
    out = {}
    for name in names:
        first = next((v for v in got[name] if v is not None and v == v), None)   # v == v: NaN is missing
        out[name] = "" if first is None else str(first)
    return out


def summarize_sql(t, features: list[str], target: str, schema, nan: bool, total: int
                  ) -> tuple[TableSummary, dict, list]:
    """(the plan's TableSummary, {column: float64 expression of a number column}, the target's (value, rows)
    pairs) of the rows of ``t`` (those whose target is present) of a table of ``total`` rows, counted in the
    engine."""

    numeric = [c for c in features if _is_number(schema[c])]
    text = [c for c in features if c not in numeric]
    vals = {c: numeric_value(t[c], schema[c], nan) for c in numeric}
    strip = {c: t[c].cast("string").strip() for c in text}
    aggs: dict = {"rows": t.count()}
    fragments: dict[str, str] = {}
    for i in range(len(numeric)):
        fragments |= {f"{k}{i}": sql for k, sql in number_fragments(f'"v{i}"', "").items()}
    for i, c in enumerate(text):
        s = strip[c]
        aggs |= {f"tn{i}": t[c].count(), f"tu{i}": s.nunique(), f"tm{i}": s.min()}
        short = sp.short_text(s)
        for k, rule in enumerate(pr.RULES):
            aggs[f"r{i}_{k}"] = _count(sp.matches(rule, short))
    got = aggregate(t, aggs, "read the columns' statistics")
    numbers = number_projection(t, numeric, schema, nan) if numeric else ""
    if fragments:
        got |= aggregate_sql(t, fragments, "read the number columns' statistics", numbers)
    rows = int(got["rows"])
    examples = _examples(t, features)
    summaries: dict[str, ColumnSummary] = {}
    for i, c in enumerate(numeric):
        n = int(got[f"n{i}"])
        lo, hi = (float(got[f"{k}{i}"]) if n else math.nan for k in ("lo", "hi"))
        if n and (math.isinf(lo) or math.isinf(hi)):
            raise InfiniteValueError(f"column {c!r} holds an infinite value; replace it (or leave the column out "
                                     "with feature_names=)")
        nd = int(got[f"u{i}"])
        summaries[c] = ColumnSummary(
            c, "numeric", rows, rows - n, levels=(lo,) if nd == 1 else None, n_distinct=nd, distinct_exact=True,
            lo=lo, hi=hi, integral=bool(got[f"int{i}"]) if n else True, total=float(got[f"s{i}"] or 0.0),
            total_sq=float(got[f"q{i}"] or 0.0), example=examples.get(c, ""))
    _evenly_spaced(t, {c: f"v{i}" for i, c in enumerate(numeric)}, summaries, rows, numbers)
    readings = _text_readings(t, text, strip, got)
    for i, c in enumerate(text):
        n = int(got[f"tn{i}"])
        nd = int(got[f"tu{i}"])
        counts, lows, highs = readings.get(c, ({}, {}, {}))
        summaries[c] = ColumnSummary(c, "text", rows, rows - n, counts, lows, highs,
                                     levels=(str(got[f"tm{i}"]),) if nd == 1 else None, n_distinct=nd,
                                     distinct_exact=True, example=examples.get(c, ""))
    target_summary, pairs = _target(t, target, schema, nan, rows)
    summaries[target] = target_summary
    return (TableSummary(tuple(summaries[c] for c in [*features, target]), target, total, total - rows), vals,
            pairs)


def _is_number(dtype) -> bool:
    return dtype.is_numeric() or dtype.is_boolean()


def _evenly_spaced(t, names: dict[str, str], summaries: dict, rows: int, base: str) -> None:
    """Set ``evenly_spaced`` of the unique real columns with no missing value (what the ID rule asks):
    max |r - round(r)| <= 1e-6 with r = (x - lo) / step (:func:`fslab.data.column_types.evenly_spaced`); ``names``
    {column: its name in ``base``, the SQL projection of the number columns}."""
    ask = [c for c, s in summaries.items() if rows >= max(ID_MIN_ROWS, 3) and s.n_distinct == rows
           and not s.n_missing and not s.integral and (s.hi - s.lo) / (rows - 1) > 0]
    fragments = {}
    for j, c in enumerate(ask):
        s = summaries[c]
        r = f'(("{names[c]}" - {s.lo!r}) / {(s.hi - s.lo) / (rows - 1)!r})'
        fragments[f"e{j}"] = f"MAX(ABS({r} - ROUND({r})))"
    got = aggregate_sql(t, fragments, "test evenly spaced values", base) if ask else {}
    for j, c in enumerate(ask):
        off = got.get(f"e{j}")
        summaries[c] = _replace(summaries[c], evenly_spaced=off is not None and float(off) <= 1e-6)


def _replace(s: ColumnSummary, **changes) -> ColumnSummary:
    from dataclasses import replace

    return replace(s, **changes)


def _text_readings(t, text: list[str], strip: dict, matched: dict) -> dict[str, tuple[dict, dict, dict]]:
    """{column: (counts, lows, highs)} of the text columns by every reading of the rules some value matches
    (the keys of :class:`fslab.data.plan.ColumnSummary`), :data:`TEXT_BATCH` columns per staged query."""
    out: dict[str, tuple[dict, dict, dict]] = {c: ({}, {}, {}) for c in text}
    todo = [(i, c, [r for k, r in enumerate(pr.RULES) if matched.get(f"r{i}_{k}")]) for i, c in enumerate(text)]
    todo = [item for item in todo if item[2]]
    for start in range(0, len(todo), TEXT_BATCH):
        batch = todo[start:start + TEXT_BATCH]
        staged, group = sp.stage(t, {i: strip[c] for i, c, _ in batch}, {i: rules for i, _, rules in batch})
        values: dict = {}
        plan: list[tuple[str, str, str, str]] = []   # (column, value column, key, "count" or "range")
        numbers = []
        for i, c, rules in batch:
            for k, rule in ((pr.RULES.index(r), r) for r in rules):
                g = group(i, rule)
                if rule.kind == "boolean":
                    _reading(values, plan, c, f"b{i}", pr.Reading(rule.name), sp.boolean_value(g))
                elif rule.kind == "date":
                    for o, order in enumerate(rule.orders):
                        reading = pr.Reading(rule.name, order)
                        v = sp.date_value(rule, g, order)
                        _reading(values, plan, c, f"d{i}_{k}_{o}", reading, v)
                        values[f"d{i}_{k}_{o}t"] = _flag(v.notnull() & (v != (v / 86400.0).floor().cast("float64")
                                                                         * 86400.0))
                        plan.append((c, f"d{i}_{k}_{o}t", "time|" + reading.key(), "count"))
                else:
                    num = g[0] if rule.kind == "percent" else g[1]
                    values[f"c{i}_{k}"] = _flag(num.notnull() & sp.comma_decimal(num))
                    plan.append((c, f"c{i}_{k}", "comma|" + rule.name, "count"))
                    if rule.kind == "percent":
                        for mark in (".", ","):
                            _reading(values, plan, c, f"p{i}_{k}_{mark == ','}", pr.Reading(rule.name, "", mark),
                                     sp.number_value(num, mark == ","))
                    else:
                        numbers.append((i, c))
        third = staged.select(**values)
        aggs: dict = {}
        for _, name, _, kind in plan:
            v = third[name]
            aggs |= {name + "n": v.sum()} if kind == "count" else \
                {name + "n": v.count(), name + "lo": v.min(), name + "hi": v.max()}
        got = aggregate(third, aggs, "read the text columns' readings") if aggs else {}
        for c, name, key, kind in plan:
            counts, lows, highs = out[c]
            n = int(got[name + "n"] or 0)
            if n:
                counts[key] = n
                if kind == "range":
                    lows[key], highs[key] = float(got[name + "lo"]), float(got[name + "hi"])
        _units(staged, group, numbers, out)
    return out


def _flag(cond):
    """1 where ``cond`` holds, else 0 (NULL counts as false)."""
    import ibis

    return ibis.ifelse(cond, 1, 0)


def _reading(values: dict, plan: list, column: str, name: str, reading, v) -> None:
    values[name] = v
    plan.append((column, name, "read|" + reading.key(), "range"))


def _units(staged, group, columns: list[tuple[int, str]], out: dict) -> None:
    """Rows per unit of the number rule and each (mark, unit) reading's rows and range: a ``GROUP BY`` unit per
    column (:func:`union_query`)."""
    rule = pr.BY_NAME["number"]
    exprs: dict = {}
    parts = []
    for i, _ in columns:
        g = group(i, rule)
        exprs |= {f"u{i}": sp.number_unit(g), f"p{i}": sp.number_value(g[1], False),
                  f"c{i}": sp.number_value(g[1], True)}
        u, p, c = f'"u{i}"', f'"p{i}"', f'"c{i}"'
        parts.append(f"SELECT {i} AS i, {u} AS u, COUNT(*) AS n, COUNT({p}) AS n0, MIN({p}) AS lo0, MAX({p}) AS hi0, "
                     f"COUNT({c}) AS n1, MIN({c}) AS lo1, MAX({c}) AS hi1 FROM fslab_base WHERE {u} IS NOT NULL "
                     f"GROUP BY {u}")
    if not parts:
        return
    schema = {"i": "int64", "u": "string", "n": "int64", "n0": "int64", "lo0": "float64", "hi0": "float64",
              "n1": "int64", "lo1": "float64", "hi1": "float64"}
    got = union_query(staged.select(**exprs), parts, schema, "count the units of numbers")
    name_of = dict(columns)
    for r in (dict(zip(got, row, strict=True)) for row in zip(*got.values(), strict=True)):
        counts, lows, highs = out[name_of[r["i"]]]
        unit = str(r["u"])
        counts["unit|" + unit] = counts.get("unit|" + unit, 0) + int(r["n"])
        for m, mark in enumerate((".", ",")):
            n = int(r[f"n{m}"] or 0)
            if n:
                key = "read|" + pr.Reading("number", "", mark, unit).key()
                counts[key] = n
                lows[key], highs[key] = float(r[f"lo{m}"]), float(r[f"hi{m}"])


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


def union_query(t, parts: list[str], schema: dict[str, str], what: str) -> dict[str, list]:
    """The rows of the SQL ``parts`` (SELECTs over ``fslab_base``, ``t`` compiled once by Ibis, each part reading a
    few of its columns by their quoted names) UNION ALL'd, :data:`UNION` of them per query, as {column: values}
    (``schema``'s columns). The parts are plain portable SQL: Ibis compiles a union at ~25 ms a part (3,000
    columns' worth took over a minute)."""
    out: dict[str, list] = {k: [] for k in schema}
    base = _to_sql(t)
    for start in range(0, len(parts), UNION):
        query = f"WITH fslab_base AS ({base}) " + " UNION ALL ".join(parts[start:start + UNION])
        got = raw_rows(t, query, what)
        for k in schema:
            out[k].extend(got[k])
    return out


def aggregate_sql(t, fragments: dict[str, str], what: str, base: str | None = None) -> dict[str, float | None]:
    """The values (as floats; None for NULL) of plain-SQL aggregate ``fragments`` {alias: SQL over quoted column
    names of ``t``} over ``t``: :data:`BATCH` of them per query. Ibis compiles ``t`` once (its projection: one
    expression per column; ``base``: the SQL of the rows to read instead); a wide table's aggregates cost their
    text, not an Ibis graph each."""
    out: dict[str, float | None] = {}
    items = list(fragments.items())
    base = (_to_sql(t) if items else "") if base is None else base
    for start in range(0, len(items), BATCH):
        chunk = items[start:start + BATCH]
        select = ", ".join(f'CAST({sql} AS DOUBLE PRECISION) AS "{alias}"' for alias, sql in chunk)
        got = raw_rows(t, f"WITH fslab_base AS ({base}) SELECT {select} FROM fslab_base", what)
        out |= {alias: (float(v[0]) if v and v[0] is not None else None) for alias, v in got.items()}
    return out


def number_fragments(v: str, prefix: str) -> dict[str, str]:
    """Plain-SQL aggregates of the float column ``v`` (quoted): present values, distinct values, range, whole-number
    test (a round trip through BIGINT below 2**52), sum and sum of squares."""
    return {f"{prefix}n": f"COUNT({v})", f"{prefix}u": f"COUNT(DISTINCT {v})", f"{prefix}lo": f"MIN({v})",
            f"{prefix}hi": f"MAX({v})",
            f"{prefix}int": f"MIN(CASE WHEN {v} IS NULL OR ABS({v}) >= {BIG!r} THEN 1 WHEN CAST(CAST({v} AS BIGINT) "
                            f"AS DOUBLE PRECISION) = {v} THEN 1 ELSE 0 END)",
            f"{prefix}s": f"SUM({v})", f"{prefix}q": f"SUM({v} * {v})"}


def raw_rows(t, query: str, what: str, fetch: bool = True) -> dict[str, list]:
    """The result of the plain-SQL ``query`` on ``t``'s engine as {column: values}: run as it is (Ibis's
    ``Backend.sql`` would parse it again with sqlglot, seconds for a wide table's query); the engine's errors become
    one SqlError. ``fetch=False``: a statement with no result (CREATE ...)."""
    backend = t.get_backend()
    try:
        cursor = backend.raw_sql(query)
        try:
            rows = cursor.fetchall() if fetch else []
            names = [d[0] for d in cursor.description] if fetch else []
        finally:
            if backend.name != "duckdb":   # DuckDB's raw_sql gives the connection itself: keep it open
                cursor.close()
    except FslabError:
        raise
    except Exception as err:   # each engine raises its own types
        first = (str(err).strip().splitlines() or [""])[0][:300]
        raise SqlError(f"the SQL engine could not {what}: {type(err).__name__}: {first}") from None
    return {name: [row[k] for row in rows] for k, name in enumerate(names)}


def number_projection(t, columns: list[str], schema, nan: bool) -> str:
    """The SQL of ``t`` projected to its number columns as float64 with NaN read as missing, ``v0``, ``v1``, ...:
    each column's expression is :func:`numeric_value` compiled by Ibis once per dtype (on a one-column table) and
    written for every column of that dtype, so a table of 3,000 columns costs one compile, not 3,000."""
    import ibis
    import sqlglot as sg

    dialect = t.get_backend().name
    templates: dict = {}
    parts = []
    for i, c in enumerate(columns):
        dtype = schema[c]
        if dtype not in templates:
            dummy = ibis.table({"fslab_x": dtype}, name="fslab_dummy")
            sql = str(ibis.to_sql(dummy.select(fslab_v=numeric_value(dummy.fslab_x, dtype, nan)), dialect=dialect))
            head, _, tail = sql.partition("SELECT")
            expression, _, rest = tail.rpartition('AS "fslab_v"')
            if head.strip() or '"fslab_x"' not in expression or "fslab_dummy" not in rest:
                raise SqlError(f"could not write the number columns' SQL for {dialect}")   # never seen: Ibis's
            templates[dtype] = expression.strip()                                          # shape changed
        quoted = sg.to_identifier(c, quoted=True).sql(dialect)
        parts.append(f'{templates[dtype].replace(chr(34) + "fslab_x" + chr(34), quoted)} AS "v{i}"')
    return f'SELECT {", ".join(parts)} FROM ({_to_sql(t)}) AS "t0"'


@functools.lru_cache(maxsize=16)
def _to_sql(expr) -> str:
    """The SQL of an Ibis table expression, compiled once (every statistic of one table reads the same projection)."""
    import ibis

    return str(ibis.to_sql(expr))


def distinct_values(t, names: list[str], what: str) -> list[list]:
    """The distinct non-missing values of each column ``names`` of ``t`` (of one type; few each: the caller knows),
    one ``GROUP BY`` per column (:func:`union_query`)."""
    out: list[list] = [[] for _ in names]
    if not names:
        return out
    kind = "string" if t[names[0]].type().is_string() else "float64"
    parts = [f'SELECT {k} AS i, "{n}" AS v FROM fslab_base WHERE "{n}" IS NOT NULL GROUP BY "{n}"'
             for k, n in enumerate(names)]
    got = union_query(t, parts, {"i": "int64", "v": kind}, what)
    for i, v in zip(got["i"], got["v"], strict=True):
        out[i].append(v)
    return out


def _target(t, target: str, schema, nan: bool, rows: int) -> tuple[ColumnSummary, list]:
    """The target's summary (class counts while under the cap) and its (value, rows) pairs."""
    numeric, value = target_value(t, target, schema, nan)
    pairs = target_pairs(t, value, numeric, target)
    keys = np.asarray([k for k, _ in pairs], dtype=np.float64 if numeric else object)
    n = np.asarray([c for _, c in pairs], dtype=np.int64)
    cap = VALUES_CAP if numeric else TEXT_CAP
    levels = tuple(keys.tolist()) if keys.size <= cap else None
    summary = ColumnSummary(target, "numeric" if numeric else "text", rows, 0, levels=levels,
                            level_counts=tuple(int(x) for x in n) if levels is not None else None,
                            n_distinct=int(keys.size), distinct_exact=True,
                            lo=float(keys[0]) if numeric and keys.size else math.nan,
                            hi=float(keys[-1]) if numeric and keys.size else math.nan)
    return summary, pairs


__all__ = ["BATCH", "aggregate", "aggregate_sql", "distinct_values", "number_fragments", "numeric_value",
           "raw_rows", "summarize_sql", "target_pairs", "target_value", "union_query", "whole"]
