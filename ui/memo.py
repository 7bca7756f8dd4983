"""Bounded memos: an ``OrderedDict`` that keeps its ``max_entries`` most recently used entries (the least recently
used goes first), one per session in ``st.session_state`` or one per process."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable

import streamlit as st


def session_memo(name: str) -> OrderedDict:
    """The session's memo stored under ``name`` in ``st.session_state`` (empty on first use)."""
    return st.session_state.setdefault(name, OrderedDict())


def recall(memo: OrderedDict, key: Hashable, default=None):
    """``memo[key]``, now the most recently used entry; ``default`` when it is absent."""
    if key not in memo:
        return default
    memo.move_to_end(key)
    return memo[key]


def remember(memo: OrderedDict, key: Hashable, value, max_entries: int):
    """Store ``value`` as the most recently used entry, drop the least recently used beyond ``max_entries``;
    returns ``value``."""
    memo[key] = value
    memo.move_to_end(key)
    while len(memo) > max_entries:
        memo.popitem(last=False)
    return value
