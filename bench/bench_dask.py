"""Greedy selection on a Dask cluster vs in memory: 10,000,000 x 100 binary rows made ON the workers.

    .venv/bin/python bench/bench_dask.py                      # 10M x 100, 2 workers, 4 steps of JMI and 0-1 BayesGreedy
    .venv/bin/python bench/bench_dask.py --rows 1000000       # smaller
    .venv/bin/python bench/bench_dask.py --no-in-memory       # skip the in-memory comparison (8 GB of int64 codes)

The rows come from ``dask.array.random.default_rng(seed)`` inside the worker processes (the client never holds
them) and stay there as uint8 partitions. Per greedy step the table prints: seconds, rows per second per worker,
and bytes of count tables that reached the client. The in-memory run regenerates the same arrays (same seed, same
chunks) in a fresh subprocess and times ``fslab.select`` on an EncodedDataset; its peak RSS is that process's
VmHWM. The last table models 10 and 100 workers from measured costs (see ``simulate``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time

import numpy as np

SEED = 2026


def make_arrays(rows: int, features: int, partition_rows: int):
    """X (rows x features, uint8 0/1) and y = majority(X0, X1, X2, 20% noise): dask arrays, made where computed."""
    import dask.array as da

    rng = da.random.default_rng(SEED)
    X = rng.integers(0, 2, size=(rows, features), chunks=(partition_rows, features), dtype=np.uint8)
    noise = rng.random(rows, chunks=partition_rows) < 0.2
    y = ((X[:, 0].astype(np.int16) + X[:, 1] + X[:, 2] + noise) >= 2).astype(np.int8)
    return X, y


def load() -> str:
    return "load average " + ", ".join(f"{v:.2f}" for v in os.getloadavg())


def vm_hwm_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM"):
                return int(line.split()[1]) / 1024
    return float("nan")


def timed_select(source, selector: str, k: int, **kw) -> tuple[list[float], list[int], object]:
    """Seconds and client bytes of every greedy step (from the progress callback's timestamps)."""
    import fslab

    stamps, sizes = [time.perf_counter()], [getattr(source, "bytes_received", 0)]

    def progress(step, total):
        stamps.append(time.perf_counter())
        sizes.append(getattr(source, "bytes_received", 0))

    result = fslab.select(source, k, selector, progress=progress, **kw)
    return list(np.diff(stamps)), list(np.diff(sizes)), result


def in_memory(args) -> None:
    """Child process: the same data in memory (computed locally from the same graph), timed steps as JSON."""
    import dask

    import fslab

    X, y = make_arrays(args.rows, args.features, args.partition_rows)
    X, y = dask.compute(X, y, scheduler="threads")
    enc = fslab.EncodedDataset(X, y.astype(np.int64), labels=np.array([0, 1]), arities=np.full(args.features, 2))
    del X
    out = {}
    for selector, kw in (("jmi", {}), ("bayes-greedy", {"measure": "zero-one"})):
        secs, _, res = timed_select(enc, selector, args.steps, **kw)
        out[selector] = {"seconds": secs, "features": list(res.features)}
    out["peak_mb"] = vm_hwm_mb()
    print(json.dumps(out))


def simulate(workers: int, rows: float, per_row_s: float, task_overhead_s: float, table_bytes: float,
             partition_rows: int, fan_in: int = 8, bandwidth: float = 1e9) -> dict:
    """One greedy step on ``workers`` single-thread workers holding ``rows`` rows in partitions of
    ``partition_rows``: the map over P partitions runs in ceil(P / W) waves; the count tables are summed in a
    tree of fan-in ``fan_in`` (ceil(log_fan_in P) levels, each moving fan_in tables into one task); the
    scheduler handles P + P / (fan_in - 1) tasks one after another (its per-task cost is the serial part)."""
    P = max(1, math.ceil(rows / partition_rows))
    waves = math.ceil(P / workers)
    compute = waves * partition_rows * per_row_s
    levels = max(1, math.ceil(math.log(P, fan_in))) if P > 1 else 0
    reduce = levels * (fan_in * table_bytes / bandwidth + 0.002)
    tasks = P + math.ceil(P / (fan_in - 1))
    scheduler = tasks * task_overhead_s
    return {"workers": workers, "rows": rows, "partitions": P, "tree levels": levels, "compute s": compute,
            "reduce s": reduce, "scheduler s": scheduler, "step s": compute + reduce + scheduler,
            "bottleneck": max((compute, "worker compute"), (reduce, "reduction tree"), (scheduler, "scheduler"))[1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--features", type=int, default=100)
    parser.add_argument("--partition-rows", type=int, default=250_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--no-in-memory", action="store_true")
    parser.add_argument("--in-memory-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.in_memory_child:
        in_memory(args)
        return

    import dask
    import pandas as pd
    from distributed import Client, LocalCluster, futures_of, wait

    from fslab.data.distributed import DaskSource, _pack, _part_extensions

    print(f"{args.rows:,} x {args.features} binary rows, partitions of {args.partition_rows:,} rows, "
          f"{args.workers} workers x 1 thread; {load()}")
    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None)
    client = Client(cluster)
    t0 = time.perf_counter()
    X, y = make_arrays(args.rows, args.features, args.partition_rows)
    parts = [dask.delayed(_pack)(a, b) for a, b in zip(X.to_delayed().ravel(), y.to_delayed().ravel(), strict=True)]
    parts = list(dask.persist(*parts))
    wait(futures_of(parts))
    made = time.perf_counter() - t0
    names = [f"x{j}" for j in range(args.features)]
    src = DaskSource(parts, args.rows, np.full(args.features, 2), np.array([0, 1]), names)
    print(f"data made and persisted on the workers in {made:.1f} s ({len(parts)} partitions); {load()}")

    rows, results = [], {}
    for selector, kw in (("jmi", {}), ("bayes-greedy", {"measure": "zero-one"})):
        secs, sizes, res = timed_select(src, selector, args.steps, **kw)
        results[selector] = (secs, res)
        for step, (s, b) in enumerate(zip(secs, sizes, strict=True), start=1):
            rows.append({"selector": selector, "step": step, "engine": f"dask x{args.workers}", "seconds": s,
                         "rows/s/worker": args.rows / s / args.workers, "bytes to client": b})
    mem = None
    if not args.no_in_memory:
        child = subprocess.run([sys.executable, __file__, "--in-memory-child", "--rows", str(args.rows),
                                "--features", str(args.features), "--partition-rows", str(args.partition_rows),
                                "--steps", str(args.steps)], capture_output=True, text=True)
        if child.returncode == 0:
            mem = json.loads(child.stdout.strip().splitlines()[-1])
            for selector in ("jmi", "bayes-greedy"):
                assert tuple(mem[selector]["features"]) == results[selector][1].features, "different selections"
                for step, s in enumerate(mem[selector]["seconds"], start=1):
                    rows.append({"selector": selector, "step": step, "engine": "in memory", "seconds": s,
                                 "rows/s/worker": args.rows / s, "bytes to client": 0})
        else:
            print("in-memory run failed:", child.stderr.strip().splitlines()[-1:])
    table = pd.DataFrame([r for r in rows if r["seconds"] > 1e-3])   # JMI's last pick needs no new counts
    table = table.sort_values(["selector", "step", "engine"])
    with pd.option_context("display.width", 160, "display.float_format", "{:,.3f}".format):
        print(table.to_string(index=False))
    def median(secs):   # JMI's last pick needs no new counts (its gains were summed at the previous step)
        return float(np.median([s for s in secs if s > 1e-3]))

    for selector, (secs, res) in results.items():
        print(f"{selector}: features {res.features}; median step {median(secs):.2f} s (dask)"
              + (f", {median(mem[selector]['seconds']):.2f} s (in memory)" if mem else ""))
    if mem:
        print(f"in-memory peak RSS {mem['peak_mb']:,.0f} MB (CodedSource keeps int64 codes: 8 bytes per cell)")
    print(load())

    # measured costs for the model: one partition's extension counts (JMI step shape), per-task scheduler cost
    rng = np.random.default_rng(0)
    block = (rng.integers(0, 2, size=(args.partition_rows, args.features), dtype=np.uint8),
             rng.integers(0, 2, size=args.partition_rows).astype(np.int8))
    cand = np.arange(1, args.features)
    plan = ((0, 2, None),)
    times = []
    for _ in range(5):
        t = time.perf_counter()
        _part_extensions(block, plan, 2, cand, 2, 2)
        times.append(time.perf_counter() - t)
    per_row = float(np.median(times)) / args.partition_rows
    tiny = DaskSource(list(dask.persist(*[dask.delayed(_pack)(block[0][:100], block[1][:100]) for _ in range(200)])),
                      20_000, np.full(args.features, 2), np.array([0, 1]), names)
    tiny.extension_tables([0], cand)
    times = []
    for _ in range(5):
        t = time.perf_counter()
        tiny.extension_tables([0], cand)
        times.append(time.perf_counter() - t)
    overhead = float(np.median(times)) / (200 + math.ceil(200 / 7))   # map tasks + reduction tasks
    table_bytes = float(np.median([b for r in rows if r["engine"].startswith("dask") and (b := r["bytes to client"])]))
    print(f"\nmodel inputs: {per_row * 1e9:.1f} ns per row per JMI step (one partition, in this process), "
          f"{overhead * 1e3:.2f} ms scheduler cost per task, {table_bytes:,.0f} B median count table per step")
    sims = [simulate(w, args.rows, per_row, overhead, table_bytes, args.partition_rows) for w in (2, 10, 100)]
    sims += [simulate(w, args.rows * w / 2, per_row, overhead, table_bytes, args.partition_rows) for w in (10, 100)]
    with pd.option_context("display.width", 160, "display.float_format", "{:,.3f}".format):
        print(pd.DataFrame(sims).to_string(index=False))
    client.close()
    cluster.close()


if __name__ == "__main__":
    main()
