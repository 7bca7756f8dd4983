"""Whole data path benchmark (issue 13.4): array or CSV -> Dataset -> encoded -> select(JMI, k=75).

Each case runs in a fresh subprocess (so its peak memory, ru_maxrss, is its own) and prints one table row:
the CPU time of every phase (for CSV also pandas.read_csv alone on the same file), the selection alone (select
on the already encoded data, run again in the same process), the ratio path / selection alone (goal for
arrays <= 1.5), for CSV the plain pandas + numpy path (parse + mean-std codes of the numpy matrix + the selection
alone) and the ratio path / plain (goal <= 1.3), and the whole-process peak in MiB and in bytes per cell (goal
< 3), with the process's baseline after imports and data generation.

Usage: ``.venv/bin/python bench/bench_data_path.py [--only gisette,100k,1m] [--repeats 3] [--no-csv]``

``--mixed`` (issue 27.2): a 100,000 x 50 mixed table written to parquet (19 small integers, 7 of them nullable
Int16 with ~5 % missing; 20 floats, 5 with ~3 % missing; 10 text columns of 2-300 levels, 4 with ~2 % missing; a
binary target): ``pd.read_parquet`` + ``Dataset.from_frame(df, "y").discretize()`` against the floor
``pd.read_parquet`` + ``pd.factorize`` of every column, interleaved in one process, medians of wall and CPU
seconds and their ratios (goal <= 2; on a loaded machine the CPU ratio is the steadier one), and
``fslab.read_csv`` of the parquet file (the bounded reader) beside them.
Data: ``fslab.synthetic.gisette_like_data`` (synthetic, int16 values 0..999, ~13% non-zero, Gisette's
4,200 x 5,000 training-split shape; 500 columns for the tall cases). CSV cases write the table to a temporary
file first (not timed).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHAPES = {"gisette": (4200, 5000), "100k": (100_000, 500), "1m": (1_000_000, 500)}
K = 75


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def clock() -> float:
    """The phases' clock: CPU seconds of this process (one thread does the work; on the shared machine wall time
    grows with the load, CPU time much less)."""
    return time.process_time()


def run_case(shape_name: str, source: str) -> dict:
    """One case in this process: phase CPU times (s), peak MiB, baseline MiB."""
    sys.path.insert(0, str(ROOT))
    import numpy as np
    import pandas as pd

    import fslab
    from fslab.data.encoded import EncodedDataset
    from fslab.data.synthetic import gisette_like_data
    from fslab.selectors import select

    m, n = SHAPES[shape_name]
    X, y = gisette_like_data(m, n, seed=0)
    path = None
    if source == "csv":
        frame = pd.DataFrame(X, columns=[f"f{j + 1}" for j in range(n)])
        frame["y"] = y
        fd, path = tempfile.mkstemp(suffix=".csv")
        os.close(fd)
        frame.to_csv(path, index=False)
        del frame, X
    base = _peak_mib()
    times = {}
    t0 = clock()
    if source == "csv":
        ds = fslab.read_csv(path, "y", positive=1)
    else:
        ds = fslab.Dataset.from_arrays(X, y, positive=1)
    t1 = clock()
    enc = ds.discretize()
    t2 = clock()
    sel = select(enc, K, "jmi")
    t3 = clock()
    peak = _peak_mib()
    fresh = EncodedDataset(enc.X, enc.y, labels=enc.labels, arities=enc.arities, feature_names=enc.feature_names)
    t4 = clock()        # the selection alone: same codes, a new object (no caches from the first run)
    alone = select(fresh, K, "jmi")
    t5 = clock()
    assert list(alone.features) == list(sel.features)
    times = {"load": t1 - t0, "discretize": t2 - t1, "select": t3 - t2, "alone": t5 - t4, "parse": float("nan"),
             "numpy codes": float("nan")}
    codes = str(enc.X.dtype)
    if path:
        del ds, enc, fresh
        t6 = clock()
        parsed = pd.read_csv(path)   # pandas' parser alone (fslab's read_csv parses with it, then checks)
        t7 = clock()
        # the plain pandas + numpy path's coding: mean-std bins of every column, no checks, no profile
        V = parsed.drop(columns=["y"]).to_numpy()
        mu, sd = V.mean(axis=0), V.std(axis=0, ddof=1)
        (V >= mu - sd).astype(np.uint8) + (V >= mu + sd)
        times["parse"], times["numpy codes"] = t7 - t6, clock() - t7
        del parsed, V
        os.unlink(path)
    return {"times": times, "peak": peak, "base": base, "cells": m * n, "codes": codes,
            "np": np.__version__}


def mixed_frame(m: int = 100_000, seed: int = 0):
    """The issue's mixed table: 19 small integers (every third nullable Int16 with ~5 % missing), 20 floats (every
    fourth with ~3 % missing), 10 text columns of 2-300 levels (every third with ~2 % missing), target y."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    cols = {}
    for j in range(19):
        v = rng.integers(0, [2, 3, 5, 10, 17, 30][j % 6], m)
        if j % 3 == 0:
            v = pd.array(v, dtype="Int16")
            v[rng.random(m) < 0.05] = pd.NA
        cols[f"int{j}"] = v
    for j in range(20):
        x = rng.normal(j, 1 + j, m)
        x[rng.random(m) < (0.03 if j % 4 == 0 else 0)] = np.nan
        cols[f"real{j}"] = x
    for j, levels in enumerate(np.linspace(2, 300, 10).astype(int)):
        v = np.array([f"level_{j}_{i}" for i in range(levels)], dtype=object)[rng.integers(0, levels, m)]
        v[rng.random(m) < (0.02 if j % 3 == 0 else 0)] = None
        cols[f"text{j}"] = v
    cols["y"] = rng.integers(0, 2, m)
    return pd.DataFrame(cols)


def run_mixed(repeats: int) -> None:
    """The mixed table from parquet: fslab's whole load against pandas' read + factorize, interleaved."""
    sys.path.insert(0, str(ROOT))
    import warnings

    import pandas as pd

    import fslab

    warnings.simplefilter("ignore", UserWarning)
    fd, path = tempfile.mkstemp(suffix=".parquet")
    os.close(fd)
    mixed_frame().to_parquet(path)

    def floor():
        df = pd.read_parquet(path)
        for c in df.columns:
            pd.factorize(df[c])

    def fslab_load():
        fslab.Dataset.from_frame(pd.read_parquet(path), "y").discretize()

    def fslab_reader():
        fslab.read_csv(path, "y").discretize()

    cases = {"floor: read_parquet + factorize": floor, "read_parquet + from_frame + discretize": fslab_load,
             "fslab.read_csv(parquet) + discretize": fslab_reader}
    times = {k: [] for k in cases}
    cpus = {k: [] for k in cases}
    print(f"load average before: {os.getloadavg()}")
    for f in cases.values():
        f()   # warm up (imports, file cache)
    for _ in range(repeats):
        for name, f in cases.items():
            t, c = time.perf_counter(), time.process_time()
            f()
            times[name].append(time.perf_counter() - t)
            cpus[name].append(time.process_time() - c)   # every thread of the process (parquet reads in threads)
    os.unlink(path)
    base = statistics.median(times["floor: read_parquet + factorize"])
    cpu_base = statistics.median(cpus["floor: read_parquet + factorize"])
    print("| case | median wall s | min wall s | wall / floor | median CPU s | CPU / floor |")
    print("|---|---|---|---|---|---|")
    for name, ts in times.items():
        cpu = statistics.median(cpus[name])
        print(f"| {name} | {statistics.median(ts):.3f} | {min(ts):.3f} | {statistics.median(ts) / base:.2f} | "
              f"{cpu:.3f} | {cpu / cpu_base:.2f} |")
    print(f"load average after: {os.getloadavg()}; 100,000 x 50 mixed, medians of {repeats} interleaved runs")


def _subprocess(shape_name: str, source: str) -> dict:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}   # one thread: CPU s = work done
    out = subprocess.run([sys.executable, __file__, "--case", shape_name, source], capture_output=True, text=True,
                         cwd=ROOT, check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="gisette,100k,1m")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-csv", action="store_true")
    parser.add_argument("--case", nargs=2)
    parser.add_argument("--mixed", action="store_true", help="only the mixed parquet table (issue 27.2)")
    args = parser.parse_args()
    if args.case:
        print(json.dumps(run_case(*args.case)))
        return
    if args.mixed:
        run_mixed(max(args.repeats, 5))
        return
    print(f"load average before: {os.getloadavg()}")
    header = ("case", "source", "load s", "pandas parse s", "discretize s", "select s", "path s", "alone s",
              "path/alone", "plain s", "path/plain",
              "peak MiB", "base MiB", "B/cell", "B/cell over base", "codes")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for shape_name in args.only.split(","):
        sources = ["array"] if args.no_csv or shape_name == "1m" else ["array", "csv"]
        repeats = 1 if shape_name == "1m" else args.repeats
        runs = {s: [] for s in sources}
        for _ in range(repeats):          # interleave array and CSV cases
            for source in sources:
                runs[source].append(_subprocess(shape_name, source))
        for source in sources:
            rs = runs[source]
            med = {k: statistics.median(r["times"][k] for r in rs) for k in rs[0]["times"]}
            path = med["load"] + med["discretize"] + med["select"]
            peak = statistics.median(r["peak"] for r in rs)
            base = statistics.median(r["base"] for r in rs)
            cells = rs[0]["cells"]
            plain = med["parse"] + med["numpy codes"] + med["alone"]   # NaN for arrays
            row = (shape_name, source, f"{med['load']:.2f}", f"{med['parse']:.2f}", f"{med['discretize']:.2f}",
                   f"{med['select']:.2f}",
                   f"{path:.2f}", f"{med['alone']:.2f}", f"{path / med['alone']:.2f}", f"{plain:.2f}",
                   f"{path / plain:.2f}", f"{peak:.0f}",
                   f"{base:.0f}", f"{peak * 2**20 / cells:.2f}", f"{(peak - base) * 2**20 / cells:.2f}",
                   rs[0]["codes"])
            print("| " + " | ".join(row) + " |", flush=True)
    print(f"load average after: {os.getloadavg()}; medians of {args.repeats} fresh processes (1m: one)")


if __name__ == "__main__":
    main()
