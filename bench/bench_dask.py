"""Greedy selection on partitioned data (DaskSource) vs the in-memory engine: per-core CPU, bytes to the client,
two workers vs one process, and a scaling model.

    .venv/bin/python bench/bench_dask.py                       # 100,000 x 49, binary and mixed: parts 1, 2 and 4
    .venv/bin/python bench/bench_dask.py --rows 1000000        # larger
    .venv/bin/python bench/bench_dask.py --scale 10000000      # also part 3: 10M x 100 binary rows made on 2 workers

1. Per core (one process, interleaved, medians): CPU seconds of ``fslab.select`` on an in-memory EncodedDataset
   (the fast engine up to 16 values per feature, the plain one beyond) vs on a DaskSource of the same codes run by
   Dask's synchronous scheduler (the partition kernels plus the client's graph building; no scheduler, no
   transfers). Data: binary (49 two-valued columns) and mixed (a 300-level column, 2-, 3- and 10-valued columns).
2. On a LocalCluster of 2 single-thread worker processes: wall seconds, CPU of the whole cluster (this process,
   which hosts the scheduler, plus the workers) vs the in-memory CPU, and the bytes that reached the client per
   step beside the float64 tables that step's call returns ("one count table": the (B, cells, L) batch).
3. (--scale N) N x 100 binary rows made ON the workers (``dask.array.random``, uint8 partitions) counted by 2
   workers, vs the same arrays in one in-memory process (a fresh subprocess: its peak RSS is VmHWM).
4. A model of one greedy step on 2, 10 and 100 workers from the measured per-row cost and per-task overhead.
5. Held-out (5-fold cross-fitted, folds made on the workers) vs plug-in selection on the same cluster: seconds per
   greedy step and in all, interleaved (``--parts 5``).

The load average is printed beside every table: the machine is shared, so compare ratios, not seconds.
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
CASES = (("jmi", 10, {}), ("bayes-greedy", 5, {"measure": "zero-one"}), ("bayes-greedy", 5, {"measure": "balanced"}))


def load() -> str:
    return "load average " + ", ".join(f"{v:.2f}" for v in os.getloadavg())


def encoded(kind: str, rows: int):
    """Binary: 49 two-valued columns. Mixed: a 300-level column (x0), 16 binary, 16 three-valued, 16 ten-valued
    columns. y = majority of x1, x2, x3 (and x0 mod 2 for mixed) with noise."""
    from fslab.data.encoded import EncodedDataset

    rng = np.random.default_rng(SEED)
    if kind == "binary":
        X = rng.integers(0, 2, (rows, 49), dtype=np.uint8)
    else:
        X = np.c_[rng.integers(0, 300, rows), rng.integers(0, 2, (rows, 16)), rng.integers(0, 3, (rows, 16)),
                  rng.integers(0, 10, (rows, 16))].astype(np.uint16)
    signal = X[:, 1].astype(np.int16) + (X[:, 2] > 0) + (X[:, 3] > 0) + (kind == "mixed") * (X[:, 0] % 2)
    y = (signal + (rng.random(rows) < 0.3) >= 2).astype(np.int64)
    return EncodedDataset(X, y, labels=[0, 1], arities=X.max(axis=0).astype(np.int64) + 1)


def cpu_select(source, k: int, selector: str, kw: dict) -> tuple[float, object]:
    """CPU seconds of this process for one fslab.select, and its result."""
    import fslab

    t = time.process_time()
    out = fslab.select(source, k, selector, **kw)
    return time.process_time() - t, out


def per_core(args) -> None:
    import dask
    import pandas as pd

    from fslab.data.distributed import to_dask_source

    rows = []
    with dask.config.set(scheduler="synchronous"):
        for kind in ("binary", "mixed"):
            enc = encoded(kind, args.rows)
            for selector, k, kw in CASES:
                mem, dsk = [], []
                for _ in range(args.repeats):   # interleaved; a fresh source each time (no codes cached)
                    t, want = cpu_select(enc, k, selector, kw)
                    mem.append(t)
                    src = to_dask_source(enc, npartitions=2)
                    t, got = cpu_select(src, k, selector, kw)
                    dsk.append(t)
                    assert got.features == want.features, (kind, selector, got.features, want.features)
                m, d = float(np.median(mem)), float(np.median(dsk))
                rows.append({"data": kind, "selector": selector, "k": k, "measure": kw.get("measure", ""),
                             "in-memory CPU s": m, "dask kernels CPU s": d, "ratio": d / m})
    print(f"\n1. Per core: {args.rows:,} rows, CPU seconds (medians of {args.repeats}, interleaved), dask kernels on "
          f"the synchronous scheduler, 2 partitions; {load()}")
    with pd.option_context("display.width", 160, "display.float_format", "{:,.3f}".format):
        print(pd.DataFrame(rows).to_string(index=False))


def steps_select(source, selector: str, k: int, marks: list | None = None, tables: list | None = None, **kw):
    """Seconds and client bytes of every greedy step (the progress callback's timestamps); ``marks`` gets
    len(tables) at each step's end."""
    import fslab

    stamps, sizes = [time.perf_counter()], [getattr(source, "bytes_received", 0)]

    def progress(step, total):
        stamps.append(time.perf_counter())
        sizes.append(getattr(source, "bytes_received", 0))
        if marks is not None and tables is not None:
            marks.append(len(tables))

    result = fslab.select(source, k, selector, progress=progress, **kw)
    return list(np.diff(stamps)), list(np.diff(sizes)), result


def returned_tables(source) -> list[int]:
    """Record the bytes of every table ``source.table`` / ``extension_tables`` returns (float64 JointTables: "one
    count table" per call) into the list this returns, by wrapping the two methods on the instance."""
    seen: list[int] = []
    for name in ("table", "extension_tables"):
        method = getattr(source, name)

        def wrapped(*a, _method=method, **kw):
            out = _method(*a, **kw)
            seen.append(out.counts.nbytes)
            return out

        setattr(source, name, wrapped)
    return seen


def cluster(args) -> None:
    import pandas as pd
    from distributed import Client, LocalCluster

    import fslab
    from fslab.data.distributed import to_dask_source

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as lc, Client(lc) as client:
        def cluster_cpu() -> float:  # this process (client and scheduler) plus the workers
            return time.process_time() + sum(client.run(time.process_time).values())

        rows, byte_rows = [], []
        for kind in ("binary", "mixed"):
            enc = encoded(kind, args.rows)
            src = to_dask_source(enc, npartitions=4, client=client)
            fslab.select(src, 1, "mi-score")   # the persisted codes and engines exist before timing
            for selector, k, kw in CASES:
                walls, cpus, mems = [], [], []
                for _ in range(args.repeats):
                    t, want = cpu_select(enc, k, selector, kw)
                    mems.append(t)
                    src._states.clear()
                    src.bytes_received = 0
                    c0, w0 = cluster_cpu(), time.perf_counter()
                    tables, marks = returned_tables(src), []
                    secs, sizes, got = steps_select(src, selector, k, marks, tables, **kw)
                    walls.append(time.perf_counter() - w0)
                    cpus.append(cluster_cpu() - c0)
                    assert got.features == want.features
                bound = [sum(tables[a:b]) for a, b in zip([0, *marks[:-1]], marks, strict=True)]
                name = f"{selector} {kw.get('measure', '')}".strip()
                rows.append({"data": kind, "selector": name, "dask wall s": np.median(walls),
                             "dask cluster CPU s": np.median(cpus), "in-memory CPU s": np.median(mems),
                             "CPU ratio": np.median(cpus) / np.median(mems)})
                byte_rows.append({"data": kind, "selector": name,
                                  "bytes to client per step": " ".join(f"{b:,}" for b in sizes),
                                  "bytes of the tables returned per step": " ".join(f"{b:,}" for b in bound),
                                  "all within": all(b <= t for b, t in zip(sizes, bound, strict=False))})
    print(f"\n2. LocalCluster, 2 workers x 1 thread, {args.rows:,} rows in 4 partitions (medians of {args.repeats}); "
          f"{load()}")
    with pd.option_context("display.width", 200, "display.float_format", "{:,.3f}".format,
                           "display.max_colwidth", 80):
        print(pd.DataFrame(rows).to_string(index=False))
        print(pd.DataFrame(byte_rows).to_string(index=False))


def held_out(args) -> None:
    """Part 5: held-out (5-fold cross-fitted) vs plug-in selection on the same DaskSource, LocalCluster of 2 worker
    processes, interleaved, medians: wall seconds per greedy step and in all (the held-out run's first step
    includes making the folds on the workers: per-partition class counts, then fold * L + y; later selections reuse
    the folded view). Same picks as the in-memory cross-fitted selection (asserted)."""
    import pandas as pd
    from distributed import Client, LocalCluster

    import fslab
    from fslab.data.distributed import to_dask_source

    rows = []
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as lc, Client(lc):
        for kind in ("binary", "mixed"):
            enc = encoded(kind, args.rows)
            for selector, k, kw in CASES:
                steps: dict[str, list] = {"plug-in": [], "cross-fitted": []}
                totals: dict[str, list] = {"plug-in": [], "cross-fitted": []}
                firsts: list[float] = []
                for r in range(args.repeats):
                    for estimate in ("plug-in", "cross-fitted") if r % 2 == 0 else ("cross-fitted", "plug-in"):
                        src = to_dask_source(enc, npartitions=4)   # fresh: nothing cached from the other estimate
                        fslab.select(src, 1, "mi-score")            # the codes and fast engines exist before timing
                        if estimate == "cross-fitted":
                            t0 = time.perf_counter()
                            src.folded(5, 0)                        # the folds, made once per source
                            firsts.append(time.perf_counter() - t0)
                            fslab.select(src, 1, "mi-score", estimate="cross-fitted")   # the folded engines too
                        secs, _, got = steps_select(src, selector, k, estimate=estimate, **kw)
                        want = fslab.select(enc, k, selector, estimate=estimate, **kw)
                        assert got.features == want.features, (kind, selector, estimate)
                        steps[estimate].append(secs)
                        totals[estimate].append(sum(secs))
                per_step = {e: np.median(np.array(v), axis=0) for e, v in steps.items()}
                name = f"{selector} {kw.get('measure', '')}".strip()
                rows.append({"data": kind, "selector": name,
                             "plug-in s/step": " ".join(f"{x:.3f}" for x in per_step["plug-in"]),
                             "held-out s/step": " ".join(f"{x:.3f}" for x in per_step["cross-fitted"]),
                             "plug-in total s": np.median(totals["plug-in"]),
                             "held-out total s": np.median(totals["cross-fitted"]),
                             "ratio": np.median(totals["cross-fitted"]) / np.median(totals["plug-in"]),
                             "folds made s": np.median(firsts)})
    print(f"\n5. Held-out vs plug-in on a LocalCluster, 2 workers x 1 thread, {args.rows:,} rows in 4 partitions "
          f"(medians of {args.repeats}, interleaved); {load()}")
    with pd.option_context("display.width", 220, "display.float_format", "{:,.3f}".format,
                           "display.max_colwidth", 60):
        print(pd.DataFrame(rows).to_string(index=False))


def make_arrays(rows: int, features: int, partition_rows: int):
    """X (rows x features, uint8 0/1) and y = majority(X0, X1, X2, 20% noise): dask arrays, made where computed."""
    import dask.array as da

    rng = da.random.default_rng(SEED)
    X = rng.integers(0, 2, size=(rows, features), chunks=(partition_rows, features), dtype=np.uint8)
    noise = rng.random(rows, chunks=partition_rows) < 0.2
    y = ((X[:, 0].astype(np.int16) + X[:, 1] + X[:, 2] + noise) >= 2).astype(np.int8)
    return X, y


def vm_hwm_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM"):
                return int(line.split()[1]) / 1024
    return float("nan")


def in_memory_child(args) -> None:
    """Child process: the same arrays in memory (computed locally from the same graph), timed steps as JSON."""
    import dask

    from fslab.data.encoded import EncodedDataset

    X, y = make_arrays(args.scale, 100, args.partition_rows)
    X, y = dask.compute(X, y, scheduler="threads")
    enc = EncodedDataset(X, y.astype(np.int64), labels=np.array([0, 1]), arities=np.full(100, 2))
    del X
    out = {}
    for selector, _, kw in CASES[:2]:
        secs, _, res = steps_select(enc, selector, 4, **kw)
        out[selector] = {"seconds": secs, "features": list(res.features)}
    out["peak_mb"] = vm_hwm_mb()
    print(json.dumps(out))


def scale(args) -> None:
    import dask
    import pandas as pd
    from distributed import Client, LocalCluster, futures_of, wait

    from fslab.data.distributed import DaskSource, _pack

    rows = args.scale
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as lc, Client(lc):
        X, y = make_arrays(rows, 100, args.partition_rows)
        parts = [dask.delayed(_pack)(a, b) for a, b in zip(X.to_delayed().ravel(), y.to_delayed().ravel(),
                                                           strict=True)]
        parts = list(dask.persist(*parts))
        wait(futures_of(parts))
        src = DaskSource(parts, rows, np.full(100, 2), np.array([0, 1]), [f"x{j}" for j in range(100)])
        table, results = [], {}
        for selector, _, kw in CASES[:2]:
            secs, sizes, res = steps_select(src, selector, 4, **kw)
            results[selector] = res.features
            table += [{"selector": selector, "step": s + 1, "engine": "dask x2", "seconds": t, "bytes to client": b}
                      for s, (t, b) in enumerate(zip(secs, sizes, strict=True))]
    child = subprocess.run([sys.executable, __file__, "--in-memory-child", "--scale", str(rows),
                            "--partition-rows", str(args.partition_rows)], capture_output=True, text=True)
    peak = None
    if child.returncode == 0:
        mem = json.loads(child.stdout.strip().splitlines()[-1])
        peak = mem["peak_mb"]
        for selector, _, _ in CASES[:2]:
            assert tuple(mem[selector]["features"]) == results[selector], "different selections"
            table += [{"selector": selector, "step": s + 1, "engine": "in memory", "seconds": t, "bytes to client": 0}
                      for s, t in enumerate(mem[selector]["seconds"])]
    else:
        print("in-memory run failed:", child.stderr.strip().splitlines()[-1:])
    print(f"\n3. {rows:,} x 100 binary rows made on 2 workers x 1 thread vs one in-memory process; {load()}")
    frame = pd.DataFrame(table)
    with pd.option_context("display.width", 160, "display.float_format", "{:,.3f}".format):
        print(frame.sort_values(["selector", "step", "engine"]).to_string(index=False))
        print(frame.groupby(["selector", "engine"])["seconds"].sum().to_string())
    if peak:
        print(f"in-memory peak RSS {peak:,.0f} MB (uint8 codes, 1 byte per cell, plus the engine's packed bits)")


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


def model(args) -> None:
    """Per-row cost of one partition's JMI-step counts (the fast engine's kernel, in this process) and the
    scheduler's per-task cost (a DaskSource of 200 tiny partitions on the threaded scheduler), fed to simulate."""
    import dask
    import pandas as pd

    from fslab.data import dask_kernels as kernels
    from fslab.data.distributed import DaskSource, _pack

    rng = np.random.default_rng(0)
    part = (rng.integers(0, 2, size=(args.partition_rows, 100), dtype=np.uint8),
            rng.integers(0, 2, size=args.partition_rows).astype(np.int8))
    counter = kernels.fast_counter(part, np.full(100, 2), np.array([0, 1]))
    codes, cand = part[0][:, 0].astype(np.int64), np.arange(1, 100)
    times = []
    for _ in range(5):
        t = time.perf_counter()
        kernels.fast_extensions(counter, codes, 2, cand, 2)
        times.append(time.perf_counter() - t)
    per_row = float(np.median(times)) / args.partition_rows
    names = [f"x{j}" for j in range(100)]
    tiny = DaskSource(list(dask.persist(*[dask.delayed(_pack)(part[0][:100], part[1][:100]) for _ in range(200)])),
                      20_000, np.full(100, 2), np.array([0, 1]), names)
    with dask.config.set(scheduler="threads"):
        tiny.extension_tables([0], cand)
        times = []
        for _ in range(5):
            t = time.perf_counter()
            tiny.extension_tables([0], cand)
            times.append(time.perf_counter() - t)
    overhead = float(np.median(times)) / (200 + math.ceil(200 / 7))   # map tasks + reduction tasks
    table_bytes = 99 * 2 * 2 * 2 * 8   # a JMI step on binary data: 99 candidates x (2 x 2 cells) x 2 classes
    print(f"\n4. Model inputs: {per_row * 1e9:.1f} ns per row per JMI step (one {args.partition_rows:,}-row "
          f"partition, 100 binary features), {overhead * 1e3:.2f} ms per task (threaded scheduler), "
          f"{table_bytes:,} B count table per step; {load()}")
    sims = [simulate(w, 10_000_000, per_row, overhead, table_bytes, args.partition_rows) for w in (2, 10, 100)]
    sims += [simulate(w, 5_000_000 * w, per_row, overhead, table_bytes, args.partition_rows) for w in (10, 100)]
    with pd.option_context("display.width", 160, "display.float_format", "{:,.3f}".format):
        print(pd.DataFrame(sims).to_string(index=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scale", type=int, default=0, help="rows for part 3 (0: skip it)")
    parser.add_argument("--partition-rows", type=int, default=250_000)
    parser.add_argument("--parts", default="1,2,4,5", help="which parts to run (1-5; 3 needs --scale)")
    parser.add_argument("--in-memory-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.in_memory_child:
        in_memory_child(args)
        return
    parts = set(args.parts.split(",")) | ({"3"} if args.scale else set())
    print(f"bench_dask: {load()}")
    for name, run in (("1", per_core), ("2", cluster), ("3", scale), ("4", model), ("5", held_out)):
        if name in parts and (name != "3" or args.scale):
            run(args)


if __name__ == "__main__":
    main()
