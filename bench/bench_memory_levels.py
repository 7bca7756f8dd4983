"""Whole-process peak of a selection on many-level codes (issue 35.4): 1,000,000 x 500 int16 values 0..7 (kept as 8
levels), 5 classes, a quarter of the columns informative; prints the peak after the data, the codes and the selection.

    .venv/bin/python bench/bench_memory_levels.py   # the engine of this checkout (for the figure's "before", run
                                                    # it on the fslab/ of commit 1aa78ec: git archive 1aa78ec fslab)
    .venv/bin/python bench/bench_memory_levels.py --dtype uint8   # a caller's 1-byte array (fewer than 256 levels)

One run per process (``ru_maxrss`` is the process's peak); the data are made in row chunks so their own temporaries
stay small beside the caller's array.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--columns", type=int, default=500)
    ap.add_argument("--selector", default="jmi")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--dtype", default="int16", choices=("int16", "int8", "uint8"),
                    help="the caller's array (int8 / uint8: 1 byte a cell, what a caller with few levels can pass)")
    a = ap.parse_args(argv)
    import fslab

    m, n = a.rows, a.columns
    rng = np.random.default_rng(0)
    y = rng.integers(0, 5, m)
    dtype = np.dtype(a.dtype)
    X = np.empty((m, n), dtype=dtype)
    informative = X[:, ::4].shape[1]
    for r in range(0, m, 50_000):
        part = rng.integers(0, 8, (min(m, r + 50_000) - r, n), dtype=dtype)
        rows_y = y[r:r + part.shape[0]]
        part[:, ::4] = np.where(rng.random((part.shape[0], informative)) < 0.3,
                                (rows_y[:, None] + np.arange(informative)) % 8, part[:, ::4])
        X[r:r + part.shape[0]] = part
    del part
    base = peak_mib()
    d = fslab.Dataset.from_arrays(X, y).discretize()
    codes = peak_mib()
    t = time.process_time()
    s = fslab.select(d, a.k, selector=a.selector)
    cpu = time.process_time() - t
    p = peak_mib()
    shared = np.shares_memory(d.X, X)
    print(f"{a.dtype} caller, codes {'a view of it' if shared else 'a copy'}; "
          f"{a.selector} k={a.k} {m} x {n}: data {base:.0f} MiB, codes {codes:.0f}, "
          f"select {p:.0f} MiB = {p * 2**20 / (m * n):.2f} B/cell; select {cpu:.1f} s CPU; picks {list(s.features)}; "
          f"load {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
