"""Wall time of NPFS bootstraps (Ditzler et al. 2015 setup): row weights vs resampling, 1 vs 2 cores.

    .venv/bin/python bench/bench_npfs.py            # Adult: 100 bootstraps of JMI (k=10), 3 interleaved rounds,
                                                    # then 10,000 bootstraps on 2 cores
    .venv/bin/python bench/bench_npfs.py --quick    # 1 round, 1,000 instead of 10,000 bootstraps
    .venv/bin/python bench/bench_npfs.py --modes    # also the old table: D_uni and Adult, sequential vs
                                                    # threads vs processes, each counting
    .venv/bin/python bench/bench_npfs.py --digits   # only digits in noise (NPFS Fig. 4): 100 bootstraps of JMI
                                                    # k = 64, direct weighted counts vs resampling, 1 core

"1 core" runs pin BLAS to one thread (threadpoolctl; npfs's weighted path does so itself); "2 cores" is
n_jobs=2 with prefer="auto": two threads on the weighted path. Cases are interleaved round by round and medians
reported, because the machine is shared (8 helpers on 2 cores while this was written): the load average is
printed with every row. Every mode is checked to give the resampling path's selection matrix for the same seed.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from fslab.data.samples import load_sample  # noqa: E402
from fslab.data.synthetic import uniform_dataset  # noqa: E402
from fslab.limits import LIMITS  # noqa: E402
from fslab.npfs import _lean, npfs  # noqa: E402
from fslab.selectors import select  # noqa: E402
from fslab.tables import as_source  # noqa: E402


def load() -> str:
    return "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def adult():
    return _lean(as_source(load_sample("adult").discretize()), "jmi")


def table_100(data, rounds: int, k: int = 10, n: int = 100) -> None:
    """100 single selections vs 100 bootstraps (resampled, weighted) on 1 core, weighted on 2 cores."""
    def singles():
        with threadpool_limits(1):
            for _ in range(n):
                select(data, k, "jmi")

    def boot(counting, n_jobs):
        if n_jobs == 1:
            with threadpool_limits(1):
                return npfs(data, "jmi", k, n_bootstraps=n, seed=0, counting=counting).matrix
        return npfs(data, "jmi", k, n_bootstraps=n, seed=0, counting=counting, n_jobs=n_jobs).matrix

    cases = {
        f"{n} single JMI selections, 1 core": lambda: singles(),
        f"{n} bootstraps, resample, 1 core": lambda: boot("resample", 1),
        f"{n} bootstraps, weights, 1 core": lambda: boot("weights", 1),
        f"{n} bootstraps, weights, 2 cores": lambda: boot("weights", 2),
    }
    times = {name: [] for name in cases}
    cpus = {name: [] for name in cases}
    loads = {name: [] for name in cases}
    reference = None
    for _ in range(rounds):
        for name, run in cases.items():
            t0, c0 = time.perf_counter(), time.process_time()
            out = run()
            times[name].append(time.perf_counter() - t0)
            cpus[name].append(time.process_time() - c0)  # every thread of this process (the 2 workers are threads)
            loads[name].append(load())
            if out is not None:
                reference = out if reference is None else reference
                assert np.array_equal(out, reference), f"{name}: a different selection matrix"
    med = {name: float(np.median(v)) for name, v in times.items()}
    cpu = {name: float(np.median(v)) for name, v in cpus.items()}
    names = [f"{n} single JMI selections, 1 core", f"{n} bootstraps, weights, 1 core",
             f"{n} bootstraps, weights, 2 cores"]
    print(f"\nAdult (48,842 x 123), JMI k = {k}: median of {rounds} interleaved round(s); cpu = CPU seconds of all "
          "threads; cpu/wall = cores this process got")
    print(f"{'case':42s} {'wall s':>7s} {'wall/item ms':>12s} {'cpu s':>6s} {'cpu/item ms':>11s} {'cpu/wall':>8s}  "
          "load average after each round")
    for name in cases:
        print(f"{name:42s} {med[name]:7.2f} {1000 * med[name] / n:12.1f} {cpu[name]:6.2f} {1000 * cpu[name] / n:11.1f} "
              f"{cpu[name] / med[name]:8.2f}  {' | '.join(loads[name])}")
    base, one, two = (med[name] for name in names)
    print(f"weights 1 core / single selections: wall {one / base:.2f}x, cpu {cpu[names[1]] / cpu[names[0]]:.2f}x "
          f"(goal <= 1.2x); 2 cores over 1 core: wall speed-up {one / two:.2f}x (goal >= 1.7x), cores used "
          f"{cpu[names[2]] / two:.2f} vs {cpu[names[1]] / one:.2f}; all matrices equal: True")


def table_big(data, n: int, k: int = 10) -> None:
    limits = dataclasses.replace(LIMITS, max_bootstraps=max(n, LIMITS.max_bootstraps))  # the server's cap aside
    t0, c0 = time.perf_counter(), time.process_time()
    result = npfs(data, "jmi", k, n_bootstraps=n, seed=0, n_jobs=2, limits=limits)
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"\n{n:,} bootstraps of JMI k = {k} on Adult, weights, 2 worker threads: wall {dt:.1f} s "
          f"({1000 * dt / n:.1f} ms per bootstrap; goal < 180 s, stretch < 60 s), cpu {cpu:.1f} s "
          f"({1000 * cpu / n:.1f} ms per bootstrap; cores used {cpu / dt:.2f}); k* = {result.k_star}, "
          f"zeta = {result.threshold}; load average {load()}")


def table_digits(n: int = 100, checked: int = 10) -> None:
    """NPFS Fig. 4's run: 5,620 x 256 pixels of up to 17 levels, 10 classes; JMI k = 64. Weights (the direct
    engine) for all n bootstraps; the first ``checked`` also resampled, interleaved, for the matrix and the ratio."""
    from fslab.data.synthetic import digits_in_noise

    data = digits_in_noise(seed=0).discretize()
    with threadpool_limits(1):
        cpu = {}
        for counting in ("weights", "resample", "weights"):
            c0 = time.process_time()
            r = npfs(data, "jmi", 64, n_bootstraps=checked, seed=0, counting=counting)
            cpu.setdefault(counting, []).append(time.process_time() - c0)
            cpu.setdefault(counting + " matrix", []).append(r.matrix)
        same = all(np.array_equal(m, cpu["resample matrix"][0]) for m in cpu["weights matrix"])
        c0 = time.process_time()
        full = npfs(data, "jmi", 64, n_bootstraps=n, seed=0, counting="weights")
        total = time.process_time() - c0
    w, r = float(np.median(cpu["weights"])), cpu["resample"][0]
    print(f"\ndigits in noise (5,620 x 256, <= 17 levels, 10 classes), JMI k = 64, 1 core, CPU s: {checked} bootstraps "
          f"weights {w:.2f} vs resample {r:.2f} ({r / w:.1f}x; same matrix: {same}); {n} bootstraps weights "
          f"{total:.1f} s (goal < 30), k* = {full.k_star}; load average {load()}")


def table_modes(n: int) -> None:
    modes = {"sequential": {"n_jobs": 1}, "threads x2": {"n_jobs": 2, "prefer": "threads"},
             "processes x2": {"n_jobs": 2, "prefer": "processes"}}
    print()
    for name, data in (("D_uni (3 bins)", uniform_dataset().discretize(method="uniform", bins=3)),
                       ("Adult a9a", adult())):
        reference = None
        for counting in ("resample", "weights"):
            for mode, kw in modes.items():
                t0 = time.perf_counter()
                result = npfs(data, "jmi", 10, n_bootstraps=n, alpha=0.01, seed=0, counting=counting, **kw)
                dt = time.perf_counter() - t0
                reference = result.matrix if reference is None else reference
                same = np.array_equal(reference, result.matrix)
                print(f"{name:15s} {counting:8s} {mode:13s} n={n:4d} {dt:8.2f} s  k*={result.k_star:3d}  "
                      f"same matrix: {same}  load {load()}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--modes", action="store_true")
    ap.add_argument("--digits", action="store_true")
    args = ap.parse_args()
    print(f"cores: {os.cpu_count()}; load average at start: {load()} (machine shared with other jobs)")
    if args.digits:
        table_digits()
        return
    data = adult()
    table_100(data, 1 if args.quick else 3)
    table_big(data, 1_000 if args.quick else 10_000)
    if args.modes:
        table_modes(20 if args.quick else 100)


if __name__ == "__main__":
    main()
