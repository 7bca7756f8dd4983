"""The container recipe (issue 25.5). Docker is not available where the tests run, so the image is not built here;
what can be checked is: the Dockerfile's choices (base, tested versions, non-root user, limits as ENV), that the
files it copies are all the app needs, and that its CMD starts the app (run from a copy of exactly those files)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import urllib.request
from dataclasses import fields
from fnmatch import fnmatch
from pathlib import Path

import pytest

from fslab.limits import SCHEDULER_SETTING, Limits, check_server_settings
from tests.conftest import running_streamlit, scaled

ROOT = Path(__file__).resolve().parents[1]


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined, comments dropped."""
    lines, out = [], []
    for raw in (ROOT / "Dockerfile").read_text().splitlines():
        if raw.lstrip().startswith("#"):
            continue
        lines.append(raw.rstrip())
    text = "\n".join(lines).replace("\\\n", " ")
    for line in text.splitlines():
        if line.strip():
            word, _, rest = line.strip().partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def env() -> dict[str, str]:
    values = {}
    for word, rest in instructions():
        if word == "ENV":
            for item in shlex.split(rest):
                name, _, value = item.partition("=")
                values[name] = value
    return values


def cmd() -> list[str]:
    (rest,) = [rest for word, rest in instructions() if word == "CMD"]
    return json.loads(rest)  # exec form: no shell between the signal and Streamlit


def copied() -> list[str]:
    paths = []
    for word, rest in instructions():
        if word == "COPY":
            paths += rest.split()[:-1]
    return [p.rstrip("/") for p in paths]


def test_base_install_and_user():
    steps = instructions()
    assert steps[0] == ("FROM", "python:3.11-slim-bookworm")  # the tested interpreter (constraints.txt: 3.11)
    assert ("RUN", "pip install -c constraints.txt -r requirements.txt") in steps
    users = [i for i, (word, _) in enumerate(steps) if word == "USER"]
    assert users and steps[users[-1]][1] not in ("root", "0")
    assert users[-1] < [word for word, _ in steps].index("CMD")  # the app never runs as root
    assert cmd() == ["streamlit", "run", "app.py", "--server.address", "0.0.0.0", "--server.port", "8501"]
    assert ("EXPOSE", "8501") in steps


def test_every_server_limit_is_set_to_its_default_and_accepted():
    settings = {k: v for k, v in env().items() if k.startswith("FSLAB_")}
    expected = {f"FSLAB_{f.name.upper()}": str(f.default) for f in fields(Limits)}
    assert {k: v for k, v in settings.items() if k != SCHEDULER_SETTING} == expected
    assert check_server_settings(settings) == Limits()  # what app.py checks at start


def test_the_image_holds_what_the_app_and_package_need():
    have = copied()
    for needed in ("app.py", "pages", "ui", ".streamlit", "fslab", "sample_data", "pyproject.toml",
                   "requirements.txt", "constraints.txt", "README.md", "LICENSE"):
        assert needed in have, needed
        assert (ROOT / needed).exists()
    ignored = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
               if line.strip() and not line.startswith("#")]
    assert not [p for p in have if any(fnmatch(p, pat) for pat in ignored)]


@pytest.mark.slow  # starts a Streamlit server (about 3 s of CPU)
def test_the_cmd_starts_the_app_from_the_image_files(tmp_path):
    """The CMD, run in a directory holding only what the Dockerfile copies, with the Dockerfile's ENV: the server
    answers /_stcore/health, serves the app's page, and app.py's first run (AppTest, from that directory) works.
    Loopback instead of 0.0.0.0 and a free port instead of 8501: a test must not listen on the network."""
    for path in copied():
        src = ROOT / path
        if src.is_dir():
            shutil.copytree(src, tmp_path / path, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, tmp_path / path)
    def argv(port: int) -> list[str]:
        args = cmd()
        assert args[0] == "streamlit"
        args[args.index("--server.address") + 1] = "127.0.0.1"
        args[args.index("--server.port") + 1] = str(port)
        return args

    run_env = {**{k: v for k, v in os.environ.items() if not k.startswith("FSLAB_")}, **env(), "PYTHONPATH": ""}
    with running_streamlit(tmp_path / "server.log", argv, cwd=tmp_path, env=run_env) as url:
        assert b"<noscript>" in urllib.request.urlopen(url + "/", timeout=10).read()
    # the server runs app.py only for a browser session: run its first page the way a session does, from the copy
    probe = ("from streamlit.testing.v1 import AppTest\n"
             f"at = AppTest.from_file('app.py', default_timeout={scaled(60):.0f}).run()\n"
             "assert not at.exception, [e.value for e in at.exception]\n"
             "import ui; print(ui.__file__)\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=run_env, capture_output=True, text=True,
                          timeout=scaled(120))
    assert done.returncode == 0, done.stderr[-3000:]
    assert Path(done.stdout.strip()).resolve().is_relative_to(tmp_path.resolve())  # the copied ui/, not the repo's
