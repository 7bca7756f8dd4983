"""Mutation check: does the fast unit tier see a wrong weight? (issue 36.4)

Each mutation replaces one snippet of fslab's source by a plausible mistake (``beta**2`` -> ``beta``, ``c`` and
``1 - c`` swapped, ``>`` -> ``>=``, ...). Every mutation is applied, one at a time, to a private copy of the tree
(never the working tree: others may be editing it), and the test files it names are run with
``-m "unit and not slow"``; a mutation that leaves them green has SURVIVED. The exit code is 0 when every mutation is
caught, 1 when one survives, 2 when the check itself cannot run (a snippet no longer in its file, a baseline that
fails without any mutation).

    .venv/bin/python tools/mutate.py            # every mutation, on a copy of the working tree
    .venv/bin/python tools/mutate.py --rev HEAD # on a commit (git archive), untouched by uncommitted edits
    .venv/bin/python tools/mutate.py -k beta    # only the mutations whose name contains "beta"

Speed: one parent process imports numpy, pandas, scipy, scikit-learn, hypothesis and pytest once and freezes them
out of the garbage collector's reach (``gc.freeze``), then forks one child per run, which imports fslab from the
copy and calls ``pytest.main`` with hypothesis's plugin only. The copy's fslab/ and tests/ are compiled once to
bytecode checked by the source's hash, so a child compiles only the mutated module (its hash differs) and writes
none. Each run stops at its first failure (``-x``). No baseline run of every test file: a test that caught a
mutation is run once more on the unmutated copy (all of them in one run, at the end); one that fails there too
proves nothing, so it is named and left out, and the mutations it caught are run again without it.
A snippet must occur exactly once in its file: when the code it names changes, update the mutation here.
"""

from __future__ import annotations

import argparse
import compileall
import gc
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from py_compile import PycInvalidationMode

ROOT = Path(__file__).resolve().parents[1]
TIER = "unit and not slow"
BY_HAND = "tests/test_parameters_by_hand.py"


@dataclass(frozen=True)
class Mutation:
    name: str
    file: str         # relative to the repository root
    original: str     # must occur exactly once in the file
    replacement: str
    tests: tuple[str, ...]  # test files (or node ids) that must catch it, the quickest first


M = Mutation
MUTATIONS: tuple[Mutation, ...] = (
    # issue 36's four: beta**2 -> beta in the Bayes F-beta (both branches), the held-out scorer, the learner
    M("f-beta weight, beta < 1 branch", "fslab/measures/f_beta.py",
      "beta ** 2 / (1.0 + beta ** 2)", "beta / (1.0 + beta)", (BY_HAND, "tests/test_measures.py")),
    M("f-beta weight, beta >= 1 branch", "fslab/measures/f_beta.py",
      "1.0 / (1.0 + (1.0 / beta) ** 2)", "1.0 / (1.0 + 1.0 / beta)", (BY_HAND, "tests/test_measures.py")),
    M("empirical f-beta, weight of FN", "fslab/measures/empirical.py",
      "beta**2 * np.sum(pos & (pred == 0))", "beta * np.sum(pos & (pred == 0))", (BY_HAND,)),
    M("empirical f-beta, weight of TP", "fslab/measures/empirical.py",
      "float((1 + beta**2) * tp / denom)", "float((1 + beta) * tp / denom)", (BY_HAND,)),
    M("learner's F-beta threshold", "fslab/learners.py",
      "f = (1 + beta**2) * tp / np.maximum((1 + beta**2) * tp + beta**2 * (n_pos - tp) + fp, 1e-300)",
      "f = (1 + beta) * tp / np.maximum((1 + beta) * tp + beta * (n_pos - tp) + fp, 1e-300)", (BY_HAND,)),
    M("held-out f-beta weight", "fslab/measures/_folds.py",
      "b2 = float(beta) ** 2", "b2 = float(beta)", (BY_HAND,)),
    M("thresholded learner ignores beta", "fslab/learners.py",
      "return ThresholdedClassifier(_logistic(C=C), beta=beta)", "return ThresholdedClassifier(_logistic(C=C))",
      (BY_HAND,)),
    # cost-sensitive: c and 1 - c swapped (invisible at c = 1/2)
    M("cost-sensitive Bayes cost, c swapped", "fslab/measures/cost_sensitive.py",
      "np.minimum((1.0 - c) * p[..., 1], c * p[..., 0])", "np.minimum(c * p[..., 1], (1.0 - c) * p[..., 0])",
      ("tests/test_measures.py", BY_HAND)),
    M("cost-sensitive held-out cost, c swapped", "fslab/measures/cost_sensitive.py",
      "return (c * fp + (1.0 - c) * fn) / test_total(test)", "return ((1.0 - c) * fp + c * fn) / test_total(test)",
      (BY_HAND,)),
    M("empirical cost-sensitive, c swapped", "fslab/measures/empirical.py",
      "c * (neg & (pred == 1)) + (1 - c) * (pos & (pred == 0))",
      "(1 - c) * (neg & (pred == 1)) + c * (pos & (pred == 0))", (BY_HAND,)),
    # other weights and units
    M("balanced error without its 1/2", "fslab/measures/balanced.py",
      "return 0.5 * np.minimum(pos, neg).sum(axis=-1)", "return np.minimum(pos, neg).sum(axis=-1)",
      ("tests/test_measures.py",)),
    M("AUC ties counted 1 instead of 1/2", "fslab/measures/auc.py",
      "weights=(cp - prev_p) * (prev_n + cn), minlength=n_tables) / 2.0",
      "weights=(cp - prev_p) * (cn + cn), minlength=n_tables) / 2.0", ("tests/test_measures.py",)),
    M("mutual information in nats, not bits", "fslab/information.py",
      '_UNITS = {"bits": np.log(2.0), "nats": 1.0}', '_UNITS = {"bits": 1.0, "nats": 1.0}',
      ("tests/test_information.py", "tests/test_measures.py")),
    # selectors
    M("s-variate average over pairs whatever s", "fslab/selectors/_scorers.py",
      "return (self.total + self.acc[candidates]) / comb(size, self.s)",
      "return (self.total + self.acc[candidates]) / comb(size, 2)", (BY_HAND,)),
    M("mrmr redundancy summed, not averaged", "fslab/selectors/_scorers.py",
      "return self.relevance[candidates] - self.acc[candidates] / self.size",
      "return self.relevance[candidates] - self.acc[candidates]", ("tests/test_selectors.py", BY_HAND)),
    # precision / recall, approach 2 (the log-likelihood; approach 1 is the default)
    M("precision/recall approach 2 without the target's log term", "fslab/measures/precision_recall.py",
      "return np.array([(base_log + other[o_rows] @ np.log(1.0 - base[o_rows])) / total])",
      "return np.array([(other[o_rows] @ np.log(1.0 - base[o_rows])) / total])",
      ("tests/test_measures_precision_recall.py",)),
    M("precision/recall approach 2 gain without the candidate's own term", "fslab/measures/precision_recall.py",
      "value = base_log + gain_t + gain_o", "value = base_log + gain_o", ("tests/test_measures_precision_recall.py",)),
    # NPFS
    M("NPFS strict rule counts ties", "fslab/npfs/result.py",
      "counts >= threshold if check_rule(rule) == \"at-least\" else counts > threshold",
      "counts >= threshold", ("tests/test_npfs_rule.py", BY_HAND)),
    M("NPFS alpha fixed at the default", "fslab/npfs/result.py",
      "return int(np.argmax(binom.sf(z, n, p0) <= alpha))", "return int(np.argmax(binom.sf(z, n, p0) <= 0.01))",
      (BY_HAND, "tests/test_npfs_rule.py")),
    M("NPFS sample fraction ignored", "fslab/npfs/procedure.py",
      "n_draw = max(1, round(sample_fraction * source.n_rows))", "n_draw = source.n_rows", (BY_HAND,)),
)


def _tracked_files(root: Path) -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                         check=True, capture_output=True).stdout
    return sorted({name for name in out.decode().split("\0") if name and (root / name).is_file()})


def make_copy(rev: str | None) -> Path:
    """A private copy of the tree (the working tree's files git knows of, or commit ``rev``), in a temp dir."""
    dest = Path(tempfile.mkdtemp(prefix="fslab-mutate-"))
    if rev is not None:
        archive = subprocess.run(["git", "archive", "--format=tar", rev], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
        return dest
    for name in _tracked_files(ROOT):
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, dest / name)
    return dest


def _warm_up() -> None:
    """Import the heavy third-party modules once, before any fork (never fslab: the children import it)."""
    import hypothesis  # noqa: F401
    import numpy  # noqa: F401
    import pandas  # noqa: F401
    import pytest  # noqa: F401
    import scipy.stats  # noqa: F401
    import sklearn.linear_model  # noqa: F401


class _Failures:
    """A pytest plugin writing the nodeid of every failed test to a file, one a line."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def pytest_runtest_logreport(self, report) -> None:
        if report.failed:
            with open(self.path, "a", encoding="utf-8") as out:
                out.write(report.nodeid + "\n")


# pytest loads no installed plugin by itself (xdist, anyio, platformdirs: 0.1 s a run), only hypothesis's (-p)
_PLUGINS = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


def run_tests(copy: Path, tests: tuple[str, ...], log: Path, deselect=(), stop_first: bool = True,
              collect_only: bool = False) -> int:
    """pytest's exit code for ``tests`` in the copy (tier TIER, stop at the first failure unless ``stop_first`` is
    False, leaving out the ``deselect`` nodeids), output in ``log`` and failed nodeids in ``log`` + ".failed".
    ``collect_only``: collect them and write pytest's rewritten bytecode of the test files, which later runs read
    (test files are never mutated)."""
    args = ["-q", "-p", "no:cacheprovider", "-p", "_hypothesis_pytestplugin", "-m", TIER,
            *(["-x"] if stop_first else []),
            *(["--collect-only"] if collect_only else []), *(f"--deselect={nodeid}" for nodeid in deselect), *tests]
    if not hasattr(os, "fork"):
        with open(log, "wb") as out:
            return subprocess.run([sys.executable, "-m", "pytest", *args], cwd=copy, stdout=out,
                                  stderr=subprocess.STDOUT, env={**os.environ, **_PLUGINS, "PYTHONPATH": str(copy)}
                                  ).returncode
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # child: fslab and the tests come from the copy
        code = 3
        try:
            fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.chdir(copy)
            os.environ.update(_PLUGINS)
            sys.path.insert(0, str(copy))
            sys.dont_write_bytecode = not collect_only
            import pytest

            code = int(pytest.main(args, plugins=[_Failures(Path(f"{log}.failed"))]))
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def mutation_run(copy: Path, m: Mutation, log: Path, failing: list[str]) -> tuple[int, list[str]]:
    """Apply ``m`` to the copy, run its tests (``failing`` left out), restore the file: pytest's exit code and the
    nodeids that failed."""
    path = copy / m.file
    original = path.read_text(encoding="utf-8")
    path.write_text(original.replace(m.original, m.replacement), encoding="utf-8")
    failed = Path(f"{log}.failed")
    failed.unlink(missing_ok=True)
    try:
        code = run_tests(copy, m.tests, log, deselect=failing)
    finally:
        path.write_text(original, encoding="utf-8")
    return code, failed.read_text(encoding="utf-8").split() if failed.exists() else []


def check_snippets(mutations) -> list[str]:
    """Problems with the list itself: a snippet missing or repeated in its file, a replacement that does not
    compile, a test file that does not exist."""
    problems = []
    for m in mutations:
        text = (ROOT / m.file).read_text(encoding="utf-8")
        if text.count(m.original) != 1:
            problems.append(f"{m.name}: the snippet occurs {text.count(m.original)} times in {m.file} (must be once)"
                            f": {m.original!r}")
            continue
        try:
            compile(text.replace(m.original, m.replacement), m.file, "exec")
        except SyntaxError as error:
            problems.append(f"{m.name}: the mutated {m.file} does not compile ({error})")
        problems += [f"{m.name}: no test file {t}" for t in m.tests if not (ROOT / t.split("::")[0]).exists()]
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", dest="match", default="", help="only mutations whose name contains this")
    parser.add_argument("--rev", help="mutate this commit (git archive) instead of the working tree's files")
    parser.add_argument("--keep", action="store_true", help="keep the copy and the logs (printed path)")
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    ns = parser.parse_args(argv)
    mutations = [m for m in MUTATIONS if ns.match in m.name]
    if ns.list:
        for m in mutations:
            print(f"{m.name}: {m.file}: {m.original!r} -> {m.replacement!r}; {', '.join(m.tests)}")
        return 0
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # one BLAS thread per run, set before numpy loads
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    sys.dont_write_bytecode = True
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    t0 = time.monotonic()
    copy = make_copy(ns.rev)
    global ROOT
    source_root, ROOT = ROOT, copy  # snippets are checked in the copy that is mutated
    logs = copy / ".mutation-logs"
    logs.mkdir()
    try:
        problems = check_snippets(mutations)
        if problems:
            print("mutation list out of date:\n  " + "\n  ".join(problems))
            return 2
        _warm_up()
        for folder in ("fslab", "tests"):   # bytecode checked by hash: a mutated module is compiled from its source
            compileall.compile_dir(copy / folder, quiet=1, invalidation_mode=PycInvalidationMode.CHECKED_HASH)
        gc.freeze()   # the warm-up's objects: no child's collections walk them (pytest's exit gc alone: 0.5 s a run)
        every_test = tuple(dict.fromkeys(t for m in mutations for t in m.tests))
        if run_tests(copy, every_test, logs / "collect.log", collect_only=True) != 0:
            print("the mutations' test files do not collect:\n"
                  + (logs / "collect.log").read_text(errors="replace")[-3000:])
            return 2
        failing: list[str] = []   # tests that fail without any mutation: left out of every run
        verdicts: dict[int, tuple[int, list[str]]] = {}
        seconds: dict[int, float] = {}
        todo = list(range(len(mutations)))
        while todo:
            for i in todo:
                t1 = time.monotonic()
                verdicts[i] = mutation_run(copy, mutations[i], logs / f"{i:02d}.log", failing)
                seconds[i] = time.monotonic() - t1
            catchers = sorted({t for code, caught in verdicts.values() if code == 1 for t in caught} - set(failing))
            if not catchers:
                break
            # the tests that caught a mutation, on the unmutated copy: each must pass there
            failed_path = logs / "unmutated.log.failed"
            failed_path.unlink(missing_ok=True)
            code = run_tests(copy, tuple(catchers), logs / "unmutated.log", stop_first=False)
            now_failing = failed_path.read_text(encoding="utf-8").split() if failed_path.exists() else []
            if code not in (0, 1) or (code == 1 and not now_failing):
                print(f"the catching tests without any mutation: exit code {code}\n"
                      + (logs / "unmutated.log").read_text(errors="replace")[-3000:])
                return 2
            failing += now_failing
            print(f"unmutated: {len(catchers)} catching tests" + (f"; failing without any mutation, left out: "
                                                                  f"{', '.join(now_failing)}" if now_failing else
                                                                  " pass"))
            todo = [i for i, (code, caught) in verdicts.items() if set(caught) & set(now_failing)]
        survived, broken = [], []
        for i, m in enumerate(mutations):
            code, _ = verdicts[i]
            verdict = {0: "SURVIVED", 1: "caught"}.get(code, f"ERROR (pytest exit {code})")
            print(f"{verdict:>9}  {m.name}  ({m.file}; {seconds[i]:.1f} s)")
            if code == 0:
                survived.append(m)
            elif code != 1:
                broken.append(m)
                print((logs / f"{i:02d}.log").read_text(errors="replace")[-2000:])
        print(f"{len(mutations) - len(survived) - len(broken)} of {len(mutations)} mutations caught, "
              f"{len(survived)} survived, {len(broken)} errors, in {time.monotonic() - t0:.1f} s")
        for m in survived:
            print(f"  survived: {m.name}: {m.file}: {m.original!r} -> {m.replacement!r}; ran {', '.join(m.tests)}")
        return 1 if survived else 2 if broken else 0
    finally:
        ROOT = source_root
        if ns.keep:
            print(f"copy and logs kept in {copy}")
        else:
            shutil.rmtree(copy, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
