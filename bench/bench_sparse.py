"""Sparse input at text scale (issue 27.1): load a scipy.sparse matrix and select k features, never densified.

Each (size, selector) case runs in a fresh process, so its whole-process peak RSS (``ru_maxrss``) is its own:
data generation, ``Dataset.from_arrays`` (checks and mean-std codes) and ``select``. Wall seconds and CPU seconds
of the load and of the selection are printed with the load average beside them.

    nice .venv/bin/python bench/bench_sparse.py                      # 20,000 x 50,000 at 0.1 %, k = 20
    nice .venv/bin/python bench/bench_sparse.py --size large         # 200,000 x 200,000 at 0.05 %
    nice .venv/bin/python bench/bench_sparse.py --size tiny --dense  # the dense engine on the same codes beside it

Goals: small, MIGreedy / JMI / BayesGreedy k = 20 under 10 s and 1 GB; large under 2 minutes and 4 GB.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

SIZES = {"tiny": (5_000, 5_000, 0.002), "small": (20_000, 50_000, 0.001), "large": (200_000, 200_000, 0.0005)}
SELECTORS = ("mi-greedy", "jmi", "bayes-greedy")


def text_matrix(m: int, n: int, density: float, seed: int = 0, zipf: float = 0.0):
    """Word-count-like CSR: non-zeros at ``density`` overall (counts 1 + geometric), a class-balanced y, and 1 % of
    the columns informative (twice as many non-zeros among the positive rows). ``zipf`` > 0 gives column j a share
    of the non-zeros proportional to 1 / (j + 1)^zipf, capped at every row (common words are in most documents);
    0 spreads them uniformly."""
    import numpy as np
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, m).astype(np.int8)
    nnz = int(m * n * density)
    rows = rng.integers(0, m, nnz, dtype=np.int32)
    if zipf > 0:
        share = 1.0 / np.arange(1, n + 1) ** zipf
        share = np.minimum(share / share.sum() * nnz, 0.95 * m)
        cols = np.searchsorted(np.cumsum(share / share.sum()), rng.random(nnz)).astype(np.int32)
        cols = rng.permutation(n).astype(np.int32)[np.minimum(cols, n - 1)]  # common words anywhere
    else:
        cols = rng.integers(0, n, nnz, dtype=np.int32)
    informative = np.arange(0, n, 100, dtype=np.int32)
    positive = np.flatnonzero(y == 1).astype(np.int32)
    extra = int(informative.size * m * density)
    rows = np.concatenate([rows, positive[rng.integers(0, positive.size, extra)]])
    cols = np.concatenate([cols, informative[rng.integers(0, informative.size, extra)]])
    data = (1 + rng.geometric(0.6, rows.size)).astype(np.float32)
    X = sp.csr_matrix((data, (rows, cols)), shape=(m, n))
    X.sum_duplicates()
    return X, y


def one(size: str, selector: str, k: int, dense: bool, zipf: float) -> dict:
    import numpy as np

    import fslab
    from fslab.data.encoded import EncodedDataset

    m, n, density = SIZES[size]
    X, y = text_matrix(m, n, density, zipf=zipf)
    nnz = int(X.nnz)
    t0, c0 = time.perf_counter(), time.process_time()
    data = fslab.Dataset.from_arrays(X, y)
    if dense:  # the same codes, densified: the dense engine counts the same tables
        data = EncodedDataset(data.codes.toarray(), data.y, labels=data.labels, arities=data.arities)
    del X
    t1, c1 = time.perf_counter(), time.process_time()
    sel = fslab.select(data, k, selector)
    t2, c2 = time.perf_counter(), time.process_time()
    return {"size": f"{m:,} x {n:,}" + (f" zipf {zipf:g}" if zipf else ""), "nnz": nnz,
            "path": "dense" if dense else "sparse", "selector": selector,
            "k": k, "load_s": t1 - t0, "select_s": t2 - t1, "cpu_s": (c1 - c0) + (c2 - c1),
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "features": [int(j) for j in np.asarray(sel.features)][:5], "load_avg": os.getloadavg()[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=sorted(SIZES), default="small")
    parser.add_argument("--selectors", nargs="+", default=list(SELECTORS))
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=1, help="fresh processes per case (interleaved)")
    parser.add_argument("--dense", action="store_true", help="also run the dense path (needs rows x features bytes)")
    parser.add_argument("--zipf", type=float, default=0.0, help="column shares ~ 1/rank^zipf (0: uniform)")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.size, args.selectors[0], args.k, args.dense, args.zipf)))
        return
    paths = [False, True] if args.dense else [False]
    print(f"{'size':>28} {'nnz':>11} {'path':>6} {'selector':>13} {'k':>3} {'load s':>7} {'select s':>9} "
          f"{'cpu s':>7} {'peak MB':>8} {'load':>5}  first picks")
    for _ in range(args.repeat):
        for selector in args.selectors:
            for dense in paths:
                cmd = [sys.executable, __file__, "--one", "--size", args.size, "--selectors", selector, "--k",
                       str(args.k), "--zipf", str(args.zipf)] + (["--dense"] if dense else [])
                r = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
                print(f"{r['size']:>28} {r['nnz']:>11,} {r['path']:>6} {r['selector']:>13} {r['k']:>3} "
                      f"{r['load_s']:>7.2f} {r['select_s']:>9.2f} {r['cpu_s']:>7.2f} {r['peak_mb']:>8.0f} "
                      f"{r['load_avg']:>5.1f}  {r['features']}", flush=True)


if __name__ == "__main__":
    main()
