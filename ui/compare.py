"""Cached wrappers of the Compare page: side-by-side selections, binning sensitivity, learning curves.

Sources are unhashable, so they travel as ``_source`` with a content ``token`` (a digest of the codes and
labels) that keys the cache: the same data under another name hits, different data under the same name misses.
"""

from __future__ import annotations

import hashlib

import numpy as np
import streamlit as st

from fslab.binning import BinningResult, binning_sensitivity
from fslab.compare import Comparison, compare_selectors
from fslab.curves import CurveResult, learning_curves
from fslab.samples import SAMPLES, load_sample

from . import state
from .cache import BOUNDED


def token(source) -> str:
    """Content digest of a coded source (codes, arities, and class indices or weights)."""
    h = hashlib.blake2b(digest_size=16)
    for part in (source.X, source.arities, getattr(source, "y", None), getattr(source, "weights", None)):
        if part is not None:
            h.update(np.ascontiguousarray(part).tobytes())
    h.update("|".join(source.feature_names).encode())
    return h.hexdigest()


@st.cache_data(show_spinner="Running the selectors...", **BOUNDED)
def side_by_side(token: str, _source, k: int, selectors: tuple[str, ...], measure: str,
                 params: tuple[tuple[str, float], ...]) -> Comparison:
    return compare_selectors(_source, k, selectors, measure, **dict(params))


@st.cache_data(show_spinner="Discretising seven ways and selecting...", **BOUNDED)
def binnings(token: str, _raw, k: int, selector: str, measure: str,
             params: tuple[tuple[str, float], ...]) -> BinningResult:
    return binning_sensitivity(_raw, k, selector, measure, **dict(params))


@st.cache_data(show_spinner="Sampling the distribution...", **BOUNDED)
def sampled(token: str, _distribution, rows: int, seed: int = 0):
    """``rows`` iid draws from a distribution (learning curves need a sample)."""
    return _distribution.sample(rows, seed=seed)


@st.cache_data(show_spinner="Loading the raw sample...", **BOUNDED)
def _load_raw(name: str):
    return load_sample(name)


def raw_dataset(name: str):
    """The raw Dataset behind the current dataset called ``name`` (for re-discretising), or None."""
    current, raw = st.session_state.get(state.DATASET_NAME), st.session_state.get(state.DATASET_RAW)
    if current == name and raw is not None:
        return raw
    sample = name.removesuffix(" (sample)")
    if current == name and name.endswith(" (sample)") and sample in SAMPLES and not SAMPLES[sample].generated:
        return _load_raw(sample)
    return None


@st.cache_data(show_spinner=False, **BOUNDED)
def curves(token: str, _data, selectors: tuple[str, ...], measure: str, k_max: int, c: float, beta: float,
           learner: str, n_splits: int, train_size: float, tune: bool, subsample: int | None,
           seed: int) -> CurveResult:
    """Learning curves with a progress bar. The bar is created here, not by the page: a cached function may only
    touch elements it created (Streamlit replays them on a cache hit), so it is emptied before returning."""
    bar = st.progress(0.0, text="Starting the splits...")

    def progress(done: int, total: int, message: str) -> None:
        bar.progress(done / total, text=f"{message} ({done}/{total})")

    result = learning_curves(_data, selectors, measure, k_max, c=c, beta=beta, learner=learner,
                             n_splits=n_splits, train_size=train_size, tune=tune, subsample=subsample,
                             seed=seed, progress=progress)
    bar.empty()
    return result
