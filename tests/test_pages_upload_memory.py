"""Issue 18, "upload memory stays after the session": an upload's parsed table, Dataset and codes are cached in its
session only (``scope="session"``, dropped when the session disconnects), at most two entries per function, while
the shipped samples stay in the shared, server-wide cache. The worker's answer (table, guess, Dataset) is a session
resource, kept as it arrived: never pickled into the cache nor copied out of it on a rerun (issue 32.1)."""

from __future__ import annotations

import pandas as pd
import pytest
from streamlit.runtime import caching
from streamlit.testing.v1 import AppTest

import fslab.data.upload as upload_module
import ui.data as ud

PARSE = """
import streamlit as st
from ui.data import upload_frame
for data in st.session_state["feed"]:
    upload_frame(data)
"""

INSPECT = """
import streamlit as st
from ui.data import inspect
frame = st.session_state["frame"]
for key in st.session_state["keys"]:
    inspect(frame, key, "y")
"""


def _csv(i: int) -> bytes:
    return f"a,b,y\n{i},1,0\n{i + 1},0,1\n".encode()


@pytest.fixture
def counted(monkeypatch):
    """Reads and typings counted in this process: the capped worker (ui.data.isolated) runs its job here."""
    calls = []
    real_read, real_from_frame = upload_module.read_table, upload_module.Dataset.from_frame

    def read_table(data, **kw):
        calls.append(("read", data))
        return real_read(data, **kw)

    def from_frame(frame, target, **kw):
        calls.append(("frame", target))
        return real_from_frame(frame, target, **kw)

    monkeypatch.setattr(ud, "isolated", lambda fn, *args: fn(*args))
    monkeypatch.setattr(upload_module, "read_table", read_table)
    monkeypatch.setattr(upload_module.Dataset, "from_frame", staticmethod(from_frame))
    return calls


def _disconnect() -> None:
    """What Streamlit's AppSession.shutdown does when a tab closes (AppTest's session id is fixed)."""
    caching.clear_session_data_cache("test session id")
    caching.clear_session_resource_cache("test session id")


def _run(script: str, **state) -> AppTest:
    at = AppTest.from_string(script, default_timeout=30)
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_upload_caches_are_per_session_and_hold_two_entries():
    assert ud._upload._info.scope == "session" and ud._upload._info.max_entries == ud.UPLOAD_ENTRIES == 2
    for cached in (ud._typed_upload, ud._codes_upload):   # session resources: held once, never pickled per rerun
        assert type(cached._info).__name__ == "CachedResourceFuncInfo"
        assert cached._info.scope == "session" and cached._info.max_entries == ud.UPLOAD_ENTRIES == 2
    for cached in (ud._typed_sample, ud._codes_sample):
        assert cached._info.scope == "global"


def test_a_third_upload_evicts_the_first_and_a_closed_session_keeps_nothing(counted):
    """Feed A, B, C, A, C in one session: A was evicted by C (two entries), so A parses twice and C once;
    once the session has disconnected, C is parsed again (nothing of its uploads stayed in the server)."""
    _disconnect()
    a, b, c = _csv(10), _csv(20), _csv(30)
    _run(PARSE, feed=[a, b, c, a, c])
    assert [d for kind, d in counted if kind == "read"] == [a, b, c, a]
    assert [t for kind, t in counted if kind == "frame"] == ["y"] * 4   # each read typed once, for its target
    _disconnect()
    _run(PARSE, feed=[c])
    assert [d for kind, d in counted if kind == "read"][4:] == [c]


def test_samples_stay_shared_uploads_do_not(counted):
    _disconnect()
    frame = pd.DataFrame({"a": [0, 1, 0, 1], "y": [0, 1, 1, 0]})
    _run(INSPECT, frame=frame, keys=["sample:test-shared", "upload:test-private"])
    _disconnect()
    _run(INSPECT, frame=frame, keys=["sample:test-shared", "upload:test-private"])
    # the sample key built its Dataset once for both sessions; the upload key again after the disconnect
    assert counted == [("frame", "y"), ("frame", "y"), ("frame", "y")]


SAME = """
import streamlit as st
from ui.data import upload
st.session_state["got"] = [id(upload(data)) for data in st.session_state["feed"]]
"""


def test_a_rerun_gets_the_upload_it_read_not_a_copy(counted):
    _disconnect()
    a = _csv(40)
    at = _run(SAME, feed=[a, a])
    first = at.session_state["got"]
    at.run()
    assert first[0] == first[1] == at.session_state["got"][0]   # one object, across calls and reruns
    assert [d for kind, d in counted if kind == "read"] == [a]


def test_outside_a_session_the_upload_functions_just_compute():
    assert ud.upload_frame(_csv(1)).shape == (2, 3)
    assert ud.inspect(pd.DataFrame({"a": [0, 1], "y": [0, 1]}), "upload:bare", "y").n_features == 1
