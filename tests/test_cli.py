"""Command line (``python -m fslab``): every subcommand's text and --json output, recipes, the progress bar.

Example 1 (Ahmed et al.): P(Y=1) = 0.3; the Bayes 0-1 error of X1 is 0.25 < 0.30 for X2, while
H(Y|X2) = 0.491 nats < H(Y|X1) = 0.554 nats, so zero-one picks X1 and log-loss (like MI) picks X2.
"""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from fslab.cli import main
from fslab.data.distributions import example1
from fslab.measures import MEASURES
from fslab.recipe import Recipe, load_dataset
from fslab.selectors import select


@pytest.fixture
def ex1(tmp_path):
    path = tmp_path / "example1.json"
    path.write_text(example1().to_json())
    return str(path)


@pytest.fixture
def csv(tmp_path):
    """200 rows: y = a (so 'a' is the one feature that predicts it), b noise, c = 1 - a in 90% of rows."""
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 2, 200), rng.integers(0, 3, 200)
    c = np.where(rng.random(200) < 0.9, 1 - a, a)
    path = tmp_path / "toy.csv"
    path.write_text("b,a,c,y\n" + "".join(f"{x},{u},{v},{u}\n" for x, u, v in zip(b, a, c, strict=True)))
    return str(path)


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv) -> dict:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize(("measure", "expected"), [("zero-one", "X1"), ("log-loss", "X2")])
def test_select_example1_json(capsys, ex1, measure, expected):
    doc = run_json(capsys, "select", ex1, "--measure", measure, "--k", "1")
    assert doc["names"] == [expected] and doc["selector"] == "bayes-greedy" and doc["k"] == 1
    assert doc["data"] == {"kind": "distribution", "name": "example1.json", "features": 2, "states": 4}
    expected_value = -0.25 if measure == "zero-one" else -0.491359
    assert doc["scores"][0] == pytest.approx(expected_value, abs=1e-6)
    assert doc["ties"] == [1] and doc["criteria"] == pytest.approx(doc["scores"])


def test_select_text_lists_steps_criterion_and_ties(capsys, ex1):
    code, out, err = run(capsys, "select", ex1, "--measure", "zero-one", "--k", "2")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "data: example1.json: exact distribution, 4 states x 2 features"
    assert lines[1] == "selector: BayesGreedy (bayes-greedy), measure: zero-one, k = 2"
    assert "C(first t) under zero-one" in lines[2] and "tied" in lines[2]
    assert lines[3].split()[:4] == ["1", "0", "X1", "-0.25"]  # rank, index, name, -error of {X1}
    assert lines[4].split()[:4] == ["2", "1", "X2", "-0.22"]  # {X1, X2}: error 0.22
    assert lines[-1] == "selected: X1, X2"


def test_select_backward_prints_its_eliminations(capsys, ex1):
    doc = run_json(capsys, "select", ex1, "--selector", "backward", "--k", "1")
    assert doc["eliminated"] == [1] and doc["names"] == ["X1"]
    assert doc["start_score"] == pytest.approx(-0.22) and doc["scores"] == pytest.approx([-0.25])
    code, out, _ = run(capsys, "select", ex1, "--selector", "backward", "--k", "1")
    assert "C(all 2 features) = -0.22" in out and out.splitlines()[-2].split() == ["1", "X2", "-0.25", "1"]


def test_select_csv_defaults_to_last_column_and_reports_ties(capsys, csv):
    doc = run_json(capsys, "select", csv, "--k", "2", "--measure", "zero-one")
    assert doc["data"]["target"] == "y" and doc["data"]["rows"] == 200
    assert doc["names"][0] == "a" and doc["scores"][0] == 0.0
    # after 'a' the error is 0 whatever is added: b and c tie and the lower index (b) wins
    assert doc["ties"] == [1, 2] and doc["names"][1] == "b"
    code, out, _ = run(capsys, "select", csv, "--k", "2")
    assert code == 0 and "ties: step 2 (2 tied)" in out


def test_select_gzip_csv_and_target_option(capsys, csv, tmp_path):
    gz = tmp_path / "toy.csv.gz"
    gz.write_bytes(gzip.compress(open(csv, "rb").read()))
    doc = run_json(capsys, "select", str(gz), "--target", "a", "--k", "1")
    assert doc["data"]["target"] == "a" and doc["names"] == ["y"]


def test_sample_with_another_positive_class_and_binning(capsys):
    doc = run_json(capsys, "select", "waveform", "--positive", "0", "--method", "quantile", "--bins", "4", "--k", "1")
    assert doc["data"] == {"kind": "dataset", "name": "waveform (sample)", "features": 40, "rows": 5000,
                           "task": "binary", "target": "class", "positive": "0"}


def test_select_measure_parameters_and_selectors(capsys, ex1):
    doc = run_json(capsys, "select", ex1, "--measure", "cost-sensitive", "--c", "0.1", "--k", "1")
    assert doc["params"] == {"c": 0.1} and doc["measure_params"] == {"c": 0.1}
    doc = run_json(capsys, "select", ex1, "--measure", "cost-sensitive", "--k", "1")
    assert doc["params"] == {"c": MEASURES["cost-sensitive"].parameters["c"].default}  # the one default (0.25)
    doc = run_json(capsys, "select", ex1, "--selector", "mi-greedy", "--k", "1")
    assert doc["names"] == ["X2"] and doc["measure"] == "mi"


def test_npfs_text_and_json(capsys, tmp_path):
    path = tmp_path / "sample.json"
    sample = example1().sample(400, seed=1)  # 400 rows of Example 1; NPFS needs rows, not a distribution
    frame = ["X1,X2,Y\n"] + [f"{a},{b},{y}\n" for (a, b), y in zip(sample.X, sample.y, strict=True)]
    path = tmp_path / "ex1_rows.csv"
    path.write_text("".join(frame))
    argv = ("npfs", str(path), "--selector", "bayes-greedy", "--measure", "zero-one", "--k", "1", "--n", "40",
            "--seed", "3")
    doc = run_json(capsys, *argv)
    assert doc["k"] == 1 and doc["n_bootstraps"] == 40 and doc["p0"] == 0.5 and doc["seed"] == 3
    assert doc["threshold"] == 27  # binom.ppf(0.99, 40, 0.5)
    assert doc["relevant_names"] == ["X1"] and doc["k_star"] == 1 and sum(doc["counts"]) == 40
    assert "selected_per_bootstrap" not in doc
    code, out, err = run(capsys, *argv)
    assert code == 0 and err == ""  # no progress bar: stderr is not a terminal
    assert "critical value zeta = 27" in out and out.rstrip().endswith("(1 more feature, not relevant; --all lists "
                                                                       "every feature)")
    assert "k* = 1 relevant: X1" in out


def test_npfs_rule_option_reaches_the_result(capsys, tmp_path):
    """--rule is passed to npfs and reported (the decision at z == zeta itself is tested in test_npfs_rule.py).

    Two binary copies of Y, k = 1 of K = 2 (p0 = 1/2), n = 10, alpha = 0.05: zeta = 8 (hand example of
    test_npfs.py); an unknown rule is a usage error (exit 2)."""
    path = tmp_path / "copies.csv"
    path.write_text("X1,X2,Y\n" + "".join(f"{v},{v},{v}\n" for v in [0, 1] * 20))
    base = ("npfs", str(path), "--selector", "mi-score", "--k", "1", "--n", "10", "--alpha", "0.05", "--seed", "0")
    strict, at_least = run_json(capsys, *base), run_json(capsys, *base, "--rule", "at-least")
    assert strict["threshold"] == at_least["threshold"] == 8
    assert strict["rule"] == "strict" and at_least["rule"] == "at-least"
    code, out, _ = run(capsys, *base, "--rule", "at-least")
    assert code == 0 and "relevant: z >= zeta, rule at-least" in out
    code, _, err = run(capsys, *base, "--rule", "loose")
    assert code == 2 and "invalid choice: 'loose'" in err


def test_npfs_progress_bar_goes_to_stderr_only(capsys, csv):
    code, out, err = run(capsys, "npfs", csv, "--k", "1", "--n", "5", "--progress", "--json")
    assert code == 0 and json.loads(out)["n_bootstraps"] == 5
    assert err.startswith("\rnpfs [") and "5/5" in err and err.endswith("\n")
    code, out, err = run(capsys, "npfs", csv, "--k", "1", "--n", "5", "--progress", "--quiet")
    assert code == 0 and err == ""


def test_lattice_text_and_json(capsys, ex1):
    doc = run_json(capsys, "lattice", ex1)
    assert doc["measure"] == "zero-one" and doc["monotone"] is True
    best = {row["size"]: (row["names"], row["value"]) for row in doc["best_per_size"]}
    assert best[0] == ([], pytest.approx(0.3)) and best[1] == (["X1"], pytest.approx(0.25))
    assert best[2] == (["X1", "X2"], pytest.approx(0.22))
    # {X2} ties the empty set at 0.30 (its Bayes classifier still predicts Y=0 everywhere): equal ranks, smaller first
    assert [row["names"] for row in doc["subsets"]] == [["X1", "X2"], ["X1"], [], ["X2"]]
    assert [row["rank"] for row in doc["subsets"]] == [1, 2, 3, 3]
    code, out, _ = run(capsys, "lattice", ex1, "--measure", "log-loss", "--all")
    assert code == 0 and "4 subsets of 2 features, log-loss (lower is better)" in out
    assert "every subset, best first:" in out and out.index("{X2}") < out.index("{X1}")


def test_lattice_of_chosen_features(capsys, csv):
    doc = run_json(capsys, "lattice", csv, "--features", "a,c")
    assert doc["data"]["features"] == 3 and len(doc["subsets"]) == 4
    assert doc["best_per_size"][1]["names"] == ["a"]


def test_compare_text_and_json(capsys, ex1):
    doc = run_json(capsys, "compare", ex1, "--selectors", "bayes-greedy,mi-greedy", "--k", "1")
    assert doc["selections"]["bayes-greedy"]["names"] == ["X1"]
    assert doc["selections"]["mi-greedy"]["names"] == ["X2"]
    assert doc["jaccard"]["bayes-greedy"] == {"bayes-greedy": 1.0, "mi-greedy": 0.0}
    assert doc["optimal"] == [0] and doc["optimal_value"] == pytest.approx(0.25)
    code, out, _ = run(capsys, "compare", ex1, "--k", "1")
    assert code == 0 and "compare: 7 selectors, k = 1, measure zero-one" in out
    assert "Jaccard overlap:" in out and "exact k-optimal subset: X1 (value 0.25)" in out


def _recipe(tmp_path, **kwargs) -> str:
    path = tmp_path / "recipe.json"
    path.write_text(Recipe(**kwargs).to_json())
    return str(path)


def test_recipe_reproduces_its_selection_and_options_override(capsys, tmp_path):
    choices = {"source": "dataset", "selector": "bayes-greedy", "measure": "balanced", "k": 3}
    path = _recipe(tmp_path, page="select", data={"sample": "waveform"}, choices=choices)
    expected = select(load_dataset({"sample": "waveform"}), 3, "bayes-greedy", measure="balanced")
    doc = run_json(capsys, "select", "--recipe", path)
    assert doc["names"] == list(expected.names) and doc["measure"] == "balanced" and doc["k"] == 3
    assert doc["data"]["name"] == "waveform (sample)"
    assert run_json(capsys, "select", "--recipe", path, "--k", "2")["names"] == list(expected.names[:2])


def test_recipe_with_toy_distribution(capsys, tmp_path):
    path = _recipe(tmp_path, page="select", distribution={"preset": "bayes-example-1"},
                   choices={"source": "distribution", "measure": "log-loss", "k": 1})
    assert run_json(capsys, "select", "--recipe", path)["names"] == ["X2"]
    assert run_json(capsys, "select", "--recipe", path, "--measure", "zero-one")["names"] == ["X1"]
    assert run_json(capsys, "lattice", "--recipe", path)["measure"] == "log-loss"


def test_recipe_of_an_uploaded_file_needs_that_file(capsys, tmp_path, csv):
    from fslab.recipe import sha256_hex

    data = {"file": "toy.csv", "sha256": sha256_hex(open(csv, "rb").read())}
    path = _recipe(tmp_path, page="select", data=data, choices={"k": 1})
    assert run_json(capsys, "select", csv, "--recipe", path)["names"] == ["a"]
    code, _, err = run(capsys, "select", "--recipe", path)
    assert code == 1 and err == "fslab: error: the recipe was made with the uploaded file 'toy.csv': give that " \
                                "file as DATA\n"
    other = tmp_path / "other.csv"
    other.write_text("a,y\n0,1\n1,0\n")
    code, _, err = run(capsys, "select", str(other), "--recipe", path)
    assert code == 1 and "this is not the file the recipe was made with" in err


@pytest.mark.parametrize("name", ["bayes-example-1", "preset:bayes-example-1"])
def test_a_toy_preset_name_is_data(capsys, name, ex1):
    """README's first example: the lattice of Example 1 by its preset name, as from its JSON file."""
    doc = run_json(capsys, "lattice", name)
    assert doc["data"] == {"kind": "distribution", "name": "Bayes paper, Example 1", "features": 2, "states": 4}
    from_file = run_json(capsys, "lattice", ex1)
    assert doc["best_per_size"] == from_file["best_per_size"] and doc["subsets"] == from_file["subsets"]
    doc = run_json(capsys, "select", "xor", "--k", "2")
    assert doc["names"] == ["X1", "X2"]  # XOR: neither feature alone says anything, together they decide Y
