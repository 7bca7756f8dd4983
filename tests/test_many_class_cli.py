"""The command line on a 3-class target (issue 33.5): --measure balanced and cost-sensitive --cost-matrix (text or a
JSON file) select and report the library's values; a binary c, a wrong-sized matrix and a positive-class measure
are refused with what to do."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import fslab
from fslab.cli import main

C3 = [[0, 1, 2], [1, 0, 1], [4, 1, 0]]


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    rng = np.random.default_rng(0)
    m = 300
    a, b = rng.integers(0, 3, m), rng.integers(0, 4, m)
    y = np.where(rng.random(m) < 0.7, a, rng.integers(0, 3, m))
    path = tmp_path_factory.mktemp("many") / "three.csv"
    pd.DataFrame({"a": a, "b": b, "species": np.array(["setosa", "versicolor", "virginica"])[y]}).to_csv(path,
                                                                                                      index=False)
    costs = path.with_name("costs.json")
    costs.write_text(json.dumps(C3))
    return path, costs


def _first_score(out: str) -> float:
    row = next(line for line in out.splitlines() if line.strip().startswith("1 "))
    return float(row.split()[3])


@pytest.mark.slow  # 0.25-0.3 s measured
@pytest.mark.parametrize("extra", (("--measure", "balanced"), ("--measure", "cost-sensitive", "--cost-matrix",
                                                                "0,1,2;1,0,1;4,1,0"),
                                   ("--measure", "cost-sensitive", "--cost-matrix", "JSON")))
def test_many_class_measures_select_on_the_command_line(capsys, three, extra):
    path, costs = three
    extra = tuple(str(costs) if e == "JSON" else e for e in extra)
    code = main(["select", str(path), "--target", "species", "--k", "1", "--estimate", "plug-in", *extra])
    out = capsys.readouterr().out
    assert code == 0, out
    ds = fslab.Dataset.from_frame(pd.read_csv(path), "species").discretize()
    params = {"c": C3} if "cost-sensitive" in extra else {}
    want = fslab.bayes_value(ds, [0], extra[1], **params)   # a is the signal
    assert "selected: a" in out and _first_score(out) == pytest.approx(-want, abs=1e-6)


@pytest.mark.slow  # 0.35 s measured
def test_many_class_refusals_say_what_to_do(capsys, three):
    path, _ = three
    cases = {("--measure", "cost-sensitive"): "3 x 3 cost matrix",
             ("--measure", "cost-sensitive", "--cost-matrix", "0,1;1,0"): "2 x 2 but the target has 3 classes",
             ("--measure", "cost-sensitive", "--cost-matrix", "0,1,2;1,0,-1;4,1,0"): "non-negative",
             ("--measure", "f-beta"): "--positive",
             ("--measure", "balanced", "--cost-matrix", "0,1,1;1,0,1;1,1,0"): "--cost-matrix does not apply"}
    for extra, message in cases.items():
        try:
            code = main(["select", str(path), "--target", "species", "--k", "1", *extra])
        except SystemExit as exit_:   # argparse refuses an unreadable matrix itself
            code = exit_.code
        captured = capsys.readouterr()
        assert code != 0 and message in captured.err, (extra, captured.err)
