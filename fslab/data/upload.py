"""An uploaded file read and typed in one go, for a process that may be capped (:mod:`fslab.limited`).

The app runs these functions in a worker process whose memory and CPU time are limited, so everything an upload
costs to parse, decompress and type is spent there, and the server receives only the results: the table, the
guessed target and the :class:`~fslab.data.dataset.Dataset` typed for it. Each function is plain data in, plain
data out (they pickle). :func:`read_upload` makes its answer compact before it travels (:func:`compact`): a raw
column that its typed column equals is one column held by both, and text codes are as narrow as their levels allow.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from . import parse_rules
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
    """Read ``data`` (:func:`read_table`), guess its target and type it once for that target (:func:`compact`)."""
    frame = read_table(data, limits=limits)
    guess = guess_target(frame)
    return compact(Upload(frame, guess, typed_dataset(frame, guess.column, limits=limits)))


def bare_codes(ds: Dataset, method: str, bins: int):
    """``ds.discretize(method, bins)`` without its raw source (``values=None``), and whether it had one: the codes
    computed in a worker travel back without a copy of the raw features, which the receiver holds already
    (:func:`with_raw`)."""
    encoded = ds.discretize(method, bins)
    return encoded.replace(values=None), encoded.has_values


def with_raw(ds: Dataset, answer):
    """The codes of :func:`bare_codes` with their raw source ``ds``'s own (its one numeric array, else its
    features: what :meth:`Dataset.discretize` keeps), as ``ds.discretize`` returns them."""
    encoded, had = answer
    return encoded.replace(values=(ds.array if ds.array is not None else ds.features)) if had else encoded


def registered_kinds() -> tuple[parse_rules.ColumnKind, ...]:
    """The column types registered in this process (:func:`fslab.data.parse_rules.register`), to send with a job:
    a worker forked before they were registered (the app's forkserver) does not have them. Each must pickle (its
    ``value`` a module-level function, not a lambda): a :class:`~fslab.data.parse_rules.ColumnTypeError` says which
    does not, before any job starts."""
    import pickle

    kinds = tuple(parse_rules.EXTRA.values())
    for kind in kinds:
        try:
            pickle.dumps(kind, protocol=5)
        except (pickle.PicklingError, AttributeError, TypeError) as err:
            raise parse_rules.ColumnTypeError(
                f"column type {kind.name!r} is registered with parts that do not pickle ({err}); the app reads "
                "uploads in a worker process and sends it the registered types: define its value function at the "
                "top level of a module (not a lambda)") from None
    return kinds


class WithKinds:
    """``fn`` to run with the column types ``kinds`` registered first (in order, replacing a kind of the same name),
    in a worker process that did not inherit them (:func:`registered_kinds`); it pickles when they do and keeps
    ``fn``'s name (a worker's errors name the job)."""

    def __init__(self, fn, kinds: tuple[parse_rules.ColumnKind, ...]) -> None:
        self.fn, self.kinds = fn, kinds
        self.__name__ = getattr(fn, "__name__", "the job")

    def __call__(self, *args, **kwargs):
        for kind in self.kinds:
            parse_rules.EXTRA.pop(kind.name, None)
            parse_rules.EXTRA[kind.name] = kind
        return self.fn(*args, **kwargs)


def code_dtype(levels: int) -> np.dtype:
    """The narrowest signed integer type of codes -1 (missing) .. ``levels`` - 1."""
    return next(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64) if levels - 1 <= np.iinfo(t).max)


def compact(upload: Upload) -> Upload:
    """``upload`` holding each column once: a text (Arrow-backed) column of ``frame`` equal to its typed column in
    ``base`` (same dtype, index and values: the typing kept it as read) is that typed column, so the two share
    memory, and when the typing hashed it (``base.text_codes``: code per row, -1 missing, in :func:`code_dtype` of
    their levels) that column is a categorical of those codes and levels, in the table and the features alike.

    The values are unchanged, only where they are stored: a text code indexes the same level whatever its width.
    Numeric columns keep the frame's one block (the typed features are views of it already, and a frame of one
    block types to a Dataset with its one ``array``). For a 199,000 x 22 text table: 150 MB to send (frame,
    features, int64 codes) -> 66 MB."""
    frame, base = upload.frame, upload.base
    typed = {base.target: base.target_values} | {c: base.features[c] for c in base.features.columns}
    same = [c for c in frame.columns if c in typed and not isinstance(frame.dtypes[c], np.dtype)
            and typed[c].dtype == frame.dtypes[c] and typed[c].index.equals(frame.index)
            and typed[c].equals(frame[c])] if frame.columns.is_unique else []
    codes = {c: (np.asarray(k).astype(code_dtype(len(u)), copy=False), u) for c, (k, u) in base.text_codes.items()}
    features = base.features
    if same:
        frame = frame.copy(deep=False)
        text = [c for c in same if c in codes and c in features.columns]   # text kept as read, hashed by the typing
        if text:
            features = features.copy(deep=False)
        for c in same:
            if c in text:   # its codes and levels as a categorical: no Arrow strings (8-9 bytes a row and its text)
                levels = pd.Categorical.from_codes(codes[c][0], categories=pd.Index(codes[c][1]))
                codes[c] = (levels.codes, codes[c][1])   # one array of codes (read-only), for discretize too
                typed[c] = pd.Series(levels, index=features.index, name=c, copy=False)
                features[c] = typed[c]
            frame[c] = typed[c]
    return Upload(frame, upload.guess, replace(base, features=features, text_codes=codes))


__all__ = ["Upload", "WithKinds", "bare_codes", "code_dtype", "compact", "read_upload", "registered_kinds",
           "typed_dataset", "with_raw"]
