"""Time every measure on batched joint tables (the inner step of BayesGreedy).

Usage: ``.venv/bin/python bench/bench_measures.py [--quick]``

Cases: (a) the target shape of the measures brief: 120 tables x 4,000 cells, dense random counts;
(b) real extension tables of an Adult-shaped sample (9,765 x 123 binary features, the paper's Table 2)
after 11 features are chosen: 112 candidate tables of up to 4,096 cells. Prints the median and best
wall time and the median CPU time of one ``measure.value(batch)`` call (ms). The target for F-beta
and AUC on (a) is ~20 ms on this machine.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere without installing

import argparse
import time

import numpy as np

from fslab.data.encoded import EncodedDataset
from fslab.measures import MEASURES, measure
from fslab.tables import JointTable


def _time(func, repeats: int) -> tuple[float, float, float]:
    func()
    walls, cpus = [], []
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        func()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return 1e3 * float(np.median(walls)), 1e3 * min(walls), 1e3 * float(np.median(cpus))


def _cases(seed: int) -> dict[str, JointTable]:
    rng = np.random.default_rng(seed)
    dense = JointTable(rng.integers(0, 20, size=(120, 4000, 2)).astype(np.float64), np.array([0, 1]))
    X = (rng.random((9765, 123)) < rng.uniform(0.05, 0.5, 123)).astype(np.int64)
    y = (X[:, :8].sum(axis=1) + rng.integers(0, 3, 9765) > 3).astype(np.int64)
    adult = EncodedDataset(X, y, labels=[0, 1])
    chosen = list(range(11))
    ext = adult.extension_tables(chosen, [j for j in range(123) if j not in chosen])
    return {"120 x 4000 dense": dense, f"Adult-shaped step 12 {ext.counts.shape[:2]}": ext}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args()
    repeats = 5 if args.quick else 21
    print(f"{'case':<40} {'measure':<15} {'median ms':>10} {'best ms':>8} {'cpu ms':>7}")
    for case, table in _cases(0).items():
        for name in MEASURES:
            bound = measure(name)
            med, best, cpu = _time(lambda m=bound, t=table: m.value(t), repeats)
            print(f"{case:<40} {name:<15} {med:>10.1f} {best:>8.1f} {cpu:>7.1f}")


if __name__ == "__main__":
    main()
