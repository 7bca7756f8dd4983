"""Shared pieces of bench/reproduce.py: the protocol (paper, quick, scaled), data, learning curves, verdicts."""

from __future__ import annotations

import functools
import os
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fslab.curves import _evaluate, design_blocks, params_for  # noqa: E402
from fslab.data import Dataset  # noqa: E402
from fslab.data.samples import SAMPLES, load_sample  # noqa: E402
from fslab.learners import EVAL_MEASURES, LEARNERS, PAPER_LEARNER  # noqa: E402
from fslab.limits import LIMITS  # noqa: E402
from fslab.selectors import SELECTORS, select  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# The ASU .mat files of PCMAC / BASEHOCK when they are not shipped samples: $FSLAB_DATASETS_DIR, else a
# "shared/datasets" folder next to the checkout (no absolute path: the bench runs from any clone).
DATASETS_DIR = Path(os.environ.get("FSLAB_DATASETS_DIR", ROOT.parent / "shared" / "datasets"))
# A batch run is not a server: the paper's sizes (3,289+ columns, 10,000 bootstraps) exceed the app's limits.
BIG = replace(LIMITS, max_rows=10**7, max_columns=10**6, max_cells=10**10, max_bootstraps=10**6,
              max_exhaustive_subsets=10**8, max_curve_fits=10**7)


@dataclass(frozen=True)
class Protocol:
    """Sizes of every experiment. ``Protocol()`` is the papers' protocol; ``quick()`` and ``scaled(s)`` reduce it.

    train_rows(n, f): training rows per split = f * n (all rows; the paper) times ``row_scale``, at least
    ``min_train``; ``fixed_train`` overrides it (quick). Bootstrap counts and stand-in shapes follow the papers.
    """

    name: str = "paper"
    row_scale: float = 1.0
    min_train: int = 300
    fixed_train: int | None = None
    max_train: int | None = None         # a cap on training rows per split (None: the paper's, all of them)
    splits: int = 5                      # Ahmed et al., Section 4: 5 random train/test splits
    ks: tuple = tuple(range(1, 16))      # Figures 1-4: k = 1..15
    large_ks: tuple = (5, 10, 25, 50, 75)  # Figure 5 / Table 2 (k = 25, 50, 75)
    tune: bool = True                    # footnote 5: tuned on a held-out 20% of the training part
    fig1_boots: int = 100                # Ditzler et al., Fig. 1: n = 100
    fig2_boots: int = 500                # Fig. 2: up to 500 bootstraps
    fig2_K: tuple = (50, 100, 250)
    fig3_boots: int = 10000              # Fig. 3: 10,000 bootstraps
    ocr_boots: int = 100                 # Fig. 4: 100 bootstraps
    cv_folds: int = 10                   # Table II: ten-fold cross-validation
    tab2_boots: int = 10000              # Table II: NPFS as in Fig. 3
    gisette: tuple = (6000, 5000)        # Table 1 (rows, features); not obtainable: a stand-in of this shape
    kdd: tuple = (1909, 139351)
    timing_rows: int | None = None       # Table 2 on all of Adult
    fbs_sizes: tuple = (100, 1000, 10000)
    fbs_repeats: int = 20
    text_sets: bool = True               # PCMAC and BASEHOCK (3,289 / 4,862 features) in Figures 1 and 3
    seed: int = 0

    @classmethod
    def quick(cls) -> Protocol:
        return cls(name="quick", fixed_train=300, splits=2, ks=(1, 2, 3, 5, 8, 10, 15), large_ks=(5, 10, 25),
                   tune=False, fig2_boots=100, fig3_boots=20, ocr_boots=5, cv_folds=5, tab2_boots=10,
                   gisette=(1000, 300), kdd=(1909, 1000), timing_rows=10000, fbs_sizes=(100, 1000, 5000),
                   fbs_repeats=5, text_sets=False)

    def scaled(self, s: float) -> Protocol:
        """Training rows and stand-in sizes times ``s``. Bootstraps: Figure 2's 500 are cheap and kept; Figure 3
        and Table II (10,000 per data set, per fold) are cut to 10,000 s / 10 and 10,000 s / 100, Figure 4 to
        100 s; floors keep every test meaningful. Splits, folds and k stay the paper's."""
        return replace(self, name=f"scale{s:g}", row_scale=s, fig3_boots=max(50, round(self.fig3_boots * s / 10)),
                       ocr_boots=max(20, round(self.ocr_boots * s)),
                       tab2_boots=max(20, round(self.tab2_boots * s / 100)),
                       gisette=(max(1000, round(self.gisette[0] * s)), max(300, round(self.gisette[1] * s))),
                       kdd=(self.kdd[0], min(5000, max(1000, round(self.kdd[1] * s)))),
                       timing_rows=None if s >= 1 else max(5000, round(48842 * s)),
                       fbs_repeats=max(5, round(self.fbs_repeats * s)))

    def train_rows(self, n_rows: int, fraction: float) -> int:
        full = int(np.floor(fraction * n_rows))
        if self.fixed_train is not None:
            return min(full, self.fixed_train)
        rows = min(full, max(self.min_train, round(full * self.row_scale)))
        return rows if self.max_train is None else min(rows, self.max_train)

    def to_dict(self) -> dict:
        return asdict(self)


# --- data ----------------------------------------------------------------------------------------------------

TRAIN_FRACTION = {"adult": 0.2}  # footnote 5: Adult 20/80, the others 70/30


def _mat(name: str, positive: int = 2):
    """PCMAC / BASEHOCK from the ASU .mat file (label 2 is positive: p = 0.495 / 0.501 as in Table 1)."""
    import scipy.io

    m = scipy.io.loadmat(DATASETS_DIR / name / f"{name.upper()}.mat")
    y = (np.ravel(m["Y"]) == positive).astype(int)
    return Dataset.from_arrays(np.asarray(m["X"], dtype=np.int64), y, positive=1, limits=BIG)


def gisette_like(rows: int, features: int, seed: int = 0):
    """Stand-in for Gisette (not obtainable here): integer features 0..999 of which 10% carry the label
    (shifted class means), the rest are random probes, p = 0.5. Labelled a stand-in wherever it is used."""
    if "gisette-like" in SAMPLES:  # fslab's generator (Gisette's sparsity, half probes) once it exists
        return load_sample("gisette-like", m=rows, n_features=features, seed=seed)
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, rows)
    informative = max(5, features // 10)
    z = rng.normal(size=(rows, features))
    z[:, :informative] += 0.6 * (2 * y[:, None] - 1) * rng.uniform(0.3, 1.0, informative)
    X = np.clip(np.round(np.where(rng.random((rows, features)) < 0.3, 0, 300 + 150 * z)), 0, 999).astype(np.int64)
    return Dataset.from_arrays(X, y, positive=1, limits=BIG)


def kdd_like(rows: int, features: int, seed: int = 0):
    """Stand-in for KDDCup01 thrombin (not obtainable here): sparse binary features, p = 0.022; 20 features fire
    more often on positives (rates 0.3-0.6 vs 0.03), the rest at 1-5% for both classes."""
    rng = np.random.default_rng(seed)
    y = (rng.random(rows) < 0.022).astype(int)
    y[:2] = 1  # at least two positives so every split holds the class
    base = rng.uniform(0.01, 0.05, features)
    rate = np.where(y[:, None] == 1, base, base)
    rate[:, :20] = np.where(y[:, None] == 1, rng.uniform(0.3, 0.6, 20), 0.03)
    X = (rng.random((rows, features)) < rate).astype(np.int8)
    return Dataset.from_arrays(X, y, positive=1, limits=BIG)


@functools.cache
def load(name: str):
    """The encoded data set ``name`` in the paper's encoding (footnote 6: mean +- sd bins for integer/real)."""
    if name in ("pcmac", "basehock"):  # label 2 positive: Table 1's p (0.495, 0.501)
        data = load_sample(name, positive=2) if name in SAMPLES else _mat(name)
        return data.discretize()
    return load_sample(name).discretize()


# --- learning curves (Ahmed et al., Section 4) ------------------------------------------------------------

_SELECTIONS: dict = {}  # (rows, selector, measure, keywords, k) -> order: figures sharing a split share selections


def _order(tr, train: np.ndarray, selector: str, measure: str, kw: dict, k: int) -> list[int]:
    used = measure if SELECTORS[selector].uses_measure else None  # MI, mRMR, Fisher ignore the measure
    key = (tr.n_features, tr.feature_names[0], hash(train.tobytes()), selector, used, tuple(sorted(kw.items())), k)
    if key not in _SELECTIONS:
        _SELECTIONS[key] = list(select(tr, k, selector=selector, measure=measure, **kw).features)
    return _SELECTIONS[key]


def curves(data, entries, measure: str, p: Protocol, *, train_fraction: float = 0.7, c: float = 0.5,
           beta: float = 1.0, ks=None, learner: str | None = None) -> dict:
    """Test ``measure`` of the paper's learner on each entry's first k features, over ``p.splits`` splits.

    ``entries``: (label, selector, selection measure or None = ``measure``, extra selector keywords). Selection
    and learning on the training part, the measure on the test part; hyper-parameters tuned on 20% of the
    training part when ``p.tune`` (fslab.curves._evaluate). Returns means and sds per label and k.
    """
    t0 = time.perf_counter()
    spec = LEARNERS[learner or PAPER_LEARNER[measure]]
    ks = sorted(k for k in (ks or p.ks) if k <= data.n_features)
    rng = np.random.default_rng(p.seed)
    n_train = p.train_rows(data.n_rows, train_fraction)
    paper_train = int(np.floor(train_fraction * data.n_rows))
    n_rows = min(data.n_rows, int(round(n_train / train_fraction)))
    if n_rows < data.n_rows:
        keep, _ = train_test_split(np.arange(data.n_rows), train_size=n_rows, stratify=data.y,
                                   random_state=int(rng.integers(2**31)))
        data = data.subsample(np.sort(keep))
    blocks = design_blocks(data)
    values = {e[0]: np.zeros((p.splits, len(ks))) for e in entries}
    for split in range(p.splits):
        seed = int(rng.integers(2**31))
        train, test = train_test_split(np.arange(data.n_rows), train_size=train_fraction, stratify=data.y,
                                       random_state=seed)
        tr = train_cut_points(data.subsample(train))
        params = {"c": c, "beta": beta, "p": float(np.mean(tr.y == 1))}
        fitted: dict[frozenset, float] = {}
        for label, selector, sel_measure, extra in entries:
            sel_measure = sel_measure or measure
            kw = dict(extra)
            if SELECTORS[selector].uses_measure:
                kw.update(params_for(sel_measure, params))
            order = _order(tr, train, selector, sel_measure, kw, ks[-1])
            for i, k in enumerate(ks):
                key = frozenset(order[:k])
                if key not in fitted:
                    X = np.hstack([blocks[j] for j in order[:k]])
                    fitted[key] = _evaluate(spec, measure, params, X[train], data.y[train], X[test], data.y[test],
                                            None, p.tune, seed)
                values[label][split, i] = fitted[key]
    return {"k": ks, "n_train": int(len(train)), "mean": {lab: v.mean(axis=0).tolist() for lab, v in values.items()},
            "sd": {lab: (v.std(axis=0, ddof=1) if p.splits > 1 else 0 * v[0]).tolist() for lab, v in values.items()},
            "values": {lab: np.round(v, 6).tolist() for lab, v in values.items()},
            "greater": EVAL_MEASURES[measure], "tune": p.tune, "splits": p.splits, "train_rows": paper_train,
            "learner": spec.label,
            "seconds": round(time.perf_counter() - t0, 2)}


def train_cut_points(data, fit_rows=None):
    """``data`` recoded with mean +- sd cut points (footnote 6) fitted on ``fit_rows`` only (default: all its rows,
    e.g. a training part): every column whose raw values are all finite and which has three bins (the mean-std
    columns: Waveform's 40, Optdigits' real columns) becomes (x >= mu - sd) + (x >= mu + sd) with mu, sd (ddof=1)
    of the fitting rows. Binary and one-hot columns have no cut points. So no cut point is computed from test rows."""
    raw = data.values
    if raw is None:
        return data
    raw = np.asarray(raw, dtype=float)
    cols = [j for j in range(data.n_features) if data.arities[j] == 3 and np.all(np.isfinite(raw[:, j]))]
    if not cols:
        return data
    fit = raw[:, cols] if fit_rows is None else raw[np.asarray(fit_rows)][:, cols]
    mu, sd = fit.mean(axis=0), fit.std(axis=0, ddof=1)
    X = np.array(data.X, copy=True)
    X[:, cols] = (raw[:, cols] >= mu - sd).astype(X.dtype) + (raw[:, cols] >= mu + sd).astype(X.dtype)
    return data.replace(X=X)


def curve_scale(curve: dict, p: Protocol, name: str = "") -> str:
    """The protocol one learning curve ran at, in words."""
    return (f"{name + ': ' if name else ''}{curve['splits']} splits, {curve['n_train']} training rows per split "
            f"(paper: {curve['train_rows']}), {'tuned' if curve.get('tune') else 'fixed'} hyper-parameters, "
            f"k in {list(curve['k'])}")


def mean_over_k(curve: dict, label: str, k_max: int | None = None) -> float:
    ks = np.asarray(curve["k"])
    keep = ks <= (k_max or ks.max())
    return float(np.mean(np.asarray(curve["mean"][label])[keep]))


def panel(title: str, curve: dict) -> dict:
    return {"title": title, "k": curve["k"], "series": curve["mean"]}


def fmt(x: float, digits: int = 3) -> str:
    return f"{x:.{digits}f}"
