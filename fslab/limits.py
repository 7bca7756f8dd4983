"""Every size limit of fslab in one place: ``LIMITS`` (a frozen :class:`Limits`).

The app serves a room of users from one process, so every input size and every piece of work that grows
with the user's choices has a ceiling here, and the message of the error it raises names the limit. A
server operator changes a limit with an environment variable ``FSLAB_<FIELD>`` (e.g. ``FSLAB_MAX_ROWS=500000``)
read once at import; code that needs another limit passes ``limits=Limits(...)`` explicitly.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace

from .errors import ParameterError


@dataclass(frozen=True)
class Limits:
    """Largest inputs and jobs fslab accepts (see :func:`limits_table` for what each one bounds)."""

    max_upload_mb: int = 50                # size of one uploaded file (CSV, JSON distribution, recipe)
    max_rows: int = 200_000                # rows of a table
    max_columns: int = 2_000               # columns of a table
    max_cells: int = 50_000_000            # rows x columns
    max_field_chars: int = 100_000         # characters of one header line or one cell
    max_json_bytes: int = 2_000_000        # a JSON distribution or recipe
    max_json_depth: int = 16               # nesting of JSON arrays and objects
    max_states: int = 100_000              # states (rows) of an exact distribution
    max_exhaustive_subsets: int = 200_000  # C(n, k) subsets scored by exhaustive search
    max_lattice_features: int = 12         # features of a subset lattice (2^n subsets)
    max_bootstraps: int = 5_000            # NPFS bootstraps
    max_curve_fits: int = 2_000            # learner fits of one learning-curve run
    cache_entries: int = 32                # entries of one cached function in the app
    cache_mb: int = 256                    # memory of one cached function's entries in the app

    @classmethod
    def from_env(cls, environ=None) -> Limits:
        """Defaults overridden by ``FSLAB_<FIELD>`` environment variables (positive integers)."""
        environ = os.environ if environ is None else environ
        changes = {}
        for f in fields(cls):
            text = environ.get(f"FSLAB_{f.name.upper()}")
            if text is None:
                continue
            try:
                value = int(text)
            except ValueError:
                value = 0
            if value < 1:
                raise ParameterError(f"FSLAB_{f.name.upper()} must be a positive integer; got {text!r}")
            changes[f.name] = value
        return replace(cls(), **changes)


LIMITS = Limits.from_env()

DESCRIPTIONS = {
    "max_upload_mb": ("upload size", "MB per uploaded file"),
    "max_rows": ("rows", "rows of a data table"),
    "max_columns": ("columns", "columns of a data table"),
    "max_cells": ("cells", "rows x columns of a data table"),
    "max_field_chars": ("field length", "characters in one header line or one cell"),
    "max_json_bytes": ("JSON size", "bytes of a JSON distribution or recipe"),
    "max_json_depth": ("JSON nesting", "levels of nested arrays and objects"),
    "max_states": ("distribution states", "states of an exact distribution"),
    "max_exhaustive_subsets": ("exhaustive subsets", "subsets C(n, k) scored by exhaustive search"),
    "max_lattice_features": ("lattice size", "features of a subset lattice (2^n subsets)"),
    "max_bootstraps": ("bootstraps", "NPFS bootstraps per run"),
    "max_curve_fits": ("learning-curve work", "learner fits per learning-curve run"),
    "cache_entries": ("cached results", "entries kept per cached computation"),
    "cache_mb": ("cache memory", "MB kept per cached computation"),
}


def setting(field: str) -> str:
    """The environment variable that changes limit ``field`` (``max_rows`` -> ``FSLAB_MAX_ROWS``)."""
    return f"FSLAB_{field.upper()}"


def over_limit(field: str, got: str, limits: Limits = LIMITS) -> str:
    """``"<got>; the limit is <value> <unit> (<name> limit: ... FSLAB_<FIELD> ...)"``: every limit message."""
    return (f"{got}; the limit is {getattr(limits, field):,} {DESCRIPTIONS[field][1]} ({DESCRIPTIONS[field][0]} "
            f"limit: a server sets it with {setting(field)}, code with limits=fslab.Limits({field}=...))")


def limits_table(limits: Limits = LIMITS) -> list[dict]:
    """One row per limit: what it bounds, its value, and the environment variable that changes it."""
    return [{"limit": DESCRIPTIONS[f.name][0], "value": getattr(limits, f.name), "bounds": DESCRIPTIONS[f.name][1],
             "setting": f"FSLAB_{f.name.upper()}"} for f in fields(limits)]
