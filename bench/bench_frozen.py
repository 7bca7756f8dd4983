"""Cost of the frozen EncodedDataset (issue 15.5): building, replace and subsample on wide uint8 codes.

Each case runs in a fresh subprocess and reports its median time and the process's peak memory above the codes
it was handed (VmHWM minus the baseline after the codes exist): a read-only *view* of the caller's codes adds no copy,
so building a record and replace(notes=...) should add ~0 MB; subsample copies the rows it takes (as before).

    .venv/bin/python bench/bench_frozen.py [--rows 200000] [--cols 500] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CASE = r"""
import json, statistics, sys, time
import numpy as np
sys.path.insert(0, {root!r})
from fslab.data.encoded import EncodedDataset

def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024

rng = np.random.default_rng(0)
X = rng.integers(0, 3, ({rows}, {cols}), dtype=np.uint8)
y = rng.integers(0, 2, {rows})
EncodedDataset(X[:10], y[:10])  # imports and first-call costs out of the way
base = hwm()
times = []
for _ in range({repeat}):
    t = time.perf_counter()
    ds = EncodedDataset(X, y, arities=np.full({cols}, 3))
    if {case!r} == "replace":
        t = time.perf_counter()
        ds.replace(notes=("a note",))
    elif {case!r} == "subsample":
        rows = rng.integers(0, {rows}, {rows})
        t = time.perf_counter()
        ds.subsample(rows)
    times.append(time.perf_counter() - t)
print(json.dumps({{"seconds": statistics.median(times), "extra_mb": hwm() - base,
                  "shares": bool(np.shares_memory(ds.X, X)), "caller_writable": bool(X.flags.writeable)}}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--cols", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    print(f"{args.rows:,} x {args.cols:,} uint8 codes ({args.rows * args.cols / 1e6:,.0f} MB); "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'case':<10} {'median s':>9} {'extra peak MB':>14} {'X shares codes':>15} {'caller writable':>16}")
    for case in ("build", "replace", "subsample"):
        code = CASE.format(root=root, rows=args.rows, cols=args.cols, repeat=args.repeat, case=case)
        out = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                        check=True).stdout)
        print(f"{case:<10} {out['seconds']:>9.4f} {out['extra_mb']:>14.1f} {str(out['shares']):>15} "
              f"{str(out['caller_writable']):>16}")
    print(f"load average after {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
