"""The held-out check of a pick ("Does this pick hold up?" in the library): it can say no."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import fslab
from fslab.data import messy
from fslab.data.encoded import EncodedDataset
from fslab.robustness import cv_frequency, holdout_check


def _messy(name, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return fslab.read_csv(messy.to_csv_bytes(messy.TABLES[name]()), messy.TARGETS[name], **kwargs)


def test_an_in_sample_only_pick_is_red():
    data = _messy("customers", near_unique="keep")     # IDs, row numbers and free text kept, as before issue 22
    pick = fslab.select(data, 3, measure="balanced")    # the paper's plug-in picks them: in-sample error 0
    assert pick.scores[-1] == pytest.approx(0.0)
    check = holdout_check(data, pick)
    assert check.level == "red"
    assert "no better than no feature" in check.reasons[0]
    assert check.steps["held-out"].iloc[-1] == pytest.approx(check.prior, abs=1e-12)


def test_a_planted_signal_holds_up():
    data = _messy("loans")
    pick = fslab.select(data, 3, measure="balanced", estimate="cross-fitted")
    assert set(pick.names) == set(messy.SIGNAL["loans"])
    check = holdout_check(data, pick)
    assert check.level == "green" and check.kept > 0.8
    assert (check.frequency >= 0.6).all()


def test_pure_noise_is_not_green():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, size=(300, 8)).astype(np.uint8)
    y = rng.integers(0, 2, 300)
    data = EncodedDataset(X, y, labels=np.array([0, 1]))
    check = holdout_check(data, fslab.select(data, 3, measure="zero-one"))
    assert check.level != "green"


def test_steps_are_the_two_estimates_of_each_prefix():
    data = _messy("sensor_log")
    pick = fslab.select(data, 3, selector="jmi")
    check = holdout_check(data, pick, folds=4, seed=2, frequency=False)
    for t in range(3):
        J = list(pick.features[:t + 1])
        assert check.steps["in-sample"][t] == pytest.approx(fslab.bayes_value(data, J, "mi"))
        assert check.steps["held-out"][t] == pytest.approx(fslab.bayes_value(data, J, "mi", estimate="cross-fitted",
                                                                            folds=4, seed=2))
    assert check.measure == "mutual information" and check.frequency.empty


def test_cv_frequency_finds_a_strong_feature_every_time():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(400, 6)).astype(np.uint8)
    y = np.where(rng.random(400) < 0.9, X[:, 4], 1 - X[:, 4])
    share = cv_frequency(EncodedDataset(X, y, labels=np.array([0, 1])), "mi-greedy", 1, n_folds=5)
    assert share[4] == 1.0 and share.sum() == pytest.approx(1.0)


def test_footnote_3s_stopping_rule_on_held_out_values_stops_before_the_mess():
    """On held-out values a step that only fits the sample gains nothing, so the rule keeps planted signal only."""
    from fslab.stopping import select_until_gain_below

    data = _messy("loans", near_unique="keep")
    held = select_until_gain_below(data, 0.0, 6, "bayes-greedy", "balanced", estimate="cross-fitted")
    assert held.k >= 1 and set(held.names) <= set(messy.SIGNAL["loans"])
    plug = select_until_gain_below(data, 0.0, 6, "bayes-greedy", "balanced")
    assert {"employer", "zip_prefix"} & set(plug.names)   # in-sample every many-level code "gains"


def test_a_small_class_checks_over_fewer_folds_and_says_when_folds_cannot_be_split_again():
    """A class of 3 rows: the check holds out over 3 folds (not 5), and selection across folds, which reruns the
    held-out selection inside each training fold (2 rows of that class: 2 folds there), still runs. With 2 rows, the
    check holds out over 2 folds; a training fold keeps 1 row of the class, so the nested held-out rerun is
    impossible: the check says so in its reasons instead of failing, and its numbers stay finite."""
    rng = np.random.default_rng(2)
    X = rng.integers(0, 3, size=(40, 3)).astype(np.uint8)
    for rare, folds, reran in ((3, 3, True), (2, 2, False)):
        y = np.zeros(40, dtype=int)
        y[:rare] = 1
        X[:, 0] = y   # a perfect signal
        ds = EncodedDataset(X, y, labels=np.array([0, 1]))
        pick = fslab.select(ds, 2, estimate="cross-fitted")
        check = holdout_check(ds, pick)
        assert check.folds == pick.folds == folds
        assert np.isfinite(check.steps[["in-sample", "held-out"]].to_numpy()).all() and np.isfinite(check.kept)
        assert (len(check.frequency) == 2) == reran
        assert any(r.startswith("Selection across folds not run: inside a training fold, too few rows to hold out: "
                                "the class '1' has a single row") for r in check.reasons) == (not reran)


def test_replacements_name_the_column_that_took_the_place():
    from fslab.robustness import replacements

    # 5 training folds; the full-data pick is (0 tenure, 2 plan); tenure is missing on folds 3 and 4, where
    # signup_date (1) was picked instead on both; plan is always there
    hits = np.array([[1, 0, 1, 0], [1, 0, 1, 0], [1, 0, 1, 0], [0, 1, 1, 0], [0, 1, 1, 1]], dtype=bool)
    names = ["tenure", "signup_date", "plan", "region"]
    assert replacements(hits, [0, 2], names) == {
        "tenure": "tenure was picked on 3 of 5 folds; signup_date took its place on the other 2"}
    hits[3, 1], hits[3, 3], hits[4, 3] = False, True, False   # fold 3 picked region, fold 4 signup_date
    assert replacements(hits, [0, 2], names)["tenure"].endswith("signup_date took its place on 1 of the other 2")


def test_every_verdict_ends_with_a_next_step_and_negative_mi_is_explained():
    from fslab.robustness import NEGATIVE_MI, NEXT_STEP

    rng = np.random.default_rng(5)
    noise = EncodedDataset(rng.integers(0, 3, (120, 4)), rng.integers(0, 2, 120), labels=[0, 1])
    pick = fslab.select(noise, 2, "jmi")                       # MI family: the held-out value is an MI in bits
    check = holdout_check(noise, pick, frequency=False)
    assert check.reasons[-1] == NEXT_STEP[check.level]
    assert (NEGATIVE_MI in check.reasons) == bool((check.steps["held-out"] < 0).any())
    assert (check.steps["held-out"] < 0).any()               # noise: held out, the plug-in MI's bias turns negative


def test_a_measure_with_no_value_for_no_feature_is_not_called_overfitting():
    """Precision's conjunction rule (approach 2) scores no feature -inf in-sample: the share of the in-sample gain
    surviving was held-out 329 over +inf = 0 %, a red "Overfitting" for a pick whose held-out and in-sample values
    differ by 0.0025. Without a baseline no share is measured: step 1's held-out gain is NaN, the verdict compares
    the values themselves, and the noise feature added at step 2 (it lowers the value) makes it amber."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (400, 3))
    y = np.where(rng.random(400) < 0.9, X[:, 0], 1 - X[:, 0])
    ds = fslab.Dataset.from_arrays(X, y)
    check = holdout_check(ds, fslab.select(ds, 2, "bayes-greedy", measure="precision", approach=2))
    assert check.prior_in == -np.inf and not check.has_baseline and np.isnan(check.kept)
    gains = check.steps["held-out gain"].to_numpy()
    assert np.isnan(gains[0]) and gains[1] < 0
    assert abs(check.steps["gap"].iloc[0]) < 0.01   # in-sample and held out nearly agree: no overfitting
    assert check.level == "amber" and not any("Overfitting" in r for r in check.reasons)
    assert any(r.startswith("Adding X2 does not improve") for r in check.reasons)
    assert any("has no value for no feature" in r for r in check.reasons)
    # a measure with a baseline keeps the share of gain (0-1 error: no feature = the prior's error)
    plain = holdout_check(ds, fslab.select(ds, 2, "bayes-greedy"))
    assert plain.has_baseline and np.isfinite(plain.kept)
