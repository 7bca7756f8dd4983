"""DATA of the command line: a CSV (plain or gzip) or parquet file, a directory or glob of them, a JSON distribution, a
shipped sample, a toy preset, or a registered source (``NAME:LOCATION`` or a file with a registered suffix:
:mod:`fslab.data.registry`, opened by :func:`load_registered`). With ``--scheduler``, a file, directory or glob is
read by the Dask workers (:func:`load_on_cluster`).

Samples load exactly as the app loads them (``load_sample`` with the paper's encoding and positive class,
then ``discretize``); uploads become ``Dataset.from_frame(frame, target, positive, column_types=...,
missing=...).discretize(method, bins)`` with the last column as the default target, as on the Data page: column
types read as a person reads them, near-unique columns left out (``--column-type COL=TYPE`` overrides a column,
``--missing drop`` drops rows with a missing feature value). Every file is read within the server's limits,
``fslab.limits.server_limits()`` (a gzip file's decompressed size included, so a compression bomb fails cleanly).
"""

from __future__ import annotations

import glob
import gzip
import os
import re
import warnings
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from .. import limits as _limits
from ..data.column_types import TYPES as COLUMN_TYPES
from ..data.dask_read import from_dask, read_files, table_files
from ..data.data_checks import DataLimitError
from ..data.dataset import MISSING_RULES, Dataset, read_table
from ..data.distributions import Distribution
from ..data.registry import SourceKind, UnknownSourceError, find, known, open_with, scheme_of
from ..data.safe_json import loads as safe_loads
from ..data.samples import SAMPLE_DIR, SAMPLES, load_sample
from ..data.target import parse_split
from ..errors import DataError, FslabError, ParameterError
from ..limited import run_limited
from ..pena_nilsson.toy import PRESETS, preset

_MB = _limits.MB  # the upload unit of the app and fslab.limits (1,000,000 bytes)


@dataclass(frozen=True)
class Loaded:
    """The source a command runs on, with what the output says about it."""

    source: Any             # "dataset": EncodedDataset, SparseDataset or DaskSource; "distribution": Distribution
    kind: str               # "dataset" or "distribution"
    name: str
    notes: tuple[str, ...] = ()
    own: bool = False       # the user's own file (not a shipped sample or a toy): held-out estimates by default

    def describe(self) -> dict:
        src = self.source
        out = {"kind": self.kind, "name": self.name, "features": int(src.n_features)}
        if self.kind == "dataset":
            out |= {"rows": int(src.n_rows), "task": src.task, "target": src.target}
            if src.task == "binary":
                out["positive"] = src.class_names[1]
        else:
            out["states"] = int(src.n_rows)
        return out


def read_bytes(path: str | os.PathLike, what: str = "file", max_bytes: int | None = None) -> bytes:
    """The file's bytes, gunzipped when it is gzip, refused beyond ``max_bytes`` (default: the upload limit).

    A gzip file is decompressed only up to the limit, so a small file that inflates to gigabytes is refused
    after reading limit + 1 bytes.
    """
    lim = _limits.server_limits()
    field = "max_upload_mb" if max_bytes is None else "max_json_bytes"
    cap = lim.max_upload_mb * _MB if max_bytes is None else max_bytes
    shown = os.fspath(path)
    try:
        with open(path, "rb") as fh:
            head = fh.read(2)
            fh.seek(0)
            data = _gunzip(fh, cap, shown) if head == b"\x1f\x8b" else fh.read(cap + 1)
    except IsADirectoryError:
        raise DataError(f"{shown!r} is a directory; give a CSV or JSON file") from None
    except OSError as err:
        raise DataError(f"cannot open {shown!r}: {err.strerror or err}") from None
    if len(data) > cap:
        grows = "decompresses to" if head == b"\x1f\x8b" else "has"
        raise DataLimitError(_limits.over_limit(field, f"the {what} {shown!r} {grows} more than {_size(cap)}", lim))
    return data


def _size(n_bytes: int) -> str:
    return f"{n_bytes // _MB:,} MB" if n_bytes % _MB == 0 else f"{n_bytes:,} bytes"


def _gunzip(fh, cap: int, shown: str) -> bytes:
    try:
        with gzip.GzipFile(fileobj=fh) as gz:
            return gz.read(cap + 1)
    except (OSError, EOFError, zlib.error) as err:
        raise DataError(f"{shown!r} is not a valid gzip file ({err}); decompress it or give the plain CSV") from None


def sample_name(data: str) -> str | None:
    """The sample DATA names: ``sample:NAME``, a bare sample name that is not a file, or a file of sample_data/."""
    if data.startswith("sample:"):
        return data.removeprefix("sample:")
    if data in SAMPLES and not os.path.exists(data):
        return data
    path = Path(data)
    if path.name.endswith(".csv.gz") and path.exists() and path.resolve().parent == SAMPLE_DIR.resolve():
        name = path.name.removesuffix(".csv.gz")
        if name in SAMPLES and SAMPLES[name].file == path.name:
            return name
    return None


def load_sample_source(name: str, target: str | None, positive: str | None, method: str, bins: int) -> Loaded:
    """A shipped sample as the app loads it; another target or positive class as the Data page re-targets it."""
    if name not in SAMPLES:
        raise ParameterError(f"unknown sample {name!r}; choose one of: {', '.join(SAMPLES)}")
    rec = SAMPLES[name]
    if target is None or target == rec.target:
        ds = load_sample(name) if positive is None else load_sample(name, positive=positive)
    else:
        ds = Dataset.from_frame(load_sample(name).to_frame(), target, positive=positive)
    encoded = ds.discretize(method, bins)
    return Loaded(encoded, "dataset", f"{name} (sample)", tuple(encoded.notes))


def parse_column_types(items) -> dict[str, str]:
    """``--column-type COL=TYPE`` options (repeatable) as {column: type}; a ParameterError names a bad one."""
    out: dict[str, str] = {}
    for item in items or ():
        col, sep, kind = str(item).rpartition("=")
        col, kind = col.strip(), kind.strip().lower()
        if not sep or not col:
            raise ParameterError(f"--column-type needs COL=TYPE, e.g. customer_id=category; got {item!r}")
        if kind not in COLUMN_TYPES:
            raise ParameterError(f"--column-type {item!r}: unknown type {kind!r}; choose one of "
                                 f"{', '.join(COLUMN_TYPES)}")
        out[col] = kind
    return out


def _read_and_type(path: str, target: str | None, positive: str | None, lim, column_types, missing: str,
                   dayfirst: bool, target_split=None) -> Dataset:
    """Read and type one file (in the capped child of :func:`load_csv`): the last column is the target unless
    ``target`` names another."""
    frame = read_table(read_bytes(path, "file"), limits=lim)
    target = target if target is not None else str(frame.columns[-1])
    with warnings.catch_warnings():   # the left-out columns are said in the notes (stderr), once
        warnings.simplefilter("ignore", UserWarning)
        return Dataset.from_frame(frame, target, positive=positive, limits=lim, column_types=column_types,
                                  missing=missing, dayfirst=dayfirst, target_split=target_split)


def load_csv(path: str, target: str | None, positive: str | None, method: str, bins: int,
             column_types: dict[str, str] | None = None, missing: str = "level", dayfirst: bool = False,
             target_split=None) -> Loaded:
    """An uploaded table, read and typed in a child process under the server's caps (FSLAB_MAX_PARSE_MB,
    FSLAB_MAX_PARSE_SECONDS: :func:`fslab.limited.run_limited`), as the app reads an upload: a file that would
    need more memory or time is a clean limit error, never this process's."""
    lim = _limits.server_limits()
    ds = run_limited(lim, _read_and_type, path, target, positive, lim, column_types, missing, dayfirst, target_split,
                     what=f"reading {Path(path).name!r}")
    encoded = ds.discretize(method, bins)
    return Loaded(encoded, "dataset", Path(path).name, tuple(encoded.notes), own=True)


def is_partitioned(data: str) -> bool:
    """DATA names several files: a glob (``data/*.parquet``) or a directory."""
    return glob.has_magic(data) or os.path.isdir(data)


def load_files(path: str, target: str | None, positive: str | None, method: str, bins: int,
               column_types: dict[str, str] | None = None, missing: str = "level", dayfirst: bool = False,
               target_split=None) -> Loaded:
    """Every file of a directory or glob read here, in memory, within the server's limits (each file within the
    upload limit, the rows together within the row limit), as one table: what fits on one machine."""
    lim = _limits.server_limits()
    _, files = table_files(path)
    frames = [read_table(read_bytes(f, "file"), limits=lim) for f in files]
    columns = list(frames[0].columns)
    for f, frame in zip(files, frames, strict=True):
        if list(frame.columns) != columns:
            raise DataError(f"{Path(f).name!r} has other columns than {Path(files[0]).name!r}; every file of "
                            f"{path!r} needs the same header")
    frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    target = target if target is not None else str(frame.columns[-1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        ds = Dataset.from_frame(frame, target, positive=positive, limits=lim, column_types=column_types,
                                missing=missing, dayfirst=dayfirst, target_split=target_split)
    encoded = ds.discretize(method, bins)
    return Loaded(encoded, "dataset", os.fspath(path), tuple(encoded.notes), own=True)


def load_on_cluster(path: str, target: str | None, positive: str | None, method: str, bins: int,
                    persist: bool | str = "auto", column_types: dict[str, str] | None = None,
                    dayfirst: bool = False) -> Loaded:
    """A parquet or CSV file, a directory or a glob read by the workers of the connected Dask cluster
    (``dask.dataframe.read_parquet`` / ``read_csv``), never on this machine and without the server's upload
    limits (they guard the app's uploads, not a cluster operator's files), then binned there
    (:func:`fslab.data.dask_read.from_dask`): only statistics and count tables come back."""
    frame = read_files(path)
    target = target if target is not None else str(frame.columns[-1])
    try:
        source = from_dask(frame, target, positive=positive, method=method, bins=bins, persist=persist,
                           column_types=column_types, dayfirst=dayfirst)
    except FslabError:
        raise
    except (OSError, ValueError, TypeError, KeyError) as err:   # the workers could not parse the files
        clash = re.findall(r"\|\s*(\S+)\s*\|\s*(\S+)\s*\|\s*(\S+)\s*\|", str(err))[1:]   # dask's dtype table
        why = ("the files disagree on column types: " + ", ".join(f"{c!r} is {a} in one file, {b} in another"
                                                                   for c, a, b in clash[:3])) if clash else \
            f"{type(err).__name__}: {(str(err).splitlines() or [''])[0][:200]}"
        raise DataError(f"the Dask workers could not read {path!r}: {why}") from None
    return Loaded(source, "dataset", os.fspath(path), tuple(source.notes), own=True)


def load_in_duckdb(path: str, target: str | None, positive: str | None, method: str, bins: int,
                   column_types: dict[str, str] | None = None, missing: str = "level",
                   dayfirst: bool = False) -> Loaded:
    """A parquet or CSV file, a directory or a glob counted in an embedded DuckDB (:func:`fslab.from_sql`): the
    rows stay in the engine, so neither memory nor the server's upload limits bound them; only count tables come
    back."""
    if target is None:
        raise ParameterError("--sql needs --target: the engine reads the columns without loading the table here")
    from ..data.sql_read import from_sql

    source = from_sql(path, target, positive=positive, method=method, bins=bins, column_types=column_types,
                      missing=missing, dayfirst=dayfirst)
    return Loaded(source, "dataset", os.fspath(path), tuple(source.notes), own=True)


def load_registered(kind: SourceKind, location: str, data: str, target: str | None, positive: str | None,
                    method: str, bins: int) -> Loaded:
    """DATA of a registered or installed source (``rows:path``, or ``x.jsonl`` for a ``.jsonl`` source): its opener
    reads it (:func:`fslab.data.registry.open_with`); the user's own data, so held out by default."""
    source = open_with(kind, location, target=target, positive=positive, method=method, bins=bins)
    name = data if kind.name == scheme_of(data) else Path(data).name
    return Loaded(source, "dataset", name, tuple(getattr(source, "notes", ())), own=True)


def parse_distribution(text: bytes, what: str) -> Distribution:
    """A JSON distribution (``Distribution.to_json()``), parsed within the JSON limits."""
    doc = safe_loads(text, what=what)
    if isinstance(doc, dict) and "fslab_recipe" in doc:
        raise ParameterError(f"the {what} is a recipe, not a distribution; pass it with --recipe")
    return Distribution.from_json(text)


def load_distribution_file(path: str) -> Loaded:
    text = read_bytes(path, "JSON file", max_bytes=_limits.server_limits().max_json_bytes)
    return Loaded(parse_distribution(text, f"JSON file {Path(path).name!r}"), "distribution", Path(path).name)


def load_data(data: str, target: str | None = None, positive: str | None = None, method: str | None = None,
              bins: int | None = None, column_types=None, missing: str | None = None, *, cluster: bool = False,
              persist: bool | str = "auto", sql: bool = False, dayfirst: bool = False, split: str | None = None
              ) -> Loaded:
    """DATA of the command line (see the module docstring); ``method`` defaults to "auto" (robust bins: mean-std,
    quantile bins where outliers crowd 90 % of a column's rows into one bin) for a file, in memory, in DuckDB
    (``sql``) or on a cluster alike, and to the paper's mean-std for a shipped sample; ``bins`` to 3.
    ``column_types`` ({column: type} or the ``COL=TYPE`` strings of ``--column-type``) and ``missing`` apply to a
    CSV file only; ``dayfirst`` reads ambiguous dates (03/04/2021) day first in any file; ``split`` ("median", a
    threshold or "q2".."q5": :func:`fslab.data.target.parse_split`) cuts a numeric target of a file read in memory
    into classes. ``cluster``: a file,
    directory or glob is read by the Dask workers (:func:`load_on_cluster`);
    ``sql``: counted in an embedded DuckDB (:func:`load_in_duckdb`)."""
    types = column_types if isinstance(column_types, dict) else parse_column_types(column_types)
    registered = find(data)
    if registered is not None:
        extra = [o for o, given in (("--sql", sql), ("--scheduler", cluster), ("--column-type", types),
                                    ("--missing", missing is not None), ("--dayfirst", dayfirst),
                                    ("--split", split is not None)) if given]
        if extra:
            raise ParameterError(f"{', '.join(extra)} do{'es' if len(extra) == 1 else ''} not apply to {data!r}: the "
                                 f"source {registered[0].name!r} ({registered[0].words}) reads and types its own rows")
        return load_registered(*registered, data, target, positive, method or "auto", bins if bins is not None else 3)
    try:
        target_split = parse_split(split) if split is not None else None
    except ParameterError:
        raise ParameterError(f"--split is 'median', a number (the threshold) or q2..q5 (quantile classes); got "
                             f"{split!r}") from None
    if target_split is not None and (sql or cluster):
        raise ParameterError("--split cuts the numeric target of a file read in memory; --sql and --scheduler do "
                             "not take it yet: cut the target into a column of its own in the table instead")
    if missing is not None and missing not in MISSING_RULES:
        raise ParameterError(f"--missing must be one of {', '.join(MISSING_RULES)}; got {missing!r}")
    name = sample_name(data)
    not_csv = (name is not None or data.startswith("preset:") or data.lower().endswith(".json")
               or (data in PRESETS and not os.path.exists(data)))
    if (types or missing is not None or dayfirst or target_split is not None) and not_csv:
        raise ParameterError("--column-type, --missing, --dayfirst and --split apply to a CSV file, not to a shipped "
                             "sample (its columns carry the paper's encoding), a toy or a JSON distribution")
    preset_name = data.removeprefix("preset:") if data.startswith("preset:") or not os.path.exists(data) else None
    if data.startswith("preset:") and preset_name not in PRESETS:
        raise ParameterError(f"unknown toy distribution {preset_name!r}; choose one of: {', '.join(PRESETS)}")
    # a toy preset (the Toy page's list), e.g. bayes-example-1
    if name is None and preset_name is not None and preset_name in PRESETS:
        if (target, positive, method, bins) != (None, None, None, None):
            raise ParameterError("--target, --positive, --method and --bins apply to a CSV or a sample, not to a "
                                 "toy distribution")
        return Loaded(preset(preset_name), "distribution", PRESETS[preset_name].label)
    if data.lower().endswith(".json") and name is None:
        if (target, positive, method, bins) != (None, None, None, None):
            raise ParameterError("--target, --positive, --method and --bins apply to a CSV or a sample, not to a "
                                 "JSON distribution")
        return load_distribution_file(data)
    method, bins = method or ("mean-std" if name is not None else "auto"), bins if bins is not None else 3
    if name is not None:
        return load_sample_source(name, target, positive, method, bins)
    if sql:
        if cluster:
            raise ParameterError("--sql counts in DuckDB on this machine: it does not combine with --scheduler")
        return load_in_duckdb(data, target, positive, method, bins, types, missing or "level", dayfirst)
    if cluster:
        if missing is not None:
            raise ParameterError("--missing applies to a file read in memory or in DuckDB; on a Dask cluster a "
                                 "missing feature value is a level of its own")
        return load_on_cluster(data, target, positive, method, bins, persist, types, dayfirst)
    if is_partitioned(data):
        return load_files(data, target, positive, method, bins, types, missing or "level", dayfirst, target_split)
    if not os.path.exists(data) and scheme_of(data) is not None:   # NAME:LOCATION of no source: list them
        raise UnknownSourceError(f"no such file: {data!r}, and no data source {scheme_of(data)!r}: {known()}")
    if not os.path.exists(data):
        hint = (f"; samples: {', '.join(SAMPLES)}; toy distributions: {', '.join(PRESETS)}"
                if os.sep not in data and "." not in data else "")
        raise DataError(f"no such file: {data!r}{hint}")
    return load_csv(data, target, positive, method, bins, types, missing or "level", dayfirst, target_split)
