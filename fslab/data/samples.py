"""Shipped sample data sets and generators: ``SAMPLES`` (registry) and ``load_sample(name) -> Dataset``.

The files in ``sample_data/`` are built by ``tools/make_samples.py`` from the raw UCI/LIBSVM/scikit-feature
files, already in the encodings of Ahmed, Narasimhan & Agarwal (2015, Table 1): gzip CSVs (the target column
first, then the features) for the tables, and ``.npz`` archives (numpy arrays only, read with
``allow_pickle=False``) for the two wide text data sets PCMAC and BASEHOCK. The loader only reads them and
hands them to ``Dataset.from_frame`` / ``from_arrays`` with the paper's positive class, so a sample goes
through the same validation and discretisation as any other data.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..limits import Limits, server_limits
from . import synthetic
from .shipped import (  # noqa: F401  (NPZ_KEYS, load_optdigits_images: re-exported from their old place)
    NPZ_KEYS,
    existing,
    load_optdigits_images,
    read_csv_frame,
    read_npz,
    sample_data_dir,
)

if TYPE_CHECKING:
    from .dataset import Dataset


SAMPLE_DIR = sample_data_dir()  # kept for callers that import the constant; sample_data_dir() is the lookup
CC_BY = "CC BY 4.0"
AHMED = "Ahmed, Narasimhan, Agarwal (2015), Table 1"
NPFS = "Ditzler, Polikar, Rosen (2015), Section IV"
_DEFAULT = object()  # "use the record's positive class" (None already means "keep all classes")


@dataclass(frozen=True)
class Sample:
    """One entry of ``SAMPLES``: where the data come from, how they are encoded, and how to load them.

    ``n_rows``, ``n_features``, ``task`` and ``positive_rate`` describe the default load (the paper's
    figures); ``positive`` is the default positive class (None keeps a multiclass target);
    ``image_shape`` is (rows, cols) when the features are the pixels of an image, row-major.
    """

    name: str
    title: str
    citation: str
    licence: str
    url: str
    encoding: str
    task: str
    n_rows: int
    n_features: int
    positive_rate: float | None
    loader: Callable[..., Dataset] = field(repr=False)
    image_shape: tuple[int, int] | None = None
    target: str | None = None
    positive: Any = None
    paper: str = AHMED
    file: str | None = None

    @property
    def generated(self) -> bool:
        """True for synthetic generators (no shipped file)."""
        return self.file is None

    def load(self, **params: Any) -> Dataset:
        return self.loader(**params)


def sample_path(name: str) -> Path:
    """Path of a shipped sample's file (``sample_data/<name>.csv.gz`` or ``<name>.npz``)."""
    rec = SAMPLES.get(name)
    return sample_data_dir() / (rec.file if rec is not None and rec.file else f"{name}.csv.gz")


def _existing_file(name: str) -> Path:
    rec = _record(name)
    if rec.file is None:
        raise ParameterError(f"sample {name!r} is generated, not a shipped file; use load_sample({name!r})")
    return existing(sample_path(name))


def read_sample_arrays(name: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(codes X, labels y, feature names) of a sample shipped as ``.npz`` (no pickles are ever loaded)."""
    return read_npz(name, _existing_file(name))


def read_sample_frame(name: str) -> pd.DataFrame:
    """The shipped file of sample ``name`` as a DataFrame: target column first, then the encoded features.

    Binary and count features are read as int8 (Adult's 48,842 x 123 table loads in about 0.1 s).
    """
    rec = _record(name)
    path = _existing_file(name)
    assert rec.file is not None and rec.target is not None  # a shipped file's record (_existing_file checked)
    if rec.file.endswith(".npz"):
        X, y, names = read_sample_arrays(name)
        frame = pd.DataFrame(X, columns=names, copy=False)
        frame.insert(0, rec.target, y.astype(np.int64))
        return frame
    return read_csv_frame(name, path, rec.target, np.float64 if name == "waveform" else np.int8)


def _load_file(name: str, positive: Any = _DEFAULT) -> Dataset:
    from .dataset import Dataset  # deferred: dataset.py may import this module for the UI's sample list

    rec = _record(name)
    positive = rec.positive if positive is _DEFAULT else positive
    assert rec.file is not None and rec.target is not None  # a shipped file's record
    if rec.file.endswith(".npz"):
        X, y, names = read_sample_arrays(name)
        data = Dataset.from_arrays(X, y.astype(np.int64), feature_names=names, target=rec.target, positive=positive,
                                   binning="mean-std")   # the paper's bins
        return cast(Dataset, data)  # dense uint8 codes: a Dataset, not a SparseDataset
    frame = read_sample_frame(name)
    return Dataset.from_frame(frame, rec.target, positive=positive,   # the library applies no size caps
                              constant="keep",   # the paper's encoding keeps its constant columns
                              binning="mean-std")   # and its mean-std bins


def sample_limits(frame: pd.DataFrame) -> Limits:
    """The server's limits (:func:`fslab.limits.server_limits`) widened to fit a shipped sample, for the app's
    re-targeting of a sample: the table limits guard uploads, and a server that lowers them
    (``FSLAB_MAX_ROWS=...``) still offers every shipped data set."""
    server = server_limits()
    return replace(server, max_rows=max(server.max_rows, frame.shape[0]),
                   max_columns=max(server.max_columns, frame.shape[1]), max_cells=max(server.max_cells, frame.size))


def generator(name: str) -> Callable[..., Dataset]:
    """The loader of a generated sample: ``fslab.synthetic.<name>``, looked up when it runs.

    The dependency goes one way: this registry imports :mod:`fslab.data.synthetic`, which reads the optdigits
    images for digits-in-noise through :mod:`fslab.data.shipped`, not through this module.
    """
    def load(**params: Any) -> Dataset:
        return getattr(synthetic, name)(**params)

    load.__name__ = name
    return load


def _uci(title: str, doi: str, year: str) -> str:
    return f"{title} [Dataset] ({year}). UCI Machine Learning Repository. https://doi.org/{doi}"


def _shipped(name: str, file: str | None = None, licence: str = CC_BY, **kw: Any) -> Sample:
    return Sample(name=name, loader=partial(_load_file, name), file=file or f"{name}.csv.gz", licence=licence, **kw)


SCIKIT_FEATURE = ("J. Li, K. Cheng, S. Wang, F. Morstatter, R. P. Trevino, J. Tang, H. Liu (2017). Feature "
                  "Selection: A Data Perspective. ACM Computing Surveys 50(6) (scikit-feature repository, ASU); "
                  "text from 20 Newsgroups, K. Lang (1995), NewsWeeder: Learning to filter netnews, ICML")
NO_LICENCE = "none stated by the ASU scikit-feature repository; research use with citation"
TEXT_ENCODING = ("{n} word counts, each in the paper's three bins at mean +- one sample standard deviation "
                 "(0 below, 1 inside, 2 at or above; counts are never negative, so 0 does not occur); class 2 "
                 "of the .mat file is positive, giving Table 1's positive rate ({pair}; the file does not say "
                 "which label is which).")


SAMPLES: MappingProxyType[str, Sample] = MappingProxyType({
    "mushroom": _shipped(
        "mushroom", title="Mushroom (poisonous vs edible)",
        citation=_uci("Mushroom", "10.24432/C5959T", "1981/1987"), url="https://doi.org/10.24432/C5959T",
        encoding="One-hot of the 22 categorical attributes (116 indicators; a missing stalk-root is an all-zero "
                 "block); poisonous is the positive class.",
        task="binary", n_rows=8124, n_features=116, positive_rate=0.482, target="class", positive="poisonous"),
    "adult": _shipped(
        "adult", title="Adult census income (LIBSVM a9a)",
        citation="Becker, B. & Kohavi, R. (1996). Adult [Dataset]. UCI Machine Learning Repository. "
                 "https://doi.org/10.24432/C5XW20; binary encoding a9a by J. Platt (1998), LIBSVM data sets "
                 "(C.-C. Chang & C.-J. Lin)",
        url="https://doi.org/10.24432/C5XW20",
        encoding="LIBSVM a9a: 123 binary indicators (6 continuous attributes quantile-binned, 8 categorical "
                 "one-hot), a9a + a9a.t pooled; income >50K is the positive class.",
        task="binary", n_rows=48842, n_features=123, positive_rate=0.239, target="income", positive=">50K"),
    "semeion": _shipped(
        "semeion", title="Semeion handwritten digits (1 vs rest)",
        citation=_uci("Semeion Handwritten Digit", "10.24432/C5SC8V", "1998"), url="https://doi.org/10.24432/C5SC8V",
        encoding="256 binary pixels of a 16 x 16 image (row-major, r1c1..r16c16); digit 1 is the positive "
                 "class, the other nine digits the negative (load_sample('semeion', positive=d) for digit d).",
        task="binary", n_rows=1593, n_features=256, positive_rate=0.102, image_shape=(16, 16), target="digit",
        positive=1),
    "splice": _shipped(
        "splice", title="Splice-junction DNA sequences (N vs EI/IE)",
        citation=_uci("Molecular Biology (Splice-junction Gene Sequences)", "10.24432/C5M888", "1992"),
        url="https://doi.org/10.24432/C5M888",
        encoding="One-hot of the 60 bases (positions -30..-1, +1..+30) over A, C, G, T = 240 indicators; the "
                 "rare ambiguity codes D, N, R, S give an all-zero block; class N (neither) is positive.",
        task="binary", n_rows=3190, n_features=240, positive_rate=0.519, target="class", positive="N"),
    "waveform": _shipped(
        "waveform", title="Waveform (version 2, with noise; class 2 vs rest)",
        citation="Breiman, L. & Stone, C. (1988). Waveform Database Generator (Version 2) [Dataset]. UCI "
                 "Machine Learning Repository. https://doi.org/10.24432/C56014",
        url="https://doi.org/10.24432/C56014",
        encoding="40 real features (wave1..wave21 carry the waveforms, noise1..noise19 are pure N(0,1) noise), "
                 "discretised later by mean +- one standard deviation; class 2 is positive.",
        task="binary", n_rows=5000, n_features=40, positive_rate=0.331, target="class", positive=2),
    "optdigits": _shipped(
        "optdigits", title="Optical handwritten digits (8 x 8, ten classes)",
        citation="Alpaydin, E. & Kaynak, C. (1998). Optical Recognition of Handwritten Digits [Dataset]. UCI "
                 "Machine Learning Repository. https://doi.org/10.24432/C50P49",
        url="https://doi.org/10.24432/C50P49",
        encoding="64 pixel counts 0..16 of an 8 x 8 image (r1c1..r8c8), optdigits.tra then .tes; the digit is "
                 "kept as ten classes (load_sample('optdigits', positive=d) for digit d vs rest).",
        task="multiclass", n_rows=5620, n_features=64, positive_rate=None, image_shape=(8, 8), target="digit",
        paper=NPFS),
    "pcmac": _shipped(
        "pcmac", file="pcmac.npz", licence=NO_LICENCE, title="PCMAC (20 Newsgroups: IBM PC vs Mac hardware)",
        citation=SCIKIT_FEATURE, url="https://jundongl.github.io/scikit-feature/datasets.html",
        encoding=TEXT_ENCODING.format(n="3,289", pair="comp.sys.ibm.pc.hardware vs comp.sys.mac.hardware"),
        task="binary", n_rows=1943, n_features=3289, positive_rate=0.495, target="class", positive=2),
    "basehock": _shipped(
        "basehock", file="basehock.npz", licence=NO_LICENCE, title="BASEHOCK (20 Newsgroups: baseball vs hockey)",
        citation=SCIKIT_FEATURE, url="https://jundongl.github.io/scikit-feature/datasets.html",
        encoding=TEXT_ENCODING.format(n="4,862", pair="rec.sport.baseball vs rec.sport.hockey"),
        task="binary", n_rows=1993, n_features=4862, positive_rate=0.501, target="class", positive=2),
    "gisette-like": Sample(
        name="gisette-like", title="Gisette-shaped synthetic data (timing experiments)",
        citation="Synthetic, generated by fslab.synthetic.gisette_like in the shape of Gisette (I. Guyon, S. Gunn, "
                 "A. Ben-Hur, G. Dror (2004), Result analysis of the NIPS 2003 feature selection challenge, NIPS "
                 "17: 6,000 training rows, 2,500 real features and 2,500 probes); not the real data",
        licence="generated", url="https://archive.ics.uci.edu/dataset/170/gisette",
        encoding="SYNTHETIC: 5,000 integer features 0..999 (about 13% non-zero, as Gisette), half of them "
                 "informative (their chance of being non-zero depends on the class), half pure probes; balanced "
                 "binary y (load_sample('gisette-like', m=4200) for the paper's training split; seed=...).",
        task="binary", n_rows=6000, n_features=5000, positive_rate=0.5, loader=generator("gisette_like")),
    "uniform": Sample(
        name="uniform", title="D_uni: uniform synthetic data with 5 relevant features (NPFS)",
        citation="Ditzler, G., Polikar, R. & Rosen, G. (2015). A bootstrap based Neyman-Pearson test for "
                 "identifying variable importance. IEEE TNNLS 26(4), 880-886",
        licence="generated", url="https://doi.org/10.1109/TNNLS.2014.2320415",
        encoding="25 features X1..X25 iid Uniform[0, 10]; y = 1 iff X1 + ... + X5 <= 25, so half the rows are "
                 "positive in expectation (load_sample('uniform', m=..., n_features=..., k_star=..., seed=...)).",
        task="binary", n_rows=1000, n_features=25, positive_rate=0.5, loader=generator("uniform_dataset"), paper=NPFS),
    "digits-in-noise": Sample(
        name="digits-in-noise", title="Optdigits embedded in 16 x 16 uniform noise (NPFS)",
        citation="Ditzler, G., Polikar, R. & Rosen, G. (2015). A bootstrap based Neyman-Pearson test for "
                 "identifying variable importance. IEEE TNNLS 26(4), 880-886; images from optdigits",
        licence="generated from optdigits (CC BY 4.0)", url="https://doi.org/10.1109/TNNLS.2014.2320415",
        encoding="Each 8 x 8 optdigits image placed at the centre of a 16 x 16 frame (rows and columns 5-12) "
                 "whose other 192 pixels are uniform noise in {1, ..., 16}; 256 features r1c1..r16c16, the digit "
                 "kept as ten classes.",
        task="multiclass", n_rows=5620, n_features=256, positive_rate=None, image_shape=(16, 16),
        loader=generator("digits_in_noise"), paper=NPFS),
})


def _record(name: str) -> Sample:
    try:
        return SAMPLES[name]
    except (KeyError, TypeError):
        raise ParameterError(f"unknown sample {name!r}; choose one of {', '.join(SAMPLES)}") from None


def load_sample(name: str, **params: Any) -> Dataset:
    """Sample ``name`` as a ``fslab.data.Dataset`` in the paper's encoding, with the paper's positive class.

    Shipped samples accept ``positive=`` (another class value; None keeps all classes); the generators
    (``uniform``, ``digits-in-noise``, ``gisette-like``) take their generator's parameters. Unknown name ->
    ParameterError.
    """
    rec = _record(name)
    if rec.file is not None and set(params) - {"positive"}:
        raise ParameterError(f"sample {name!r} takes only 'positive='; got {sorted(params)}")
    return rec.load(**params)


def samples_overview() -> pd.DataFrame:
    """One row per sample (name, title, rows, features, task, positive rate, licence, citation) for tables."""
    cols = ["name", "title", "n_rows", "n_features", "task", "positive_rate", "licence", "paper", "citation"]
    return pd.DataFrame([{c: getattr(rec, c) for c in cols} for rec in SAMPLES.values()], columns=cols)
