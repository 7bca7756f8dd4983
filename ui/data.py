"""Cached wrappers of the Home and Data pages: parse an upload, load a sample, build and encode a Dataset.

Uploads are cached on their bytes plus the options, so changing the positive class or the bins reruns only
what changed; those caches belong to the session (``UPLOAD_CACHE``) and hold at most two entries each.
Errors (FslabError) are not cached: the page catches them and shows the message.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from fslab.data import COLUMN_TYPES, Dataset, read_table
from fslab.data.discretize import bin_edges, check_method, numeric_values
from fslab.data.samples import SAMPLES, load_sample, sample_limits
from fslab.limits import LIMITS

from . import state
from .cache import BOUNDED, sample_encoded
from .share import data_page_spec

ALL_CLASSES = "(keep all classes)"
# gisette-like is a synthetic 6,000 x 5,000 timing generator (bench/, fslab.load_sample), not data to explore here
APP_SAMPLES = [name for name in SAMPLES if name != "gisette-like"]
HIDDEN_NOTE = ("Not listed: gisette-like, a synthetic 6,000 x 5,000 table for timing experiments; load it in "
               "Python with `fslab.load_sample('gisette-like')`.")
WIDE = 200  # column tables and pickers show at most this many columns; a search box finds the others
PREVIEW_COLUMNS = 30  # the preview of a wide table: the target and this many feature columns
# (frame_key, target, positive, method, bins, name) behind the dataset set by "Use this dataset"
APPLIED = "fslab.data.applied"


# An upload's parsed table, Dataset and codes live in its session only (``scope="session"``: Streamlit drops them
# when the session disconnects), at most UPLOAD_ENTRIES per function, so a new upload replaces the older ones and one
# user's 50 MiB file never stays in the server after its tab closes. Shipped samples stay shared (``BOUNDED``).
UPLOAD_ENTRIES = 2
UPLOAD_CACHE = {"scope": "session", "max_entries": UPLOAD_ENTRIES, "max_size": f"{LIMITS.cache_mb}MB"}


def _in_session() -> bool:
    """True inside a Streamlit script run (a session-scoped cache needs one; a bare call just computes)."""
    return get_script_run_ctx(suppress_warning=True) is not None


def _parse(data: bytes) -> pd.DataFrame:
    return read_table(data, limits=LIMITS)


_upload_frame = st.cache_data(show_spinner="Reading the file...", **UPLOAD_CACHE)(_parse)


def upload_frame(data: bytes) -> pd.DataFrame:
    """The uploaded bytes parsed as a table (fslab.data.read_table: delimiter sniffing, checks), within the
    server's LIMITS (the library applies none by default); cached in this session only."""
    return _upload_frame(data) if _in_session() else _parse(data)


@st.cache_data(show_spinner="Loading sample data...", **BOUNDED)
def sample_frame(name: str) -> pd.DataFrame:
    """A sample as one raw table (features and target column), so it can be re-targeted like an upload."""
    return load_sample(name).to_frame()


def sample_default_target(name: str, columns) -> str:
    """The sample's own target column, else the last column."""
    target = SAMPLES[name].target
    return target if target in columns else str(list(columns)[-1])


def _inspect(_frame: pd.DataFrame, frame_key: str, target: str, types: tuple = ()) -> Dataset:
    with warnings.catch_warnings():   # the page lists the left-out columns itself
        warnings.simplefilter("ignore", UserWarning)
        return Dataset.from_frame(_frame, target, limits=frame_limits(_frame, frame_key),
                                  column_types=_types(_frame, types))


def _prepare(_frame: pd.DataFrame, frame_key: str, target: str, positive: str | None,
             method: str, bins: int, types: tuple = (), missing: str = "level") -> tuple[Dataset, object]:
    ds = Dataset.from_frame(_frame, target, positive=positive, limits=frame_limits(_frame, frame_key),
                            column_types=_types(_frame, types), missing=missing, near_unique="keep")
    return ds, ds.discretize(method, bins)


def _types(frame: pd.DataFrame, types: tuple) -> dict[str, str] | None:
    """The overrides ((column, type) pairs) of the columns still in ``frame`` (left-out ones are gone)."""
    return {c: t for c, t in types if c in frame.columns} or None


_inspect_sample = st.cache_data(show_spinner="Checking the data...", **BOUNDED)(_inspect)
_inspect_upload = st.cache_data(show_spinner="Checking the data...", **UPLOAD_CACHE)(_inspect)
_prepare_sample = st.cache_data(show_spinner="Checking and discretising...", **BOUNDED)(_prepare)
_prepare_upload = st.cache_data(show_spinner="Checking and discretising...", **UPLOAD_CACHE)(_prepare)


def _cached(frame_key: str, sample_fn, upload_fn, plain_fn):
    """Shared cache for a shipped sample, this session's bounded cache for an upload, none outside a session."""
    if frame_key.startswith("sample:"):
        return sample_fn
    return upload_fn if _in_session() else plain_fn


def inspect(frame: pd.DataFrame, frame_key: str, target: str, types: tuple = ()) -> Dataset:
    """The Dataset with the default positive class and the column types read (``types``: the user's overrides as
    (column, type) pairs): tells the page the task, the class names and the near-unique columns (``left_out``)."""
    return _cached(frame_key, _inspect_sample, _inspect_upload, _inspect)(frame, frame_key, target, types)


def prepare(frame: pd.DataFrame, frame_key: str, target: str, positive: str | None,
            method: str, bins: int, types: tuple = (), missing: str = "level") -> tuple[Dataset, object]:
    """(Dataset, EncodedDataset) of a parsed frame whose left-out columns the page has already removed (so nothing
    more is left out here); ``frame_key`` (the upload's hash or ``sample:<name>``) stands for the unhashed frame in
    the cache key."""
    return _cached(frame_key, _prepare_sample, _prepare_upload, _prepare)(frame, frame_key, target, positive,
                                                                         method, bins, types, missing)


# The Data page's column-type overrides: {frame_key: {column: type}} in the session (a plain key, so it outlives a
# visit to another page). "drop" is not offered: the page's "Columns to leave out" box does that.
TYPE_OVERRIDES = "fslab.data.column_types"
PAGE_TYPES = [t for t in COLUMN_TYPES if t != "drop"]
TYPE_LABELS = {"auto": "as read (automatic)", "number": "number", "date": "date or timestamp",
               "percent": "percentage", "boolean": "yes/no", "category": "categories (text levels)"}
MISSING_LABELS = {"level": "a level of its own ('missing')", "drop": "drop those rows"}


def type_overrides(frame_key: str) -> dict[str, str]:
    """The user's column types for this data ({column: type}; empty when none)."""
    return dict(st.session_state.get(TYPE_OVERRIDES, {}).get(frame_key, {}))


def set_type_override(frame_key: str, column: str, kind: str) -> None:
    """Record (or, for "auto", forget) the type of ``column``; other data keep theirs."""
    every = dict(st.session_state.get(TYPE_OVERRIDES, {}))
    mine = dict(every.get(frame_key, {}))
    if kind == "auto":
        mine.pop(column, None)
    else:
        mine[column] = kind
    every[frame_key] = mine
    st.session_state[TYPE_OVERRIDES] = every


def types_key(overrides: dict[str, str]) -> tuple:
    """The overrides as sorted (column, type) pairs: hashable, for the caches."""
    return tuple(sorted(overrides.items()))


def rows_with_missing(ds: Dataset) -> int:
    """Rows with a missing value in any feature column."""
    return int(ds.features.isna().any(axis=1).sum()) if ds.n_features else 0


def frame_limits(frame: pd.DataFrame, frame_key: str):
    """Uploads get the server's LIMITS; a shipped sample always fits (fslab.samples.sample_limits)."""
    return sample_limits(frame) if frame_key.startswith("sample:") else LIMITS


def positive_options(ds: Dataset, preferred=None) -> tuple[list[str], int]:
    """Options of the positive-class selectbox for a dataset built with positive=None, and the default index
    (``preferred`` if it is one of the classes, e.g. a sample's positive class; else fslab's default)."""
    t = ds.encoded_target
    if t.task == "binary":
        options = list(t.class_names)
    elif t.task == "multiclass":
        options = [ALL_CLASSES, *t.class_names]
    else:
        return [], 0
    if preferred is not None and str(preferred) in options:
        return options, options.index(str(preferred))
    return options, options.index(t.positive) if t.positive in options else 0


def is_applied(name: str, signature: tuple) -> bool:
    """Whether the data set ``name`` built from ``signature`` (frame key, target, positive, method, bins, label)
    is the current dataset: a sample by its name, an upload only if this page applied the same choices."""
    return state.get_dataset()[0] == name and (signature[0].startswith("sample:")
                                               or st.session_state.get(APPLIED) == signature)


def apply(name: str, ds: Dataset, encoded, signature: tuple, exclude: list[str], types=None,
          missing: str = "level") -> None:
    """Make the Data page's choice the current dataset, with the descriptor a link or recipe names it by, and
    remember the choices that built it (APPLIED)."""
    spec = data_page_spec(signature, ds.task)
    if exclude and spec is not None:  # links and recipes carry the exclusions, the column types and the missing rule
        spec = spec | {"exclude": list(exclude)}
    kept_types = [f"{c}={t}" for c, t in dict(types or {}).items() if c not in (exclude or ())]
    if kept_types and spec is not None:
        spec = spec | {"types": kept_types}
    if missing != "level" and spec is not None:
        spec = spec | {"missing": missing}
    state.set_dataset(name, encoded, ds, spec=spec)
    st.session_state[APPLIED] = signature


def applied_current() -> tuple | None:
    """The choices behind the current dataset when this page set it and it is still current (an upload is gone
    once the page is left, so the page offers it again as "Current"), else None."""
    current = state.current_data()
    applied = st.session_state.get(APPLIED)
    if current is None or current.raw is None or applied is None or applied[-1] != current.name:
        return None
    return applied


def use_sample(name: str) -> None:
    """Make sample ``name`` (paper encoding, default discretisation) the current dataset of the session."""
    state.set_dataset(f"{name} (sample)", sample_encoded(name), None, spec={"sample": name})


def column_edges(ds: Dataset, column: str, method: str, bins: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(values, inner bin edges) of a numeric feature column, or None when it is not binned."""
    method, bins = check_method(method, bins)
    values = numeric_values(ds.features[column])
    if values is None:
        return None
    finite = values[~np.isnan(values)]
    if finite.size == 0:
        return None
    return values, bin_edges(finite, method, bins)


def coding_table(encoded) -> pd.DataFrame:
    """One row per feature: number of codes and their names (bins or categories), for the page's table."""
    cats = encoded.categories or ()
    return pd.DataFrame({
        "feature": list(encoded.feature_names),
        "codes": [len(c) for c in cats],
        "values": [", ".join(c[:8]) + (", ..." if len(c) > 8 else "") for c in cats],
    })


def find_rows(table: pd.DataFrame, column: str, query: str, limit: int = WIDE) -> tuple[pd.DataFrame, int]:
    """The first ``limit`` rows of ``table`` whose ``column`` contains ``query`` (plain text, any case), and how
    many rows match."""
    if query:
        table = table[table[column].astype(str).str.contains(query, case=False, regex=False).to_numpy(bool)]
    return table.head(limit), len(table)


def binned_columns(encoded) -> list[str]:
    """Features cut into bins: their first code is an interval "(-inf, ...)" (fslab.discretize.bin_names)."""
    return [n for n, c in zip(encoded.feature_names, encoded.categories or (), strict=False)
            if c and str(c[0]).startswith("(-inf")]


def preview_frame(frame: pd.DataFrame, target: str, names: list[str] | None = None, excluded=(),
                  rows: int = 50) -> pd.DataFrame:
    """The first ``rows`` rows with the target column first, then the feature columns ``names`` (every other column
    when None), then the ``excluded`` columns (left out of the features) last."""
    left_out = [c for c in excluded if c in frame.columns and c != target]
    if names is None:
        names = [c for c in frame.columns if c != target]
    keep = ([target] if target in frame.columns else []) + [n for n in names if n != target and n not in left_out]
    return frame.loc[:, keep + left_out].head(rows)


def preview_columns(target: str, excluded=()) -> dict:
    """column_config of the preview: the target pinned at the left and labelled as the target; left-out columns
    labelled as such, so a wide table still shows what is predicted and what is not used."""
    config = {target: st.column_config.Column(f"{target} (target)", pinned=True, help="The column to predict")}
    return config | {c: st.column_config.Column(f"{c} (left out)", help="Not a feature: left out above")
                     for c in excluded if c != target}
