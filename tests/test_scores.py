"""The analyst's score table (issue 26, item 8): every feature under several measures, in-sample and held out; a
hand-picked subset's joint value; the Scores page (AppTest)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import fslab
from fslab.data import messy
from fslab.errors import ParameterError
from fslab.scores import feature_scores, subset_scores
from tests.conftest import ROOT


def test_example_1_scores_are_the_papers_numbers():
    """Example 1 (Ahmed et al.): 0-1 errors 0.25 and 0.30, I(X1;Y) = 0.08 and I(X2;Y) = 0.17 bit, exact values."""
    table = feature_scores(fslab.example1(), ["zero-one", "mi"]).set_index("feature")
    assert table.loc["X1", "0-1 error, in-sample"] == pytest.approx(0.25)
    assert table.loc["X2", "0-1 error, in-sample"] == pytest.approx(0.30)
    assert table.loc["X1", "mutual information, in-sample"] == pytest.approx(0.0819, abs=1e-4)
    assert table.loc["X2", "mutual information, in-sample"] == pytest.approx(0.1724, abs=1e-4)
    assert not any("held-out" in c for c in table.columns)   # an exact law has nothing to hold out


def test_many_level_codes_score_in_sample_only():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        data = fslab.read_csv(messy.to_csv_bytes(messy.loans()), "default")
    table = feature_scores(data).set_index("feature")
    assert table.loc["employer", "mutual information, in-sample"] > table.loc["grade", "mutual information, in-sample"]
    for column in ("employer", "zip_prefix"):   # 400 and 250 levels: informative in-sample, worse than nothing held out
        held = table.loc[column, "mutual information, held-out"]
        assert held < 0 < table.loc["grade", "mutual information, held-out"]
    every = np.arange(data.discretize().n_features)
    held = fslab.measure("balanced").on(data, estimate="cross-fitted").extension_values([], every)
    np.testing.assert_allclose(table["balanced error, held-out"].to_numpy(), held)


def test_a_subsets_joint_value_and_the_prior():
    data = fslab.load_sample("mushroom")
    together = subset_scores(data, [0, 5], ["zero-one", "auc"]).set_index("measure")
    assert together.loc["0-1 error", "in-sample"] == pytest.approx(fslab.bayes_value(data, [0, 5], "zero-one"))
    assert together.loc["AUC", "held-out"] == pytest.approx(fslab.bayes_value(data, [0, 5], "auc",
                                                                              estimate="cross-fitted"))
    assert together.loc["AUC", "no feature, held-out"] == pytest.approx(0.5)
    with pytest.raises(ParameterError, match="unknown measure"):
        subset_scores(data, [0], ["nope"])


def test_the_scores_page_ticks_keeps_and_exports_a_pick():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page("pages/scores.py").run()
    assert not at.exception and not at.error, [e.value for e in [*at.exception, *at.error]]
    assert any("balanced error, held-out" in d.value.columns for d in at.dataframe)
    at.session_state["scores.ticked"] = ["odor=none", "odor=foul"]
    at.run()
    subset = next(d.value for d in at.dataframe if "no feature, held-out" in d.value.columns).set_index("measure")
    mushroom = fslab.load_sample("mushroom")
    names = list(mushroom.discretize().feature_names)
    J = [names.index("odor=none"), names.index("odor=foul")]
    assert subset.loc["0-1 error", "held-out"] == pytest.approx(fslab.bayes_value(mushroom, sorted(J), "zero-one",
                                                                                   estimate="cross-fitted"))
    at.button(key="scores.keep").click().run()
    assert len(at.session_state["fslab.scores.history"]) == 1
    kept = next(d.value for d in at.dataframe if "#" in d.value.columns)
    assert set(kept["features"][0].split(", ")) == {"odor=none", "odor=foul"}
    assert "Δ 0-1 error" in kept.columns
    assert at.get("download_button")


def test_measure_parameters_reach_the_measures_that_take_them():
    """Example 1, cost-sensitive error sum_x min((1 - c) p(x, 1), c p(x, 0)) at c = 0.5 is half the 0-1 error:
    X1: (.18 + .07) / 2 = .125, X2: (.03 + .27) / 2 = .15 (at the default c = 0.25: .1525 and .0925, Example 3).
    beta is the F-beta's and does not reach the cost-sensitive error; both features together: the four cells
    of (X1, X2) give .5 * 0-1 error of the pair."""
    from fslab.data.distributions import example1

    dist = example1()
    half = feature_scores(dist, ["cost-sensitive", "zero-one"], params={"c": 0.5, "beta": 2.0})
    assert half["cost-sensitive error, in-sample"].tolist() == pytest.approx([0.125, 0.15])
    assert feature_scores(dist, ["cost-sensitive"])["cost-sensitive error, in-sample"].tolist() == \
        pytest.approx([0.1525, 0.0925])
    pair = subset_scores(dist, [0, 1], ["cost-sensitive", "zero-one"], params={"c": 0.5}).set_index("measure")
    assert pair.loc["cost-sensitive error (c=0.5)", "in-sample"] == pytest.approx(0.5 * pair.loc["0-1 error",
                                                                                                  "in-sample"])
