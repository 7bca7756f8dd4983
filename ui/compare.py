"""Cached wrappers of the Compare page: side-by-side selections, binning sensitivity, learning curves.

Sources are unhashable, so they travel as ``_source`` with a content ``token`` that keys the cache: the same data
under another name hits, different data under the same name misses. The token digests *every* attribute of
the object a computation reads (codes, arities, label values, class weights, raw values, category and class names,
target, task; a raw Dataset's frames; the plan the codes follow, as its ``to_dict()``), so two sessions whose data
differ only in label or raw values never share a result (the squared error reads the label values, Fisher the raw
values, re-binning the raw table).
"""

from __future__ import annotations

import hashlib
import json
import threading
import weakref
from collections import OrderedDict
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import streamlit as st

from fslab.binning import BinningResult, binning_sensitivity
from fslab.compare import Comparison, compare_selectors
from fslab.cost import Cost, binning_cost, check, compare_cost, curves_cost
from fslab.data.plan import TablePlan
from fslab.data.samples import SAMPLES, load_sample

from . import state
from .cache import BOUNDED
from .memo import remember

if TYPE_CHECKING:
    from fslab.curves import CurveResult

# id -> (weak reference, digest) of recently digested objects (a weak reference: an id can be reused)
_DIGESTS: OrderedDict[int, tuple] = OrderedDict()
_DIGESTS_SIZE = 256
_LOCK = threading.Lock()


# attributes that are memos derived from the others (cell codes, lazily built raw values): not content. Every other
# attribute, private ones included (EncodedDataset keeps its raw source as ``_raw``), enters the digest.
_DERIVED = frozenset({"_memo", "_values"})


def _narrow(a: np.ndarray) -> np.ndarray:
    """Integer codes in the smallest integer dtype that holds them (8x fewer bytes to digest for most codes)."""
    if a.dtype.kind not in "iu" or a.size == 0:
        return a
    lo, hi = int(a.min()), int(a.max())
    for dtype in (np.uint8, np.uint16, np.uint32) if lo >= 0 else (np.int8, np.int16, np.int32):
        info = np.iinfo(dtype)
        if info.min <= lo and hi <= info.max:
            return a.astype(dtype)
    return a


def _feed(h, obj, depth: int = 0) -> None:
    """Update ``h`` with a type-tagged, unambiguous serialisation of ``obj`` (arrays by dtype, shape and bytes)."""
    if depth > 6:
        raise TypeError("token: nesting too deep")
    if obj is None or isinstance(obj, (bool, int, float, str, bytes, np.generic)):
        h.update(f"{type(obj).__name__}:{obj!r};".encode())
    elif isinstance(obj, pd.DataFrame):
        h.update(f"frame{obj.shape}{list(map(str, obj.columns))!r}{list(map(str, obj.dtypes))!r};".encode())
        h.update(pd.util.hash_pandas_object(obj, index=True, categorize=False).to_numpy().tobytes())
    elif isinstance(obj, pd.Series):
        h.update(f"series:{obj.name!r}:{obj.dtype}:{len(obj)};".encode())
        h.update(pd.util.hash_pandas_object(obj, index=True, categorize=False).to_numpy().tobytes())
    elif isinstance(obj, np.ndarray):
        h.update(f"array:{obj.dtype.str}:{obj.shape};".encode())
        if obj.dtype.hasobject:
            h.update(repr(obj.tolist()).encode())
        else:
            h.update(np.ascontiguousarray(_narrow(obj)).data)
    elif isinstance(obj, (tuple, list)):
        h.update(f"seq{len(obj)}[".encode())
        for item in obj:
            _feed(h, item, depth + 1)
        h.update(b"]")
    elif isinstance(obj, TablePlan):  # its columns nest deeper than any data: its own JSON-able record
        h.update(f"{type(obj).__qualname__}:".encode())
        h.update(json.dumps(obj.to_dict(), sort_keys=True, default=repr).encode())
    elif isinstance(obj, dict):
        h.update(f"dict{len(obj)}{{".encode())
        for key in sorted(obj, key=repr):
            _feed(h, key, depth + 1)
            _feed(h, obj[key], depth + 1)
        h.update(b"}")
    elif hasattr(obj, "__dict__"):
        _feed(h, type(obj).__qualname__, depth + 1)
        _feed(h, {k: v for k, v in vars(obj).items() if k not in _DERIVED}, depth + 1)
    else:
        h.update(f"{type(obj).__qualname__}:{obj!r};".encode())


def token(source) -> str:
    """Content digest of everything a computation can read from ``source``.

    A coded source (sample or distribution) or a raw ``fslab.Dataset``: every public attribute enters (codes,
    arities, label values and their dtype, class indices or weights, raw values, names, target, task), the memos in
    ``_DERIVED`` do not. Equal content gives equal tokens whatever the object's identity or name.
    """
    try:
        ref = weakref.ref(source)
    except TypeError:
        ref = None
    with _LOCK:
        hit = _DIGESTS.get(id(source))
    if hit is not None and hit[0]() is source:
        return hit[1]
    h = hashlib.blake2b(digest_size=16)
    _feed(h, source)
    digest = h.hexdigest()
    if ref is not None:  # fslab sources are never changed in place, so an object's digest can be remembered
        with _LOCK:
            remember(_DIGESTS, id(source), (ref, digest), _DIGESTS_SIZE)
    return digest


@st.cache_data(show_spinner="Running the selectors...", **BOUNDED)
def side_by_side(token: str, _source, k: int, selectors: tuple[str, ...], measure: str,
                 params: tuple[tuple[str, float], ...], estimate: str = "plug-in") -> Comparison:
    check(compare_cost(_source, k, selectors, measure))  # refused before any work when over the limits
    return compare_selectors(_source, k, selectors, measure, estimate=estimate, **dict(params))


@st.cache_data(show_spinner=False, **BOUNDED)
def raw_binning_cost(token: str, _raw, k: int, selector: str, measure: str | None) -> Cost:
    """:func:`fslab.cost.binning_cost` once per raw data (by content) and settings: its ``Shape.of(raw)`` counts every
    column's distinct values (``nunique``: 0.03 s on Mushroom), which the Select page paid on every run."""
    return binning_cost(_raw, k, selector, measure)


@st.cache_data(show_spinner="Discretising seven ways and selecting...", **BOUNDED)
def binnings(token: str, _raw, k: int, selector: str, measure: str, params: tuple[tuple[str, float], ...],
             estimate: str = "plug-in") -> BinningResult:
    """:func:`fslab.binning.binning_sensitivity`, every binning selected with ``estimate`` (the page's)."""
    check(binning_cost(_raw, k, selector, measure))
    return binning_sensitivity(_raw, k, selector, measure, estimate=estimate, **dict(params))


@st.cache_data(show_spinner="Sampling the distribution...", **BOUNDED)
def sampled(token: str, _distribution, rows: int, seed: int = 0):
    """``rows`` iid draws from a distribution (learning curves need a sample)."""
    return _distribution.sample(rows, seed=seed)


@st.cache_resource(show_spinner="Loading the raw sample...", max_entries=8)
def _load_raw(name: str):
    """A shipped sample's raw Dataset, ONE object shared by every session (as ``ui.cache.sample_encoded``): a frozen
    record that fslab never changes in place. A ``cache_data`` copy was a new object on every run, so its content
    digest (:func:`token`, remembered by identity) was recomputed on each Select run: 14 ms on Mushroom, 40 ms on
    Adult."""
    return load_sample(name)


def raw_dataset(name: str):
    """The raw Dataset behind the current dataset called ``name`` (for re-discretising), or None."""
    current, raw = state.get_dataset()[0], state.get_dataset_raw()
    if current == name and raw is not None:
        return raw
    sample = name.removesuffix(" (sample)")
    if current == name and name.endswith(" (sample)") and sample in SAMPLES and not SAMPLES[sample].generated:
        return _load_raw(sample)
    return None


@st.cache_data(show_spinner=False, **BOUNDED)
def curves(token: str, _data, selectors: tuple[str, ...], measure: str, k_max: int,
           measure_params: tuple[tuple[str, object], ...], learner: str, n_splits: int, train_size: float,
           tune: bool, subsample: int | None, seed: int, estimate: str = "plug-in") -> CurveResult:
    """Learning curves with a progress bar, each split's selection made with ``estimate`` (the page's) on its
    training rows. The bar is created here, not by the page: a cached function may only touch elements it created
    (Streamlit replays them on a cache hit), so it is emptied before returning."""
    from fslab.curves import learning_curves  # on use: scikit-learn is 0.5-2 s of a cold first paint that needs none
    from fslab.learners import LEARNERS

    spec = LEARNERS.get(learner)
    grid = len(spec.grid) + 1 if tune and spec is not None and len(spec.grid) > 1 else 1
    check(curves_cost(_data, selectors, k_max, n_splits, train_size, subsample, grid, measure))
    bar = st.progress(0.0, text="Starting the splits...")

    def progress(done: int, total: int, message: str) -> None:
        bar.progress(done / total, text=f"{message} ({done}/{total})")

    result = learning_curves(_data, selectors, measure, k_max, measure_params=dict(measure_params), learner=learner,
                             n_splits=n_splits, train_size=train_size, tune=tune, subsample=subsample,
                             seed=seed, progress=progress, estimate=estimate)
    bar.empty()
    return result
