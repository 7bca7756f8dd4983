"""The four jobs of the command line, each a thin call of the library: ``run(job)`` returns what to print."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pandas as pd

from ..alerts import selection_alerts
from ..compare import compare_selectors, overlap_matrix
from ..cost import job_cost, preflight
from ..data.distributed import DaskSource
from ..data.encoded import EncodedDataset
from ..errors import ParameterError, TooLargeError
from ..limits import server_limits
from ..measures import MEASURES, describe_estimate
from ..npfs.procedure import npfs
from ..pena_nilsson.orderings import greedy_path, is_monotone, k_optimal, subset_label, subset_risks
from ..robustness import holdout_check
from ..selectors import SELECTORS, Selection, prefix_criteria, select
from .job import Job
from .output import ProgressBar, dumps, table


def header(job: Job) -> str:
    """One line about the data: name, size, target."""
    d = job.loaded.describe()
    if d["kind"] == "distribution":
        return f"data: {d['name']}: exact distribution, {d['states']:,} states x {d['features']} features"
    target = f"{d['task']} target {d['target']!r}" + (f" (positive {d['positive']!r})" if "positive" in d else "")
    return f"data: {d['name']}: {d['rows']:,} rows x {d['features']} features, {target}"


def _measure_label(job: Job) -> str:
    params = ", ".join(f"{k}={v}" for k, v in job.params.items())
    return f"{job.measure}" + (f" ({params})" if params else "")


# --- select -------------------------------------------------------------------------------------------

def step_ties(result: Selection) -> list[int]:
    """Candidates tied with the pick at each step (DESIGN.md tie rule; 1 = no tie); exhaustive: best subsets."""
    trace = result.trace
    if trace.empty:
        return []
    if "subset" in trace.columns:
        return [int(trace["n_tied"].iloc[0])]
    return [int(v) for v in trace.loc[trace["chosen"], "n_tied"]]


def _estimate_line(job: Job, result: Selection) -> str:
    why = job.estimate_why or (
        "the default for your own file: a column with many levels cannot win by fitting the sample; --estimate plug-in "
        "gives the papers' in-sample values" if job.loaded.own and job.estimate != "plug-in"
        else "the papers' definition" if result.estimate == "plug-in" else "as asked")
    return f"estimate: {result.estimate_label} ({why})"


def run_select(job: Job, bar: ProgressBar) -> str:
    src = job.loaded.source
    assert job.selector is not None and job.k is not None  # resolve() sets both for select
    spec = SELECTORS[job.selector]
    how: dict[str, Any] = {"estimate": job.estimate, "folds": job.folds}
    result = select(src, job.k, job.selector, measure=job.measure, s=job.s, progress=bar, **how,
                    **(job.params if spec.uses_measure else {}))
    bar.close()
    backward = spec.kind == "backward"
    curve = None if backward else prefix_criteria(src, result.features, job.measure, **job.params)
    # beside the estimate in use: the held-out values for a user's own file or a held-out run, when rows can be held
    # out (resolve: rows here or an engine that counts folds, and every class with 2 rows or more)
    hold_out = job.hold_out and (job.loaded.own or job.estimate == "cross-fitted")
    held = None if backward or not hold_out else prefix_criteria(src, result.features, job.measure,
                                                                 estimate="cross-fitted", folds=job.folds,
                                                                 **job.params)
    check = None
    if hold_out:
        frequency: bool | str = (True if job.loaded.own and spec.kind != "exhaustive" else
                                 "an exhaustive search is not rerun on each training fold" if job.loaded.own else
                                 "a shipped sample's picks are not rerun on each training fold")
        check = holdout_check(src, result, folds=job.folds, frequency=frequency)
    ties = step_ties(result)
    # leaks among the chosen columns (fslab.alerts): a warning line each, with the one fix (--drop COL)
    alerts = selection_alerts(src, result, folds=job.folds) if job.loaded.kind == "dataset" else result.alerts
    if job.as_json:
        record = {"data": job.loaded.describe(), **result.to_dict(), "measure_params": job.params,
                  "criterion_measure": job.measure, "ties": ties,
                  "criteria": None if curve is None else curve.tolist(),
                  "criteria_held_out": None if held is None else held.tolist(),
                  "verdict": None if check is None else {"level": check.level, "reasons": list(check.reasons),
                                                         "kept": check.kept, "held_out_folds": check.folds},
                  "notes": [*job.notes, *job.loaded.notes, *result.notes],
                  "alerts": [a.to_dict() for a in alerts]}
        return dumps(record)
    lines = [header(job), f"selector: {spec.label} ({job.selector}), measure: {_measure_label(job)}, k = {job.k}"
             + (f", s = {job.s}" if job.s is not None else "")]
    if job.loaded.kind == "dataset":   # an exact distribution's values are exact: no estimate to name
        lines.append(_estimate_line(job, result))
    if backward:
        steps = pd.DataFrame({"step": np.arange(1, len(result.eliminated) + 1),
                              "removed": [src.feature_names[j] for j in result.eliminated],
                              "C(remaining)": result.scores, "tied": ties})
        assert result.start_score is not None  # backward elimination scores the full set
        lines += [f"C(all {src.n_features} features) = {result.start_score + 0.0:.6g}", table(steps, 6)]
    else:
        frame = result.summary().rename(columns={"score": f"selector score ({result.estimate})"})
        if "subset" not in result.trace.columns and len(ties) == len(frame):
            frame["tied"] = ties
        frame[f"in-sample C(first t) under {job.measure}"] = curve
        if held is not None:
            frame[f"held-out C(first t) under {job.measure}"] = held
        lines.append(table(frame, 6))
    lines.append("selected: " + ", ".join(result.names))
    tied = [(t + 1, c) for t, c in enumerate(ties) if c > 1]
    if tied and "subset" in result.trace.columns:
        lines.append(f"ties: {tied[0][1]} subsets tied with the best; the lexicographically first wins")
    elif tied:
        lines.append("ties: " + ", ".join(f"step {t} ({c} tied)" for t, c in tied)
                     + "; within 1e-12 x max(1, |best|) of the best, the lowest feature index wins")
    if check is not None:
        lines.append(f"does this pick hold up? {check.level.upper()} (held out over {check.folds} folds against "
                     f"in-sample): " + " ".join(check.reasons))
    lines += [f"note: {note}" for note in (*job.loaded.notes, *result.notes)]
    lines += [f"warning: {a.line}" for a in alerts]
    return "\n".join(lines)


# --- npfs ---------------------------------------------------------------------------------------------

def run_npfs(job: Job, bar: ProgressBar) -> str:
    extra = {"measure": job.measure, **job.params} if job.measure is not None else {}
    # resolve() sets these for npfs
    assert job.selector is not None and job.k is not None and job.n is not None and job.alpha is not None
    assert job.fraction is not None
    result = npfs(job.loaded.source, job.selector, job.k, n_bootstraps=job.n, alpha=job.alpha, seed=job.seed,
                  n_jobs=job.n_jobs, progress=bar, sample_fraction=job.fraction, rule=job.rule,
                  estimate=job.estimate, folds=job.folds, **extra)
    bar.close()
    if job.as_json:
        record = result.to_dict()
        record.pop("selected_per_bootstrap")  # n lists of k indices: --json stays readable; counts carry the test
        return dumps({"data": job.loaded.describe(), "measure": job.measure, "measure_params": job.params, **record})
    summary = result.summary()
    shown = summary if job.show_all else summary[summary["relevant"]]
    measure = f", measure {_measure_label(job)}" if job.measure else ""
    lines = [header(job),
             f"NPFS: base selector {job.selector}{measure}, k = {job.k}, n = {result.n_bootstraps} bootstraps, "
             f"alpha = {job.alpha}, seed = {job.seed}, fraction = {job.fraction}",
             f"estimate of the base selector's criterion: {describe_estimate(job.estimate, job.folds)}",
             f"p0 = k/K = {result.p0:.4g}; critical value zeta = {result.threshold} (relevant: {result.rule_text}, "
             f"rule {result.rule})",
             table(shown.drop(columns="relevant") if not job.show_all else shown, 4),
             f"k* = {result.k_star} relevant: " + (", ".join(result.relevant_names) or "none")]
    if result.tie_note:   # picks the tie rule alone made, or of a constant column: not counted (issue 33.2)
        lines.append(f"note: {result.tie_note}")
    if not job.show_all and len(shown) < len(summary):
        rest = len(summary) - len(shown)
        lines.append(f"({rest} more feature{'s' if rest > 1 else ''}, not relevant; --all lists every feature)")
    return "\n".join(lines)


# --- lattice ------------------------------------------------------------------------------------------

def restrict(source, names: tuple[str, ...]):
    """The source with only the named features (dataset order); unknown names are an error."""
    unknown = [n for n in names if n not in source.feature_names]
    if unknown:
        raise ParameterError(f"--features: no feature named {unknown[0]!r}")
    if not isinstance(source, EncodedDataset):
        raise ParameterError("--features applies to a data set with its rows here (a CSV or a sample); an exact "
                             "distribution's lattice, or a source counting elsewhere, has all its features")
    return source.keep_features([j for j, f in enumerate(source.feature_names) if f in set(names)])


def run_lattice(job: Job, bar: ProgressBar) -> str:
    src = job.loaded.source if job.features is None else restrict(job.loaded.source, job.features)
    max_features = server_limits().max_lattice_features
    assert job.measure is not None  # resolve() sets it for lattice
    try:
        risks = subset_risks(src, job.measure, max_features=max_features, **job.params)
    except TooLargeError as err:
        if not isinstance(src, EncodedDataset):
            raise
        raise TooLargeError(f"{err} Pick up to {max_features} of them with --features a,b,c "
                            "(the Orderings page restricts a wide data set the same way).") from None
    names = src.feature_names
    best = k_optimal(risks)
    path = greedy_path(risks)
    crit = dict(zip(risks["subset"], risks["value"], strict=True))
    per_size = pd.DataFrame({
        "size": list(best), "best subset": [subset_label(s, names) for s, _ in best.values()],
        "value": [crit[s] for s, _ in best.values()], "tied": [t for _, t in best.values()],
        "greedy subset": [subset_label(p, names) for p in path], "greedy value": [crit[p] for p in path]})
    ordered = risks.sort_values(["rank", "size"], kind="stable")
    monotone = is_monotone(risks)
    label = MEASURES[job.measure].label
    if job.as_json:
        return dumps({"data": job.loaded.describe(), "measure": job.measure, "measure_params": job.params,
                      "greater_is_better": MEASURES[job.measure].greater_is_better, "monotone": monotone,
                      "best_per_size": [{"size": int(k), "subset": list(s), "names": [names[j] for j in s],
                                         "value": crit[s], "n_tied": t} for k, (s, t) in best.items()],
                      "greedy_path": [list(p) for p in path],
                      "subsets": [{"subset": list(s), "names": [names[j] for j in s], "value": v, "rank": int(r)}
                                  for s, v, r in zip(ordered["subset"], ordered["value"], ordered["rank"],
                                                     strict=True)]})
    direction = "higher" if MEASURES[job.measure].greater_is_better else "lower"
    lines = [header(job), f"lattice: {len(risks):,} subsets of {src.n_features} features, "
             f"{label} ({direction} is better); ordering {'is' if monotone else 'is NOT'} monotone",
             table(per_size, 6)]
    if job.show_all:
        lines += ["every subset, best first:", table(ordered[["rank", "names", "size", "value"]], 6)]
    return "\n".join(lines)


# --- compare ------------------------------------------------------------------------------------------

def run_compare(job: Job, bar: ProgressBar) -> str:
    assert job.k is not None and job.measure is not None  # resolve() sets both for compare
    comp = compare_selectors(job.loaded.source, job.k, job.selectors, job.measure, estimate=job.estimate,
                             folds=job.folds, **job.params)
    jaccard = overlap_matrix(comp.orders())
    subsets = comp.subsets
    if job.as_json:
        return dumps({"data": job.loaded.describe(), "measure": job.measure, "measure_params": job.params,
                      "k": job.k, "estimate": job.estimate,
                      "selections": {n: s.to_dict() for n, s in comp.selections.items()},
                      "subsets": subsets.to_dict(orient="records"),
                      "jaccard": {a: jaccard.loc[a].to_dict() for a in jaccard.index},
                      "overlap": comp.overlap().to_dict(orient="records"),
                      "optimal": None if comp.optimal is None else list(comp.optimal),
                      "optimal_value": comp.optimal_value, "note": comp.note or None})
    lines = [header(job), f"compare: {len(comp.selections)} selectors, k = {job.k}, measure {_measure_label(job)}",
             f"estimate of every value: {describe_estimate(job.estimate, job.folds)}",
             table(subsets.rename(columns={"bayes_value": f"{job.measure} (Bayes)", "mi_bits": "MI (bits)"}), 4),
             "Jaccard overlap:", jaccard.round(3).to_string()]
    if comp.optimal is not None:
        lines.append("exact k-optimal subset: " + ", ".join(comp.feature_names[j] for j in comp.optimal)
                     + f" (value {comp.optimal_value:.6g})")
    if comp.note:
        lines.append(f"note: {comp.note}")
    return "\n".join(lines)


RUNNERS = {"select": run_select, "npfs": run_npfs, "lattice": run_lattice, "compare": run_compare}


def run(job: Job, progress: bool = False) -> str:
    """Run ``job`` and return its text (or JSON); a progress bar on stderr when ``progress``."""
    # predicted work and memory against the server's limits before anything runs; data the Dask workers read are
    # the cluster operator's, not an upload: the server's limits (this machine's memory) do not bound them
    note = None if isinstance(job.loaded.source, DaskSource) else preflight(job_cost(job))
    if note:
        print(f"fslab: {note}", file=sys.stderr)
    bar = ProgressBar(job.command, progress)
    try:
        return RUNNERS[job.command](job, bar)
    finally:
        bar.close()
