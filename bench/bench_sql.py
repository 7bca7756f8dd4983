"""Selection on a parquet file counted by DuckDB (fslab.from_sql) vs the in-memory path: time and whole-process peak.

    .venv/bin/python bench/bench_sql.py [--rows 10000000] [--prefix 1000000] [--k 5] [--selector jmi] [--repeats 1]
                                        [--method mean-std|quantile|uniform]
    .venv/bin/python bench/bench_sql.py --wide [--wide-rows 300] [--old /tmp/fslab_old] [--repeats 1]
    .venv/bin/python bench/bench_sql.py --heldout [--rows 10000000] [--prefix 1000000] [--k 5] [--repeats 3]
                                        [--duckdb-memory 300MB] [--only-all]

Generates a mixed table once into /tmp/fslab_bench_sql/ (never into the repository): 8 real columns (two with
missing values), 4 small-integer columns, a three-level text column with missing values, a 300-level text column
and a binary target that depends on four of them. Each run is a fresh subprocess that loads, discretises and
selects, then reports its own peak resident memory (ru_maxrss: DuckDB's threads and buffers included). Runs are
interleaved (SQL on the prefix, in-memory on the prefix, SQL on all rows, per repeat); medians are printed beside
the load average. The prefix runs also check that both paths pick the same features with the same scores.

``--wide`` (issue 32.5): ``from_sql`` on tables of 300 / 1,000 / 3,000 columns and ``--wide-rows`` rows (40 % small
integers, 40 % reals with 10 % missing, three-level text, 1 % each of percentages, amounts "$1,234.50" and ISO dates)
written once to parquet; each run a fresh process (``--old DIR``: a directory holding an older ``fslab`` package,
timed the same way, interleaved); CPU s is the process's user + system time (DuckDB's threads included).

``--heldout`` (issue 31.2): BayesGreedy's steps with the balanced error on one DuckDB source, plug-in and held out
(5 folds) on the same subsets, alternated ``--repeats`` times in one process per table size: the time per greedy
step of each (one ``GROUP BY`` query per step either way), the one-time cost of storing the folded codes
(``SqlSource.folded``), the picks of both, and the process's peak resident memory, on the prefix and on all rows.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

DIR = "/tmp/fslab_bench_sql"
CHUNK = 500_000


def generate(path: str, rows: int, seed: int = 0) -> None:
    """Write ``rows`` rows in row groups of CHUNK (bounded memory), the same rows for any ``rows`` prefix."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    levels = np.array([f"level{i:03d}" for i in range(300)], dtype=object)
    writer = None
    for start in range(0, rows, CHUNK):
        m = min(CHUNK, rows - start)
        rng = np.random.default_rng([seed, start // CHUNK])
        cols = {f"real{j}": rng.normal(size=m) for j in range(8)}
        for j in (0, 1):
            cols[f"real{j}"][rng.random(m) < 0.05] = np.nan
        ints = {f"int{j}": rng.integers(0, 3 + 2 * j, size=m).astype(np.int64) for j in range(4)}
        text = rng.choice(np.array(["red", "green", "blue"], dtype=object), size=m)
        text[rng.random(m) < 0.02] = None
        wide = levels[rng.integers(0, 300, size=m)]
        score = cols["real2"] + ints["int1"] + (text == "red") + (rng.integers(0, 300, size=m) < 30) \
            + rng.normal(size=m)
        cols |= ints | {"colour": text, "level": wide, "y": (score > 1.5).astype(np.int64)}
        table = pa.table(cols)
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
    writer.close()


def child(mode: str, path: str, k: int, selector: str, method: str) -> None:
    """One measured run in a fresh process: prints a JSON line."""
    import resource

    import fslab

    t0 = time.perf_counter()
    if mode == "sql":
        source = fslab.from_sql(path, "y", method=method)
    else:
        import pandas as pd

        source = fslab.Dataset.from_frame(pd.read_parquet(path), "y").discretize(method)
    t1 = time.perf_counter()
    sel = fslab.select(source, k, selector)
    t2 = time.perf_counter()
    print(json.dumps({"load": t1 - t0, "select": t2 - t1, "features": list(sel.features),
                      "scores": [float(s) for s in sel.scores], "queries": getattr(source, "queries", 0),
                      "bytes": getattr(source, "bytes_received", 0),
                      "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def child_heldout(path: str, k: int, repeats: int, memory: str | None) -> None:
    """Plug-in vs held-out steps of BayesGreedy (balanced error) on one DuckDB source: a JSON line.

    A step is ``extensions(J, every other feature)``: one ``GROUP BY`` query and the criteria of its tables. Both
    estimates are timed on the same subsets J (the held-out selection's prefixes), alternated ``repeats`` times, so
    the ratio compares the same work; the selections themselves are run once each for their picks."""
    import resource

    import fslab
    from fslab.counting.folds import DEFAULT_FOLDS, DEFAULT_SEED
    from fslab.measures import measure

    t0 = time.perf_counter()
    if memory:   # DuckDB's own cap (default: 80% of RAM), the parquet file read through our connection
        import ibis

        source = fslab.from_sql(ibis.duckdb.connect(memory_limit=memory).read_parquet(path), "y")
    else:
        source = fslab.from_sql(path, "y")
    t1 = time.perf_counter()
    source.folded(DEFAULT_FOLDS, DEFAULT_SEED)   # stored once per (folds, seed): what the first held-out run pays
    t2 = time.perf_counter()
    picks = {e: list(fslab.select(source, k, "bayes-greedy", measure="balanced", estimate=e).features)
             for e in ("plug-in", "cross-fitted")}
    evaluators = {e: measure("balanced").on(source, estimate=e) for e in ("plug-in", "cross-fitted")}
    steps: dict[str, list[float]] = {e: [] for e in evaluators}
    everything = set(range(source.n_features))
    for _ in range(repeats):
        for estimate, ev in evaluators.items():
            start = time.perf_counter()
            for s in range(k):
                subset = picks["cross-fitted"][:s]
                ev.extensions(subset, sorted(everything - set(subset)))
            steps[estimate].append((time.perf_counter() - start) / k)
    print(json.dumps({"load": t1 - t0, "fold": t2 - t1, "steps": steps,
                      "picks": {e: [source.feature_names[j] for j in p] for e, p in picks.items()},
                      "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def heldout(args) -> None:
    """``--heldout``: plug-in vs held-out per step on the prefix and on all rows (fresh process each)."""
    print(f"BayesGreedy (balanced error) k={args.k}, held out over 5 folds vs plug-in, DuckDB (memory_limit "
          f"{args.duckdb_memory or 'default'}), {args.repeats} alternated runs each; load average at start "
          f"{os.getloadavg()[0]:.2f}")
    print(f"{'rows':>11} {'load s':>7} {'fold s':>7} {'plug-in s/step':>15} {'held-out s/step':>16} {'ratio':>6} "
          f"{'peak MB':>8}  picks (plug-in / held out)")
    sizes = ((args.prefix_path, args.prefix), (args.full_path, args.rows))
    for path, rows in sizes[1:] if args.only_all else sizes:
        memory = ["--duckdb-memory", args.duckdb_memory] if args.duckdb_memory else []
        out = subprocess.run([sys.executable, __file__, "--child-heldout", path, "--k", str(args.k), "--repeats",
                              str(args.repeats), *memory], capture_output=True, text=True, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        plug, held = (statistics.median(r["steps"][e]) for e in ("plug-in", "cross-fitted"))
        print(f"{rows:>11,} {r['load']:>7.2f} {r['fold']:>7.2f} {plug:>15.3f} {held:>16.3f} {held / plug:>6.2f} "
              f"{r['peak_mb']:>8.0f}  {r['picks']['plug-in']} / {r['picks']['cross-fitted']}", flush=True)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def wide_table(path: str, n_columns: int, rows: int, seed: int = 0) -> None:
    """A wide table (see ``--wide``) written to ``path``."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    ints, reals, parsed = int(0.4 * n_columns), int(0.4 * n_columns), max(1, n_columns // 100)
    cols = {f"i{j}": rng.integers(0, 4, size=rows) for j in range(ints)}
    cols |= {f"r{j}": np.where(rng.random(rows) < 0.1, np.nan, rng.normal(size=rows)) for j in range(reals)}
    cols |= {f"t{j}": rng.choice(["a", "b", "c"], size=rows) for j in range(n_columns - ints - reals - 3 * parsed)}
    cols |= {f"pct{j}": [f"{v}%" for v in rng.integers(0, 100, size=rows)] for j in range(parsed)}
    cols |= {f"amt{j}": [f"${v:,.2f}" for v in rng.lognormal(7.0, 0.8, size=rows)] for j in range(parsed)}
    days = pd.Timestamp("2021-01-01") + pd.to_timedelta(rng.integers(0, 700, size=parsed * rows), unit="D")
    cols |= {f"day{j}": days[j * rows:(j + 1) * rows].strftime("%Y-%m-%d").tolist() for j in range(parsed)}
    pd.DataFrame(cols | {"y": rng.choice(["no", "yes"], size=rows)}).to_parquet(path)


def child_wide(path: str, package: str | None) -> None:
    """One ``from_sql`` of a wide parquet file in a fresh process (``package``: a directory with an older fslab
    first on the path): a JSON line."""
    import resource

    if package:
        sys.path.insert(0, package)
    import fslab

    start, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    try:
        features, error = fslab.from_sql(path, "y").n_features, ""
    except Exception as err:   # the old code's DuckDB ran out of its 512 MB on 1,000 mixed columns
        features, error = 0, f"{type(err).__name__}: {str(err)[:90]}"
    end = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"cpu": end.ru_utime + end.ru_stime - start.ru_utime - start.ru_stime,
                      "wall": time.perf_counter() - t0, "peak_mb": end.ru_maxrss / 1024, "features": features,
                      "error": error, "fslab": os.path.dirname(fslab.__file__)}))


def wide(args) -> None:
    """``--wide``: from_sql on 300 / 1,000 / 3,000 columns, the older package (``--old``) and this one interleaved."""
    print(f"from_sql on a {args.wide_rows}-row table, DuckDB; median of {args.repeats}")
    print(f"{'columns':>8} {'code':>6} {'CPU s':>7} {'wall s':>7} {'peak MB':>8} {'load':>5}  result")
    for n in (300, 1000, 3000):
        path = os.path.join(DIR, f"wide{n}x{args.wide_rows}.parquet")
        if not os.path.exists(path):
            wide_table(path, n, args.wide_rows)
        runs: dict[str, list[dict]] = {"before": [], "after": []}
        for _ in range(args.repeats):
            for code, package in (("before", args.old), ("after", None)):
                if code == "before" and not package:
                    continue
                argv = [sys.executable, __file__, "--child-wide", path] + (["--old", package] if package else [])
                load = os.getloadavg()[0]
                try:
                    out = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=args.timeout)
                    runs[code].append(json.loads(out.stdout.strip().splitlines()[-1]) | {"load": load})
                except subprocess.TimeoutExpired:
                    runs[code].append({"cpu": math.nan, "wall": args.timeout, "peak_mb": math.nan, "features": 0,
                                       "error": f"still running after {args.timeout:.0f} s", "load": load})
        for code, results in runs.items():
            if results:
                med = {k: statistics.median(r[k] for r in results) for k in ("cpu", "wall", "peak_mb", "load")}
                said = results[-1]["error"] or f"{results[-1]['features']:,} features"
                print(f"{n:>8,} {code:>6} {med['cpu']:>7.1f} {med['wall']:>7.1f} {med['peak_mb']:>8.0f} "
                      f"{med['load']:>5.1f}  {said}", flush=True)


def run(mode: str, path: str, k: int, selector: str, method: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", mode, path, "--k", str(k), "--selector", selector,
                          "--method", method],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--prefix", type=int, default=1_000_000)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--selector", default="jmi")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--method", default="mean-std")
    parser.add_argument("--heldout", action="store_true", help="plug-in vs held-out per step (issue 31.2)")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "PATH"))
    parser.add_argument("--child-heldout", metavar="PATH")
    parser.add_argument("--duckdb-memory", help="--heldout: DuckDB's memory_limit, e.g. 300MB (default: DuckDB's)")
    parser.add_argument("--only-all", action="store_true", help="--heldout: all rows only, not the prefix")
    parser.add_argument("--wide", action="store_true", help="from_sql on 300 / 1,000 / 3,000 columns (issue 32.5)")
    parser.add_argument("--wide-rows", type=int, default=300)
    parser.add_argument("--old", help="--wide: a directory holding an older fslab package to time too")
    parser.add_argument("--timeout", type=float, default=600.0, help="--wide: seconds a run may take")
    parser.add_argument("--child-wide", metavar="PATH")
    args = parser.parse_args()
    if args.child_wide:
        child_wide(args.child_wide, args.old)
        return
    if args.wide:
        os.makedirs(DIR, exist_ok=True)
        wide(args)
        return
    if args.child:
        child(args.child[0], args.child[1], args.k, args.selector, args.method)
        return
    if args.child_heldout:
        child_heldout(args.child_heldout, args.k, args.repeats, args.duckdb_memory)
        return
    os.makedirs(DIR, exist_ok=True)
    full, prefix = (os.path.join(DIR, f"rows{n}.parquet") for n in (args.rows, args.prefix))
    for path, n in ((full, args.rows), (prefix, args.prefix)):
        if not os.path.exists(path):
            t = time.perf_counter()
            generate(path, n)
            print(f"generated {path} ({n:,} rows, {os.path.getsize(path) / 1e6:.0f} MB) in "
                  f"{time.perf_counter() - t:.0f} s", flush=True)
    if args.heldout:
        args.full_path, args.prefix_path = full, prefix
        heldout(args)
        return
    runs: dict[str, list[dict]] = {"sql prefix": [], "memory prefix": [], "sql all": []}
    for _ in range(args.repeats):   # interleaved
        runs["sql prefix"].append(run("sql", prefix, args.k, args.selector, args.method))
        runs["memory prefix"].append(run("memory", prefix, args.k, args.selector, args.method))
        runs["sql all"].append(run("sql", full, args.k, args.selector, args.method))
    same = all(a["features"] == b["features"] and a["scores"] == b["scores"]
               for a, b in zip(runs["sql prefix"], runs["memory prefix"], strict=True))
    load = os.getloadavg()
    print(f"\n{args.selector} k={args.k}, {args.method} bins; load average {load[0]:.2f} {load[1]:.2f}; median of "
          f"{args.repeats}; same features and scores on the prefix: {same}")
    print(f"{'run':<14} {'rows':>11} {'load s':>8} {'select s':>9} {'peak MB':>8} {'queries':>8} {'KB back':>8}")
    for name, results in runs.items():
        med = {key: statistics.median(r[key] for r in results) for key in ("load", "select", "peak_mb", "bytes")}
        rows = args.rows if name == "sql all" else args.prefix
        print(f"{name:<14} {rows:>11,} {med['load']:>8.2f} {med['select']:>9.2f} {med['peak_mb']:>8.0f} "
              f"{results[0]['queries']:>8} {med['bytes'] / 1024:>8.0f}")
    memory = statistics.median(r["load"] + r["select"] for r in runs["memory prefix"])
    sql = statistics.median(r["load"] + r["select"] for r in runs["sql prefix"])
    print(f"sql/memory time on the prefix: {sql / memory:.2f}; peak on all rows < 1 GB: "
          f"{statistics.median(r['peak_mb'] for r in runs['sql all']) < 1024}")


if __name__ == "__main__":
    main()
