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

import math

import numpy as np

from . import parse_rules as pr
from . import sql_parse as sp
from .data_checks import ID_MIN_ROWS, InfiniteValueError
from .plan import TEXT_CAP, VALUES_CAP, ColumnSummary, TableSummary
from .sql_source import fetch

BATCH = 1200    # aggregate expressions per query
UNION = 60      # per-column GROUP BY queries per UNION ALL
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
    import ibis

    numeric = [c for c in features if _is_number(schema[c])]
    text = [c for c in features if c not in numeric]
    vals = {c: numeric_value(t[c], schema[c], nan) for c in numeric}
    strip = {c: t[c].cast("string").strip() for c in text}
    aggs: dict = {"rows": t.count()}
    for i, c in enumerate(numeric):
        v = vals[c]
        aggs |= {f"n{i}": v.count(), f"u{i}": v.nunique(), f"lo{i}": v.min(), f"hi{i}": v.max(),
                 f"int{i}": ibis.ifelse(whole(v), 1, 0).min(), f"s{i}": v.sum(), f"q{i}": (v * v).sum()}
    for i, c in enumerate(text):
        s = strip[c]
        aggs |= {f"tn{i}": t[c].count(), f"tu{i}": s.nunique(), f"tm{i}": s.min()}
        short = sp.short_text(s)
        for k, rule in enumerate(pr.RULES):
            aggs[f"r{i}_{k}"] = _count(sp.matches(rule, short))
    got = aggregate(t, aggs, "read the columns' statistics")
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
    _evenly_spaced(t, vals, summaries, rows)
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


def _evenly_spaced(t, vals: dict, summaries: dict, rows: int) -> None:
    """Set ``evenly_spaced`` of the unique real columns with no missing value (what the ID rule asks)."""
    ask = [c for c, s in summaries.items() if rows >= ID_MIN_ROWS and s.n_distinct == rows and not s.n_missing
           and not s.integral and rows >= 3]
    aggs = {}
    for j, c in enumerate(ask):
        s = summaries[c]
        step = (s.hi - s.lo) / (rows - 1)
        if not step > 0:
            continue
        r = (vals[c] - s.lo) / step
        aggs[f"e{j}"] = (r - r.round().cast("float64")).abs().max()
    got = aggregate(t, aggs, "test evenly spaced values") if aggs else {}
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
    column, :data:`UNION` columns per query."""
    import ibis

    rule = pr.BY_NAME["number"]
    parts = []
    for i, _ in columns:
        g = group(i, rule)
        part = staged.select(u=sp.number_unit(g), v0=sp.number_value(g[1], False), v1=sp.number_value(g[1], True))
        part = part.filter(part.u.notnull())
        parts.append(part.group_by("u").aggregate(n=part.count(), n0=part.v0.count(), lo0=part.v0.min(),
                                                  hi0=part.v0.max(), n1=part.v1.count(), lo1=part.v1.min(),
                                                  hi1=part.v1.max()).mutate(i=ibis.literal(i, type="int32")))
    name_of = dict(columns)
    for start in range(0, len(parts), UNION):
        chunk = parts[start:start + UNION]
        got = fetch(ibis.union(*chunk, distinct=False) if len(chunk) > 1 else chunk[0],
                    "count the units of numbers").to_pylist()
        for r in got:
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


def distinct_values(t, values: list, what: str) -> list[list]:
    """The distinct non-missing values of each expression (numbers or text; few each: the caller knows), by a
    ``SELECT DISTINCT`` per expression, :data:`UNION` of them per query."""
    import ibis

    out: list[list] = [[] for _ in values]
    for start in range(0, len(values), UNION):
        chunk = values[start:start + UNION]
        parts = [t.select(i=ibis.literal(start + k, type="int32"), v=v).filter(ibis._.v.notnull()).distinct()
                 for k, v in enumerate(chunk)]
        got = fetch(ibis.union(*parts, distinct=False) if len(parts) > 1 else parts[0], what).to_pydict()
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


__all__ = ["BATCH", "aggregate", "distinct_values", "numeric_value", "summarize_sql", "target_pairs", "target_value",
           "whole"]
