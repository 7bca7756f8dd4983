"""Every code block of README.md runs as written, or its command is checked (issue 25.3).

Python blocks run in order in one namespace (as a reader pastes them into one session); the Dask blocks run in a
fresh interpreter with the LocalCluster they start themselves. Each line of a ```bash block must match one of
BASH_RULES, whose check runs the command when that is safe and short, and otherwise checks what it relies on; a new
command in the README fails test_every_bash_line_has_a_check until a rule covers it.

Not run, and why:
- the first of "Two commands" installs packages and starts a server that never exits: its files and pins are
  checked here and in tests/test_constraints.py, and its `streamlit run app.py` in tests/test_dockerfile.py;
- `bash .ci/run` is CI itself (checked for syntax here);
- `pip install ...` would change this environment: the extras it names must exist in pyproject.toml;
- `dask scheduler` / `dask worker` start servers: their --help must work;
- `docker build` / `docker run`: no Docker daemon here; the Dockerfile is checked in tests/test_dockerfile.py and
  the settings the command passes must be accepted by fslab.limits.check_server_settings;
- `fslab select|npfs ... --scheduler tcp://HOST:8786` needs a cluster at HOST: its options must be in `fslab ... --help`
  (the Dask Python block runs the same work on a LocalCluster; tests/test_cli_cluster.py runs the command line on one);
- the benchmark scripts take minutes: their --help must offer --quick;
- the pytest lines would run the suite inside the suite: their -m expressions may use only registered markers.
"""

from __future__ import annotations

import configparser
import io
import os
import re
import runpy
import shlex
import subprocess
import sys
import tomllib
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.conftest import scaled

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def blocks(lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", README, flags=re.M | re.S)


# --- Python ---------------------------------------------------------------------------------------------------------

# every ```python block, named by a phrase it contains; a new block needs a name here and a test below
PYTHON = {"api": 'fslab.load_sample("adult")', "own table": 'read_csv("customers.csv"',
          "dask": "LocalCluster("}


def python_block(name: str) -> str:
    (code,) = [b for b in blocks("python") if PYTHON[name] in b]
    return code


def test_every_python_block_is_known():
    assert all(sum(phrase in b for phrase in PYTHON.values()) == 1 for b in blocks("python"))
    assert len(blocks("python")) == len(PYTHON)


def customers_csv(path: Path, m: int = 600) -> None:
    """customers.csv stands for the reader's own table; this one has what the block's comments promise: a date,
    "62%", "1,234" and "1.86 mm/s" columns, an ID and free text (left out), and a churn target."""
    rng = np.random.default_rng(0)
    tenure = rng.integers(1, 60, m)
    churn = (rng.random(m) < 0.2 + 0.5 * (tenure < 12)).astype(int)
    pd.DataFrame({
        "customer_id": [f"C{i:05d}" for i in range(m)],
        "signed_up": pd.date_range("2020-01-01", periods=m, freq="D").strftime("%Y-%m-%d"),
        "discount": [f"{v}%" for v in rng.integers(0, 80, m)],
        "spend": [f"{v:,}" for v in rng.integers(100, 20_000, m)],
        "vibration": [f"{v:.2f} mm/s" for v in rng.random(m) * 3],
        "tenure": tenure,
        "note": [f"called on day {i} about plan {rng.integers(1, 9)}" for i in range(m)],
        "churn": np.where(churn == 1, "yes", "no"),
    }).to_csv(path, index=False)


@pytest.mark.slow  # Adult: a selection and 100 NPFS bootstraps (a few seconds of CPU)
def test_the_in_memory_python_blocks_run_as_written(tmp_path, monkeypatch):
    customers_csv(tmp_path / "customers.csv")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(python_block("api"), "README: The Python API in five lines", "exec"), namespace)
    assert len(namespace["sel"].names) == 10 and namespace["res"].matrix.shape == (123, 100)
    with pytest.warns(UserWarning):  # the block's comment: "a UserWarning says how to keep one"
        exec(compile(python_block("own table"), "README: Your own table", "exec"), namespace)
    data, sel = namespace["data"], namespace["sel"]
    assert "customer_id" not in data.feature_names and "note" not in data.feature_names
    assert len(sel.features) == 3 and sel.estimate == "cross-fitted"


@pytest.mark.cluster  # starts its own LocalCluster (the block's): 2 worker processes on this machine
@pytest.mark.slow  # a LocalCluster of 2 worker processes, a selection and 20 NPFS bootstraps on it
def test_the_dask_python_block_runs_as_written_on_a_local_cluster(tmp_path):
    """The Dask block, as written, as a script in a fresh interpreter (its LocalCluster's workers re-import it):
    it writes the Mushroom sample as parquet, reads it on the workers, selects and runs NPFS there."""
    script = tmp_path / "readme_dask.py"
    script.write_text(python_block("dask"))
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=scaled(600))
    assert done.returncode == 0, done.stderr[-4000:]
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 2 and "odor=none" in lines[0], done.stdout   # the selection, then NPFS's relevant set
    assert (tmp_path / "mushroom-parquet").is_dir()


# --- bash -----------------------------------------------------------------------------------------------------------

def bash_lines() -> list[str]:
    lines = []
    for block in blocks("bash"):
        for line in block.splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if line and not line.startswith("#"):
                lines.append(line)
    return lines


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def check_first_command(line: str) -> None:
    for name in ("constraints.txt", "requirements.txt", "app.py"):
        assert (ROOT / name).is_file(), name


def check_ci(line: str) -> None:
    subprocess.run(["bash", "-n", str(ROOT / ".ci" / "run")], check=True)


def check_extras(line: str) -> None:
    extras = pyproject()["project"]["optional-dependencies"]
    for named in re.findall(r"\.\[([\w,]+)\]", line):
        assert set(named.split(",")) <= set(extras), line


def check_dask_cli(line: str) -> None:
    """The `dask` console script is installed, and its subcommand's --help works: run in this process as the script
    runs it (dask.cli.run_cli: the "dask_cli" entry points, distributed's scheduler and worker, added to the group)
    through click's runner (a process each: 0.45 s of CPU; both here: 0.43 s)."""
    from importlib.metadata import entry_points

    from click.testing import CliRunner
    from dask import cli

    assert "from dask.__main__ import main" in (Path(sys.executable).parent / "dask").read_text()
    for entry in entry_points(group="dask_cli"):
        if entry.name not in cli.cli.commands:   # once per process (again: a warning for each)
            cli._register_command_ep(cli.cli, entry)
    done = CliRunner().invoke(cli.cli, [shlex.split(line)[1], "--help"])
    assert done.exit_code == 0 and f"Launch a Dask {shlex.split(line)[1]}" in done.output, done.output[-2000:]


def check_fslab_options(line: str) -> None:
    from fslab.cli import main

    words = shlex.split(line)
    out = io.StringIO()
    with redirect_stdout(out):
        try:
            code = main([words[1], "--help"])
        except SystemExit as stop:  # argparse's --help exit, if main lets it through
            code = stop.code
    assert code in (0, None)
    for option in (w for w in words if w.startswith("--")):
        assert option in out.getvalue(), f"{option} is not an option of `fslab {words[1]}`"


def check_streamlit_serve(line: str) -> None:
    from tests.test_dockerfile import cmd

    words = shlex.split(line)
    settings = dict(w.split("=", 1) for w in words if re.fullmatch(r"FSLAB_\w+=.*", w))
    words = [w for w in words if not re.fullmatch(r"FSLAB_\w+=.*", w)]
    assert words[0] == ".venv/bin/streamlit" and words[1:] == cmd()[1:]  # the CMD tests/test_dockerfile.py runs
    check_settings(settings)


def check_settings(settings: dict) -> None:
    from fslab.limits import check_server_settings

    assert all(name.startswith("FSLAB_") for name in settings)
    limits = check_server_settings(settings)
    for name, value in settings.items():
        if name != "FSLAB_DASK_SCHEDULER":
            assert getattr(limits, name.removeprefix("FSLAB_").lower()) == int(value), name


def check_docker(line: str) -> None:
    assert (ROOT / "Dockerfile").is_file()
    words = shlex.split(line)
    check_settings(dict(words[i + 1].split("=", 1) for i, w in enumerate(words) if w == "-e"))
    if words[1] == "run":
        assert "-p" in words and words[words.index("-p") + 1] == "8501:8501"


def script_help(script: str) -> str:
    """What ``python SCRIPT --help`` prints, run in this process as ``__main__`` (runpy; no interpreter start):
    its exit code must be 0. ``sys.argv``, ``sys.path`` and the environment are restored afterwards, and the modules
    it imported from its own folder forgotten (no shadowing of later imports)."""
    saved_argv, saved_path, saved_env = sys.argv, list(sys.path), dict(os.environ)
    folder = str((ROOT / script).parent)
    out = io.StringIO()
    try:
        sys.argv = [str(ROOT / script), "--help"]
        with redirect_stdout(out), pytest.raises(SystemExit) as stop:
            runpy.run_path(str(ROOT / script), run_name="__main__")
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
        os.environ.clear()
        os.environ.update(saved_env)
        for name, module in list(sys.modules.items()):
            if (getattr(module, "__file__", None) or "").startswith(folder + os.sep):
                del sys.modules[name]
    assert stop.value.code in (0, None), out.getvalue()[-2000:]
    return out.getvalue()


def check_bench(line: str) -> None:
    assert "--quick" in script_help(shlex.split(line)[1])


def check_pytest_markers(line: str) -> None:
    ini = configparser.ConfigParser()
    ini.read(ROOT / "pytest.ini")
    registered = {m.split(":")[0].strip() for m in ini["pytest"]["markers"].strip().splitlines()}
    words = shlex.split(line)[3:]  # after `python -m pytest`
    if "-m" in words:
        used = set(re.findall(r"\w+", words[words.index("-m") + 1])) - {"and", "or", "not"}
        assert used <= registered, used - registered


def check_mutate(line: str) -> None:
    """tools/mutate.py runs (its --help) from the repository root; tests/test_mutations.py runs the check itself."""
    done = subprocess.run([sys.executable, "tools/mutate.py", "--help"], cwd=ROOT, capture_output=True, text=True,
                          timeout=scaled(120))
    assert done.returncode == 0 and "mutation" in done.stdout.lower(), done.stderr[-2000:]


# (pattern of a whole line, check, slow: a process of its own, or a script's imports in this one)
BASH_RULES = [
    (r"python3 -m venv \.venv && \.venv/bin/pip install -c constraints\.txt -r requirements\.txt && "
     r"\.venv/bin/streamlit run app\.py", check_first_command, False),
    (r"(bash )?\.ci/run", check_ci, False),
    (r'pip install (-e )?"?\.(\[[\w,]+\])?"?', check_extras, False),
    (r"dask (scheduler|worker tcp://HOST:8786)", check_dask_cli, True),
    (r"fslab (select|npfs) \S+( --?[\w-]+( \S+)?)*", check_fslab_options, False),
    (r"(FSLAB_\w+=\S+ )*\.venv/bin/streamlit run app\.py .*", check_streamlit_serve, False),
    (r"docker (build|run) .*", check_docker, False),
    (r"\.venv/bin/python bench/\w+\.py --quick", check_bench, True),
    (r"\.venv/bin/python -m pytest.*", check_pytest_markers, False),
    (r"\.venv/bin/python tools/mutate\.py", check_mutate, True),
]


def rule_of(line: str):
    found = [rule for rule in BASH_RULES if re.fullmatch(rule[0], line)]
    assert found, f"README command without a check in tests/test_readme_blocks.py: {line!r}"
    return found[0]


def test_every_bash_line_has_a_check():
    for line in bash_lines():
        rule_of(line)


@pytest.mark.parametrize("line", [ln for ln in bash_lines() if not rule_of(ln)[2]])
def test_bash_line(line):
    rule_of(line)[1](line)


@pytest.mark.slow  # each imports distributed's command line or a benchmark (its --help)
@pytest.mark.parametrize("line", [ln for ln in bash_lines() if rule_of(ln)[2]])
def test_bash_line_in_a_process(line):
    rule_of(line)[1](line)
