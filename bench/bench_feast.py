"""fslab against FEAST (the C toolbox) on the issue's shapes and generated ones (issue 35.1): CPU seconds, one process.

Builds FEAST and MIToolbox with ``../shared/peers/feast_ratio.py`` (their own Makefiles, into ~/.cache/fslab-feast)
and calls them through ctypes on the codes fslab discretised. For each shape and criterion (JMI, mRMR_D = mrmr,
CMIM, CondMI = exact mi-greedy) it prints fslab's CPU seconds, FEAST's and their ratio (best of --reps, runs
interleaved), whether the picks agree (else the first differing step), and the load average beside each row.

    .venv/bin/python bench/bench_feast.py                      # every shape
    .venv/bin/python bench/bench_feast.py --shape optdigits --criterion cmim
    .venv/bin/python bench/bench_feast.py --before             # fslab with the key path and lazy pairs off too
    .venv/bin/python bench/bench_feast.py --against /tmp/tree  # also another checkout's fslab, in this process

``--against ROOT`` imports ``ROOT/fslab`` a second time as the package ``fslab_twin`` (fslab imports itself only
relatively) and times it in the same rounds on the same codes (an ``EncodedDataset`` of the twin's own class),
asserting the same picks, scores (to 1e-12) and tie counts per step: a before/after comparison at the same load.

Shapes: the peers script's three (Adult, digits-in-noise, Gisette-shaped), optdigits (10 classes, 17 levels),
20 classes x 5 levels 8,000 x 300, and generated ones spanning 2-30 classes, 2-17 levels, 64-5,000 columns and
1,000-1,000,000 rows (``generated``: noisy functions of y in a quarter of the columns, uniform noise elsewhere).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path

import numpy as np

PEERS = Path(__file__).resolve().parents[2] / "shared" / "peers"


def generated(m: int, n: int, levels: int, classes: int, seed: int = 0):
    import fslab

    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, m)
    X = rng.integers(0, levels, (m, n))
    for j in range(0, n, 4):
        X[:, j] = np.where(rng.random(m) < 0.3, (y * (j + 1) + j) % levels, X[:, j])
    return fslab.Dataset.from_arrays(X.astype(np.uint8), y).discretize()


def shapes() -> dict:
    import fslab

    sys.path.insert(0, str(PEERS))
    import feast_ratio

    out = {name: make for name, make in feast_ratio.cases().items()}
    out["optdigits"] = (lambda: fslab.load_sample("optdigits").discretize(), 30)
    out["20 classes x 5 levels 8000x300"] = (lambda: generated(8000, 300, 5, 20, 1), 25)
    out["2 classes x 17 levels 1000x64"] = (lambda: generated(1000, 64, 17, 2, 2), 20)
    out["30 classes x 2 levels 20000x200"] = (lambda: generated(20000, 200, 2, 30, 3), 20)
    out["3 classes x 4 levels 2000x5000"] = (lambda: generated(2000, 5000, 4, 3, 4), 20)
    out["5 classes x 8 levels 1000000x64"] = (lambda: generated(1_000_000, 64, 8, 5, 5), 10)
    return out


def load_twin(root: str):
    """``root``/fslab imported as the package ``fslab_twin`` (another checkout, beside this one in one process)."""
    pkg = Path(root) / "fslab"
    spec = importlib.util.spec_from_file_location("fslab_twin", pkg / "__init__.py",
                                                  submodule_search_locations=[str(pkg)])
    assert spec is not None and spec.loader is not None
    twin = importlib.util.module_from_spec(spec)
    sys.modules["fslab_twin"] = twin
    spec.loader.exec_module(twin)
    return twin


def twin_data(twin, d):
    """``d``'s codes as the twin's own ``EncodedDataset`` (same codes, arities, labels and names)."""
    encoded = importlib.import_module("fslab_twin.data.encoded")
    return encoded.EncodedDataset(np.asarray(d.X), np.asarray(d.y), labels=d.labels, feature_names=d.feature_names,
                                  arities=d.arities)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", action="append", help="a shape's name or the start of it (default: all)")
    ap.add_argument("--criterion", action="append", choices=["cmim", "jmi", "mi-greedy", "mrmr"])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--before", action="store_true", help="also time fslab without the key path and lazy pairs")
    ap.add_argument("--against", metavar="ROOT", help="also time ROOT/fslab (another checkout) in the same rounds")
    a = ap.parse_args(argv)
    sys.path.insert(0, str(PEERS))
    import feast_ratio

    import fslab
    from fslab.counting import dense as _fast
    from fslab.selectors import _scorers

    feast_ratio.build()
    libdirs = f"{feast_ratio.CACHE / 'MIToolbox'}:{feast_ratio.CACHE / 'FEAST'}"
    if libdirs not in os.environ.get("LD_LIBRARY_PATH", ""):
        os.environ["LD_LIBRARY_PATH"] = libdirs + ":" + os.environ.get("LD_LIBRARY_PATH", "")
        os.execv(sys.executable, [sys.executable, *sys.argv])
    import ctypes

    ctypes.CDLL(str(feast_ratio.CACHE / "MIToolbox" / "libMIToolbox.so"), mode=ctypes.RTLD_GLOBAL)
    lib = ctypes.CDLL(str(feast_ratio.CACHE / "FEAST" / "libFSToolbox.so"))
    twin = load_twin(a.against) if a.against else None
    lazy_pays, key_min, key_classes = _scorers._lazy_pays, _fast._KEY_MIN_VALUES, _fast._KEY_MIN_CLASSES

    def engine(new: bool) -> None:
        _fast._KEY_MIN_VALUES = key_min if new else 10**9
        _fast._KEY_MIN_CLASSES = key_classes if new else 10**9
        _scorers._lazy_pays = lazy_pays if new else (lambda ev, n, reducer=True, min_cells=0: n > 256 and reducer)

    print(f"# {os.cpu_count()} cores shared; CPU s (time.process_time), best of {a.reps} interleaved runs; "
          "ratio = fslab / FEAST (goal <= 0.33)")
    worst = 0.0
    for name, (make, k) in shapes().items():
        if a.shape and not any(name.startswith(s) for s in a.shape):
            continue
        d = make()
        X, y = np.asarray(d.X), np.asarray(d.y)
        d_twin = twin_data(twin, d) if twin is not None else None
        for sel, fname in feast_ratio.CRITERIA.items():
            if a.criterion and sel not in a.criterion:
                continue
            run = feast_ratio.feast_runner(lib, fname, X, y, k)
            tl, tf, tb, tt = [], [], [], []
            for _ in range(a.reps):
                if twin is not None:
                    t = time.process_time()
                    theirs = twin.select(d_twin, k, selector=sel)
                    tt.append(time.process_time() - t)
                engine(True)
                t = time.process_time()
                mine = fslab.select(d, k, selector=sel)
                tl.append(time.process_time() - t)
                picks = [int(i) for i in mine.features]
                if twin is not None:  # the same picks, scores (to 1e-12) and tie counts as the other checkout
                    other = [int(i) for i in theirs.features]
                    assert other == picks, f"{name} {sel}: {a.against} picks {other}, this tree {picks}"
                    gap = float(np.abs(np.asarray(theirs.scores) - np.asarray(mine.scores)).max())
                    assert gap <= 1e-12, f"{name} {sel}: scores differ from {a.against} by {gap:.3g}"
                    ties = [list(s.trace.groupby("step")["n_tied"].first()) for s in (theirs, mine)]
                    assert ties[0] == ties[1], f"{name} {sel}: tie counts {ties[1]}, {a.against} {ties[0]}"
                if a.before:
                    engine(False)
                    t = time.process_time()
                    old = [int(i) for i in fslab.select(d, k, selector=sel).features]
                    tb.append(time.process_time() - t)
                    engine(True)
                    assert old == picks, f"{name} {sel}: the engine before picks {old}, after {picks}"
                t = time.process_time()
                fp = run()
                tf.append(time.process_time() - t)
            r = min(tl) / max(min(tf), 1e-4)
            worst = max(worst, r)
            step = next((i for i, (p, q) in enumerate(zip(picks, fp, strict=True)) if p != q), None)
            same = "same picks" if step is None else f"differ from step {step + 1} ({picks[step]} vs {fp[step]})"
            before = f"  before {min(tb):8.3f} s" if tb else ""
            if tt:
                before += f"  against {min(tt):8.3f} s (ratio {min(tt) / max(min(tf), 1e-4):6.2f})"
            print(f"{name:34s} {sel:10s} fslab {min(tl):8.3f} s{before}  FEAST {min(tf):8.3f} s  ratio {r:6.2f}  "
                  f"{same}  load {os.getloadavg()[0]:.1f}", flush=True)
    print(f"worst fslab/FEAST CPU ratio {worst:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
