"""``python -m fslab`` end to end (subprocesses: exit codes, streams, Ctrl-C), and the done-when test: the command
line (``fslab.cli.main``, in process) selects what the Select page selects for the same sample and choices."""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import time

import pytest
from streamlit.testing.v1 import AppTest

from fslab.cli.main import main
from fslab.recipe import Recipe
from tests.conftest import ROOT
from tests.test_share_app import open_page, rerun  # noqa: F401  (open_page: the Select page opened by its link)

SAMPLE = "waveform"  # 5,000 rows x 40 features, binary (class 2 vs the rest): a quick sample other than the default


def fslab(*argv: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fslab", *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONPATH": str(ROOT)})


def fslab_json(capsys, *argv: str) -> dict:
    """``fslab ARGV --json`` in this process (the entry point itself: :func:`test_exit_codes_and_streams`)."""
    capsys.readouterr()
    code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def select_page_names(sample: str, measure: str, k: int) -> list[str]:
    """The Select page's selection: the sample chosen on the Home page (as a user does), default selector."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=240).run()
    at.selectbox(key="home_sample").set_value(sample).run()
    assert at.session_state["fslab.current_data"].name == f"{sample} (sample)"
    at.switch_page("pages/selection.py").run()
    at.selectbox(key="select.measure").set_value(measure).run()
    assert at.session_state["select.k"] == k and at.session_state["select.selector"] == "bayes-greedy"
    assert not at.exception, [e.value for e in at.exception]
    return re.findall(r"\*\*(.+?)\*\*", at.success[0].value)


def test_select_json_matches_the_select_page(capsys):
    doc = fslab_json(capsys, "select", str(ROOT / "sample_data" / f"{SAMPLE}.csv.gz"), "--measure", "balanced",
                     "--k", "5")
    assert doc["selector"] == "bayes-greedy" and doc["measure"] == "balanced" and doc["k"] == 5
    assert doc["data"]["name"] == f"{SAMPLE} (sample)"  # the sample file loads as the sample, not as an upload
    page = select_page_names(SAMPLE, "balanced", 5)
    assert len(page) == 5 and doc["names"] == page


def test_the_select_pages_recipe_reproduces_its_selection(open_page, tmp_path, capsys):  # noqa: F811
    """The page's recipe (what its address bar and "Download recipe" hold) run by the command line."""
    at = open_page("pages/selection.py", {"data": SAMPLE})
    at.selectbox(key="select.measure").set_value("cost-sensitive")
    rerun(at)
    at.slider(key="select.c").set_value(0.1)
    rerun(at)
    page = re.findall(r"\*\*(.+?)\*\*", next(s.value for s in at.success if s.value.startswith("Selected:")))
    recipe = Recipe.from_query("select", dict(at.query_params))
    assert recipe.data == {"sample": SAMPLE} and recipe.choices["c"] == 0.1
    path = tmp_path / "fslab-select-recipe.json"
    path.write_text(recipe.to_json())
    doc = fslab_json(capsys, "select", "--recipe", str(path))
    assert doc["measure"] == "cost-sensitive" and doc["params"] == {"c": 0.1} and doc["k"] == 5
    assert len(page) == 5 and doc["names"] == page


def test_exit_codes_and_streams(capsys):
    """``python -m fslab`` exits with main's code and writes errors to stderr only (one process); main's codes and
    streams for a usage error and a success, in process."""
    done = fslab("select", "missing.csv")
    assert (done.returncode, done.stdout, done.stderr) == (1, "", "fslab: error: no such file: 'missing.csv'\n")
    capsys.readouterr()
    assert main(["lattice", "mushroom", "--measure", "nosuch"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "invalid choice: 'nosuch'" in err
    assert main(["lattice", "sample:mushroom", "--features", "cap-shape=bell,odor=none", "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and json.loads(out)["best_per_size"][1]["names"] == ["odor=none"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_during_npfs_exits_130():
    """A run under the work limit (fslab.cost: n = 150 on Adult) interrupted once it has started.

    No sleeps: SIGINT goes out the moment the readiness signal arrives, the progress line ``npfs [... 0/150``
    that npfs draws before its first bootstrap (inside main's try, so the run cannot be mid-import or already
    done). The deadlines only turn a hang into a failure: start-up (imports, loading Adult) and the exit, which
    waits for at most the one bootstrap batch in flight (measured 18 s and 3 s at load average 17 on 2 cores).
    """
    proc = subprocess.Popen([sys.executable, "-m", "fslab", "npfs", "adult", "--n", "150", "--progress"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        seen, ready_by = b"", time.monotonic() + 90
        while b"npfs [" not in seen and select.select([proc.stderr], [], [], max(0.0, ready_by - time.monotonic()))[0]:
            chunk = os.read(proc.stderr.fileno(), 256)  # what is there now; b"" once the process has exited
            if not chunk:
                break
            seen += chunk
        assert b"npfs [" in seen and proc.poll() is None, (proc.poll(), seen)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert out == b"" and (seen + err).endswith(b"fslab: interrupted\n") and b"Traceback" not in err
