"""Cost of the cross-fitted (held-out) estimate against the paper's plug-in, per selector and measure.

Usage (from the repository root):
    .venv/bin/python bench/bench_estimates.py            # Adult, Splice, Gisette-shaped; median of 5 interleaved pairs
    .venv/bin/python bench/bench_estimates.py --quick    # 3 pairs, Gisette-shaped at 1,500 x 1,000

Each pair runs the plug-in and the cross-fitted selection back to back in this one process, in alternating order,
on a fresh copy of the source (no memo carried over); CPU seconds (``time.process_time``); the ratio is the median
of the per-pair ratios, so load changes between pairs cancel out. The load average is printed with the table.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_selectors import gaussian_three_level  # noqa: E402

from fslab.data.samples import load_sample  # noqa: E402
from fslab.selectors import select  # noqa: E402

CASES = (("bayes-greedy", "zero-one"), ("bayes-greedy", "balanced"), ("bayes-greedy", "auc"),
         ("bayes-greedy", "log-loss"), ("mi-greedy", None), ("jmi", None), ("mrmr", None))


def _timed(source, k, selector, measure, estimate) -> float:
    kwargs = {"measure": measure} if measure else {}
    fresh = source.replace()
    start = time.process_time()
    select(fresh, k, selector=selector, estimate=estimate, **kwargs)
    return time.process_time() - start


def run(quick: bool) -> None:
    pairs = 3 if quick else 5
    shape = (1500, 1000) if quick else (4200, 5000)
    data = {"adult": (load_sample("adult").discretize(), 10), "splice": (load_sample("splice").discretize(), 10),
            f"gisette-shaped {shape[0]:,} x {shape[1]:,}": (gaussian_three_level(*shape, relevant=40, seed=0), 10)}
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'data':<28} {'selector':<14} {'measure':<10} {'plug-in s':>10} {'cross-fit s':>12} {'ratio':>6}")
    for name, (source, k) in data.items():
        for selector, measure in CASES:
            if name.startswith("gisette") and selector == "bayes-greedy" and measure not in ("zero-one", "balanced"):
                continue
            plug, cross = [], []
            for i in range(pairs):
                order = ("plug-in", "cross-fitted") if i % 2 == 0 else ("cross-fitted", "plug-in")
                got = {est: _timed(source, k, selector, measure, est) for est in order}
                plug.append(got["plug-in"])
                cross.append(got["cross-fitted"])
            ratio = float(np.median(np.array(cross) / np.maximum(plug, 1e-9)))
            print(f"{name:<28} {selector:<14} {measure or '(own)':<10} {np.median(plug):>10.3f} "
                  f"{np.median(cross):>12.3f} {ratio:>6.2f}", flush=True)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    run(parser.parse_args().quick)
