"""Bounded JSON parsing for anything a user hands over (distributions, recipes).

:func:`loads` refuses, with a :class:`JSONInputError` that says what to change, input larger than
``limits.max_json_bytes``, nesting deeper than ``limits.max_json_depth`` (checked on the text before
parsing, so a deeply nested document never reaches the recursive parser), NaN / Infinity (not JSON,
though Python's parser accepts them) and anything that is not UTF-8 JSON. Nothing is evaluated.
"""

from __future__ import annotations

import json

from ..errors import DataError
from ..limits import Limits, limits_or_server


class JSONInputError(DataError):
    """The JSON text is malformed, too large, too deeply nested, or holds NaN/Infinity."""


def _refuse_constant(name: str):
    raise JSONInputError(f"the JSON holds {name}, which is not a number JSON allows; write a finite number")


def nesting_depth(text: str) -> int:
    """Deepest nesting of [ and { outside strings (a linear scan, no recursion)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def loads(data: str | bytes, what: str = "JSON file", limits: Limits | None = None):
    """Parse ``data`` as JSON within ``limits`` (None: the server's); raise JSONInputError naming ``what`` otherwise."""
    limits = limits_or_server(limits)
    size = len(data)
    if size > limits.max_json_bytes:
        raise JSONInputError(f"the {what} has {size:,} bytes; the limit is {limits.max_json_bytes:,} "
                             "(FSLAB_MAX_JSON_BYTES)")
    if isinstance(data, bytes | bytearray):
        try:
            data = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError:
            raise JSONInputError(f"the {what} is not UTF-8 text; save it as UTF-8 JSON") from None
    if not data.strip():
        raise JSONInputError(f"the {what} is empty")
    depth = nesting_depth(data)
    if depth > limits.max_json_depth:
        raise JSONInputError(f"the {what} nests arrays/objects {depth} levels deep; the limit is "
                             f"{limits.max_json_depth} (FSLAB_MAX_JSON_DEPTH)")
    try:
        return json.loads(data, parse_constant=_refuse_constant)
    except JSONInputError:
        raise
    except (ValueError, RecursionError) as err:
        where = f" (line {err.lineno}, column {err.colno})" if isinstance(err, json.JSONDecodeError) else ""
        msg = err.msg if isinstance(err, json.JSONDecodeError) else str(err)
        raise JSONInputError(f"the {what} is not valid JSON{where}: {msg}") from None
