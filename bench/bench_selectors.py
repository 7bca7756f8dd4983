"""Time the selectors on the shapes of Ahmed et al.'s Table 2 and print them beside the paper's MATLAB seconds.

Usage (from the repository root):
    .venv/bin/python bench/bench_selectors.py            # all shapes, median of 3 runs
    .venv/bin/python bench/bench_selectors.py --quick    # one run, smaller k lists, no 100,000 x 500 case
    .venv/bin/python bench/bench_selectors.py --only adult
    .venv/bin/python bench/bench_selectors.py --reference    # the ratio table: every greedy selector, fslab vs
                                                             # a plain numpy reference (CPU, interleaved, load)
    .venv/bin/python bench/bench_selectors.py --cmim-lazy    # lazy CMIM vs every pair every step

Shapes: Adult (the shipped Adult sample, 9,765 rows drawn with seed 0 = the paper's 20% training split size,
123 binary features); Gisette-shaped (4,200 x 5,000 synthetic three-level features, mean-std bins of
Gaussian data, 40 relevant); and a 100,000 x 500 binary synthetic case. Times are wall-clock medians of
single-process runs of ``fslab.selectors.select`` (trace included) and the CPU seconds of the same runs
(``time.process_time``: on a shared, loaded machine this is the better measure of the work done; on an idle
machine the two agree); peak memory is numpy's peak during one extra run (tracemalloc), beside the size of
the encoded data.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # single-process, single-thread timings (set before numpy)
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fslab.data.encoded import EncodedDataset  # noqa: E402
from fslab.selectors import select  # noqa: E402

# Ahmed et al., Table 2 (MATLAB seconds): Adult with c = 0.25 at k = 5/10/15; Gisette (bivariate) at k = 25/50/75.
PAPER = {
    ("adult", "bayes-greedy c"): (1.75, 12.78, 71.14), ("adult", "mi-greedy"): (1.95, 15.63, 94.06),
    ("adult", "bayes-score c"): (0.10, 0.10, 0.10), ("adult", "mi-score"): (0.17, 0.19, 0.17),
    ("adult", "mrmr"): (1.32, 5.27, 11.71), ("adult", "fisher"): (0.06, 0.08, 0.08),
    ("gisette", "bayes-greedy s=2"): (954, 3784, 8475), ("gisette", "mi-greedy s=2"): (2123, 8330, 18475),
    ("gisette", "bayes-score"): (2.62, 2.65, 2.71), ("gisette", "mi-score"): (2.67, 2.73, 2.76),
    ("gisette", "mrmr"): (1242, 5046, 11384), ("gisette", "fisher"): (1.01, 1.08, 1.04),
}
# FEAST (C library) measured on this machine, quoted in issue 3, at the largest k.
FEAST = {("adult", "mi-greedy"): 0.12, ("adult", "mrmr"): 0.047, ("adult", "jmi"): 0.073,
         ("gisette", "jmi"): 6.8, ("gisette", "mrmr"): 4.1, ("gisette", "mi-greedy"): 42.0}
# Issue 3 targets (seconds) at the largest k.
TARGET = {("adult", "bayes-greedy"): 0.03, ("adult", "mi-greedy"): 0.03, ("adult", "mrmr"): 0.015,
          ("adult", "jmi"): 0.015, ("gisette", "bayes-greedy s=2"): 1.0, ("gisette", "jmi"): 1.0,
          ("gisette", "mrmr"): 1.0, ("gisette", "mi-greedy"): 1.5}

CASES = {
    "adult": [("bayes-greedy", {}), ("bayes-greedy c", {"measure": "cost-sensitive", "c": 0.25}),
              ("mi-greedy", {}), ("mrmr", {}), ("jmi", {}), ("cmim", {}),
              ("bayes-score c", {"measure": "cost-sensitive", "c": 0.25}), ("mi-score", {}), ("fisher", {}),
              ("bayes-greedy s=2", {"s": 2})],
    "gisette": [("bayes-greedy s=2", {"s": 2}), ("bayes-greedy c s=2", {"s": 2, "measure": "cost-sensitive",
                                                                          "c": 0.25}),
                ("mi-greedy s=2", {"s": 2}), ("jmi", {}), ("mrmr", {}), ("mi-greedy", {}),
                ("bayes-score", {}), ("mi-score", {}), ("fisher", {})],
    "100k": [("bayes-greedy", {}), ("mi-greedy", {}), ("mrmr", {}), ("jmi", {}), ("bayes-greedy s=2", {"s": 2})],
}
KS = {"adult": (5, 10, 15), "gisette": (25, 50, 75), "100k": (5, 15, 25)}
QUICK_KS = {"adult": (15,), "gisette": (75,), "100k": (15,)}


def adult_shaped() -> EncodedDataset:
    from fslab.data.samples import load_sample

    full = load_sample("adult").discretize()
    rows = np.sort(np.random.default_rng(0).choice(full.n_rows, 9765, replace=False))
    return full.subsample(rows)


def gaussian_three_level(m: int, n: int, relevant: int, seed: int) -> EncodedDataset:
    """Mean-std bins of Gaussian features, ``relevant`` of them shifted by the class (like a discretised Gisette)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, m)
    X = np.empty((m, n), dtype=np.int8)
    for start in range(0, n, 500):  # in blocks, to keep the float temporaries small
        block = rng.standard_normal((m, min(500, n - start)), dtype=np.float32)
        rel = max(0, min(relevant - start, block.shape[1]))
        block[:, :rel] += 0.6 * (2 * y[:, None] - 1)
        X[:, start:start + block.shape[1]] = np.digitize(block, [-1.0, 1.0])
    return EncodedDataset(X, y, arities=np.full(n, 3))


def binary_100k(seed: int = 1) -> EncodedDataset:
    rng = np.random.default_rng(seed)
    m, n = 100_000, 500
    X = (rng.random((m, n), dtype=np.float32) < 0.3).astype(np.int8)
    score = X[:, :10].sum(axis=1) + rng.normal(0, 1.0, m)
    return EncodedDataset(X, (score > 3).astype(int), arities=np.full(n, 2))


# --- a plain numpy reference (issue 13, item 7): bit-packed level planes, popcounts, label-pure cells skipped --------

def _planes(codes: np.ndarray, n_values: int) -> np.ndarray:
    """(columns, values, words) uint64: bit r of plane (j, v) is set iff codes[r, j] == v."""
    m, n = codes.shape
    nbytes = -(-m // 8)
    out = np.zeros((n, n_values, -(-m // 64) * 8), dtype=np.uint8)
    for v in range(n_values):
        out[:, v, :nbytes] = np.packbits(codes.T == v, axis=1)
    return out.view(np.uint64)


def _pop(a: np.ndarray) -> np.ndarray:
    return np.bitwise_count(a).sum(axis=-1, dtype=np.int64)


def _mi(c: np.ndarray) -> np.ndarray:
    """I(A; B) in nats of count tables c (..., a, b)."""
    c = c.astype(np.float64)
    n = c.sum(axis=(-2, -1), keepdims=True)
    pa, pb = c.sum(axis=-1, keepdims=True), c.sum(axis=-2, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(c > 0, c * np.log(c * n / (pa * pb)), 0.0)
    return t.sum(axis=(-2, -1)) / n[..., 0, 0]


def _first_best(score: np.ndarray) -> int:
    """DESIGN.md's tie rule: the lowest index within 1e-12 * max(1, |best|) of the best."""
    best = score.max()
    return int(np.argmax(score >= best - 1e-12 * max(1.0, abs(best))))


def reference_mrmr(X: np.ndarray, y: np.ndarray, k: int, n_values: int) -> list[int]:
    P, C = _planes(X, n_values), _planes(y[:, None], 2)[0]
    relevance = _mi(_pop(P[:, :, None, :] & C[None, None, :, :]))
    chosen, redundancy = [_first_best(relevance)], np.zeros(X.shape[1])
    for _ in range(k - 1):
        f = chosen[-1]
        redundancy += _mi(_pop(P[:, :, None, :] & P[f][None, None, :, :]))
        score = relevance - redundancy / len(chosen)
        score[chosen] = -np.inf
        chosen.append(_first_best(score))
    return chosen


def _pair_entropies(P: np.ndarray, C: np.ndarray, joint: np.ndarray, f: int, m: int) -> np.ndarray:
    """H(Y | X_j, X_f) in nats for every j; a label-pure cell X_f = u adds nothing, so only the planes of mixed
    cells are counted."""
    mixed = [u for u in range(P.shape[1]) if (joint[f, u] > 0).all()]
    planes = P[f][mixed][:, None, :] & C[None, :, :]  # (mixed u, 2, words)
    c = _pop(P[:, :, None, None, :] & planes[None, None]).astype(np.float64)  # (n, v, u, 2)
    tot = c.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (np.where(tot > 0, tot * np.log(tot), 0.0).sum(axis=(1, 2))
                - np.where(c > 0, c * np.log(c), 0.0).sum(axis=(1, 2, 3))) / m


def _pairwise(X: np.ndarray, y: np.ndarray, k: int, n_values: int, cmim: bool) -> list[int]:
    """JMI: score_j = sum_i I(Xj, Xi; Y) = sum_i H(Y) - H(Y | Xj, Xi). CMIM: min(I(Xj;Y), min_i I(Xj;Y|Xi)),
    I(Xj;Y|Xi) = H(Y|Xi) - H(Y|Xj,Xi); every candidate recounted each step (no lazy evaluation)."""
    P, C = _planes(X, n_values), _planes(y[:, None], 2)[0]
    m = X.shape[0]
    prior = np.bincount(y, minlength=2)
    h_y = np.log(m) - (prior[prior > 0] * np.log(prior[prior > 0])).sum() / m
    joint = _pop(P[:, :, None, :] & C[None, None, :, :])  # (n, values, 2)
    relevance = _mi(joint)
    chosen = [_first_best(relevance)]
    acc = relevance.copy() if cmim else np.zeros(X.shape[1])
    for _ in range(k - 1):
        f = chosen[-1]
        h = _pair_entropies(P, C, joint, f, m)
        acc = np.minimum(acc, h_y - relevance[f] - h) if cmim else acc + h_y - h
        score = acc.copy()
        score[chosen] = -np.inf
        chosen.append(_first_best(score))
    return chosen


def reference_jmi(X: np.ndarray, y: np.ndarray, k: int, n_values: int) -> list[int]:
    return _pairwise(X, y, k, n_values, cmim=False)


def reference_cmim(X: np.ndarray, y: np.ndarray, k: int, n_values: int) -> list[int]:
    return _pairwise(X, y, k, n_values, cmim=True)


def _subset_greedy(X: np.ndarray, y: np.ndarray, k: int, n_values: int, zero_one: bool) -> list[int]:
    """MIGreedy (max I(X_S;Y) = min H(Y|X_S)) or BayesGreedy with the 0-1 error (min sum_cells min(n_0, n_1)).

    The subset's cells are one code per row; rows of label-pure cells are dropped (they add nothing to H(Y|X_S)
    nor to the 0-1 error, and stay pure); each step counts (cell, X_j, y) for every candidate with one bincount
    per block of candidates over the remaining rows."""
    m, n = X.shape
    XT = np.ascontiguousarray(X.T)
    P = _planes(X, n_values)  # (n, values, words)
    words = P.shape[-1]
    rows, cell, n_cells, chosen = np.arange(m), np.zeros(m, dtype=np.int64), 1, []

    def popcounts(s: int, e: int) -> np.ndarray:  # (e - s, cells x values, 2) from the cells' class planes
        member = np.zeros((n_cells, 2, m), dtype=bool)
        member[cell, y[rows], rows] = True
        G = np.zeros((n_cells, 2, words * 8), dtype=np.uint8)
        G[:, :, :-(-m // 8)] = np.packbits(member, axis=-1)
        G = G.view(np.uint64)
        return _pop(P[s:e, None, :, None, :] & G[None, :, None, :, :]).reshape(e - s, -1, 2)

    for _ in range(k):
        slots = n_cells * n_values * 2
        base = cell * (n_values * 2) + y[rows]
        loss = np.zeros(n)
        bits = slots * words <= 1 << 14  # few cells: popcounts of bit planes; many: one bincount of the rows
        block = max(1, min((1 << 22) // max(rows.size, 1), (1 << 22) // (slots * (words if bits else 1))))
        for s in range(0, n, block):
            e = min(n, s + block)
            if bits:
                c = popcounts(s, e).astype(np.float64)
            else:
                codes = XT[s:e][:, rows] * 2 + base + (np.arange(e - s, dtype=np.int64) * slots)[:, None]
                c = np.bincount(codes.ravel(), minlength=(e - s) * slots).reshape(e - s, -1, 2).astype(np.float64)
            if zero_one:
                loss[s:e] = c.min(axis=-1).sum(axis=1)
            else:
                t = c.sum(axis=-1)
                loss[s:e] = (t * np.log(np.maximum(t, 1)) - (c * np.log(np.maximum(c, 1))).sum(axis=-1)).sum(axis=1)
        loss[chosen] = np.inf
        f = _first_best(-loss)
        chosen.append(f)
        code = cell * n_values + XT[f, rows]
        _, cell = np.unique(code, return_inverse=True)
        mixed = np.bincount(cell, weights=y[rows], minlength=cell.max() + 1)
        size = np.bincount(cell)
        keep = (mixed[cell] > 0) & (mixed[cell] < size[cell])
        rows = rows[keep]
        _, cell = np.unique(cell[keep], return_inverse=True)
        n_cells = int(cell.max()) + 1 if cell.size else 1
        if not rows.size:  # every cell pure: the rest tie at zero loss, lowest indices first
            chosen += [j for j in range(n) if j not in chosen][:k - len(chosen)]
            break
    return chosen


def reference_mi_greedy(X: np.ndarray, y: np.ndarray, k: int, n_values: int) -> list[int]:
    return _subset_greedy(X, y, k, n_values, zero_one=False)


def reference_bayes_greedy(X: np.ndarray, y: np.ndarray, k: int, n_values: int) -> list[int]:
    return _subset_greedy(X, y, k, n_values, zero_one=True)


REFERENCES = {"mrmr": reference_mrmr, "jmi": reference_jmi, "cmim": reference_cmim,
              "mi-greedy": reference_mi_greedy, "bayes-greedy": reference_bayes_greedy}


def reference_table(repeats: int, shapes: list[str] | None = None) -> None:
    """The ratio table (issue 27.4): every greedy selector, fslab against the plain numpy reference, CPU seconds of
    interleaved runs, medians of ``repeats``, the load average after each pair of runs. fslab's run includes its
    own evaluator and trace, as ``select`` does."""
    from fslab.selectors import select

    builders = {"adult": ("adult 9765x123", adult_shaped, 15),
                "gisette": ("gisette-like 4200x5000", lambda: gaussian_three_level(4200, 5000, 40, 0), 25),
                "100k": ("binary 100000x500", binary_100k, 15)}
    print(f"# {os.cpu_count()} cores shared with other jobs; CPU s (time.process_time), medians of {repeats} "
          "interleaved runs; ratio = fslab / reference (goal <= 1.5)")
    header = f"{'shape':<24}{'selector':<14}{'k':>4}{'fslab s':>10}{'numpy s':>10}{'ratio':>8}{'same picks':>12}" \
             f"{'load':>14}"
    print(header)
    print("-" * len(header))
    for key in shapes or list(builders):
        label, build, k = builders[key]
        ds = build()
        X, y, n_values = np.asarray(ds.X), np.asarray(ds.y), int(ds.arities.max())
        for name, ref in REFERENCES.items():
            ours, theirs, loads = [], [], []
            for _ in range(repeats):
                c = time.process_time()
                sel = select(ds, k, name)
                ours.append(time.process_time() - c)
                c = time.process_time()
                picks = ref(X, y, k, n_values)
                theirs.append(time.process_time() - c)
                loads.append(os.getloadavg()[0])
            a, b = float(np.median(ours)), float(np.median(theirs))
            print(f"{label:<24}{name:<14}{k:>4}{a:>10.4f}{b:>10.4f}{a / b:>8.2f}"
                  f"{str(list(sel.features) == picks):>12}{min(loads):>7.1f}-{max(loads):<6.1f}", flush=True)


def lazy_cmim_table(repeats: int) -> None:
    """Lazy CMIM (Fleuret's partial minima; the default wherever the dense engine counts pairs, issue 35.1) against
    counting every pair at every step (issue 27.3), both forced here whatever the width:
    CPU seconds, interleaved, medians of ``repeats``; each run builds its own evaluator (no shared caches)."""
    from fslab.data.samples import load_sample
    from fslab.measures import measure
    from fslab.selectors._loop import run_search
    from fslab.selectors._scorers import MIGainScorer

    shapes = {"adult 48842x123": (lambda: load_sample("adult").discretize(), 15),
              "adult 9765x123": (adult_shaped, 15),
              "gisette-like 4200x5000": (lambda: gaussian_three_level(4200, 5000, 40, 0), 15),
              "gisette-like 4200x5000 k=75": (lambda: gaussian_three_level(4200, 5000, 40, 0), 75)}
    print(f"# load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; CPU s, medians of {repeats} "
          "interleaved runs")
    header = f"{'shape':<30}{'k':>4}{'lazy s':>9}{'full s':>9}{'ratio':>7}{'pairs lazy':>12}{'pairs full':>12}" \
             f"{'same':>6}{'load':>6}"
    print(header)
    print("-" * len(header))
    for label, (build, k) in shapes.items():
        ds = build()
        times = {True: [], False: []}
        picks, folded = {}, 0
        for _ in range(repeats):
            for lazy in (True, False):
                c0 = time.process_time()
                scorer = MIGainScorer(measure("mi").on(ds), "cmim", lazy=lazy)
                log = run_search(ds.n_features, k, scorer)
                times[lazy].append(time.process_time() - c0)
                picks[lazy] = (log.order, log.n_tied)
                if lazy:
                    folded = int(scorer.seen.sum())
        a, b = float(np.median(times[True])), float(np.median(times[False]))
        full = (k - 1) * ds.n_features - k * (k - 1) // 2
        print(f"{label:<30}{k:>4}{a:>9.3f}{b:>9.3f}{a / b:>7.2f}{folded:>12,}{full:>12,}"
              f"{str(picks[True] == picks[False]):>6}{os.getloadavg()[0]:>6.1f}", flush=True)


def timed(ds, k: int, selector: str, params: dict, repeats: int) -> tuple[float, float, float]:
    """(median wall seconds, median CPU seconds of this process, peak traced MiB) of ``select``."""
    wall, cpu = [], []
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        select(ds, k, selector, **params)
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    tracemalloc.start()
    select(ds, k, selector, **params)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return float(np.median(wall)), float(np.median(cpu)), peak / 2**20


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one run per case, largest k only, no 100k case")
    parser.add_argument("--only", choices=sorted(CASES), action="append", help="run only these shapes")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--reference", action="store_true",
                        help="ratio of fslab's greedy selectors to plain numpy references (bit planes, popcounts, "
                             "pure rows dropped); --only picks the shapes")
    parser.add_argument("--cmim-lazy", action="store_true", help="lazy CMIM against counting every pair (27.3)")
    args = parser.parse_args(argv)
    if args.cmim_lazy:
        lazy_cmim_table(max(args.repeats, 3))
        return
    if args.reference:
        reference_table(max(args.repeats, 3), args.only)
        return
    shapes = args.only or (["adult", "gisette"] if args.quick else ["adult", "gisette", "100k"])
    repeats = 1 if args.quick else args.repeats
    builders = {"adult": adult_shaped, "gisette": lambda: gaussian_three_level(4200, 5000, 40, 0),
                "100k": binary_100k}
    header = f"{'shape':<22}{'selector':<20}{'k':>4}{'wall s':>9}{'cpu s':>9}{'peak MiB':>10}{'data MiB':>10}" \
             f"{'paper s':>10}{'FEAST s':>9}{'target s':>10}"
    print(f"# load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; medians of {repeats} run(s)")
    print(header)
    print("-" * len(header))
    for shape in shapes:
        ds = builders[shape]()
        label = f"{shape} {ds.n_rows}x{ds.n_features}"
        data_mib = ds.X.nbytes / 2**20
        ks = QUICK_KS[shape] if args.quick else KS[shape]
        for name, params in CASES[shape]:
            selector = name.split()[0]
            for k in ks:
                seconds, cpu, peak = timed(ds, k, selector, params, repeats)
                paper = PAPER.get((shape, name))
                paper_s = f"{paper[KS[shape].index(k)]:g}" if paper and k in KS[shape] else ""
                last = k == KS[shape][-1]
                feast = f"{FEAST[(shape, name)]:g}" if last and (shape, name) in FEAST else ""
                target = f"{TARGET[(shape, name)]:g}" if last and (shape, name) in TARGET else ""
                print(f"{label:<22}{name:<20}{k:>4}{seconds:>9.4f}{cpu:>9.4f}{peak:>10.1f}{data_mib:>10.1f}"
                      f"{paper_s:>10}{feast:>9}{target:>10}", flush=True)


if __name__ == "__main__":
    main()
