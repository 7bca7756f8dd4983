"""Synthetic data: the NPFS paper's D_uni and digits in noise (Ditzler, Polikar, Rosen 2015, Section IV), and
a Gisette-shaped generator for timing experiments (:func:`gisette_like`; synthetic, not Gisette's values)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..errors import ParameterError
from .shipped import load_optdigits_images

FRAME = 16  # side of the noisy frame around each 8x8 optdigits image (Section IV-D: "The final image is 16 x 16")
DIGIT = 8


def _dataset(df: pd.DataFrame, target: str, positive=None):
    from .dataset import Dataset  # late import: the data layer sits above this module

    return Dataset.from_frame(df, target, positive=positive, constant="keep",   # a sample keeps its columns
                              binning="mean-std")   # and the paper's mean-std bins


def uniform_data(m: int = 1000, n_features: int = 25, k_star: int = 5, seed=0) -> tuple[np.ndarray, np.ndarray]:
    """D_uni as arrays: X (m x K) iid Uniform[0, 10]; y = 1 iff x_1 + ... + x_{k*} <= 5 k* (Section IV-A).

    5 k* is the mean of the sum, so the classes are balanced (about half the rows are positive).
    """
    if int(m) < 2:
        raise ParameterError(f"m must be at least 2 rows; got {m}")
    if not 1 <= int(k_star) <= int(n_features):
        raise ParameterError(f"k_star must lie in 1 .. n_features = {n_features}; got {k_star}")
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 10.0, size=(int(m), int(n_features)))
    y = (X[:, :k_star].sum(axis=1) <= 5.0 * k_star).astype(np.int64)
    return X, y


def uniform_dataset(m: int = 1000, n_features: int = 25, k_star: int = 5, seed=0):
    """The paper's D_uni as a Dataset: features X1..XK (only X1..Xk* carry information), target y, positive 1.

    Discretise it with equal-width bins, e.g. ``.discretize(method="uniform", bins=5)``, as in the tests.
    """
    X, y = uniform_data(m, n_features, k_star, seed)
    df = pd.DataFrame(X, columns=[f"X{j + 1}" for j in range(X.shape[1])])
    df["y"] = y
    return _dataset(df, "y", positive=1)


GISETTE_ROWS, GISETTE_FEATURES = 6000, 5000   # Gisette's training set (Guyon et al. 2004): 3,000 + 3,000 rows


def gisette_like_data(m: int = GISETTE_ROWS, n_features: int = GISETTE_FEATURES, seed=0,
                      density: tuple[float, float] = (0.02, 0.25)) -> tuple[np.ndarray, np.ndarray]:
    """SYNTHETIC data in Gisette's shape: X (m x n) int16 values 0..999, y balanced 0/1 (int64).

    Like Gisette (2,500 real features and 2,500 random probes, values 0..999, ~13% non-zero) but generated:
    feature j is non-zero with probability d_j ~ Uniform(density); for the first half of the features (the
    informative ones) that probability is d_j (1 + e_j) in class 1 and d_j (1 - e_j) in class 0, with e_j ~
    Uniform(-0.5, 0.5); the second half are probes, independent of y. Non-zero values are uniform on 1..999.
    Seeded (``seed``); ``m=4200`` gives the Bayes paper's training split size. Memory: 2 bytes per cell.
    """
    m, n = int(m), int(n_features)
    if m < 2 or n < 1:
        raise ParameterError(f"need m >= 2 rows and n_features >= 1; got m={m}, n_features={n}")
    rng = np.random.default_rng(seed)
    y = np.zeros(m, dtype=np.int64)
    y[rng.permutation(m)[: m // 2]] = 1
    d = rng.uniform(*density, size=n)
    effect = np.zeros(n)
    effect[: n // 2] = rng.uniform(-0.5, 0.5, size=n // 2)
    X = np.empty((m, n), dtype=np.int16)
    step = max(1, (1 << 22) // n)   # a block of rows at a time: float scratch stays at 32 MB
    for start in range(0, m, step):
        rows = slice(start, min(start + step, m))
        sign = np.where(y[rows] == 1, 1.0, -1.0)[:, None]
        p = d[None, :] * (1.0 + sign * effect[None, :])
        nonzero = rng.random((rows.stop - rows.start, n), dtype=np.float32) < p
        X[rows] = np.where(nonzero, rng.integers(1, 1000, size=nonzero.shape, dtype=np.int16), 0)
    return X, y


def gisette_like(m: int = GISETTE_ROWS, n_features: int = GISETTE_FEATURES, seed=0):
    """:func:`gisette_like_data` as a Dataset (features f1..fn, target ``y``, positive class 1; not copied)."""
    from .dataset import Dataset  # late import: the data layer sits above this module

    X, y = gisette_like_data(m, n_features, seed)
    return Dataset.from_arrays(X, y, feature_names=[f"f{j + 1}" for j in range(X.shape[1])], positive=1,
                               binning="mean-std")


def pixel_names(side: int = FRAME) -> list[str]:
    """``r{row}c{col}`` (1-based) for the pixels of a side x side image, row-major."""
    return [f"r{r + 1}c{c + 1}" for r in range(side) for c in range(side)]


def embed_in_noise(images: np.ndarray, seed=0, offset: tuple[int, int] = (4, 4), low: int = 1,
                   high: int = 16) -> np.ndarray:
    """Each (8 x 8) image placed at ``offset`` in a 16 x 16 frame whose other pixels are iid uniform on low..high.

    Section IV-D: "Each noisy pixel is sampled from a uniform probability mass function taking possible values
    {1, ..., 16}". Returns an (N, 16, 16) int array.
    """
    images = np.asarray(images)
    if images.ndim != 3 or images.shape[1:] != (DIGIT, DIGIT):
        raise ParameterError(f"images must have shape (N, 8, 8); got {images.shape}")
    r0, c0 = (int(v) for v in offset)
    if not (0 <= r0 <= FRAME - DIGIT and 0 <= c0 <= FRAME - DIGIT):
        raise ParameterError(f"offset must keep the 8x8 image inside the 16x16 frame (0..8 each); got {offset}")
    rng = np.random.default_rng(seed)
    out = rng.integers(low, high + 1, size=(images.shape[0], FRAME, FRAME))
    out[:, r0:r0 + DIGIT, c0:c0 + DIGIT] = images
    return out


def window_mask(offset: tuple[int, int] = (4, 4)) -> np.ndarray:
    """Boolean (256,) mask of the pixels of the embedded 8x8 window, row-major over the 16x16 frame."""
    mask = np.zeros((FRAME, FRAME), dtype=bool)
    mask[offset[0]:offset[0] + DIGIT, offset[1]:offset[1] + DIGIT] = True
    return mask.ravel()


def digits_in_noise(seed=0, digits: Sequence[int] | None = None, m: int | None = None,
                    offset: tuple[int, int] = (4, 4), images=None, labels=None):
    """The NPFS paper's OCR experiment (Section IV-D, Fig. 4): optdigits in a 16 x 16 frame of noise.

    All 5,620 optdigits images (training + test files) and all ten digits by default: the target ``digit`` stays
    multiclass, as the paper asks which pixels discriminate "between the characters" (it does not name a subset);
    ``digits`` keeps only some classes (two digits give a binary target, the larger digit positive). ``m`` draws
    that many rows at random (seeded). The 8x8 image sits at ``offset`` (centred by default); its pixels keep
    their 0..16 counts, the 192 frame pixels are uniform on 1..16. ``images``/``labels`` override the optdigits
    source (for tests). Features are named ``r{row}c{col}`` over the 16x16 frame.
    """
    if images is None:
        images, labels = load_optdigits_images()
    images, labels = np.asarray(images), np.asarray(labels)
    if labels.shape != (images.shape[0],):
        raise ParameterError(f"need one label per image: {images.shape[0]} images, {labels.shape} labels")
    rng = np.random.default_rng(seed)
    keep = np.ones(labels.shape[0], dtype=bool)
    if digits is not None:
        wanted = sorted({int(d) for d in digits})
        keep = np.isin(labels, wanted)
        if len(wanted) < 2 or not keep.any():
            raise ParameterError(f"digits must name at least two digits present in the data; got {list(digits)}")
    rows = np.flatnonzero(keep)
    if m is not None:
        if not 2 <= int(m) <= rows.size:
            raise ParameterError(f"m must lie in 2 .. {rows.size} (the images available); got {m}")
        rows = np.sort(rng.choice(rows, size=int(m), replace=False))
    framed = embed_in_noise(images[rows], seed=rng, offset=offset)
    df = pd.DataFrame(framed.reshape(rows.size, -1), columns=pixel_names())
    df["digit"] = labels[rows]
    positive = max(int(d) for d in digits) if digits is not None and len(set(digits)) == 2 else None
    return _dataset(df, "digit", positive=positive)
