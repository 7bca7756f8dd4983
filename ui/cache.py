"""Cached wrappers around fslab calls that pages share. Arguments are primitives so they hash cheaply.

``BOUNDED`` holds the keyword arguments every ``st.cache_data`` in ui/ passes, so a room of users cannot grow
a cache without bound: ``LIMITS.cache_entries`` entries and ``LIMITS.cache_mb`` MB per cached function.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import pickle
import threading
import time
from collections import OrderedDict

import streamlit as st

from fslab.data.samples import load_sample
from fslab.limits import LIMITS

from . import state

BOUNDED = {"max_entries": LIMITS.cache_entries, "max_size": f"{LIMITS.cache_mb}MB"}


@st.cache_resource(show_spinner="Loading sample data...", max_entries=8)
def sample_encoded(name: str, method: str = "mean-std", bins: int = 3):
    """A shipped sample data set in the paper's encoding, discretised: ONE object shared by every session (a
    resource, not a per-session copy: Adult is ~60 MB of codes and raw values, and its bounded memo of cell codes up
    to 50 MB more). A source is a frozen record with read-only arrays, and its memo of cell codes is safe to share
    between threads (fslab.tables), so no session can change what another reads."""
    return load_sample(name).discretize(method=method, bins=bins)


TRIM_SECONDS = 30


def _trim_forever(trim, seconds: float) -> None:
    while True:
        time.sleep(seconds)
        trim(0)


@st.cache_resource
def memory_janitor() -> threading.Thread | None:
    """One daemon thread per server that hands freed memory back to the operating system every ``TRIM_SECONDS``.

    When a session ends (Streamlit drops a closed session's state about two minutes after its tab closes), Python
    frees its arrays and frames, but glibc keeps the freed heap pages of the many small and medium allocations
    (pandas text columns, pickled cache entries) for reuse: the server's resident memory stayed at its peak.
    ``malloc_trim(0)`` returns them. None where glibc is not the allocator."""
    try:
        trim = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None
    thread = threading.Thread(target=_trim_forever, args=(trim, TRIM_SECONDS), name="fslab-memory-janitor",
                              daemon=True)
    thread.start()
    return thread


def ensure_default_dataset() -> None:
    """First visit: the default sample is ready, so every page shows something on the first click."""
    memory_janitor()
    if state.get_dataset()[1] is None:
        state.set_dataset(f"{state.DEFAULT_SAMPLE} (sample)", sample_encoded(state.DEFAULT_SAMPLE),
                          spec={"sample": state.DEFAULT_SAMPLE})


class SharedResults:
    """A server-wide, bounded store of heavy results (NPFS, Suggest k, learning curves, lattices) keyed by content.

    Thirty students opening one NPFS link start one run, not thirty: the key is a digest of the data's content
    token, the settings and the seed (:func:`result_key`), never a session or a name. At most ``max_entries``
    results and ``max_mb`` MB (pickled size) are kept, least recently used first out.
    """

    def __init__(self, max_entries: int = LIMITS.cache_entries, max_mb: int = LIMITS.cache_mb):
        self.max_entries, self.max_bytes = max_entries, max_mb * 1_000_000
        self._items: OrderedDict[str, tuple[object, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.size = 0

    def get(self, key: str):
        with self._lock:
            hit = self._items.get(key)
            if hit is None:
                return None
            self._items.move_to_end(key)
            return hit[0]

    def put(self, key: str, value) -> None:
        n_bytes = len(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        if n_bytes > self.max_bytes:
            return
        with self._lock:
            old = self._items.pop(key, None)
            self.size -= old[1] if old else 0
            self._items[key] = (value, n_bytes)
            self.size += n_bytes
            while len(self._items) > self.max_entries or self.size > self.max_bytes:
                _, (_, dropped) = self._items.popitem(last=False)
                self.size -= dropped

    def __len__(self) -> int:
        return len(self._items)


@st.cache_resource
def shared_results() -> SharedResults:
    """The one store of this server (a resource: shared by every session, deliberately)."""
    return SharedResults()


def result_key(kind: str, *parts) -> str:
    """Digest of a heavy job: its kind and everything that determines the result (content tokens, settings,
    seed), as plain values."""
    return hashlib.blake2b(repr((kind, *parts)).encode(), digest_size=16).hexdigest()
