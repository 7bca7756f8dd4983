"""Wall time of NPFS bootstraps: sequential vs joblib threads vs processes (Ditzler et al. 2015 setup).

    .venv/bin/python bench/bench_npfs.py            # D_uni and Adult, 100 bootstraps of JMI with k=10
    .venv/bin/python bench/bench_npfs.py --quick    # 20 bootstraps
    .venv/bin/python bench/bench_npfs.py --digits   # also digits in noise (K=256, k=64): slow

Prints one line per (data, mode): seconds, and checks that every mode gives the same selection matrix.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from fslab.npfs import npfs  # noqa: E402
from fslab.samples import load_sample  # noqa: E402
from fslab.synthetic import uniform_dataset  # noqa: E402

MODES = {"sequential": {"n_jobs": 1}, "threads x2": {"n_jobs": 2, "prefer": "threads"},
         "processes x2": {"n_jobs": 2, "prefer": "processes"}}


def run(name: str, data, k: int, n: int) -> None:
    reference = None
    for mode, kw in MODES.items():
        t0 = time.perf_counter()
        result = npfs(data, "jmi", k, n_bootstraps=n, alpha=0.01, seed=0, **kw)
        dt = time.perf_counter() - t0
        same = reference is None or np.array_equal(reference, result.matrix)
        reference = result.matrix if reference is None else reference
        print(f"{name:18s} {mode:13s} n={n:4d} k={k:3d} {dt:8.2f} s  k*={result.k_star:3d}  same matrix: {same}",
              flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--digits", action="store_true")
    args = ap.parse_args()
    n = 20 if args.quick else 100
    run("D_uni (3 bins)", uniform_dataset().discretize(method="uniform", bins=3), 10, n)
    run("Adult a9a", load_sample("adult").discretize(), 10, n)
    if args.digits:
        run("digits in noise", load_sample("digits-in-noise").discretize(), 64, n)


if __name__ == "__main__":
    main()
