"""An uploaded file read and typed in one go, for a process that may be capped (:mod:`fslab.limited`).

The app runs these functions in a worker process whose memory and CPU time are limited, so everything an upload
costs to parse, decompress and type is spent there, and the server receives only the results: the table, the
guessed target and the :class:`~fslab.data.dataset.Dataset` typed for it. Each function is plain data in, plain
data out (they pickle).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import pandas as pd

from .csv_io import read_table
from .data_checks import Limits
from .dataset import Dataset
from .target_guess import TargetGuess, guess_target


@dataclass(frozen=True)
class Upload:
    """A parsed upload: its ``frame`` (as :func:`read_table` reads it), the ``guess`` of its target column and
    ``base``, the Dataset typed for that target with the default reading (:func:`typed_dataset` without types)."""

    frame: pd.DataFrame
    guess: TargetGuess
    base: Dataset


def typed_dataset(frame: pd.DataFrame, target: str, types: tuple = (), limits: Limits | None = None,
                  positive=None, missing: str = "level", near_unique: str = "drop") -> Dataset:
    """``Dataset.from_frame`` of ``frame`` with the column types ``types`` ((column, type) pairs; those of columns
    no longer in the frame are ignored); the left-out-columns warning is not repeated (the Dataset says it)."""
    chosen = {c: t for c, t in types if c in frame.columns and c != target} or None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return Dataset.from_frame(frame, target, positive=positive, limits=limits, column_types=chosen,
                                  missing=missing, near_unique=near_unique)


def read_upload(data: bytes, limits: Limits | None = None) -> Upload:
    """Read ``data`` (:func:`read_table`), guess its target and type it once for that target."""
    frame = read_table(data, limits=limits)
    guess = guess_target(frame)
    return Upload(frame, guess, typed_dataset(frame, guess.column, limits=limits))


__all__ = ["Upload", "read_upload", "typed_dataset"]
