"""Precision / recall criteria of the derivation notes (003): hand-derived values and consistency.

Hand example, five rows (x1, x2, y): (0,0,0) (0,1,1) (1,1,1) (1,0,0) (0,1,0).
Per-feature predictors eta_i(v) = P(Y=1 | X_i = v): eta_1(0) = 1/3 (rows 0,1,4), eta_1(1) = 1/2;
eta_2(0) = 0 (rows 0,3), eta_2(1) = 2/3 (rows 1,2,4).
Precision, J = {1,2}: P = eta_1 eta_2 per row = 0, 2/9, 1/3, 0, 2/9.
  approach 1: y=1 rows add P, y=0 rows add 1-P: 1 + 2/9 + 1/3 + 1 + 7/9 = 10/3, mean 2/3.
  approach 2: y=1 rows add ln eta_1 + ln eta_2, y=0 rows ln(1-P):
  ln(1/3)+ln(2/3) + ln(1/2)+ln(2/3) + 0 + 0 + ln(7/9) = ln(14/243), mean ln(14/243)/5.
Recall, J = {1,2}: R = (1-eta_1)(1-eta_2) per row = 2/3, 2/9, 1/6, 1/2, 2/9.
  approach 1: y=0 rows add R, y=1 rows 1-R: 2/3 + 7/9 + 5/6 + 1/2 + 2/9 = 3, mean 3/5.
  approach 2: y=0 rows add ln(1-eta_1) + ln(1-eta_2), y=1 rows ln(1-R):
  ln(2/3) + ln(1/2) + ln(2/3)+ln(1/3) + ln(7/9) + ln(5/6) = ln(35/729), mean ln(35/729)/5.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from fslab.data.distributions import Distribution, example1
from fslab.data.encoded import EncodedDataset
from fslab.errors import ParameterError, UnsupportedTargetError
from fslab.measures import measure, precision_criterion, precision_gain, recall_criterion, recall_gain

HAND = EncodedDataset(np.array([[0, 0], [0, 1], [1, 1], [1, 0], [0, 1]]), np.array([0, 1, 1, 0, 0]), labels=[0, 1])


@pytest.mark.parametrize("func,approach,expected", [
    (precision_criterion, 1, 2 / 3),
    (precision_criterion, 2, math.log(14 / 243) / 5),
    (recall_criterion, 1, 3 / 5),
    (recall_criterion, 2, math.log(35 / 729) / 5),
])
def test_hand_example(func, approach, expected):
    assert func(HAND, [0, 1], approach) == pytest.approx(expected, abs=1e-12)


def test_single_feature_values():
    """J = {2}: precision approach 1 = mean of (y=1: eta_2, y=0: 1-eta_2) = (1 + 2/3 + 2/3 + 1 + 1/3)/5."""
    assert precision_criterion(HAND, [1], 1) == pytest.approx((1 + 2 / 3 + 2 / 3 + 1 + 1 / 3) / 5)
    # conjunction adds X1 and lowers it (eta_1 < 1 multiplies the true-positive term down)
    assert precision_criterion(HAND, [0, 1], 1) < precision_criterion(HAND, [1], 1)


def test_gain_equals_criterion_of_the_extended_subset():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 3, size=(400, 6))
    y = ((X[:, 0] + X[:, 3] + rng.integers(0, 2, 400)) > 2).astype(int)
    data = EncodedDataset(X, y, labels=[0, 1])
    for approach in (1, 2):
        for selected in ([], [3], [3, 0]):
            cands = [j for j in range(6) if j not in selected]
            assert precision_gain(data, selected, cands, approach) == pytest.approx(
                [precision_criterion(data, selected + [j], approach) for j in cands], abs=1e-12)
            assert recall_gain(data, selected, cands, approach) == pytest.approx(
                [recall_criterion(data, selected + [j], approach) for j in cands], abs=1e-12)


def test_recall_is_precision_with_the_classes_swapped():
    flipped = EncodedDataset(HAND.X, 1 - HAND.y, labels=[0, 1])
    for approach in (1, 2):
        assert recall_criterion(HAND, [0, 1], approach) == pytest.approx(precision_criterion(flipped, [0, 1], approach))


def test_single_feature_equals_the_table_reading():
    """For |J| = 1 the conjunction of one predictor is that predictor: the per-feature path equals the
    compound table value (approach 1: E[eta^2 + (1-eta)^2]; approach 2: -H(Y|X) in nats = -log-loss)."""
    d = example1()
    for name in ("precision", "recall"):
        for approach in (1, 2):
            m = measure(name, approach=approach)
            for j in (0, 1):
                assert m.on(d).value([j]) == pytest.approx(m.value(d.table([j])), abs=1e-12)
        assert measure(name, approach=2).on(d).value([1]) == pytest.approx(
            -measure("log-loss").value(d.table([1])))


def test_measure_hooks_route_to_the_per_feature_path():
    m = measure("precision", approach=2)
    assert m.spec.evaluator is not None and measure("zero-one").spec.evaluator is None
    assert m.on(HAND).extension_values([1], [0]) == pytest.approx([math.log(14 / 243) / 5])
    assert m.on(HAND).extensions([1], [0]) == pytest.approx([math.log(14 / 243) / 5])
    assert m.on(HAND).criterion([0, 1]) == pytest.approx(math.log(14 / 243) / 5)
    # table measures: the hooks are the batched-table path
    z = measure("zero-one")
    assert z.on(HAND).extensions([], [0, 1]) == pytest.approx(-z.value(HAND.extension_tables([], [0, 1])))


def test_exact_distribution_matches_its_weights():
    """On a Distribution, eta_i is exact; with J = {1, 2} of Example 1 and approach 1, precision
    = sum over states x and classes of p(x,1) eta1 eta2 + p(x,0) (1 - eta1 eta2)."""
    d = example1()
    eta1, eta2 = d.table([0]).eta(), d.table([1]).eta()
    prod = eta1[d.states[:, 0]] * eta2[d.states[:, 1]]
    expected = (d.probs[:, 1] * prod + d.probs[:, 0] * (1 - prod)).sum()
    assert precision_criterion(d, [0, 1], 1) == pytest.approx(expected)


def test_empty_subset_and_multiclass():
    """J = {}: the empty conjunction is 'always positive': approach 1 = P(Y=1), approach 2 = -inf."""
    assert precision_criterion(HAND, [], 1) == pytest.approx(2 / 5)
    assert precision_criterion(HAND, [], 2) == -math.inf
    multi = EncodedDataset(HAND.X, np.array([0, 1, 2, 0, 1]))
    with pytest.raises(UnsupportedTargetError, match="binary target"):
        measure("precision").on(multi).value([0])
    with pytest.raises(UnsupportedTargetError):
        measure("recall").on(multi).extension_values([], [0, 1])
    with pytest.raises(UnsupportedTargetError, match="3 classes"):
        recall_criterion(multi, [0])
    with pytest.raises(ParameterError, match="approach"):
        precision_gain(HAND, [], [0], approach=0)


def _reference(X, mass, subset, approach, recall):
    """Row-by-row transcription of the notes' objectives (per-feature eta from plain sums)."""
    total = mass.sum()
    value = 0.0
    for d in range(len(X)):
        a = []
        for i in subset:
            rows = X[:, i] == X[d, i]
            eta = mass[rows, 1].sum() / mass[rows].sum()
            a.append(1 - eta if recall else eta)
        prod = float(np.prod(a))
        target, other = (mass[d, 0], mass[d, 1]) if recall else (mass[d, 1], mass[d, 0])
        if approach == 1:
            value += target * prod + other * (1 - prod)
        else:
            value += (target * sum(math.log(x) for x in a) if target else 0.0) + (
                other * math.log(1 - prod) if other else 0.0)
    return value / total


@pytest.mark.parametrize("recall", [False, True])
@pytest.mark.parametrize("approach", [1, 2])
def test_against_row_by_row_reference_high_arity_and_weights(recall, approach):
    """Arities 12 (> 8: the bincount path), 3 and 2; a sample and a weighted (exact) source."""
    rng = np.random.default_rng(8)
    X = np.column_stack([rng.integers(0, 12, 60), rng.integers(0, 3, 60), rng.integers(0, 2, 60)])
    y = (X[:, 0] % 3 + X[:, 2] + rng.integers(0, 2, 60) > 2).astype(int)
    data = EncodedDataset(X, y, labels=[0, 1])
    weights = rng.uniform(0.1, 1.0, size=(60, 2))
    exact = Distribution(X, weights, arities=[12, 3, 2])
    func = recall_gain if recall else precision_gain
    for source, mass in ((data, np.column_stack([y == 0, y == 1]).astype(float)), (exact, exact.probs)):
        got = func(source, [1], [0, 2], approach)
        want = [_reference(X, mass, [1, j], approach, recall) for j in (0, 2)]
        assert got == pytest.approx(want, abs=1e-12)
