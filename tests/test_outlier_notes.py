"""The outlier sentence says what the binning in use does and suggests only a change that would change the codes."""

import warnings

import numpy as np
import pandas as pd
import pytest

import fslab
from fslab.data.data_checks import column_stats, outlier_notes

SAID = "Column 'tenure' has 1 outlier(s) (9999; beyond [Q1 - 3 IQR, Q3 + 3 IQR] = [-49, 91])"


def tenure() -> pd.DataFrame:
    """1..40 three times with one 6 replaced by 9999 (120 rows). By hand: Q1 = 11, Q3 = 31 (numpy's linear rule at
    29.75 and 89.25 of the sorted values), fences [11 - 60, 31 + 60] = [-49, 91]; mean 12,453 / 120 = 103.8 and
    sigma ~ 909, so every row but 9999 is in the middle mean-std bin (119 / 120 = 99 %) and in the first of three
    equal-width bins [1, 3,333.7); quantile edges 14 and 27.33 give 38 / 42 / 40 rows (at most 42 / 120 = 35 %)."""
    x = np.tile(np.arange(1, 41), 3).astype(float)
    x[5] = 9999
    return pd.DataFrame({"tenure": x, "calls": np.arange(120) % 4})


def sparse_counts() -> pd.DataFrame:
    """183 zeros and 1..17 once each (18 distinct integers: binned). By hand: Q1 = Q3 = 0, so 1..17 are all beyond
    [0, 0]; mean 153 / 200 = 0.765, sigma = sqrt((1,785 - 200 * 0.765^2) / 199) = 2.895, mean-std edges -2.13 and
    3.66 leave 183 + 3 = 186 rows (93 %) in the middle bin; both quantile edges are 0 (tied, merged), so quantile
    bins put all 200 rows in one bin."""
    return pd.DataFrame({"tenure": np.r_[np.zeros(183), np.arange(1, 18)]})


def notes(frame, method):
    return outlier_notes(frame, None, column_stats(frame), method, 3)


def test_robust_bins_already_quantile_bin_the_column_so_the_sentence_does_not_ask_for_them():
    flag, said = notes(tenure(), "auto")[0]
    assert flag == "outliers: quantile bins"
    assert said == (f"{SAID}: three mean-std bins put 99% of the rows in one bin, so robust bins (auto) give it 3 "
                    "quantile bins, with at most 35% in one. Fix the values if they are errors.")
    assert "Use quantile bins" not in said


@pytest.mark.parametrize("method, kind, robust", [("mean-std", "three mean-std bins", " (or robust bins, auto)"),
                                                  ("uniform", "3 equal-width bins", "")])
def test_mean_std_and_equal_width_bins_are_told_what_quantile_bins_would_do(method, kind, robust):
    flag, said = notes(tenure(), method)[0]
    assert flag == "outliers: use quantile bins"
    assert said == (f"{SAID} that stretch the bins: {kind} put 99% of the rows in one bin. Quantile bins{robust} "
                    "would put at most 35% in one; or fix the values.")


def test_quantile_bins_are_not_stretched_by_outliers():
    assert notes(tenure(), "quantile") == {}


@pytest.mark.parametrize("method", ["auto", "mean-std"])
def test_quantile_bins_are_not_suggested_where_they_would_crowd_the_rows_too(method):
    flag, said = notes(sparse_counts(), method)[0]
    keep = ", so robust bins (auto) keep mean-std bins" if method == "auto" else ""
    assert flag == "outliers"
    assert said == ("Column 'tenure' has 17 outlier(s) (1, 2, 3, ...; beyond [Q1 - 3 IQR, Q3 + 3 IQR] = [0, 0]): "
                    "three mean-std bins put 93% of the rows in one bin, and 3 quantile bins would not spread them "
                    f"(many rows share one value: 100% in one){keep}. Fix the values if they are errors.")


def test_a_users_table_says_the_robust_bins_words_and_they_agree_with_the_plan():
    frame = tenure().assign(t=["a", "b"] * 60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        ds = fslab.Dataset.from_frame(frame, "t")
    assert ds.binning == "auto"
    said = [w for w in ds.warnings if "outlier" in w]
    assert said == [notes(tenure(), "auto")[0][1]]
    assert "tenure: quantile bins, because mean-std bins put 99% of the rows in one bin (outliers); quantile bins " \
        "put at most 35% in one." in ds.discretize().notes


@pytest.mark.parametrize("seed", range(6))
def test_auto_flag_matches_the_columns_auto_gives_quantile_bins(seed):
    """On random spiky tables, a column is said to have quantile bins under auto exactly when encode_frame gave
    them (the plan's robust note names it), and said to keep mean-std bins exactly when it did not."""
    rng = np.random.default_rng(seed)
    m = 300
    cols = {}
    for j in range(6):
        base = rng.normal(size=m) if j % 2 else rng.integers(0, 30, m).astype(float)
        spikes = rng.random(m) < rng.choice([0.003, 0.02, 0.05])
        cols[f"c{j}"] = np.where(spikes, rng.choice([1e3, 5e4]), base)
    cols["zeros"] = np.where(rng.random(m) < 0.95, 0.0, rng.integers(1, 100, m))
    frame = pd.DataFrame(cols)
    said = notes(frame, "auto")
    assert said   # the spikes crowd some column
    enc = fslab.Dataset.from_frame(frame.assign(t=rng.integers(0, 2, m)), "t").discretize()
    robust = {n.split(":")[0] for n in enc.notes if ": quantile bins, because" in n}
    for j, (flag, _) in said.items():
        assert (flag == "outliers: quantile bins") == (frame.columns[j] in robust), frame.columns[j]


@pytest.mark.cli
@pytest.mark.slow   # the command line reads the file in a capped child process: 0.4-1 s
def test_the_command_line_says_the_librarys_words(capsys, tmp_path):
    import json

    from fslab.cli import main

    frame = tenure().assign(t=["a", "b"] * 60)
    path = tmp_path / "tenure.csv"
    frame.to_csv(path, index=False)
    assert main(["select", str(path), "--target", "t", "--k", "1", "--json", "-q"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    library = notes_for_frame(frame)
    assert [n for n in notes if "outlier(s)" in n] == [library] and library.startswith(SAID)
    assert "Use quantile bins" not in " ".join(notes)


def notes_for_frame(frame) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        ds = fslab.Dataset.from_frame(frame, "t")
    return next(w for w in ds.warnings if "outlier(s)" in w)
