"""Property-based fuzzing of every loader: arbitrary input either gives a valid object or a FslabError subclass,
never another exception type (a traceback in the app)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fslab.data import Dataset, read_csv, read_table, safe_json
from fslab.data.distributions import Distribution
from fslab.errors import FslabError
from fslab.limits import Limits

pytestmark = pytest.mark.slow  # fuzzers (200 examples each): 2.3 s in all, so not in the inner loop
FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SMALL = Limits(max_rows=50, max_columns=20, max_field_chars=200, max_json_bytes=5_000, max_json_depth=8,
               max_states=64)

# CSV-ish bytes: separators, quotes, numbers, text, encodings' tell-tale bytes, magic numbers
CSV_PIECES = st.sampled_from([b",", b";", b"\t", b"\n", b"\r\n", b'"', b"'", b"1", b"0", b"-2.5", b"3,14", b"nan",
                              b"inf", b"NA", b"", b" ", b"a", b"y", b"<b>", b"=1+1", b"\xc3\xa9", b"\xe9", b"\x00",
                              b"\xff\xfe", b"\xef\xbb\xbf", b"PK\x03\x04", b"\x1f\x8b", b"BZh", b"\x80", b"\x7f"])
CSV_BYTES = st.one_of(st.binary(max_size=400), st.lists(CSV_PIECES, max_size=80).map(b"".join))


def table_ok(frame: pd.DataFrame) -> None:
    assert isinstance(frame, pd.DataFrame) and len(frame) >= 1 and frame.shape[1] >= 1
    assert len(set(map(str, frame.columns))) == frame.shape[1]


@FUZZ
@given(CSV_BYTES)
def test_read_table_returns_a_table_or_a_fslab_error(data):
    try:
        frame = read_table(data, limits=SMALL)
    except FslabError:
        return
    table_ok(frame)


@FUZZ
@given(CSV_BYTES, st.integers(0, 3))
def test_upload_path_returns_a_dataset_or_a_fslab_error(data, which):
    """What the Data page does with an upload: parse, then validate with a chosen target column."""
    try:
        frame = read_table(data, limits=SMALL)
        target = str(frame.columns[min(which, frame.shape[1] - 1)])
        ds = Dataset.from_frame(frame, target, limits=SMALL)
        enc = ds.discretize()
    except FslabError:
        return
    assert ds.n_rows == enc.X.shape[0] == len(enc.y) and enc.X.shape[1] == ds.n_features >= 1


CELLS = st.one_of(st.none(), st.integers(-5, 5), st.floats(allow_nan=True, allow_infinity=True, width=32),
                  st.text(max_size=5), st.booleans())


@st.composite
def frames(draw):
    n_cols = draw(st.integers(0, 4))
    n_rows = draw(st.integers(0, 8))
    names = draw(st.lists(st.one_of(st.text(max_size=4), st.integers(0, 3)), min_size=n_cols, max_size=n_cols))
    columns = {i: draw(st.lists(CELLS, min_size=n_rows, max_size=n_rows)) for i in range(n_cols)}
    frame = pd.DataFrame(columns, dtype=object) if n_cols else pd.DataFrame(index=range(n_rows))
    frame.columns = names
    return frame, draw(st.one_of(st.sampled_from(names) if names else st.none(), st.text(max_size=3)))


@FUZZ
@given(frames(), st.one_of(st.none(), st.text(max_size=3), st.integers(0, 2)))
def test_from_frame_returns_a_dataset_or_a_fslab_error(frame_target, positive):
    frame, target = frame_target
    try:
        ds = Dataset.from_frame(frame, target, positive=positive, limits=SMALL)
    except FslabError:
        return
    # every other column is a feature, unless left out (near-unique, constant or empty: said in ds.left_out)
    assert ds.n_rows >= 1 and ds.n_features == frame.shape[1] - 1 - len(ds.left_out)
    assert set(np.unique(ds.y)) <= set(range(len(ds.encoded_target.class_names)))


@FUZZ
@given(CSV_BYTES)
def test_read_csv_of_a_header_and_random_rows(data):
    try:
        ds = read_csv(b"a,b,y\n" + data, "y", limits=SMALL)
    except FslabError:
        return
    assert ds.target == "y" and ds.n_features == 2


JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 10**20), st.floats(allow_nan=False, allow_infinity=False),
              st.text(max_size=6)),
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=6), inner, max_size=5)),
    max_leaves=30,
)


@st.composite
def distribution_documents(draw):
    """Objects shaped like fslab's export (C states x n features, C x L probabilities), then one field possibly
    replaced by arbitrary JSON and names/labels/arities possibly wrong."""
    c, n, n_labels = draw(st.integers(1, 6)), draw(st.integers(0, 3)), draw(st.integers(1, 3))
    doc = {"states": draw(st.lists(st.lists(st.integers(-1, 4), min_size=n, max_size=n), min_size=c, max_size=c)),
           "probs": draw(st.lists(st.lists(st.one_of(st.floats(0, 1), st.integers(-1, 2)), min_size=n_labels,
                                           max_size=n_labels), min_size=c, max_size=c))}
    for key in ("feature_names", "labels", "arities"):
        if draw(st.booleans()):
            doc[key] = draw(st.lists(st.one_of(st.integers(-1, 5), st.text(max_size=3)), min_size=0, max_size=4))
    if draw(st.booleans()):
        doc[draw(st.sampled_from(sorted(doc)))] = draw(JSON_VALUES)
    return json.dumps(doc)


def distribution_ok(dist: Distribution) -> None:
    assert isinstance(dist, Distribution)
    assert np.isfinite(dist.probs).all() and (dist.probs >= 0).all() and np.isclose(dist.probs.sum(), 1.0)
    assert dist.states.shape[0] == dist.probs.shape[0] and len(dist.feature_names) == dist.states.shape[1]


@FUZZ
@given(st.one_of(st.binary(max_size=300), distribution_documents(), JSON_VALUES.map(json.dumps)))
def test_distribution_from_json_returns_a_distribution_or_a_fslab_error(data):
    try:
        dist = Distribution.from_json(data, limits=SMALL)
    except FslabError:
        return
    distribution_ok(dist)


@FUZZ
@given(st.one_of(st.binary(max_size=300), st.text(max_size=300), JSON_VALUES.map(json.dumps),
                 st.text(alphabet="[]{}\"\\,:0 ", max_size=200)))
def test_safe_json_loads_returns_json_or_a_json_input_error(data):
    try:
        value = safe_json.loads(data, limits=SMALL)
    except safe_json.JSONInputError:
        return
    json.dumps(value, allow_nan=False)   # whatever it returns is plain, finite JSON


@FUZZ
@given(JSON_VALUES)
def test_safe_json_round_trips_what_json_writes(value):
    text = json.dumps(value)
    if len(text) <= SMALL.max_json_bytes and safe_json.nesting_depth(text) <= SMALL.max_json_depth:
        assert safe_json.loads(text, limits=SMALL) == value
