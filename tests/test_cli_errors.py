"""Command line errors: exit 1 with ``fslab: error: <message>`` (no traceback), 2 for usage, 130 for Ctrl-C."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from fslab.cli import commands, main
from fslab.data.distributions import example1


@pytest.fixture
def ex1(tmp_path):
    path = tmp_path / "example1.json"
    path.write_text(example1().to_json())
    return str(path)


def fails(capsys, *argv, code: int = 1) -> str:
    """Run, check the exit code and an empty stdout, return stderr (never a traceback)."""
    assert main(list(argv)) == code
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    return err


def test_missing_file(capsys):
    err = fails(capsys, "select", "no_such_file.csv")
    assert err == "fslab: error: no such file: 'no_such_file.csv'\n"


def test_unknown_sample_name_lists_the_samples(capsys):
    err = fails(capsys, "select", "mushrom")
    assert err.startswith("fslab: error: no such file: 'mushrom'; samples: mushroom, adult,")


def test_bad_measure_is_a_usage_error(capsys):
    err = fails(capsys, "select", "mushroom", "--measure", "accuracy", code=2)
    assert "fslab select: error: argument --measure: invalid choice: 'accuracy'" in err
    assert err.startswith("usage: fslab select")


def test_measure_that_does_not_fit_the_target(capsys):
    err = fails(capsys, "select", "optdigits", "--measure", "f-beta", "--k", "1")  # 10 classes: no positive class
    assert err.startswith("fslab: error: ") and "--positive" in err


def test_measure_parameter_of_another_measure(capsys, ex1):
    err = fails(capsys, "select", ex1, "--beta", "2")
    assert err == ("fslab: error: --beta does not apply to the measure 'zero-one'; it is a parameter of the "
                   "'f-beta' measure\n")


def test_k_too_large(capsys, ex1):
    err = fails(capsys, "select", ex1, "--k", "3")
    assert err == "fslab: error: k=3 is out of range: the data have 2 features, so choose 1 <= k <= 2\n"


def test_npfs_k_must_leave_a_feature_out(capsys, tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("a,b,y\n" + "0,1,0\n1,0,1\n" * 20)
    err = fails(capsys, "npfs", str(path), "--k", "2")
    assert err == "fslab: error: k must lie in 1 .. K-1 = 1 (K = 2 features); got k=2\n"


def test_npfs_on_a_distribution(capsys, ex1):
    err = fails(capsys, "npfs", ex1)
    assert err.startswith("fslab: error: NPFS resamples the rows of a sample; an exact distribution has no rows")


def test_malformed_json(capsys, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"states": [[0, 1]')
    err = fails(capsys, "select", str(path))
    assert err == "fslab: error: the JSON file 'broken.json' is not valid JSON (line 1, column 19): Expecting ',' " \
                  "delimiter\n"


def test_json_with_nan_is_refused(capsys, tmp_path):
    path = tmp_path / "nan.json"
    path.write_text('{"states": [[0]], "probs": [[NaN, 0.5]]}')
    err = fails(capsys, "select", str(path))
    assert err.startswith("fslab: error: ") and "NaN" in err


def test_data_options_do_not_apply_to_a_distribution(capsys, ex1):
    err = fails(capsys, "select", ex1, "--bins", "4")
    assert err == ("fslab: error: --target, --positive, --method and --bins apply to a CSV or a sample, not to a "
                   "JSON distribution\n")


def test_recipe_is_not_a_distribution(capsys, tmp_path):
    path = tmp_path / "recipe.json"
    path.write_text('{"fslab_recipe": 1, "page": "select", "choices": {}}')
    err = fails(capsys, "select", str(path))
    assert err == "fslab: error: the JSON file 'recipe.json' is a recipe, not a distribution; pass it with --recipe\n"


def test_malformed_recipe(capsys, tmp_path):
    path = tmp_path / "recipe.json"
    path.write_text('{"fslab_recipe": 1, "page": "select", "choices": {"k": "five"}}')
    err = fails(capsys, "select", "--recipe", str(path))
    assert err == "fslab: error: 'k' must be a whole number; got 'five'\n"


def test_gzip_bomb(capsys, tmp_path, monkeypatch):
    """1 MB of gzip that inflates to 120 MB: refused after reading the 50 MB limit, never fully inflated."""
    path = tmp_path / "bomb.csv.gz"
    path.write_bytes(gzip.compress(b"a,b\n" + b"0,1\n" * (30 << 20), compresslevel=9))
    assert path.stat().st_size < 1 << 20
    err = fails(capsys, "select", str(path))
    assert err.startswith(f"fslab: error: the file '{path}' decompresses to more than 50 MB; the limit is 50 MB "
                          "(50,000,000 bytes) per uploaded file (upload size limit: a server sets it with "
                          "FSLAB_MAX_UPLOAD_MB")


def test_not_gzip_after_all(capsys, tmp_path):
    path = tmp_path / "fake.csv.gz"
    path.write_bytes(b"\x1f\x8bnot really")
    err = fails(capsys, "select", str(path))
    assert err.startswith(f"fslab: error: '{path}' is not a valid gzip file")


def test_lattice_too_large(capsys):
    err = fails(capsys, "lattice", "waveform")
    assert err.startswith("fslab: error: 40 features have 2^40 = 1,099,511,627,776 subsets; enumerating them is "
                          "limited to 12 features")
    assert err.endswith("Pick up to 12 of them with --features a,b,c (the Orderings page restricts a wide data set "
                        "the same way).\n")


def test_lattice_unknown_feature(capsys):
    assert fails(capsys, "lattice", "waveform", "--features", "wave1,wave99") == \
        "fslab: error: --features: no feature named 'wave99'\n"


def test_compare_unknown_selector(capsys, ex1):
    err = fails(capsys, "compare", ex1, "--selectors", "bayes-greedy,lasso")
    assert err.startswith("fslab: error: unknown selector 'lasso'; choose from: bayes-greedy, bayes-score")


def test_no_data(capsys):
    err = fails(capsys, "select")
    assert err == "fslab: error: give DATA (a CSV file, a JSON distribution or a sample name) or --recipe FILE\n"


@pytest.mark.parametrize("argv", [[], ["frobnicate", "x"], ["select", "x", "--k", "two"]])
def test_usage_errors_exit_2(capsys, argv):
    err = fails(capsys, *argv, code=2)
    assert err.startswith("usage: fslab") and "error: " in err


def test_help_exits_0(capsys):
    assert main(["select", "--help"]) == 0
    out, _ = capsys.readouterr()
    assert "--measure" in out and "Exit codes: 0 ok, 1 fslab error" in out


def test_ctrl_c_exits_130(capsys, ex1, monkeypatch):
    def interrupted(job, progress=False):
        raise KeyboardInterrupt

    monkeypatch.setattr(commands, "run", interrupted)
    assert fails(capsys, "select", ex1, code=130) == "\nfslab: interrupted\n"


# --- out-of-range options: one message naming the option, never a traceback (#18) ---------------------------

@pytest.mark.parametrize(("argv", "message"), [
    (("select", "mushroom", "--measure", "f-beta", "--beta", "1e308"),
     "--beta must be between 0.25 and 4.0; got 1e+308"),
    (("select", "mushroom", "--measure", "cost-sensitive", "--c", "1.5"), "--c must be between 0.05 and 0.95; got 1.5"),
    (("select", "mushroom", "--measure", "f-beta", "--beta", "nan"), "--beta must be a finite number; got nan"),
    (("select", "mushroom", "--s", "9"), "--s must be between 1 and 6; got 9"),
    (("npfs", "mushroom", "--seed", "-1"), "--seed must be between 0 and 2147483647; got -1"),
    (("npfs", "mushroom", "--n", "1"), "--n must be between 2 and"),
    (("npfs", "mushroom", "--fraction", "0.01"), "--fraction must be between 0.1 and 1.0; got 0.01"),
    (("npfs", "mushroom", "--n-jobs", "0"), "--n-jobs must be at least 1 (this machine has"),
    (("lattice", "preset:nope"), "unknown toy distribution 'nope'; choose one of: bayes-example-1"),
    (("lattice", "bayes-example-1", "--bins", "4"), "--bins apply to a CSV or a sample, not to a toy distribution"),
])
def test_out_of_range_options_are_refused_before_any_work(capsys, argv, message):
    err = fails(capsys, *argv)
    assert err.startswith("fslab: error: ") and message in err and err.count("\n") == 1


def test_n_jobs_beyond_the_cores_is_bounded_with_a_note(capsys, monkeypatch):
    seen = {}

    def fake_run(job, progress=False):
        seen["n_jobs"] = job.n_jobs
        return "ran"

    monkeypatch.setattr(commands, "run", fake_run)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert main(["npfs", "uniform", "--n-jobs", "100000", "--n", "5"]) == 0
    out, err = capsys.readouterr()
    assert seen["n_jobs"] == 2 and out == "ran\n"
    assert err == "fslab: note: --n-jobs 100,000 is more than this machine's 2 cores: using 2\n"


def test_an_unexpected_error_is_one_line_without_a_traceback_or_paths(capsys, monkeypatch):
    def broken(job, progress=False):
        raise OverflowError("(34, 'Numerical result out of range') in /srv/app/fslab/measures/f_beta.py")

    monkeypatch.setattr(commands, "run", broken)
    monkeypatch.delenv("FSLAB_DEBUG", raising=False)
    err = fails(capsys, "select", "bayes-example-1")
    assert err.startswith("fslab: internal error (OverflowError): (34, 'Numerical result out of range') in "
                          ".../f_beta.py. Please report it")
    assert "/srv/app" not in err and err.count("\n") == 1
    monkeypatch.setattr(commands, "run", lambda job, progress=False: (_ for _ in ()).throw(MemoryError()))
    err = fails(capsys, "select", "bayes-example-1")
    assert err.startswith("fslab: error: not enough memory for this job")


def test_a_class_counting_selector_on_a_real_valued_target_is_refused(capsys):
    """The app does not offer MIGreedy for a real-valued target; the command line ran it silently, each of the 39
    blood-pressure values a class."""
    patients = str(Path(__file__).parent / "fixtures" / "patients.csv")
    err = fails(capsys, "select", patients, "--target", "blood_pressure", "--selector", "mi-greedy")
    assert err == ("fslab: error: mi-greedy counts classes, but the target 'blood_pressure' is real-valued (39 "
                   "distinct values); use a selector with the squared error (bayes-greedy, bayes-score, exhaustive, "
                   "backward) or make the target binary with --positive\n")
    err = fails(capsys, "compare", patients, "--target", "blood_pressure")
    assert err.startswith("fslab: error: mi-greedy, mi-score, mrmr, jmi, fisher count classes")
    assert main(["select", patients, "--target", "blood_pressure", "--k", "1", "-q"]) == 0  # bayes-greedy, squared
    assert "measure: squared" in capsys.readouterr().out
