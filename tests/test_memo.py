"""ui.memo: entry bounds, the session's byte budget across memos, and the byte count of results."""

from __future__ import annotations

import types
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from fslab.limits import MB, Limits
from ui import memo


@pytest.fixture
def session(monkeypatch):
    """A bare session state and a session budget of 1 MB."""
    state: dict = {}
    monkeypatch.setattr(memo, "st", types.SimpleNamespace(session_state=state))
    monkeypatch.setattr(memo.limits, "server_limits", lambda: Limits(session_mb=1))
    return state


def block(megabytes: float) -> np.ndarray:
    return np.zeros(int(megabytes * MB), dtype=np.uint8)


@dataclass
class Result:
    matrix: np.ndarray
    trace: pd.DataFrame


def test_value_bytes_counts_arrays_frames_and_fields_once():
    a = np.zeros(1000, dtype=np.float64)
    frame = pd.DataFrame({"x": np.zeros(500, dtype=np.int64)})
    r = Result(a, frame)
    counted = memo.value_bytes(r)
    assert 8000 + 4000 <= counted < 8000 + 4000 + 2000  # arrays and frame, plus small object overheads
    assert memo.value_bytes([a, a, a]) < 8000 + 500  # the same array three times is held once
    assert memo.value_bytes(a[:10]) == 0 or memo.value_bytes(a[:10]) == 80  # a view holds no memory of its own


def test_entry_bound_drops_the_least_recently_used(session):
    m = memo.session_memo("a")
    for key in "xyz":
        memo.remember(m, key, key, max_entries=2)
    assert list(m) == ["y", "z"] and set(m.sizes) == {"y", "z"}
    memo.recall(m, "y")
    memo.remember(m, "w", "w", max_entries=2)
    assert list(m) == ["y", "w"]


def test_session_budget_drops_the_oldest_results_of_any_memo(session):
    a, b = memo.session_memo("a"), memo.session_memo("b")
    memo.remember(a, 1, block(0.4), 10)
    memo.remember(b, 1, block(0.4), 10)
    memo.recall(a, 1)                      # a's entry is now more recent than b's
    memo.remember(a, 2, block(0.4), 10)    # 1.2 MB > 1 MB: the least recently used (b's) goes
    assert list(a) == [1, 2] and list(b) == []
    assert memo.session_bytes() <= MB


def test_the_newest_result_stays_even_alone_over_the_budget(session):
    m = memo.session_memo("a")
    memo.remember(m, "small", block(0.1), 10)
    memo.remember(m, "big", block(3), 10)
    assert list(m) == ["big"]


def test_process_memos_have_no_byte_budget(session):
    from collections import OrderedDict

    process = OrderedDict()
    for key in range(3):
        memo.remember(process, key, block(0.5), 10)
    assert len(process) == 3 and session == {}
