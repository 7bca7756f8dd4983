"""Safe exports: text cells a spreadsheet would run as a formula (leading = + - @) get a leading ';
records become JSON-ready values (:func:`json_ready`)."""

from __future__ import annotations

import json
import math
import re
from importlib.metadata import PackageNotFoundError, version

import numpy as np
import pandas as pd

FORMULA_PREFIXES = ("=", "+", "-", "@")


def escape_cell(value):
    """``'`` + value for a text value that begins with = + - @; anything else unchanged (numbers stay numbers)."""
    return "'" + value if isinstance(value, str) and value[:1] in FORMULA_PREFIXES else value


def safe_frame(frame: pd.DataFrame, index: bool = False) -> pd.DataFrame:
    """A copy with escaped headers and text cells (the index becomes a column when ``index``)."""
    out = frame.reset_index() if index else frame.copy()
    out.columns = [escape_cell(str(c)) for c in out.columns]
    for col in out.columns:
        if not pd.api.types.is_numeric_dtype(out[col]) and not pd.api.types.is_bool_dtype(out[col]):
            out[col] = out[col].map(escape_cell)
    return out


def safe_csv(frame: pd.DataFrame, index: bool = False) -> bytes:
    """UTF-8 CSV bytes of :func:`safe_frame`."""
    return safe_frame(frame, index).to_csv(index=False).encode("utf-8")


def json_ready(value):
    """Copy with numpy scalars and arrays as Python values and NaN / infinities as None (JSON has neither)."""
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [json_ready(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def fslab_version() -> str:
    """The installed fslab's version (pyproject.toml), or 'unknown' when run from a bare checkout."""
    try:
        return version("fslab")
    except PackageNotFoundError:
        return "unknown"


def provenance(data: str, data_hash: str | None = None, target: str | None = None, positive=None,
               binning: str | None = None, measure: str | None = None, params: dict | None = None,
               **more) -> dict:
    """Where an export comes from: data name and content hash ('sha256:...' of an uploaded file, else a digest of
    the coded data), target, positive class, binning, measure and its
    parameters, anything in ``more`` (selector, k, ...), and the fslab version. JSON-ready."""
    record = {"data": data, "data_hash": data_hash, "target": target,
              "positive_class": None if positive is None else str(positive), "binning": binning,
              "measure": measure, "measure_params": dict(params or {}), **more, "fslab_version": fslab_version()}
    return json_ready(record)


def csv_with_provenance(frame: pd.DataFrame, record: dict, index: bool = False) -> bytes:
    """:func:`safe_csv` preceded by one ``# key: value`` line per provenance field (``pandas.read_csv(...,
    comment="#")`` skips them)."""
    head = "".join(f"# {key}: {_one_line(value)}\n" for key, value in record.items())
    return head.encode("utf-8") + safe_csv(frame, index)


def _one_line(value) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return text.replace("\r", " ").replace("\n", " ")


def file_stem(*parts) -> str:
    """An informative, safe file name stem: 'fslab_mushroom_bayes-greedy_balanced_k5'."""
    cleaned = [re.sub(r"[^A-Za-z0-9.=-]+", "-", str(p)).strip("-.")[:40] for p in parts if p not in (None, "")]
    return "_".join(["fslab", *[c for c in cleaned if c]])
