"""The parser and the entry point of ``python -m fslab``: exit codes, error messages, dispatch."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from ..cluster import SchedulerAddressError, connect, on_cluster, parse_address
from ..data.dask_read import table_files
from ..data.discretize import METHODS
from ..errors import FslabError, ParameterError
from ..export import fslab_version
from ..measures import ESTIMATES, MEASURES, PARAMETERS
from ..measures.cost_sensitive import parse_cost_matrix
from ..npfs.result import RULES
from ..pena_nilsson.toy import PRESETS
from ..selectors import SELECTORS
from . import commands
from .job import resolve
from .sources import is_partitioned

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

DATA_HELP = ("a CSV or parquet file (CSV plain or .gz; the last column is the target unless --target), a directory "
             "or a quoted glob of them ('data/*.parquet': read by the Dask workers with --scheduler), a JSON "
             "distribution "
             "(Distribution.to_json), a shipped sample name (mushroom, adult, ...) or a sample_data/*.csv.gz file, "
             f"or a toy distribution of the Toy page ({', '.join(PRESETS)}), or NAME:LOCATION of a registered source "
             "(an installed package's entry point in the group fslab.sources, e.g. rows:export.jsonl; a file with "
             "its suffix too); optional with --recipe")
SELECTOR_LIST = ", ".join(SELECTORS)
EPILOG = ("Exit codes: 0 ok, 1 fslab error (message on stderr), 2 usage error, 130 interrupted. "
          "Run 'python -m fslab COMMAND -h' for a command's options.")


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("data", nargs="?", metavar="DATA", help=DATA_HELP)
    common.add_argument("--recipe", metavar="FILE", help="a recipe JSON downloaded from the app: its data and "
                        "choices become the defaults; options given here override them")
    data = common.add_argument_group("data options (CSV and samples)")
    data.add_argument("--target", help="target column (default: the last column; a sample's own target)")
    data.add_argument("--positive", help="positive class of a binary target (default: as the Data page)")
    data.add_argument("--method", choices=METHODS,
                      help="discretisation of numeric columns (default auto for a file: mean-std, quantile bins "
                           "where outliers crowd 90%% of a column's rows into one bin; mean-std for a sample)")
    data.add_argument("--bins", type=int, help="bins for quantile and equal-width (default 3)")
    data.add_argument("--column-type", action="append", metavar="COL=TYPE", dest="column_type",
                      help="read column COL of a CSV as TYPE: auto, number, date, percent, boolean, category (keep as "
                      "text levels; keeps a near-unique column) or drop; repeatable")
    data.add_argument("--dayfirst", action="store_true", help="read ambiguous dates such as 03/04/2021 day first (3 "
                      "April); default month first (4 March), as the notes say")
    data.add_argument("--split", metavar="HOW", help="cut a numeric target into classes: median (above the median is "
                      "the positive class; a value equal to it goes below), a number (the threshold) or q2..q5 "
                      "(quantile classes)")
    data.add_argument("--missing", choices=("level", "drop"), help="missing feature values of a CSV: a level of "
                      "their own (default) or drop those rows")
    data.add_argument("--drop", action="append", metavar="COL", help="leave column COL out and rerun (repeatable; "
                      "the fix every leak warning names): the same as --column-type COL=drop")
    out = common.add_argument_group("output")
    out.add_argument("--json", action="store_true", help="print one JSON document on stdout instead of text")
    out.add_argument("--progress", action="store_true", help="show the progress bar even when stderr is no TTY")
    out.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    return common


def _measure_options(parser: argparse.ArgumentParser, default: str = "the page's default") -> None:
    parser.add_argument("--measure", choices=MEASURES, metavar="NAME",
                        help=f"performance measure: {', '.join(MEASURES)} (default: {default})")
    for name, (param, takers) in PARAMETERS.items():  # one option per parameter of the measure records
        help_text = f"{param.help} ({', '.join(takers)}; default {param.default})".replace("%", "%%")
        parser.add_argument(f"--{name}", type=type(param.default), choices=param.choices, help=help_text)
    parser.add_argument("--cost-matrix", dest="c", type=_cost_matrix, metavar="ROWS",
                        help="cost-sensitive error on K classes: a K x K cost matrix, row y = the true class, column "
                             "k = the prediction, rows split by ';' and entries by ',' (e.g. '0,1,2;1,0,1;4,1,0'), or "
                             "a JSON file holding [[...], ...]; replaces --c (the binary c is '0,c;1-c,0')")


def _cost_matrix(text: str):
    """--cost-matrix: the text itself, or a JSON file's content (fslab.measures.cost_sensitive.parse_cost_matrix)."""
    path = Path(text)
    try:
        if not text.lstrip().startswith("[") and ";" not in text and path.is_file():
            text = path.read_text()
        return parse_cost_matrix(text)
    except (OSError, ParameterError) as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _estimate_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--estimate", choices=ESTIMATES, help="how every criterion is estimated: plug-in (in-sample, "
                        "the papers') or cross-fitted (held out over --folds stratified folds). Default: cross-fitted "
                        "for your own file (in memory, --sql or --scheduler; plug-in, with a note, when a class has a "
                        "single row), plug-in for shipped samples")
    parser.add_argument("--folds", type=int, help="folds of the cross-fitted estimate (default 5; fewer, with a note, "
                        "when a class has fewer rows: every fold holds a row of every class)")


def _cluster_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scheduler", metavar="ADDRESS", help="run on a Dask cluster: its scheduler's address, e.g. "
                        "tcp://host:8786 (needs pip install fslab[dask]). A file, directory or glob DATA is read by "
                        "the workers, never here, and without the app's upload limits")
    parser.add_argument("--sql", action="store_true", help="count in an embedded DuckDB (pip install fslab[sql]): a "
                        "parquet or CSV file, directory or glob DATA is read by DuckDB, never into memory here, and "
                        "without the app's upload limits; only count tables come back (by fold for the held-out "
                        "estimate)")
    parser.add_argument("--persist", action="store_true", help="with --scheduler: keep the data read once in the "
                        "workers' memory while it is binned, instead of reading the files once per statistic (without "
                        "it: when the data take at most a quarter of the workers' memory)")


def build_parser() -> argparse.ArgumentParser:
    """``python -m fslab {select,npfs,lattice,compare} DATA [options]``."""
    parser = argparse.ArgumentParser(prog="fslab", description="Feature selection by the Bayes criterion of a "
                                     "performance measure (fslab's pages on the command line).", epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"fslab {fslab_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    common = _common()

    p = sub.add_parser("select", parents=[common], help="select k features with one selector (Select page)",
                       description="Run one selector; print the selected features, the criterion after each step "
                       "and the ties.", epilog=EPILOG)
    p.add_argument("--selector", choices=SELECTORS, metavar="NAME", help=f"{SELECTOR_LIST} (default bayes-greedy)")
    _measure_options(p, "zero-one, or the first that fits the target")
    p.add_argument("--k", type=int, help="features to select (default min(5, features))")
    p.add_argument("--s", type=int, help="s-variate approximation (the paper uses s = 2)")
    _estimate_options(p)
    _cluster_options(p)

    p = sub.add_parser("npfs", parents=[common], help="bootstrap Neyman-Pearson test over a selector (NPFS page)",
                       description="Run the base selector on bootstrap resamples; print the relevant features, "
                       "their counts and p-values, and k*.", epilog=EPILOG)
    p.add_argument("--selector", choices=SELECTORS, metavar="NAME", help=f"base selector: {SELECTOR_LIST} "
                   "(default jmi)")
    _measure_options(p, "the first that fits the target, for selectors that use a measure")
    p.add_argument("--k", type=int, help="features per bootstrap (default min(10, features - 1))")
    p.add_argument("--n", type=int, help="bootstraps (default 100)")
    p.add_argument("--alpha", type=float, help="size of the test (default 0.01)")
    p.add_argument("--seed", type=int, help="seed of the bootstraps (default 0)")
    p.add_argument("--fraction", type=float, help="rows per bootstrap as a fraction of m (default 1)")
    p.add_argument("--rule", choices=RULES, help="decision rule: strict, count > zeta (equation (3), default), or "
                   "at-least, count >= zeta (the authors' released code)")
    p.add_argument("--n-jobs", type=int, default=1, help="parallel workers (default 1)")
    _estimate_options(p)
    p.add_argument("--all", action="store_true", help="list every feature, not only the relevant ones")
    _cluster_options(p)

    p = sub.add_parser("lattice", parents=[common], help="exact risk of every feature subset (Orderings page)",
                       description="The Bayes value of every subset; print the best subset of each size, greedy's "
                       "path and whether the ordering is monotone.", epilog=EPILOG)
    _measure_options(p, "zero-one, or the first that fits the target")
    p.add_argument("--features", help="comma-separated feature names: the lattice of these features only")
    p.add_argument("--all", action="store_true", help="list every subset, best first")

    p = sub.add_parser("compare", parents=[common], help="several selectors side by side (Compare page)",
                       description="Run several selectors at one k and measure; print their subsets and the "
                       "Jaccard overlap of every pair.", epilog=EPILOG)
    p.add_argument("--selectors", help="comma-separated selector names (default: the Compare page's seven)")
    _measure_options(p, "zero-one, or the first that fits the target")
    p.add_argument("--k", type=int, help="features per selector (default min(5, features - 1))")
    _estimate_options(p)
    return parser


def _progress_enabled(args: argparse.Namespace) -> bool:
    return not args.quiet and bool(args.progress or sys.stderr.isatty())


def _first_line(err: BaseException) -> str:
    """The error's message, first line only, without file paths (a path's directories become '...')."""
    words = (str(err).splitlines() or [""])[0].split(" ")
    return " ".join(".../" + w.rsplit("/", 1)[-1] if w.count("/") > 1 else w for w in words)[:300]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 fslab error, 2 usage, 130 interrupted)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # argparse: --help (0) or a usage error (2), message already printed
        return int(stop.code or 0)
    scheduler = getattr(args, "scheduler", None)
    try:
        if scheduler is not None:
            parse_address(scheduler)
        elif getattr(args, "persist", False):
            raise SchedulerAddressError("--persist keeps the data in the workers' memory: it needs --scheduler ADDRESS")
    except SchedulerAddressError as err:
        parser.print_usage(sys.stderr)
        what = "argument --scheduler: " if scheduler is not None else ""
        print(f"fslab {args.command}: error: {what}{err}", file=sys.stderr)
        return EXIT_USAGE
    try:
        if scheduler and args.data and is_partitioned(args.data):
            table_files(args.data)   # a glob matching nothing says so before connecting
        with connect(scheduler) as client:   # Dask cluster (fslab.cluster): its workers read DATA's files
            job = resolve(args, parser, client=client)
            for note in job.notes:
                print(f"fslab: note: {note}", file=sys.stderr)
            text = commands.run(on_cluster(job, client), progress=_progress_enabled(args))
    except FslabError as err:
        print(f"fslab: error: {err}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("\nfslab: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except SystemExit as stop:  # parser.error from resolve: a usage error found after parsing
        return int(stop.code or 0)
    except MemoryError:
        print("fslab: error: not enough memory for this job; try a smaller k, fewer features or rows, or a "
              "coarser discretisation (--bins)", file=sys.stderr)
        return EXIT_ERROR
    except Exception as err:  # a bug, not bad input: one line, no traceback (which would show file paths)
        if os.environ.get("FSLAB_DEBUG"):
            raise
        print(f"fslab: internal error ({type(err).__name__}): {_first_line(err)}. Please report it with the "
              "command you ran; FSLAB_DEBUG=1 shows the traceback.", file=sys.stderr)
        return EXIT_ERROR
    try:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # piped into head: the reader has gone; keep the interpreter's final flush quiet
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return EXIT_OK
