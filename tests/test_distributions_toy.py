"""Toy distributions: presets, generators, JSON and data-editor round trips, criterion picks."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fslab.convergence import criterion_picks, optimum_rate
from fslab.criteria import bayes_value
from fslab.data.distributions import Distribution, example1, from_joint_frame, joint_frame
from fslab.errors import DataError, ParameterError
from fslab.pena_nilsson.toy import (
    PRESETS,
    naive_bayes_frame,
    naive_bayes_from_frame,
    pena_nilsson_example1,
    preset,
    random_dirichlet,
    with_copy,
    xor_distribution,
)


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_builds_a_normalised_distribution_with_a_sentence(name):
    dist = PRESETS[name].factory()
    assert np.isclose(dist.probs.sum(), 1.0) and np.all(dist.probs >= 0)
    assert PRESETS[name].teaches.endswith(".") and len(PRESETS[name].teaches) > 40


def test_presets_are_exported_from_the_package():
    import fslab

    assert fslab.PRESETS is PRESETS


def test_example1_zero_one_prefers_x1_mi_prefers_x2():
    """Ahmed et al., Example 1: R(X1) = .18 + .07 = 0.25 (cells x1=0: min(.63, .18), x1=1: min(.07, .12));
    R(X2) = min(.42, .03) + min(.28, .27) = 0.30; MI: I(X1;Y) = 0.08 < I(X2;Y) = 0.17 bit."""
    dist = example1()
    assert bayes_value(dist, [0]) == pytest.approx(0.25)
    assert bayes_value(dist, [1]) == pytest.approx(0.30)
    picks = criterion_picks(dist, 1, measures=["zero-one", "mi"])
    chosen = dict(zip(picks["measure"], picks["picks"], strict=False))
    assert chosen["0-1 error"] == "X1" and chosen["mutual information"] == "X2"
    assert picks.loc[picks["measure"] == "mutual information", "value"].iloc[0] == pytest.approx(0.1724, abs=1e-3)


def test_criterion_picks_notes_a_measure_that_does_not_apply():
    three = random_dirichlet(2, 2, n_classes=3, seed=1)
    picks = criterion_picks(three, 1, measures=["auc"], selectors=("bayes-greedy",))
    assert picks["picks"].iloc[0] == "" and "binary" in picks["note"].iloc[0]


def test_optimum_rate_converges_for_bayes_and_not_for_mi_on_example1():
    """With 5,000 rows the plug-in 0-1 error separates .25 from .30 every time; MIGreedy's own answer is X2."""
    rates = optimum_rate(example1(), [5000], k=1, selectors=("bayes-greedy", "mi-greedy"), repeats=5, seed=3)
    by = dict(zip(rates["selector"], rates["rate"], strict=True))
    assert by == {"bayes-greedy": 1.0, "mi-greedy": 0.0}
    assert rates.attrs["target"] == "X1"
    assert set(rates["exact_pick"]) == {"X1", "X2"}


def test_optimum_rate_validates():
    with pytest.raises(ParameterError, match="sample sizes"):
        optimum_rate(example1(), [0])
    with pytest.raises(ParameterError, match="unknown selector"):
        optimum_rate(example1(), [10], selectors=("nope",))


def test_pena_nilsson_example1_posteriors():
    """p(x) = 1/2, p(Y=0|x) = x/3: p(Y=0|X=1) = 1/3, so Y=1 is predicted everywhere."""
    dist = pena_nilsson_example1()
    p = dist.table([0]).probabilities()
    assert p[:, 0] / p.sum(axis=1) == pytest.approx([0.0, 1 / 3])
    assert bayes_value(dist, [0]) == pytest.approx(bayes_value(dist, []))  # X never changes the decision


def test_xor_single_features_useless_pair_perfect():
    dist = xor_distribution(3, 2, 0.0)
    assert [bayes_value(dist, [j]) for j in range(3)] == pytest.approx([0.5, 0.5, 0.5])
    assert bayes_value(dist, [0, 1]) == pytest.approx(0.0)
    assert bayes_value(xor_distribution(3, 2, 0.1), [0, 1]) == pytest.approx(0.1)


def test_redundant_copy_adds_nothing():
    dist = preset("redundant-copies")
    assert dist.feature_names[2].startswith("X3")
    assert bayes_value(dist, [0, 2]) == pytest.approx(bayes_value(dist, [0]))
    assert bayes_value(dist, [2]) == pytest.approx(bayes_value(dist, [0])) == pytest.approx(0.2)


def test_with_copy_noise_keeps_the_marginal_and_flips():
    base = example1()
    noisy = with_copy(base, 1, noise=0.25)
    assert np.allclose(noisy.table([0, 1]).counts, base.table([0, 1]).counts)
    joint = noisy.table([1, 2]).cell_probabilities()  # cells (x2, copy): off-diagonal mass 0.25
    assert joint[1] + joint[2] == pytest.approx(0.25)
    with pytest.raises(ParameterError):
        with_copy(base, 5)


def test_random_dirichlet_is_seeded_and_positive():
    a, b = random_dirichlet(3, [2, 3, 2], seed=7), random_dirichlet(3, [2, 3, 2], seed=7)
    assert np.array_equal(a.probs, b.probs) and a.probs.shape == (12, 2) and np.all(a.probs > 0)
    assert not np.array_equal(a.probs, random_dirichlet(3, [2, 3, 2], seed=8).probs)
    with pytest.raises(ParameterError, match="concentration"):
        random_dirichlet(2, concentration=0)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 4), a=st.integers(2, 3), classes=st.integers(2, 3), seed=st.integers(0, 10**6))
def test_json_and_joint_frame_round_trips(n, a, classes, seed):
    dist = random_dirichlet(n, a, classes, 0.5, seed)
    again = Distribution.from_json(dist.to_json())
    assert np.array_equal(again.states, dist.states) and np.allclose(again.probs, dist.probs)
    back = from_joint_frame(joint_frame(dist))
    assert np.allclose(back.table(range(n)).counts, dist.table(range(n)).counts)
    assert list(back.labels) == list(dist.labels) and back.feature_names == dist.feature_names


def test_joint_frame_lists_zero_mass_states_for_editing():
    frame = joint_frame(preset("redundant-copies"))
    assert len(frame) == 8 and list(frame.columns[-2:]) == ["P(Y=0)", "P(Y=1)"]
    assert (frame[["P(Y=0)", "P(Y=1)"]].sum(axis=1) == 0).sum() == 4  # X1 != copy never happens


def test_from_joint_frame_messages():
    frame = joint_frame(example1())
    bad = frame.copy()
    bad.loc[2, "P(Y=1)"] = -0.1
    with pytest.raises(DataError, match=r"row 3, column P\(Y=1\) is -0.1"):
        from_joint_frame(bad)
    off = frame.copy()
    off.loc[0, "P(Y=0)"] += 0.1
    with pytest.raises(DataError, match="sum to 1.1, not 1"):
        from_joint_frame(off)
    fixed = from_joint_frame(off, normalise=True)
    assert fixed.probs.sum() == pytest.approx(1.0)
    assert fixed.probs[0, 0] == pytest.approx((0.378 + 0.1) / 1.1)
    empty = frame.copy()
    empty.loc[1, "P(Y=0)"] = np.nan
    with pytest.raises(DataError, match="row 2"):
        from_joint_frame(empty)
    with pytest.raises(DataError, match="twice"):
        from_joint_frame(pd.concat([frame, frame.iloc[[0]]]))
    with pytest.raises(DataError, match="feature columns"):
        from_joint_frame(frame[["P(Y=0)", "P(Y=1)"]])


def test_naive_bayes_frame_round_trip_and_messages():
    frame = naive_bayes_frame([0.7, 0.3], [[[0.9, 0.1], [0.6, 0.4]], [[0.6, 0.4], [0.1, 0.9]]])
    assert list(frame.columns) == ["feature", "value", "P(x|Y=0)", "P(x|Y=1)"]
    assert np.allclose(naive_bayes_from_frame([0.7, 0.3], frame).probs, example1().probs)
    bad = frame.copy()
    bad.loc[0, "P(x|Y=1)"] = 0.7
    with pytest.raises(DataError, match=r"feature X1, P\(x\|Y=1\) sums to 1.1"):
        naive_bayes_from_frame([0.7, 0.3], bad)
    with pytest.raises(DataError, match="values 0, 1"):
        naive_bayes_from_frame([0.7, 0.3], frame.drop(index=1))
    with pytest.raises(DataError, match="prior"):
        naive_bayes_from_frame([0.7, 0.4], frame)


def test_distribution_rejects_negative_and_nan():
    with pytest.raises(DataError, match="non-negative"):
        Distribution([[0], [1]], [[0.5, -0.1], [0.3, 0.3]])
    with pytest.raises(DataError, match="finite"):
        Distribution([[0], [1]], [[0.5, np.nan], [0.3, 0.3]])


def test_sample_frequencies_match_the_distribution():
    """20,000 draws: every cell frequency within 4 standard errors (<= 0.014) of p(x, y)."""
    dist = example1()
    data = dist.sample(20_000, seed=5)
    freq = data.table([0, 1]).probabilities()
    assert np.abs(freq - dist.table([0, 1]).probabilities()).max() < 0.014


# --- issue 18: JSON distributions that should be questioned ------------------------------------------------

def _dist_json(states, probs) -> str:
    import json

    return json.dumps({"states": states, "probs": probs})


def test_json_probabilities_must_sum_to_one_within_the_stated_tolerance():
    from fslab.data.distributions import JSON_TOLERANCE

    assert JSON_TOLERANCE == 1e-6
    with pytest.raises(DataError, match=r"the probabilities sum to 0\.9, not 1 \(tolerance 1e-06\); fix them so "
                                        r"that they sum to 1 \(fslab does not rescale a distribution file"):
        Distribution.from_json(_dist_json([[0], [1]], [[0.2, 0.3], [0.3, 0.1]]))
    close = Distribution.from_json(_dist_json([[0], [1]], [[0.2, 0.3], [0.3, 0.2000004]]))   # within 1e-6
    assert close.probs.sum() == pytest.approx(1.0, abs=1e-15)


def test_json_repeated_states_are_refused_naming_the_rows():
    with pytest.raises(DataError, match=r"state rows 1, 3 repeat the same feature values \[0, 1\]; list each "
                                        r"state once"):
        Distribution.from_json(_dist_json([[0, 1], [1, 1], [0, 1]], [[0.2, 0.1], [0.3, 0.1], [0.2, 0.1]]))


@pytest.mark.parametrize("bad, shown", [(0.5, "0.5"), ("a", '"a"'), (True, "true"), (-1, "-1")])
def test_json_non_integer_states_are_refused_naming_the_row(bad, shown):
    with pytest.raises(DataError, match=rf"state row 2 has the value {re.escape(shown)}; feature values must be "
                                        r"whole numbers 0, 1, 2"):
        Distribution.from_json(_dist_json([[0, 1], [1, bad]], [[0.5, 0.1], [0.3, 0.1]]))
    assert Distribution.from_json(_dist_json([[0, 1], [1, 0.0]], [[0.5, 0.1], [0.3, 0.1]])).states.tolist() == \
        [[0, 1], [1, 0]]   # 0.0 is a whole number
