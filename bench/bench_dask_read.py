"""Reading partitioned files into a DaskSource (``from_dask`` on ``dd.read_parquet``): how often the files are read,
the wall time with and without ``persist=True``, and the bytes of statistics that reach the client.

    .venv/bin/python bench/bench_dask_read.py                  # 200,000 rows x 24 columns in 8 parquet files
    .venv/bin/python bench/bench_dask_read.py --rows 1000000 --repeats 5

1. Reads: every file read is counted (a wrapper around the partition reader), per method: mean-std needs the
   statistics pass (the ID's distinct values counted in it), the sums and the squares of the real columns, then
   the codes; quantile bins the statistics, 7 radix-select passes and the codes.
2. Wall seconds on a LocalCluster of 2 single-thread worker processes, ``persist`` False, "auto" (the default:
   after the first pass, when the data fit in a quarter of the workers' memory) and True, interleaved, medians.
3. Bytes of the statistics pass to the client on data with an ID column (a distinct text value per row): the
   per-partition statistics with every category (as before issue 23) vs the statistics merged on the workers with
   capped value sets and the ID's distinct values counted there as hashes (what reaches the client now).

The load average is printed beside every table: the machine is shared, so compare ratios, not seconds.
"""

from __future__ import annotations

import argparse
import functools
import os
import pickle
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fslab.data import dask_read  # noqa: E402


def load() -> str:
    return "load average " + ", ".join(f"{v:.2f}" for v in os.getloadavg())


def make_files(folder: Path, rows: int, parts: int, seed: int = 2026) -> None:
    """16 real columns, 4 small integer columns, 2 text columns, a text ID and a binary target."""
    rng = np.random.default_rng(seed)
    cols = {f"r{j}": rng.normal(size=rows) for j in range(16)}
    cols |= {f"i{j}": rng.integers(0, 5, size=rows) for j in range(4)}
    cols |= {f"t{j}": rng.choice(["a", "b", "c", "d"], size=rows) for j in range(2)}
    cols["id"] = np.char.add("row-", np.arange(rows).astype(str))
    cols["y"] = (cols["r0"] + (cols["i0"] > 2) + rng.normal(size=rows) > 1).astype(int)
    frame = pd.DataFrame(cols)
    for i, chunk in enumerate(np.array_split(np.arange(rows), parts)):
        frame.iloc[chunk].to_parquet(folder / f"part-{i:03d}.parquet", index=False)


READS = "fslab_bench_reads"


def counting_reader(path: str, columns=None):
    """Read one file, counting the read in a file beside it (workers are other processes)."""
    with open(Path(path).parent / READS, "a") as fh:
        fh.write("1\n")
    return pd.read_parquet(path, columns=columns)


def frame_of(folder: Path, dd, delayed):
    files = sorted(str(f) for f in folder.glob("*.parquet"))
    meta = pd.read_parquet(files[0]).iloc[:0]
    return dd.from_delayed([delayed(counting_reader)(f) for f in files], meta=meta)


def reads(folder: Path) -> int:
    path = folder / READS
    n = len(path.read_text().splitlines()) if path.exists() else 0
    path.unlink(missing_ok=True)
    return n


def stats_bytes(folder: Path) -> tuple[int, int]:
    """(per-partition statistics with every category, as before issue 23; the statistics merged on the workers with
    capped value sets, the ID counted there as hashes) in pickled bytes to the client."""
    files = sorted(folder.glob("*.parquet"))
    frames = [pd.read_parquet(f) for f in files]
    numeric = [c for c in frames[0].columns if c[0] in "ri" and c[1:].isdigit()]
    text = [c for c in frames[0].columns if c.startswith("t") or c == "id"]
    full = [dask_read._partition_stats(f, numeric, text, "y", True, 10, 1 << 62) for f in frames]
    capped = [dask_read._partition_stats(f, numeric, text, "y", True, 10, dask_read.MAX_LEVELS) for f in frames]
    merged = dask_read._finish_stats(functools.reduce(
        lambda a, b: dask_read._merge_stats(10, dask_read.MAX_LEVELS, a, b), capped))
    assert merged["everything"][text.index("id")] == sum(len(f) for f in frames)
    return len(pickle.dumps(full)), len(pickle.dumps(merged))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--parts", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    import dask
    import dask.dataframe as dd
    from distributed import Client, LocalCluster, wait

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        make_files(folder, args.rows, args.parts)
        full, merged = stats_bytes(folder)
        print(f"## statistics to the client, {args.rows:,} rows with a text ID, {args.parts} partitions ({load()})")
        print(f"per-partition statistics with every category: {full:,} bytes")
        print(f"merged on the workers, categories capped at {dask_read.MAX_LEVELS:,}, the ID counted there: "
              f"{merged:,} bytes ({full / merged:.0f}x less)")
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                Client(cluster):
            print(f"\n## from_dask on {args.parts} parquet files, LocalCluster 2 x 1 thread ({load()})")
            print("| method | persist | file reads | median wall s | runs |")
            print("|---|---|---|---|---|")
            for method in ("mean-std", "quantile"):
                times: dict[bool | str, list[float]] = {False: [], "auto": [], True: []}
                counted: dict[bool | str, int] = {}
                for _ in range(args.repeats):
                    for persist in times:   # interleaved
                        reads(folder)
                        start = time.perf_counter()
                        src = dask_read.from_dask(frame_of(folder, dd, dask.delayed), "y", method=method,
                                                  persist=persist)
                        wait(src._parts)   # the codes are persisted asynchronously: time (and count) them too
                        times[persist].append(time.perf_counter() - start)
                        counted[persist] = reads(folder)
                        assert "id" not in src.feature_names
                        del src
                base = statistics.median(times[False])
                for persist in times:
                    med = statistics.median(times[persist])
                    print(f"| {method} | {persist} | {counted[persist]} ({counted[persist] / args.parts:.0f} per "
                          f"file) | {med:.2f} ({med / base:.2f}x) | {args.repeats} |")
            print(f"\n({load()})")


if __name__ == "__main__":
    main()
