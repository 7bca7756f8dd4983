"""Bounded memos: an ``OrderedDict`` that keeps its ``max_entries`` most recently used entries (the least recently
used goes first), one per session in ``st.session_state`` or one per process.

A session's memos together also keep within a byte budget, the server limits' ``session_mb``
(``FSLAB_SESSION_MB``): when a new result takes the session over it, the session's least recently used results,
whichever memo holds them, go first (the newest result always stays, so the page can show it). Streamlit drops
``st.session_state``, and with it every session memo, when the session ends.
"""

from __future__ import annotations

import dataclasses
import itertools
import sys
from collections import OrderedDict
from collections.abc import Hashable

import numpy as np
import pandas as pd
import streamlit as st

from fslab import limits


class SessionMemo(OrderedDict):
    """A session's memo: entries with the bytes each holds and when each was last used (a session-wide clock)."""

    def __init__(self):
        super().__init__()
        self.sizes: dict[Hashable, int] = {}
        self.used: dict[Hashable, int] = {}


_CLOCK = itertools.count()


def session_memo(name: str) -> OrderedDict:
    """The session's memo stored under ``name`` in ``st.session_state`` (empty on first use)."""
    return st.session_state.setdefault(name, SessionMemo())


def value_bytes(value, _seen: set | None = None) -> int:
    """Bytes held by ``value``: numpy arrays (``nbytes``) and pandas objects (``memory_usage``), found through
    containers, dataclasses and instance attributes; anything else counts ``sys.getsizeof``. Each object once."""
    seen = set() if _seen is None else _seen
    if id(value) in seen:
        return 0
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        return int(value.nbytes) if value.base is None or id(value.base) not in seen else 0
    if isinstance(value, pd.DataFrame):
        return int(value.memory_usage(index=True, deep=False).sum())
    if isinstance(value, pd.Series | pd.Index):
        return int(value.memory_usage(deep=False))
    if isinstance(value, str | bytes | bytearray | int | float | complex | bool | type(None)):
        return sys.getsizeof(value)
    if isinstance(value, dict):
        return sys.getsizeof(value) + sum(value_bytes(k, seen) + value_bytes(v, seen) for k, v in value.items())
    if isinstance(value, list | tuple | set | frozenset):
        return sys.getsizeof(value) + sum(value_bytes(v, seen) for v in value)
    if dataclasses.is_dataclass(value):
        return sys.getsizeof(value) + sum(value_bytes(getattr(value, f.name), seen)
                                          for f in dataclasses.fields(value))
    attributes = getattr(value, "__dict__", None)
    if isinstance(attributes, dict):
        return sys.getsizeof(value) + value_bytes(attributes, seen)
    return sys.getsizeof(value)


def recall(memo: OrderedDict, key: Hashable, default=None):
    """``memo[key]``, now the most recently used entry; ``default`` when it is absent."""
    if key not in memo:
        return default
    memo.move_to_end(key)
    if isinstance(memo, SessionMemo):
        memo.used[key] = next(_CLOCK)
    return memo[key]


def remember(memo: OrderedDict, key: Hashable, value, max_entries: int):
    """Store ``value`` as the most recently used entry, drop the least recently used beyond ``max_entries``
    (and, for a session memo, beyond the session's byte budget); returns ``value``."""
    memo[key] = value
    memo.move_to_end(key)
    if isinstance(memo, SessionMemo):
        memo.sizes[key], memo.used[key] = value_bytes(value), next(_CLOCK)
    while len(memo) > max_entries:
        _drop(memo, next(iter(memo)))
    if isinstance(memo, SessionMemo):
        _keep_within(limits.server_limits().session_mb * limits.MB, memo, key)
    return value


def session_bytes() -> int:
    """Bytes held by the results of this session's memos."""
    return sum(sum(m.sizes.values()) for m in _session_memos())


def _session_memos() -> list[SessionMemo]:
    return [v for v in list(st.session_state.values()) if isinstance(v, SessionMemo)]


def _drop(memo: OrderedDict, key: Hashable) -> None:
    memo.pop(key)
    if isinstance(memo, SessionMemo):
        memo.sizes.pop(key, None)
        memo.used.pop(key, None)


def _keep_within(budget: int, newest: SessionMemo, newest_key: Hashable) -> None:
    """Drop the session's least recently used entries (of any memo) until its results fit ``budget``; the newest
    entry stays."""
    memos = _session_memos()
    total = sum(sum(m.sizes.values()) for m in memos)
    while total > budget:
        candidates = [(m.used[k], i, k) for i, m in enumerate(memos) for k in m
                      if k in m.used and not (m is newest and k == newest_key)]
        if not candidates:
            return
        _, i, k = min(candidates, key=lambda t: (t[0], t[1]))
        total -= memos[i].sizes.get(k, 0)
        _drop(memos[i], k)
