"""Held-out (cross-fitted) against plug-in cost per selection, issue 35.2: the table of bench/README.md.

Usage (from the repository root):
    .venv/bin/python bench/bench_heldout.py              # every shape, median of 5 interleaved pairs
    .venv/bin/python bench/bench_heldout.py --pairs 3 --only splice,optdigits
    .venv/bin/python bench/bench_heldout.py --rows       # rows counted per step: engines and the held-out row path
    .venv/bin/python bench/bench_heldout.py --pairs 3 --against /tmp/tree  # also another checkout, same rounds
    .venv/bin/python bench/bench_heldout.py --profile   # where each held-out selection's time goes (cProfile shares)

Each pair runs the plug-in and the cross-fitted ``select(..., k)`` back to back in this one process, in alternating
order, each on a fresh copy of the source (no memo carried over); CPU seconds (``time.process_time``, one BLAS
thread). The ratio is the median of the per-pair ratios, so load changes between pairs cancel out; the load average
(1 minute) is printed beside every row, as the machine is shared. ``--against ROOT`` imports ``ROOT/fslab`` as
``fslab_twin`` (``bench_feast.load_twin``) and times its plug-in and held-out runs in the same rounds, on the twin's own
copy of the same codes, rotating the four runs' order; the held-out picks of both trees must be equal.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_feast import load_twin, twin_data  # noqa: E402
from bench_selectors import gaussian_three_level  # noqa: E402

from fslab.data.samples import load_sample  # noqa: E402
from fslab.measures import measure as get_measure  # noqa: E402
from fslab.selectors import select  # noqa: E402

CASES = (("bayes-greedy", "zero-one"), ("bayes-greedy", "balanced"), ("mi-greedy", None), ("jmi", None),
         ("cmim", None))


def shapes(only: set[str] | None) -> dict:
    makers = {"adult": lambda: load_sample("adult").discretize(), "splice": lambda: load_sample("splice").discretize(),
              "optdigits": lambda: load_sample("optdigits").discretize(),
              "gisette-shaped 4,200 x 2,000": lambda: gaussian_three_level(4200, 2000, relevant=40, seed=0)}
    return {name: make() for name, make in makers.items() if only is None or name.split()[0] in only}


def _timed(source, k: int, selector: str, measure: str | None, estimate: str, choose=select
           ) -> tuple[float, tuple[int, ...]]:
    kwargs = {"measure": measure} if measure else {}
    fresh = source.replace()
    start = time.process_time()
    picked = choose(fresh, k, selector=selector, estimate=estimate, **kwargs).features
    return time.process_time() - start, tuple(int(j) for j in picked)


def load() -> str:
    return f"{os.getloadavg()[0]:.2f}"


def run(pairs: int, k: int, only: set[str] | None, against: str | None = None) -> None:
    twin = load_twin(against) if against else None
    print(f"k = {k}, {pairs} interleaved pairs; CPU seconds, medians; load = 1-minute load average after the row"
          + (f"; against = {against}" if against else ""))
    print(f"{'data':<30} {'selector':<13} {'measure':<9} {'plug-in s':>9} {'held-out s':>10} {'ratio':>6}"
          + (f" {'against: plug-in s':>18} {'held-out s':>10} {'ratio':>6}" if twin else "") + f" {'load':>5}")
    for name, source in shapes(only).items():
        other = twin_data(twin, source) if twin is not None else None
        runs = [("plug-in", source, select), ("cross-fitted", source, select)]
        if twin is not None:
            runs += [("plug-in", other, twin.select), ("cross-fitted", other, twin.select)]
        for selector, measure in CASES:
            if measure == "balanced" and len(source.labels) > 2:
                continue   # a binary measure
            times: list[list[float]] = [[] for _ in runs]
            picks: dict[int, tuple[int, ...]] = {}
            for i in range(pairs):
                for r in np.roll(np.arange(len(runs)), -i):   # each round starts one run later
                    est, data, choose = runs[r]
                    took, picks[r] = _timed(data, k, selector, measure, est, choose)
                    times[r].append(took)
            if twin is not None:
                assert picks[1] == picks[3], f"{name} {selector} held out: {picks[1]} here, {against}: {picks[3]}"
            cells = []
            for plug, cross in zip(times[0::2], times[1::2], strict=True):
                ratio = float(np.median(np.array(cross) / np.maximum(plug, 1e-9)))
                cells.append(f"{np.median(plug):>9.3f} {np.median(cross):>10.3f} {ratio:>6.2f}")
            print(f"{name:<30} {selector:<13} {measure or '(own)':<9} " + "          ".join(cells) + f" {load():>5}",
                  flush=True)


def rows_kept(k: int, only: set[str] | None) -> None:
    """Rows of the mixed cells the fast engine keeps counting at each step of the held-out selection's path: the
    plug-in drops class-pure cells, the held-out engine only cells pure in (fold, class), the held-out row path
    also cells in one fold and class-pure cells of a class that loses nothing (0-1: the prior's class)."""
    for name, source in shapes(only).items():
        path = list(select(source, k, "bayes-greedy", estimate="cross-fitted").features)
        plug, cross = get_measure("zero-one").on(source), get_measure("zero-one").on(source, estimate="cross-fitted")
        if plug.counter is None or cross.counter is None:   # more than 16 (fold x) classes: plain tables
            print(f"{name}: the held-out estimate counts plain tables ({len(source.labels)} classes x 5 folds)")
            continue
        kept = [(plug.counter._state(tuple(path[:t])).rows.size, cross.counter._state(tuple(path[:t])).rows.size,
                 cross._active(cross.mixed_cells, tuple(path[:t]))[0].size) for t in range(k)]
        print(f"{name}: rows counted at steps 1..{k} (plug-in engine / held-out engine / held-out row path): "
              + ", ".join(f"{a:,}/{b:,}/{c:,}" for a, b, c in kept))


# cProfile shares of a held-out selection: (label, function names whose cumulative time it is, names subtracted)
PARTS = (("engine counts", ("mixed_count_blocks",), ()),
         ("engine rule", ("_from_mixed_cells",), ("mixed_count_blocks",)),
         ("row path", ("_row_extensions",), ()), ("pair counts", ("pair_key_counts",), ()),
         ("pair rule", ("pair_criteria",), ()), ("plain tables", ("_plain_extensions",), ()),
         ("folds", ("assign_folds",), ()))


def _cumulative(stats: pstats.Stats, names: tuple[str, ...], caller: str | None = None) -> float:
    """Cumulative seconds of the functions called ``names`` (only their calls from ``caller`` if given)."""
    total = 0.0
    for (_, _, fn), (_, _, _, cum, callers) in stats.stats.items():   # type: ignore[attr-defined]
        if fn in names:
            total += cum if caller is None else sum(v[3] for k, v in callers.items() if k[2] == caller)
    return total


def profile(k: int, only: set[str] | None, runs: int = 3) -> None:
    """Per case: held-out and plug-in CPU seconds, and the held-out run's cProfile shares (``PARTS``; "sort" and
    "part rule" are the row path's ``np.sort`` and its parts' held-out rule; "rest": the selector's own work, the
    value bits and the trace). Per estimate one warm-up run, ``runs`` timed runs (medians), then ``runs`` profiled
    runs, all on fresh copies."""
    for name, source in shapes(only).items():
        for selector, measure in CASES:
            if measure == "balanced" and len(source.labels) > 2:
                continue
            cpu = {}
            for est in ("plug-in", "cross-fitted"):
                _timed(source, k, selector, measure, est)
                cpu[est] = float(np.median([_timed(source, k, selector, measure, est)[0] for _ in range(runs)]))
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(runs):
                _timed(source, k, selector, measure, "cross-fitted")
            prof.disable()
            stats = pstats.Stats(prof)
            total = stats.total_tt   # type: ignore[attr-defined]
            shares = {label: _cumulative(stats, names) - _cumulative(stats, minus) for label, names, minus in PARTS}
            shares["rest"] = total - sum(shares.values())
            shares["  sort"] = _cumulative(stats, ("sort",), "_row_extensions")
            shares["  part rule"] = sum(_cumulative(stats, (f,), "_row_extensions") for f in (
                "_pure_shares", "_held_out_cells", "held_out_cell_entropy", "held_out_run_entropy"))
            print(f"{name} {selector} {measure or ''}: held out {cpu['cross-fitted']:.3f} s, plug-in "
                  f"{cpu['plug-in']:.3f} s ({cpu['cross-fitted'] / cpu['plug-in']:.1f}x); " + ", ".join(
                      f"{label.strip()} {100 * v / total:.0f}%" for label, v in shares.items() if v >= 0.01 * total)
                  + f"; load {load()}", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--only", help="comma-separated: adult, splice, optdigits, gisette-shaped")
    parser.add_argument("--rows", action="store_true")
    parser.add_argument("--profile", action="store_true", help="cProfile shares of every held-out selection")
    parser.add_argument("--against", metavar="ROOT", help="also time ROOT/fslab (another checkout) in the same rounds")
    args = parser.parse_args()
    only = None if args.only is None else {s.strip() for s in args.only.split(",")}
    if args.rows:
        rows_kept(args.k, only)
    elif args.profile:
        profile(args.k, only)
    else:
        run(args.pairs, args.k, only, args.against)
