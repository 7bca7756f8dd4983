"""The plan's parse rules as SQL expressions (Ibis), portable to DuckDB, SQLite and PostgreSQL.

Each rule of :mod:`fslab.data.plan` reads a text cell as a number; here the same rule is one Ibis expression over
a text column, so the engine parses its own rows and only statistics leave it. Portability decides the means:

* regexes are the plan's, in the subset shared by Python ``re``, RE2 (DuckDB) and PostgreSQL's ARE (no
  lookaround, no backreference); SQLite runs them through Ibis's Python ``re`` functions;
* a cast from text happens only on a cell the rule's regex accepted (PostgreSQL's cast fails on a bad cell, and
  SQLite has no ``TRY_CAST``);
* dates become days since 1970-01-01 by integer arithmetic on the year, month and day (no engine's ``strptime``:
  their formats and ranges differ): :func:`civil_days`, with :func:`valid_day` rejecting 31 April or 29 February
  of a common year as pandas does; month names through one ``CASE``.
"""

from __future__ import annotations

MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def civil_days(y, m, d):
    """Days from 1970-01-01 to the proleptic Gregorian date (y, m, d), y >= 1, by H. Hinnant's days_from_civil:
    y' = y - [m <= 2], era = y' div 400, yoe = y' - 400 era, doy = (153 ((m + 9) mod 12) + 2) div 5 + d - 1,
    doe = 365 yoe + yoe div 4 - yoe div 100 + doy, days = 146097 era + doe - 719468 (integers only)."""
    import ibis

    y = y.cast("int64") - ibis.ifelse(m <= 2, 1, 0)
    era = y // 400
    yoe = y - era * 400
    doy = (((m.cast("int64") + 9) % 12) * 153 + 2) // 5 + d.cast("int64") - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def valid_day(y, m, d):
    """1 <= m <= 12 and 1 <= d <= the days of month m of year y (Gregorian leap years)."""
    import ibis

    leap = ((y % 4 == 0) & (y % 100 != 0)) | (y % 400 == 0)
    length = ibis.cases((m == 2, ibis.ifelse(leap, 29, 28)), (m.isin([4, 6, 9, 11]), 30), else_=31)
    return (y >= 1) & (m >= 1) & (m <= 12) & (d >= 1) & (d <= length)


def month_number(name):
    """1..12 of a month name or its three-letter abbreviation (any case), else NULL: the first three letters."""
    import ibis

    head = name.lower().substr(0, 3)
    return ibis.cases(*[(head == abbr, k + 1) for k, abbr in enumerate(MONTHS)], else_=ibis.null("int64"))


# ---- the rules of fslab.data.parse_rules, one expression each


def _pattern(rule) -> tuple[str, bool]:
    """The rule's regex for the engine and whether it reads the lower-cased text: a leading ``(?i)`` becomes
    lower-casing (PostgreSQL accepts embedded options only at the very start, and Ibis wraps the pattern in a
    group to extract; every case-insensitive rule's alternatives are lower-case)."""
    if rule.pattern.startswith("(?i)"):
        return rule.pattern[4:], True
    return rule.pattern, False


def short_text(text):
    """The stripped text where the rules may read it (at most MAX_CHARS characters), else NULL: longer values are
    text, never parsed."""
    import ibis

    from .parse_rules import MAX_CHARS

    return ibis.ifelse(text.length() <= MAX_CHARS, text, ibis.null("string"))


def matches(rule, text):
    """Whether ``text`` (:func:`short_text`) matches ``rule``: a boolean expression, NULL for NULL."""
    pattern, lower = _pattern(rule)
    return (text.lower() if lower else text).re_search(pattern)


def groups(rule, text) -> list:
    """The capture groups of ``rule`` in ``text`` (:func:`short_text`): NULL where the rule does not match or the
    group took no part (DuckDB gives '' for both; no group of the rules matches an empty text)."""
    pattern, lower = _pattern(rule)
    source = text.lower() if lower else text
    return [source.re_extract(pattern, k + 1).nullif("") for k in range(len(rule.groups))]


def stage(table, texts: dict, rules: dict, keep: dict | None = None):
    """``table`` with the capture groups of the rules as columns, so every later expression reads columns and
    each regex runs once per row (Ibis keeps the two projections apart: the SQL stays linear in the rules).

    ``texts`` {key: stripped text expression}, ``rules`` {key: the rules to extract}, ``keep`` {name: expression}
    carried along. Returns (the staged table, ``group(key, rule)`` -> the list of its group columns)."""
    first = table.select(**(keep or {}), **{f"s_{k}": short_text(v) for k, v in texts.items()})
    names: dict[tuple, list[str]] = {}
    columns = {}
    for k, rs in rules.items():
        for r in rs:
            for j, g in enumerate(groups(r, first[f"s_{k}"])):
                name = f"g_{k}_{r.name}_{j}".replace("-", "_")
                names.setdefault((k, r.name), []).append(name)
                columns[name] = g
    staged = first.select(*first.columns, **columns)
    return staged, lambda key, rule: [staged[n] for n in names[key, rule.name]]


def _float(text):
    """A cast of digits-only text (or NULL) to float64."""
    return text.cast("float64")


def number_value(num, comma: bool):
    """Floats of NUM texts by the column's decimal mark (parse_rules.number_value): with a point, ``,``, ``'`` and
    spaces go; with a comma, a value holding one loses ``'``, ``.`` and spaces and reads its comma as the point,
    one without loses ``'`` and spaces. A text left with two points (or a non-ASCII digit, which Python's ``\\d``
    matches) does not read (NULL), as in pandas."""
    import ibis

    if comma:
        clean = ibis.ifelse(num.contains(","), num.re_replace(r"['. ]", "").replace(",", "."),
                            num.re_replace(r"[' ]", ""))
    else:
        clean = num.re_replace(r"[,' ]", "")
    ok = clean.re_search(r"^[+-]?(?:[0-9]+[.]?[0-9]*|[.][0-9]+)$")   # ASCII digits, at most one point
    return ibis.ifelse(ok, clean.cast("float64"), ibis.null("float64"))


def number_unit(g: list):
    """The unit of a number rule's match: currency sign + the unit after the digits, stripped ("" for none)."""
    import ibis

    unit = ibis.coalesce(g[2], g[3], ibis.literal("")).strip()
    return ibis.ifelse(g[1].notnull(), ibis.coalesce(g[0], ibis.literal("")).concat(unit), ibis.null("string"))


def boolean_value(g: list):
    import ibis

    from .parse_rules import FALSE_WORDS, TRUE_WORDS

    word = g[0]
    return ibis.cases((word.isin(list(TRUE_WORDS)), 1.0), (word.isin(list(FALSE_WORDS)), 0.0),
                      else_=ibis.null("float64"))


def date_value(rule, g: list, order: str = ""):
    """Seconds since 1970-01-01 (UTC, float64) of a date rule's match, NULL when it is not a valid date
    (parse_rules.date_value, the same float operations in the same order)."""
    import ibis

    def whole(x):
        return x.cast("int64")

    if rule.name.endswith("-name"):
        name_col, day_col = (1, 0) if rule.name == "date-dmy-name" else (0, 1)
        month, day, year = month_number(g[name_col]), whole(g[day_col]), whole(g[2])
    elif rule.orders != ("",):
        a, b = whole(g[0]), whole(g[1])
        month, day = (b, a) if order == "dmy" else (a, b)
        year = whole(g[2])
    else:
        year, month, day = whole(g[0]), whole(g[1]), whole(g[2])
    ok = year.notnull() & month.notnull() & day.notnull()
    ok = ok & ibis.coalesce(valid_day(year, month, day), False)
    seconds = civil_days(year, month, day).cast("float64") * 86400.0
    if rule.name == "date-iso" or rule.orders != ("",):
        h, mi, s = (_float(x) for x in g[3:6])
        f = ibis.literal("0.").concat(ibis.coalesce(g[6], ibis.literal("0"))).cast("float64")
        timed = h.notnull()
        h0, mi0, s0 = (ibis.coalesce(x, 0.0) for x in (h, mi, s))
        ok = ok & (~timed | ((h0 <= 23) & (mi0 <= 59) & (s0 <= 59)))
        seconds = seconds + ibis.ifelse(timed, h0 * 3600.0 + mi0 * 60.0 + s0 + f, 0.0)
        if rule.name == "date-iso":
            zone = ibis.coalesce(g[7], ibis.literal("Z")).replace(":", "")
            sign = ibis.ifelse(zone.substr(0, 1) == "-", -1.0, 1.0)
            zh = ibis.coalesce(_float(ibis.ifelse(zone == "Z", ibis.null("string"), zone.substr(1, 2))), 0.0)
            zm = ibis.coalesce(_float(ibis.ifelse(zone == "Z", ibis.null("string"), zone.substr(3, 2))), 0.0)
            seconds = seconds - ibis.ifelse(zone == "Z", 0.0, sign * (zh * 3600.0 + zm * 60.0))
    return ibis.ifelse(ok, seconds, ibis.null("float64"))


def read_value(reading, g: list):
    """The float64 expression of a reading of the capture groups ``g`` of its rule (parse_rules.read_values):
    NULL where the value is missing or does not parse; dates in seconds since 1970-01-01."""
    import ibis

    from .parse_rules import BY_NAME

    rule = BY_NAME[reading.rule]
    if rule.kind == "boolean":
        return boolean_value(g)
    if rule.kind == "date":
        return date_value(rule, g, reading.order)
    if rule.kind == "percent":
        return number_value(g[0], reading.mark == ",")
    value = number_value(g[1], reading.mark == ",")
    return ibis.ifelse(number_unit(g) == reading.unit, value, ibis.null("float64"))


def comma_decimal(num):
    """Whether a NUM text says the column's decimal mark is a comma (parse_rules.COMMA_DECIMAL)."""
    from .parse_rules import COMMA_DECIMAL

    return num.re_search(COMMA_DECIMAL)
