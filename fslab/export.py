"""Safe exports: text cells a spreadsheet would run as a formula (leading = + - @) get a leading ';
records become JSON-ready values (:func:`json_ready`)."""

from __future__ import annotations

import math

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
