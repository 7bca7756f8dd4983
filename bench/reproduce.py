"""Reproduce Section 4 of Ahmed, Narasimhan & Agarwal at a reduced scale on the shipped data.

For each data set (Mushroom, Adult, Semeion, Splice, Waveform) and measure (0-1; cost-sensitive with
c = 0.25 and 0.75; balanced; F1), each selector's first k features (k = 1..15) feed the paper's learner
for the measure (RBF SVM, cost-sensitive SVM, balanced SVM, logistic regression + F1 threshold); the
test measure is averaged over random splits (70/30; Adult 20/80). Features are binary except Waveform's,
which are discretised by mean +- sd for selection (footnote 6) and used raw by the learner.

Scale: ``--train-rows`` training rows per split (the data set is subsampled, stratified, to
train-rows / train-fraction rows); ``--full`` uses every row and tunes hyper-parameters on 20% of the
training part as the paper did; ``--quick`` is a smoke run (500 training rows, 2 splits, k in 1, 5, 10).

Writes bench/results/<tag>/scores.csv (every split), summary.csv (mean, sd) and one HTML plot per
(data set, measure), with <tag> = quick, full or train<rows>; prints the k = 5 and k = 10 table and the run time.

    .venv/bin/python bench/reproduce.py [--quick | --full] [--datasets mushroom adult] [--splits 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fslab.curves import learning_curves  # noqa: E402
from fslab.learners import LEARNERS  # noqa: E402
from fslab.measures import measure as get_measure  # noqa: E402
from fslab.plots.compare import learning_curve_figure, selector_label  # noqa: E402
from fslab.samples import load_sample  # noqa: E402

DATASETS = ("mushroom", "adult", "semeion", "splice", "waveform")
TASKS = {  # name -> (measure, measure parameters)
    "0-1": ("zero-one", {}),
    "cost c=0.25": ("cost-sensitive", {"c": 0.25}),
    "cost c=0.75": ("cost-sensitive", {"c": 0.75}),
    "balanced": ("balanced", {}),
    "F1": ("f-beta", {"beta": 1.0}),
}
SELECTORS = ("bayes-greedy", "bayes-score", "mi-greedy", "mi-score", "mrmr", "fisher")
REPORTED = ("bayes-greedy", "mi-greedy", "mrmr", "fisher")
RESULTS = Path(__file__).resolve().parent / "results"


def run(datasets, tasks, ks, splits: int, train_rows: int | None, tune: bool, seed: int, out: Path) -> pd.DataFrame:
    frames = []
    for name in datasets:
        t0 = time.perf_counter()
        data = load_sample(name).discretize()
        load_s = time.perf_counter() - t0
        train = 0.2 if name == "adult" else 0.7  # footnote 5
        rows = None if train_rows is None else min(data.n_rows, int(round(train_rows / train)))
        for task in tasks:
            measure, params = TASKS[task]
            t1 = time.perf_counter()
            res = learning_curves(data, SELECTORS, measure, max(ks), ks=ks, n_splits=splits, train_size=train,
                                  tune=tune, subsample=rows, seed=seed, c=params.get("c", 0.5),
                                  beta=params.get("beta", 1.0))
            seconds = time.perf_counter() - t1
            scores = res.scores.assign(dataset=name, task=task, measure=measure, learner=res.learner,
                                       rows=rows or data.n_rows, seconds=seconds)
            frames.append(scores)
            print(f"{name:9s} {task:12s} {res.learner:18s} rows={rows or data.n_rows:6d} {seconds:7.1f} s "
                  f"(load {load_s:.2f} s)", flush=True)
            write_plot(name, task, measure, params, res, out)
    return pd.concat(frames, ignore_index=True)


def write_plot(name: str, task: str, measure: str, params: dict, res, out: Path) -> None:
    label = get_measure(measure, **params).label
    fig = learning_curve_figure(res.summary(), label, LEARNERS[res.learner].label, res.greater_is_better)
    fig.update_layout(title=f"{name}: {fig.layout.title.text}")
    slug = task.replace(" ", "_").replace("=", "")
    fig.write_html(out / f"{name}_{slug}.html", include_plotlyjs="cdn")


def summarise(scores: pd.DataFrame) -> pd.DataFrame:
    g = scores.groupby(["dataset", "task", "selector", "k"], sort=False)["value"]
    out = g.agg(mean="mean", std="std", splits="count").reset_index()
    out["std"] = out["std"].fillna(0.0)
    return out


def report(summary: pd.DataFrame, ks=(5, 10)) -> str:
    """Rows (data set, measure), columns selector @ k: 'mean +- sd'."""
    part = summary[summary["selector"].isin(REPORTED) & summary["k"].isin(ks)].copy()
    part["cell"] = [f"{m:.4f} ± {s:.4f}" for m, s in zip(part["mean"], part["std"], strict=True)]
    part["column"] = [f"{selector_label(s)} k={k}" for s, k in zip(part["selector"], part["k"], strict=True)]
    table = part.pivot_table(index=["dataset", "task"], columns="column", values="cell", aggfunc="first", sort=False)
    order = [f"{selector_label(s)} k={k}" for k in ks for s in REPORTED]
    table = table[[c for c in order if c in table.columns]]
    lines = ["| data set | measure | " + " | ".join(table.columns) + " |", "|---" * (len(table.columns) + 2) + "|"]
    lines += [f"| {d} | {t} | " + " | ".join(str(v) for v in row) + " |" for (d, t), row in
              zip(table.index, table.to_numpy(), strict=True)]
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smoke run: 500 training rows, 2 splits, k in 1, 5, 10")
    ap.add_argument("--full", action="store_true", help="every row and tuned hyper-parameters (slow)")
    ap.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    ap.add_argument("--tasks", nargs="+", default=list(TASKS), choices=list(TASKS))
    ap.add_argument("--splits", type=int, default=None, help="train/test splits (paper: 5)")
    ap.add_argument("--train-rows", type=int, default=2000, help="training rows per split (reduced scale)")
    ap.add_argument("--tune", action="store_true", help="tune hyper-parameters on 20%% of the training part")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    ks = [1, 5, 10] if args.quick else list(range(1, 16))
    splits = args.splits or (2 if args.quick else 5)
    train_rows = None if args.full else (500 if args.quick else args.train_rows)
    out = RESULTS / ("full" if args.full else "quick" if args.quick else f"train{train_rows}")
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    scores = run(args.datasets, args.tasks, ks, splits, train_rows, args.tune or args.full, args.seed, out)
    total = time.perf_counter() - start
    summary = summarise(scores)
    scores.to_csv(out / "scores.csv", index=False)
    summary.to_csv(out / "summary.csv", index=False)
    scale = "full" if args.full else f"{train_rows} training rows per split"
    print(f"\nTest measure at k = 5 and 10, mean ± sd over {splits} splits ({scale}); lower is better except F1.\n")
    print(report(summary))
    print(f"\nTotal run time: {total:.0f} s. Results in {out}.")


if __name__ == "__main__":
    main()
