"""What a command runs: the data and every choice, from explicit options, then a recipe, then the page defaults.

A recipe (``--recipe FILE``, see :mod:`fslab.recipe`) contributes its data, its toy distribution and those of
its page's choices that the command also has (``measure``, ``k``, ``selector``, ...); an option given on the
command line always wins. Defaults are the app's: the Select page's bayes-greedy with k = min(5, n), the first
measure that fits the target, the NPFS page's JMI with k = min(10, K - 1), n = 100, alpha = 0.01, seed 0.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..compare import DEFAULT_SELECTORS
from ..counting.folds import TooFewRowsError
from ..data.distributions import example1
from ..errors import ParameterError
from ..limits import server_limits
from ..measures import DEFAULT_FOLDS, MEASURES, PARAM_DEFAULTS, check_estimate, supported_measures
from ..measures.cross_fit import can_hold_out, usable_folds
from ..pena_nilsson.toy import PRESETS
from ..recipe import CHOICES, Recipe, RecipeError, load_dataset, load_distribution
from ..selectors import SELECTORS
from ..tables import CodedSource
from .sources import Loaded, load_data, read_bytes

DATA_OPTIONS = ("target", "positive", "method", "bins")


def option_ranges() -> dict:
    """The ranges the app and recipes offer (fslab.recipe.CHOICES; measure parameters from their Param records),
    read when checked, so a registered measure's parameter is range-checked too."""
    return {"s": CHOICES["select"]["s"], "n": CHOICES["npfs"]["n"], "seed": CHOICES["npfs"]["seed"],
            "fraction": CHOICES["npfs"]["fraction"], **{name: CHOICES["select"][name] for name in PARAM_DEFAULTS}}


@dataclass
class Job:
    """One command with its data loaded and every choice resolved (``None``: not used by this command)."""

    command: str
    loaded: Loaded
    as_json: bool = False
    measure: str | None = None
    params: dict = field(default_factory=dict)
    selector: str | None = None
    selectors: tuple[str, ...] = ()
    k: int | None = None
    s: int | None = None
    n: int | None = None
    alpha: float | None = None
    seed: int | None = None
    fraction: float | None = None
    rule: str = "strict"
    estimate: str = "plug-in"
    folds: int = DEFAULT_FOLDS
    n_jobs: int = 1
    hold_out: bool = False   # rows can be held out (a held-out check and column beside the plug-in's)
    estimate_why: str | None = None   # why a user's file is not held out (too few rows, an engine without folds)
    features: tuple[str, ...] | None = None
    show_all: bool = False
    notes: list[str] = field(default_factory=list)  # what was changed to fit this machine (printed on stderr)


def read_recipe(path: str) -> Recipe:
    """A recipe file, read within the JSON size limit and checked by :meth:`Recipe.from_json`."""
    return Recipe.from_json(read_bytes(path, "recipe", max_bytes=server_limits().max_json_bytes))


def recipe_choices(recipe: Recipe | None, command: str) -> dict:
    """The recipe's choices by option name (``use_s`` folds into ``s``); a command reads those it has."""
    if recipe is None:
        return {}
    choices = dict(recipe.choices)
    if choices.pop("use_s", False):
        choices.setdefault("s", 2)  # the Select page's s box starts at 2
    else:
        choices.pop("s", None)
    return choices


def _distribution_name(spec: dict | None) -> str:
    if spec is None:
        return PRESETS["bayes-example-1"].label
    return PRESETS[spec["preset"]].label if "preset" in spec else "the recipe's distribution"


def recipe_source(recipe: Recipe, args: argparse.Namespace, source: str) -> Loaded:
    """The data of a recipe (with --target/--positive/--method/--bins applied), or its toy distribution."""
    data = dict(recipe.data or {})
    if source == "distribution":
        dist = example1() if recipe.distribution is None else load_distribution(recipe.distribution)
        return Loaded(dist, "distribution", _distribution_name(recipe.distribution))
    if not data:
        raise ParameterError("the recipe names no data set; give DATA (a CSV, a JSON distribution or a sample)")
    overrides = {key: getattr(args, key) for key in DATA_OPTIONS if getattr(args, key) is not None}
    if "toy_sample" in data:
        if overrides:
            raise ParameterError("--target, --positive, --method and --bins do not apply to rows sampled from the "
                                 "toy distribution")
        dist = example1() if recipe.distribution is None else load_distribution(recipe.distribution)
        m, seed = data["toy_sample"]["m"], data["toy_sample"]["seed"]
        name = f"{m} rows of the toy distribution (seed {seed})"
        return Loaded(load_dataset(data, distribution=dist), "dataset", name)
    data |= overrides
    if "file" in data:
        if args.data is None:
            raise ParameterError(f"the recipe was made with the uploaded file {data['file']!r}: give that file as DATA")
        encoded = load_dataset(data, path=read_bytes(args.data, "file"))
        return Loaded(encoded, "dataset", Path(args.data).name, tuple(encoded.notes), own=True)
    encoded = load_dataset(data)
    return Loaded(encoded, "dataset", f"{data['sample']} (sample)", tuple(encoded.notes))


def load_job_data(args: argparse.Namespace, recipe: Recipe | None, choices: dict, client=None) -> Loaded:
    """DATA when given (a file recipe checks it is the recipe's file), else the recipe's data; with a Dask
    ``client`` (``--scheduler``), a file, directory or glob is read by the cluster's workers."""
    file_recipe = recipe is not None and recipe.data is not None and "file" in recipe.data
    if recipe is not None and (args.data is None or file_recipe):
        default = "dataset" if recipe.data is not None else "distribution"
        source = "dataset" if args.command == "npfs" else choices.get("source", default)
        return recipe_source(recipe, args, source)
    if args.data is None:
        raise ParameterError("give DATA (a CSV file, a JSON distribution or a sample name) or --recipe FILE")
    # --drop COL (repeatable) is --column-type COL=drop: the fix every leak alert names
    types = [*(getattr(args, "column_type", None) or ()), *(f"{c}=drop" for c in getattr(args, "drop", None) or ())]
    return load_data(args.data, args.target, args.positive, args.method, args.bins,
                     column_types=types or None, missing=getattr(args, "missing", None),
                     cluster=client is not None, persist=True if getattr(args, "persist", False) else "auto",
                     sql=bool(getattr(args, "sql", False)), dayfirst=bool(getattr(args, "dayfirst", False)),
                     split=getattr(args, "split", None))


def _pick(args: argparse.Namespace, choices: dict, name: str, default=None):
    value = getattr(args, name, None)
    return value if value is not None else choices.get(name, default)


def _measure_params(args: argparse.Namespace, choices: dict, measure: str | None) -> dict:
    """The measure's parameters; an explicit option the measure does not take is an error."""
    takes = set(MEASURES[measure].params) if measure is not None else set()
    for name in PARAM_DEFAULTS:
        if getattr(args, name, None) is not None and name not in takes:
            option = "cost-matrix" if isinstance(getattr(args, name), tuple) else name   # --cost-matrix fills c
            raise ParameterError(f"--{option} does not apply to the measure {measure!r}; it is a parameter of the "
                                 + " and ".join(repr(m) for m, spec in MEASURES.items() if name in spec.params)
                                 + " measure")
    return {name: _pick(args, choices, name, PARAM_DEFAULTS[name]) for name in PARAM_DEFAULTS
            if name in takes}


def _selector_list(text) -> tuple[str, ...]:
    names = [s.strip() for s in text.split(",") if s.strip()] if isinstance(text, str) else list(text)
    unknown = [s for s in names if s not in SELECTORS]
    if unknown:
        raise ParameterError(f"unknown selector {unknown[0]!r}; choose from: {', '.join(SELECTORS)}")
    if not names:
        raise ParameterError("--selectors needs at least one selector name")
    return tuple(dict.fromkeys(names))


def check_fits_target(job: Job) -> None:
    """A real-valued target has no classes: the selectors that count classes (MI family, Fisher) would treat each
    value as one, so they are refused (the app does not offer them either) instead of running silently."""
    src = job.loaded.source
    if src.task != "regression":  # every source declares its task (fslab.tables.TableSource)
        return
    chosen = job.selectors or ((job.selector,) if job.selector else ())
    counting = [name for name in chosen if not SELECTORS[name].uses_measure]
    if counting:
        fitting = [name for name, spec in SELECTORS.items() if spec.uses_measure and not spec.fixed_measure]
        raise ParameterError(
            f"{', '.join(counting)} count{'s' if len(counting) == 1 else ''} classes, but the target "
            f"{src.target!r} is real-valued ({len(src.labels)} distinct values); use a selector with the squared "
            f"error ({', '.join(fitting)}) or make the target binary with --positive")


def check_ranges(job: Job) -> None:
    """Every numeric choice inside the range the app offers (one message naming the option), and --n-jobs
    bounded by this machine's cores (with a note): nothing out of range reaches the library."""
    values = {"s": job.s, "n": job.n, "seed": job.seed, "fraction": job.fraction, **job.params}
    ranges = option_ranges()
    for name, value in values.items():
        if value is None or name not in ranges or isinstance(value, tuple):   # a cost matrix: its measure checks it
            continue
        try:
            ranges[name](name, value)
        except RecipeError as err:
            raise ParameterError(str(err).replace(f"'{name}'", f"--{name}", 1)) from None
    if job.command == "npfs":
        cores = os.cpu_count() or 1
        if job.n_jobs < 1:
            raise ParameterError(f"--n-jobs must be at least 1 (this machine has {cores} cores); got {job.n_jobs}")
        if job.n_jobs > cores:
            job.notes.append(f"--n-jobs {job.n_jobs:,} is more than this machine's {cores} cores: using {cores}")
            job.n_jobs = cores


def engine_holds_out(args: argparse.Namespace, command: str, source) -> bool | str:
    """True when the command can hold rows out: rows here, or a SQL / Dask source (they count by (fold, class, cell)
    in the engine: ``folded``, fslab.measures.cross_fit's seam; NPFS's Poisson bootstraps keep each row in its
    original row's fold there too); else why not, for the note."""
    on_engine = getattr(args, "sql", False) or (getattr(args, "scheduler", None) and (
        command == "select" or not isinstance(source, CodedSource)))   # select on a cluster counts there (on_cluster)
    if command != "npfs" or not on_engine or callable(getattr(source, "folded", None)):
        return True
    where = "in DuckDB" if getattr(args, "sql", False) else "on a Dask cluster"
    return f"{where} NPFS counts its bootstraps as Poisson-weighted tables, without folds"


def resolve_estimate(job: Job, args: argparse.Namespace, choices: dict) -> None:
    """The estimate, folds and whether a held-out check is possible: held out by default for the user's own file
    (a many-level column cannot win), the papers' plug-in for samples; the folds lowered to the smallest class's
    rows (a note), and a file with a single-row class (3 rows, say) falls back to the plug-in with a note unless
    --estimate cross-fitted was asked (then the plain error)."""
    loaded, src = job.loaded, job.loaded.source
    asked = _pick(args, choices, "estimate")
    default = "cross-fitted" if loaded.own and loaded.kind == "dataset" else "plug-in"
    job.estimate = asked if asked is not None else default
    job.folds = _pick(args, choices, "folds", DEFAULT_FOLDS)
    check_estimate(job.estimate, job.folds)
    if job.estimate == "cross-fitted" and loaded.kind != "dataset":
        raise ParameterError("--estimate cross-fitted needs rows to hold out; an exact distribution's plug-in "
                             "values are exact (use --estimate plug-in)")
    if loaded.kind != "dataset":
        return
    where = engine_holds_out(args, job.command, src)
    if where is not True:
        if asked is None and job.estimate != "plug-in":
            job.estimate = "plug-in"   # the engine sends count tables and cannot count folds yet
            job.estimate_why = str(where)
            job.notes.append(f"{job.estimate_why}: the estimate is the papers' in-sample plug-in")
        return
    if not can_hold_out(src):
        return
    try:
        folds, notes = usable_folds(src, job.folds)
    except TooFewRowsError as err:
        if asked == "cross-fitted":
            raise
        if job.estimate == "cross-fitted":
            job.estimate_why = err.reason
            job.notes.append(f"{err.reason}: the estimate is the papers' in-sample plug-in")
        job.estimate = "plug-in"
        return
    job.hold_out = True
    if folds < job.folds:
        job.folds = folds
        job.notes += [note[0].lower() + note[1:] for note in notes]


def resolve(args: argparse.Namespace, parser: argparse.ArgumentParser | None = None, client=None) -> Job:
    """Load the data and fill in every choice of ``args.command`` (see the module docstring); ``client``: the Dask
    client of ``--scheduler`` (:func:`fslab.cluster.connect`), whose workers read a file, directory or glob."""
    recipe = read_recipe(args.recipe) if args.recipe else None
    choices = recipe_choices(recipe, args.command)
    loaded = load_job_data(args, recipe, choices, client)
    src, cmd = loaded.source, args.command
    n = src.n_features
    first_measure = supported_measures(src)[0]
    job = Job(cmd, loaded, as_json=args.json)
    if cmd in ("select", "npfs"):
        job.selector = _pick(args, choices, "selector", "bayes-greedy" if cmd == "select" else "jmi")
        spec = SELECTORS[job.selector]
        if spec.uses_measure or cmd == "select":
            job.measure = spec.fixed_measure or _pick(args, choices, "measure", first_measure)
    else:
        job.measure = _pick(args, choices, "measure", first_measure)
    job.params = _measure_params(args, choices, job.measure)
    if cmd == "select":
        job.k, job.s = _pick(args, choices, "k", min(5, n)), _pick(args, choices, "s")
    elif cmd == "npfs":
        job.k = _pick(args, choices, "k", max(1, min(10, n - 1)))
        job.n, job.alpha = _pick(args, choices, "n", 100), _pick(args, choices, "alpha", 0.01)
        job.seed, job.fraction = _pick(args, choices, "seed", 0), _pick(args, choices, "fraction", 1.0)
        job.rule = _pick(args, choices, "rule", "strict")
        job.n_jobs, job.show_all = args.n_jobs, args.all
    elif cmd == "compare":
        job.k = _pick(args, choices, "k", min(5, n - 1) if n > 1 else 1)
        picked = _pick(args, choices, "selectors")
        if picked is None and not isinstance(src, CodedSource):   # count tables only: what reads rows cannot run
            skipped = [n for n in DEFAULT_SELECTORS if SELECTORS[n].needs_rows]
            picked = tuple(n for n in DEFAULT_SELECTORS if n not in skipped)
            job.notes.append(f"left out {', '.join(SELECTORS[n].label for n in skipped)}: it reads every row's codes, "
                             f"and this {type(src).__name__} gives count tables only")
        job.selectors = _selector_list(picked if picked is not None else DEFAULT_SELECTORS)
    else:
        job.show_all = args.all
        if args.features is not None:
            job.features = tuple(f.strip() for f in args.features.split(",") if f.strip())
    if cmd in ("select", "npfs", "compare"):
        resolve_estimate(job, args, choices)
    check_ranges(job)
    check_fits_target(job)
    return job
