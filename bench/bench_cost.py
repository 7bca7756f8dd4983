"""fslab.cost's predicted work against the work jobs really do, on the shipped samples; per-path seconds.

For each case: predicted subset tables (fslab.cost) vs tables counted while the job runs (bench/work_count.py's
profile hook counts every evaluator and source table call), predicted vs measured seconds (median of --repeat runs),
and the measured seconds per row-table, which calibrate ``SECONDS_PER_ROW_TABLE`` (medians per path).

    .venv/bin/python bench/bench_cost.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from functools import partial

from work_count import measure_work  # bench/work_count.py: counts tables without patching classes

from fslab.cost import (
    SECONDS_PER_ROW_TABLE,
    Shape,
    ksuggest_cost,
    lattice_cost,
    minimal_cost,
    npfs_cost,
    select_cost,
)
from fslab.data.distributions import example1
from fslab.data.samples import load_sample
from fslab.ksuggest import permutation_k_test
from fslab.npfs import npfs
from fslab.pena_nilsson.minimal import backward_search, markov_boundary, minimal_optimal, one_shot, strongly_relevant
from fslab.pena_nilsson.orderings import subset_risks
from fslab.pena_nilsson.toy import xor_distribution
from fslab.selectors import select


def _minimal(source):
    backward_search(source)
    one_shot(source)
    minimal_optimal(source)
    strongly_relevant(source)
    markov_boundary(source)


def _ksuggest(source, k, n_perm):
    order = select(source, k, "bayes-greedy").features
    permutation_k_test(source, order, "zero-one", n_perm, 0.05, 0, stop_early=False)


def cases():
    data = {name: load_sample(name).discretize() for name in ("mushroom", "waveform", "splice", "adult", "semeion")}
    small = data["mushroom"].subsample(range(2000))
    wave12 = data["waveform"]
    wave12 = type(wave12)(wave12.X[:, :12], wave12.y, labels=wave12.labels)
    xor = xor_distribution(8, 2, 0.1)
    out = []
    for name in ("mushroom", "waveform", "splice", "adult"):
        src = data[name]
        out.append((f"{name} bayes-greedy k=10", src, select_cost(src, 10, "bayes-greedy"),
                    partial(select, src, 10, "bayes-greedy"), "fast"))
        out.append((f"{name} jmi k=10", src, select_cost(src, 10, "jmi"), partial(select, src, 10, "jmi"), "fast"))
    for name, k in (("mushroom", 100), ("waveform", 1), ("splice", 40), ("semeion", 240)):
        src = data[name]
        out.append((f"{name} backward to k={k}", src, select_cost(src, k, "backward"),
                    partial(select, src, k, "backward"), "removal"))
    for name, k, s in (("waveform", 12, 4), ("mushroom", 9, 4), ("splice", 8, 6)):
        src = data[name]
        out.append((f"{name} bayes-greedy k={k} s={s}", src, select_cost(src, k, "bayes-greedy", s=s),
                    partial(select, src, k, "bayes-greedy", s=s), "fast"))
    for name, k in (("waveform", 2), ("waveform", 38), ("waveform", 37), ("mushroom", 2)):
        src = data[name]
        out.append((f"{name} exhaustive k={k}", src, select_cost(src, k, "exhaustive"),
                    partial(select, src, k, "exhaustive"), "deep"))
    out.append(("xor(8) distribution bayes-greedy k=5", xor, select_cost(xor, 5, "bayes-greedy"),
                partial(select, xor, 5, "bayes-greedy"), "plain"))
    out.append(("mushroom[:2000] NPFS jmi k=5 n=20 (resample)", small, npfs_cost(small, "jmi", 5, 20),
                partial(npfs, small, "jmi", 5, n_bootstraps=20, seed=0, counting="resample"), "fast"))
    out.append(("waveform NPFS bayes-greedy k=5 n=10", data["waveform"], npfs_cost(data["waveform"], "bayes-greedy",
                                                                                   5, 10),
                partial(npfs, data["waveform"], "bayes-greedy", 5, n_bootstraps=10, seed=0), "fast"))
    out.append(("splice Suggest k test k=5 B=20", data["splice"],
                ksuggest_cost(data["splice"], "bayes-greedy", 5, 20, 0),
                partial(_ksuggest, data["splice"], 5, 20), "plain"))
    out.append(("waveform[:, :12] lattice", wave12, lattice_cost(wave12), partial(subset_risks, wave12), "deep"))
    out.append(("xor(8) lattice", xor, lattice_cost(xor), partial(subset_risks, xor), "plain"))
    out.append(("example 1 BS/OS/S*/MB", example1(), minimal_cost(example1()), partial(_minimal, example1()),
                "plain"))
    out.append(("xor(8) BS/OS/S*/MB", xor, minimal_cost(xor), partial(_minimal, xor), "plain"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows, per_path = [], {}
    all_cases = cases()
    times = {name: [] for name, *_ in all_cases}
    measured = {}
    for name, _src, _cost, job, _path in all_cases:  # tables counted once (the profile hook slows the job down)
        with measure_work() as work:
            job()
        measured[name] = work
    for _ in range(args.repeat):  # interleaved: every case once per round, timed without the counting hook
        for name, _src, _cost, job, _path in all_cases:
            start = time.perf_counter()
            job()
            times[name].append(time.perf_counter() - start)
    for name, src, cost, _job, path in all_cases:
        seconds = statistics.median(times[name])
        work = measured[name]
        per_row = seconds / max(cost.work, 1)
        per_path.setdefault(path, []).append(per_row)
        rows.append((name, f"{Shape.of(src).n_rows:,}", f"{cost.tables:,}", f"{work.tables:,}",
                     f"{work.tables / max(cost.tables, 1):.3f}", f"{cost.seconds:.2f}", f"{seconds:.2f}",
                     f"{per_row:.1e}", path))
    head = ("case", "rows", "tables pred", "tables meas", "meas/pred", "s pred", "s meas", "s/row-table", "path")
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    for r in [head, *rows]:
        print("  ".join(str(v).ljust(w) for v, w in zip(r, widths, strict=True)))
    print("\nmedian seconds per row-table by path (SECONDS_PER_ROW_TABLE now: "
          + ", ".join(f"{k} {v:.1e}" for k, v in SECONDS_PER_ROW_TABLE.items()) + "):")
    for path, values in per_path.items():
        print(f"  {path}: {statistics.median(values):.1e} (max {max(values):.1e}, {len(values)} cases)")
    print(f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    main()
