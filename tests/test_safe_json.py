"""fslab.safe_json: bounded JSON parsing of what users hand over, and fslab.limits.Limits.from_env."""

import pytest

from fslab.data.safe_json import JSONInputError, loads, nesting_depth
from fslab.errors import DataError
from fslab.limits import Limits

SMALL = Limits(max_json_bytes=1_000, max_json_depth=4)


def test_valid_json_parses():
    assert loads('{"a": [1, 2.5, "x", null, true]}') == {"a": [1, 2.5, "x", None, True]}
    assert loads(b'\xef\xbb\xbf[1]') == [1]                    # a UTF-8 byte-order mark is fine


@pytest.mark.parametrize("text, part", [
    ("[NaN]", "NaN"),
    ('{"p": Infinity}', "Infinity"),
    ("[-Infinity]", "-Infinity"),
    ('{"a": ', "not valid JSON (line 1, column 7)"),
    ("   ", "is empty"),
    (b"\xff\xfe[1]", "not UTF-8"),
    ("[" * 5 + "]" * 5, "5 levels deep; the limit is 4 (FSLAB_MAX_JSON_DEPTH)"),
    ("[" + "1," * 600 + "1]", "the limit is 1,000 (FSLAB_MAX_JSON_BYTES)"),
])
def test_refusals_say_what_is_wrong(text, part):
    with pytest.raises(JSONInputError) as info:
        loads(text, limits=SMALL)
    assert part in str(info.value)
    assert isinstance(info.value, DataError)


def test_depth_is_checked_before_the_recursive_parser():
    deep = "[" * 100_000 + "]" * 100_000                       # json.loads alone would hit RecursionError
    with pytest.raises(JSONInputError, match="nests arrays/objects 100000 levels deep"):
        loads(deep, limits=Limits(max_json_bytes=10**6, max_json_depth=16))


def test_brackets_inside_strings_do_not_count():
    assert nesting_depth('{"a": "[[[[{{{{", "b": ["\\"[["]}') == 2


def test_limits_from_env_overrides_and_refuses_bad_values():
    assert Limits.from_env({"FSLAB_MAX_ROWS": "5"}).max_rows == 5
    assert Limits.from_env({}) == Limits()
    for bad in ("0", "-3", "lots"):
        with pytest.raises(ValueError, match="FSLAB_MAX_ROWS must be a positive integer"):
            Limits.from_env({"FSLAB_MAX_ROWS": bad})
