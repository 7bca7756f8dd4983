"""Safe exports: CSV text a spreadsheet would run as a formula is defused, fields are quoted, and records become
JSON-ready values (:func:`json_ready`).

A CSV export is plain data: one header row, then rows, readable by ``pandas.read_csv``, by fslab's own reader
(:func:`fslab.data.csv_io.read_table`, the Data page) and by a spreadsheet. Provenance never goes into a CSV: a
``# key: value`` line is a row to a spreadsheet, and a comma in a file or column name made it start a cell. It goes
into the JSON export of the same result instead (``"provenance"``), which carries every field and escapes nothing
away.
"""

from __future__ import annotations

import csv
import math
import re
from importlib.metadata import PackageNotFoundError, version

import numpy as np
import pandas as pd

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r", "\n")  # OWASP's CSV-injection list, and a line feed


def escape_cell(value):
    """``'`` + value for a text value a spreadsheet could read as a formula: one that begins with = + - @, a tab,
    a carriage return or a line feed, also after leading blanks (OWASP's rule: text "-1" too, since a spreadsheet
    cannot be trusted to tell "-1" from "-1+cmd|..."). Non-text values are unchanged (numbers stay numbers)."""
    if isinstance(value, str) and value and (value[0] in FORMULA_PREFIXES or value.lstrip()[:1] in FORMULA_PREFIXES):
        return "'" + value
    return value


def safe_frame(frame: pd.DataFrame, index: bool = False) -> pd.DataFrame:
    """A copy with escaped headers and text cells (the index becomes a column when ``index``)."""
    out = frame.reset_index() if index else frame.copy()
    out.columns = [escape_cell(str(c)) for c in out.columns]
    for i in range(out.shape[1]):
        col = out.iloc[:, i]
        if not pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
            out.isetitem(i, col.astype(object).map(escape_cell))
    return out


def safe_csv(frame: pd.DataFrame, index: bool = False) -> bytes:
    """UTF-8 CSV bytes of :func:`safe_frame`: every text field (headers included) quoted, so a line break or a
    comma inside a cell stays inside it; numbers unquoted; ``\\n`` line ends."""
    return safe_frame(frame, index).to_csv(index=False, quoting=csv.QUOTE_NONNUMERIC,
                                           lineterminator="\n").encode("utf-8")


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
    parameters, anything in ``more`` (selector, k, ...), and the fslab version. JSON-ready; it belongs in a JSON
    export (never in a CSV: see the module docstring)."""
    record = {"data": data, "data_hash": data_hash, "target": target,
              "positive_class": None if positive is None else str(positive), "binning": binning,
              "measure": measure, "measure_params": dict(params or {}), **more, "fslab_version": fslab_version()}
    return json_ready(record)


def csv_with_provenance(frame: pd.DataFrame, record: dict | None = None, index: bool = False) -> bytes:
    """:func:`safe_csv` of ``frame``; ``record`` is not written.

    Kept for its callers: this once wrote one ``# key: value`` line per provenance field before the header, which
    neither pandas (without ``comment="#"``) nor fslab's upload could read back, which a spreadsheet shows as data
    rows, and whose raw text could start a formula cell. The provenance of a CSV is in the JSON export beside it.
    """
    return safe_csv(frame, index)


def file_stem(data, *parts) -> str:
    """A short, safe file name stem from the data's name and the settings: 'fslab_mushroom_bayes-greedy_k5'.

    ``data`` is the name the app shows; only its first words count: a parenthesised note ("wdbc.csv (diagnosis =
    malignant)", "mushroom (sample)") and a file extension are dropped. Each part keeps letters, digits, '.', '='
    and '-' and is cut at a word boundary (at most 32 characters)."""
    name = re.sub(r"\s*\(.*$", "", str(data or "")).strip()
    name = re.sub(r"\.(csv|tsv|txt|json|gz|zip)$", "", name, flags=re.IGNORECASE)
    cleaned = [_clean(p) for p in (name, *parts) if p not in (None, "")]
    return "_".join(["fslab", *[c for c in cleaned if c]])


def _clean(part, width: int = 32) -> str:
    text = re.sub(r"[^A-Za-z0-9.=-]+", "-", str(part))
    text = re.sub(r"-*=-*", "=", text).strip("-.=")
    if len(text) > width:
        cut = text[:width + 1]
        text = cut[:cut.rfind("-")] if "-" in cut[1:] else text[:width]
    return text.strip("-.=")
