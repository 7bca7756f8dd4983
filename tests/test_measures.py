"""Hand-derived values of every measure, Example 1 of Ahmed et al., the registry contract and errors.

The tiny table used throughout: p(x, y) = [[.4, .1], [.2, .3]] (rows = 2 cells, columns = y 0/1), so
p(x) = (.5, .5), eta = (.2, .6), p = P(Y=1) = .4.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from fslab.criteria import bayes_value
from fslab.data.distributions import Distribution, example1
from fslab.errors import ParameterError, UnsupportedTargetError
from fslab.measures import MEASURES, Measure, measure
from fslab.tables import JointTable

TINY = JointTable(np.array([[0.4, 0.1], [0.2, 0.3]]), np.array([0, 1]))


def _h(*q: float) -> float:
    """Entropy in nats of the probabilities q."""
    return -sum(x * math.log(x) for x in q if x > 0)


HAND = {
    # min(.4, .1) + min(.2, .3)
    "zero-one": ({}, 0.1 + 0.2),
    # c = .25: min((1-c) p(x,1), c p(x,0)) = min(.075, .1) + min(.225, .05)
    "cost-sensitive": ({"c": 0.25}, 0.075 + 0.05),
    # 1/2 [min(.1/.4, .4/.6) + min(.3/.4, .2/.6)] = 1/2 (.25 + 1/3)
    "balanced": ({}, 0.5 * (0.25 + 1 / 3)),
    # H(Y|X) = .5 H(.2, .8) + .5 H(.6, .4), nats
    "log-loss": ({}, 0.5 * _h(0.2, 0.8) + 0.5 * _h(0.6, 0.4)),
    # labels 0/1: E[eta (1 - eta)] = .5 * .16 + .5 * .24
    "squared": ({}, 0.5 * 0.16 + 0.5 * 0.24),
    # thresholds: top cell (eta .6): 2 * .3 / (.4 + .5) = 2/3; both cells: 2 * .4 / (.4 + 1) = 4/7; max = 2/3
    "f-beta": ({"beta": 1.0}, 2 / 3),
    # ranking by eta: positives at .6 beat negatives at .2; the only ties are within a cell:
    # (P_.2 * N_.2 / 2 + P_.6 * (N_.2 + N_.6 / 2)) / (p (1-p)) = (.1*.2 + .3*(.4 + .1)) / .24
    "auc": ({}, (0.1 * 0.2 + 0.3 * 0.5) / 0.24),
    # I = H(Y) - H(Y|X), in bits
    "mi": ({}, (_h(0.4, 0.6) - (0.5 * _h(0.2, 0.8) + 0.5 * _h(0.6, 0.4))) / math.log(2)),
    # compound reading (k = 1): sum p(x,1) eta + p(x,0) (1 - eta) = .1*.2 + .4*.8 + .3*.6 + .2*.4
    "precision": ({"approach": 1}, 0.02 + 0.32 + 0.18 + 0.08),
    "recall": ({"approach": 1}, 0.6),
}


@pytest.mark.parametrize("name", sorted(HAND))
def test_hand_derived_tiny_table(name):
    params, expected = HAND[name]
    assert measure(name, **params).value(TINY) == pytest.approx(expected, abs=1e-12)


def test_registry_covers_design_names_and_contract():
    assert set(MEASURES) == {"zero-one", "cost-sensitive", "balanced", "log-loss", "squared", "f-beta", "auc",
                             "mi", "precision", "recall"}
    for name, spec in MEASURES.items():
        assert spec.name == name and spec.label and spec.formula and spec.reference
        m = measure(name)
        assert isinstance(m, Measure)
        value = m.value(TINY)
        assert isinstance(value, float)
        assert m.criterion(TINY) == (value if spec.greater_is_better else -value)
    errors = {n for n, s in MEASURES.items() if not s.greater_is_better}
    assert errors == {"zero-one", "cost-sensitive", "balanced", "log-loss", "squared"}


def test_example1_mi_and_zero_one():
    """Ahmed et al., Example 1: P(Y=1) = .3; P(X1=1|Y) = .4 / .1; P(X2=1|Y) = .9 / .4 (naive Bayes).

    P(X1=1) = .3*.4 + .7*.1 = .19, eta_1(0) = .18/.81 = .222, eta_1(1) = .12/.19 = .632;
    P(X2=1) = .27 + .28 = .55, eta_2(0) = .03/.45 = .067, eta_2(1) = .27/.55 = .491 (as printed).
    I(X1;Y) = 0.0819 bit, I(X2;Y) = 0.1724 bit (printed 0.08 and 0.17); Bayes 0-1 errors:
    X1: min(.63,.18) + min(.07,.12) = .18 + .07 = .25; X2: min(.42,.03) + min(.28,.27) = .03 + .27 = .30.
    """
    d = example1()
    eta1, eta2 = d.table([0]).eta(), d.table([1]).eta()
    assert eta1 == pytest.approx([0.18 / 0.81, 0.12 / 0.19])
    assert eta2 == pytest.approx([0.03 / 0.45, 0.27 / 0.55])
    mi1, mi2 = bayes_value(d, [0], "mi"), bayes_value(d, [1], "mi")
    assert round(mi1, 2) == 0.08 and round(mi2, 2) == 0.17
    assert mi1 == pytest.approx(0.0819, abs=5e-5) and mi2 == pytest.approx(0.1724, abs=5e-5)
    assert bayes_value(d, [0], "zero-one") == pytest.approx(0.25, abs=1e-12)
    assert bayes_value(d, [1], "zero-one") == pytest.approx(0.30, abs=1e-12)
    # Example 5: log-loss = H(Y) - I(X;Y) in nats, so it ranks the two features like MI does
    h_y = _h(0.3, 0.7)
    assert bayes_value(d, [1], "log-loss") == pytest.approx(h_y - mi2 * math.log(2), abs=1e-12)
    assert bayes_value(d, [1], "log-loss") < bayes_value(d, [0], "log-loss")


def test_cost_sensitive_half_zero_one_at_half():
    """c = 1/2: min(eta/2, (1-eta)/2) = half the 0-1 summand."""
    d = example1()
    for subset in ([0], [1], [0, 1]):
        assert bayes_value(d, subset, "cost-sensitive", c=0.5) == pytest.approx(0.5 * bayes_value(d, subset))


def test_balanced_is_half_the_papers_quantity_and_zero_one_when_classes_are_even():
    """Paper's E[min(eta/p, (1-eta)/(1-p))] = 2 BER; with p = 1/2 it is 2 * 0-1 error, so BER = 0-1 error."""
    t = example1().table([0])
    p = t.class_probabilities()[1]
    paper = (np.minimum(t.eta() / p, (1 - t.eta()) / (1 - p)) * t.cell_probabilities()).sum()
    assert measure("balanced").value(t) == pytest.approx(paper / 2)
    even = JointTable(np.array([[3.0, 1.0], [2.0, 4.0]]), np.array([0, 1]))  # p = 1/2
    assert measure("balanced").value(even) == pytest.approx(measure("zero-one").value(even))


def test_squared_error_with_real_labels():
    """Y in {1, 3, 10}; cell a: p(a, .) = (.1, .1, 0) -> mean 2, Var 1; cell b: (0, .3, .5) at mass .8:
    mean (.9 + 5) / .8 = 7.375, Var = (.3 (3 - 7.375)^2 + .5 (10 - 7.375)^2) / .8 = 11.484375;
    E[Var] = .2 * 1 + .8 * 11.484375 = 9.3875."""
    t = JointTable(np.array([[0.1, 0.1, 0.0], [0.0, 0.3, 0.5]]), np.array([1.0, 3.0, 10.0]))
    assert measure("squared").value(t) == pytest.approx(9.3875)
    # shift-invariant, without cancellation even far from 0
    shifted = JointTable(t.counts, t.labels + 1e8)
    assert measure("squared").value(shifted) == pytest.approx(9.3875, rel=1e-9)


def test_squared_refuses_non_numeric_labels():
    t = JointTable(np.array([[1.0, 2.0], [3.0, 1.0]]), np.array(["no", "yes"]))
    with pytest.raises(UnsupportedTargetError, match="numeric"):
        measure("squared").value(t)


def test_binary_only_measures_refuse_multiclass_and_others_accept():
    t = JointTable(np.array([[3.0, 1.0, 0.0], [1.0, 2.0, 5.0]]), np.array([0, 1, 2]))
    for name, spec in MEASURES.items():
        if spec.binary_only:
            with pytest.raises(UnsupportedTargetError, match="binary target"):
                measure(name).value(t)
        elif name == "cost-sensitive":   # K classes take a K x K cost matrix, not the binary c
            with pytest.raises(ParameterError, match="3 x 3 cost matrix.*--positive"):
                measure(name).value(t)
            assert np.isfinite(measure(name, c=np.ones((3, 3)) - np.eye(3)).value(t))
        else:
            assert np.isfinite(measure(name).value(t))
    # multiclass 0-1: sum_x (p(x) - max_y p(x,y)) = (4 - 3 + 8 - 5) / 12
    assert measure("zero-one").value(t) == pytest.approx(4 / 12)


@pytest.mark.parametrize("name,params,match", [
    ("cost-sensitive", {"c": 0.0}, "strictly between 0 and 1"),
    ("cost-sensitive", {"c": 1.5}, "1.5"),
    ("f-beta", {"beta": 0}, "beta must be a positive"),
    ("f-beta", {"beta": float("inf")}, "beta"),
    ("precision", {"approach": 3}, "approach must be 1"),
    ("recall", {"approach": "2"}, "approach"),
    ("zero-one", {"c": 0.2}, "has no parameter"),
])
def test_bad_parameters_are_refused_with_the_name(name, params, match):
    with pytest.raises(ParameterError, match=match):
        measure(name, **params)


def test_unknown_measure_lists_the_choices():
    with pytest.raises(ParameterError, match="zero-one"):
        measure("accuracy")


def test_rebinding_a_measure_keeps_and_overrides_params():
    m = measure("f-beta", beta=2.0)
    assert measure(m) is m
    assert measure(m, beta=0.5).params["beta"] == 0.5
    assert m.label == "F-beta (beta=2.0)"


def test_one_class_tables_have_conventional_values():
    """No positives: F = 0, AUC = 1/2, balanced error 0 (an absent class has no error rate)."""
    t = JointTable(np.array([[3.0, 0.0], [2.0, 0.0]]), np.array([0, 1]))
    assert measure("f-beta").value(t) == 0.0
    assert measure("auc").value(t) == 0.5
    assert measure("balanced").value(t) == 0.0


def test_distribution_with_real_labels_for_squared():
    """X determines Y up to noise: x=0 -> Y in {0, 2} evenly (Var 1), x=1 -> Y = 5 (Var 0): E[Var] = .5."""
    d = Distribution([[0], [1]], [[0.25, 0.25, 0.0], [0.0, 0.0, 0.5]], labels=[0.0, 2.0, 5.0])
    assert bayes_value(d, [0], "squared") == pytest.approx(0.5)
    assert bayes_value(d, [], "squared") == pytest.approx(np.var([0, 2, 5, 5], ddof=0))


def test_supported_measures_follow_the_target():
    import pandas as pd

    from fslab.data import Dataset
    from fslab.data.distributions import example1
    from fslab.measures import MEASURES, supported_measures

    assert supported_measures(example1()) == list(MEASURES)
    real = pd.DataFrame({"x": np.arange(100) % 3, "y": np.linspace(0, 1, 100)})
    assert supported_measures(Dataset.from_frame(real, "y").discretize()) == ["squared"]
    text = pd.DataFrame({"x": np.arange(99) % 3, "y": list("abc") * 33})
    # issue 33.5: the balanced error on K classes; the cost-sensitive error only with a K x K matrix given (its
    # default c is for two classes), so it is not offered by default
    many = ["zero-one", "balanced", "log-loss"]
    assert supported_measures(Dataset.from_frame(text, "y").discretize()) == [*many, "mi"]
    digits = pd.DataFrame({"x": np.arange(99) % 3, "y": [1, 2, 3] * 33})
    assert supported_measures(Dataset.from_frame(digits, "y").discretize()) == [*many, "squared", "mi"]
