"""Reading fslab's shipped sample files by path: the directory, the ``.csv.gz`` tables, the ``.npz`` arrays, and
the optdigits images.

Below both :mod:`fslab.data.samples` (the registry, which knows each file's name and target) and
:mod:`fslab.data.synthetic` (digits in noise reads the optdigits images), so each imports this module and
``samples`` imports ``synthetic`` for its generators: one direction, no circle (issue 25).
"""

from __future__ import annotations

import zipfile
import zlib
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import DataError, ParameterError

NPZ_KEYS = {"X": "u", "y": "u", "feature_names": "U"}
# what reading a truncated or overwritten .csv.gz / .npz raises (gzip, zlib, zip, the CSV parser, a dtype cast)
_DAMAGE = (EOFError, OSError, zlib.error, zipfile.BadZipFile, UnicodeDecodeError, ValueError, KeyError,
           pd.errors.ParserError, pd.errors.EmptyDataError)
OPTDIGITS_FILE, OPTDIGITS_TARGET = "optdigits.csv.gz", "digit"


def sample_data_dir() -> Path:
    """The directory holding the shipped sample files (the one place that locates it).

    In an installed wheel it is the subpackage ``fslab/sample_data`` (pyproject.toml maps the repository's
    top-level ``sample_data/`` there); in a checkout or an editable install, ``sample_data/`` beside ``fslab/``.
    """
    package = Path(__file__).resolve().parents[1]  # fslab/ (this module lives in fslab/data/)
    installed = package / "sample_data"
    return installed if installed.is_dir() else package.parent / "sample_data"


def existing(path: Path) -> Path:
    """``path`` if the file is there; else a DataError saying how to rebuild it."""
    if not path.exists():
        raise DataError(f"sample file {path} is missing; rebuild it with tools/make_samples.py")
    return path


@contextmanager
def reading(name: str, path: Path):
    """Turn a damaged shipped file's low-level error into a DataError that names the file (not the server's
    directory) and says how to repair it."""
    try:
        yield
    except DataError:
        raise
    except _DAMAGE as err:
        detail = str(err).strip().splitlines()[0][:120] if str(err).strip() else ""
        detail = "" if "pickle" in detail else detail  # np.load's advice to allow pickles is no repair
        raise DataError(
            f"the shipped sample file sample_data/{path.name} (sample {name!r}) is damaged and cannot be read "
            f"({type(err).__name__}{': ' + detail if detail else ''}); reinstall fslab or rebuild the file with "
            "tools/make_samples.py") from None


def read_npz(name: str, path: Path) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(codes X, labels y, feature names) of sample ``name``'s ``.npz`` file (no pickles are ever loaded)."""
    with reading(name, path), np.load(path, allow_pickle=False) as data:
        if set(data.files) != set(NPZ_KEYS) or any(data[k].dtype.kind != kind for k, kind in NPZ_KEYS.items()):
            raise DataError(f"sample file {path} does not hold X, y, feature_names; rebuild it with "
                            "tools/make_samples.py")
        X, y, names = data["X"], data["y"], [str(n) for n in data["feature_names"]]
    if X.ndim != 2 or y.shape != (X.shape[0],) or len(names) != X.shape[1]:
        raise DataError(f"sample file {path} has inconsistent shapes; rebuild it with tools/make_samples.py")
    return X, y, names


def read_csv_frame(name: str, path: Path, target: str, feature_type=np.int8) -> pd.DataFrame:
    """Sample ``name``'s ``.csv.gz`` file as a DataFrame: the target column first (integers if every value is
    one, as the digits' and waveform's classes), then the features read as ``feature_type``."""
    with reading(name, path):
        frame = pd.read_csv(path, dtype=defaultdict(lambda: feature_type, {target: str}))
        column = frame[target]
    if column.str.fullmatch(r"\d+").all():  # digits and waveform classes are integers, as in the raw files
        frame[target] = column.astype(np.int64)
    return frame


def load_optdigits_images(split: str = "all") -> tuple[np.ndarray, np.ndarray]:
    """Optdigits as images: ``(images, digits)`` with images (N, 8, 8) int8 counts 0..16, digits (N,) int.

    ``split``: "train" (optdigits.tra, 3823 rows), "test" (optdigits.tes, 1797 rows) or "all" (5620, in
    that order). Feeds the NPFS digits-in-noise experiment (Ditzler et al. 2015, Section IV, Fig. 4).
    """
    bounds = {"train": slice(0, 3823), "test": slice(3823, 5620), "all": slice(0, 5620)}
    if split not in bounds:
        raise ParameterError(f"split must be one of {sorted(bounds)}; got {split!r}")
    path = existing(sample_data_dir() / OPTDIGITS_FILE)
    frame = read_csv_frame("optdigits", path, OPTDIGITS_TARGET).iloc[bounds[split]]
    images = frame.drop(columns=OPTDIGITS_TARGET).to_numpy(np.int8).reshape(-1, 8, 8)
    return images, frame[OPTDIGITS_TARGET].to_numpy(np.int64)
