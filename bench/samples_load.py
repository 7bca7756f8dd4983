"""Load time of every sample: read the gzip CSV, build the Dataset, discretise (median of a few runs).

Usage: ``.venv/bin/python bench/samples_load.py [repeats]``.
Speed belongs here, not in the unit tests.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere without installing

import time

import numpy as np

from fslab.data.samples import SAMPLES, load_sample, read_sample_frame


def _median_seconds(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main(repeats: int = 3) -> None:
    print(f"{'sample':16s} {'shape':>12s} {'read':>7s} {'Dataset':>8s} {'discretize':>11s}"
          f"   (seconds, median of {repeats})")
    for name, rec in SAMPLES.items():
        read = _median_seconds(lambda n=name: read_sample_frame(n), repeats) if not rec.generated else float("nan")
        load = _median_seconds(lambda n=name: load_sample(n), repeats)
        ds = load_sample(name)
        disc = _median_seconds(ds.discretize, repeats)
        shape = f"{ds.shape[0]}x{ds.shape[1]}"
        print(f"{name:16s} {shape:>12s} {read:7.3f} {load:8.3f} {disc:11.3f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
