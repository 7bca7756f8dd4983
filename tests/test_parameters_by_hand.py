"""Parameters whose default hides a mistake, at values where it shows, against numbers worked by hand (issue 36.4).

At beta = 1 a weight written ``beta`` instead of ``beta**2`` is invisible (1 = 1**2), at c = 1/2 so is a cost
swapped with its complement, at s = 2 a division by C(size, 2) instead of C(size, s), at sample_fraction = 1 a
bootstrap that ignores the fraction. Each test here uses beta in {1/2, 2}, c = 1/4, s = 3, a fraction of 1/2 or
alpha away from its default, in the fast unit tier; ``tools/mutate.py`` applies those mistakes and checks that these
tests fail.

F_beta = (1+b^2) TP / ((1+b^2) TP + b^2 FN + FP) = (1+b^2) TP / (b^2 P + Q), with P the positives and Q the
predicted positives; b^2 = 4 at beta = 2, 1/4 at beta = 1/2.
"""

from __future__ import annotations

import numpy as np
import pytest

from fslab import npfs, select
from fslab.data.encoded import EncodedDataset
from fslab.learners import best_threshold, empirical_value, learner
from fslab.measures import MEASURES, measure
from fslab.npfs.result import npfs_threshold
from fslab.tables import JointTable

# p(x, y) = [[.4, .1], [.2, .3]]: two cells, eta = (.2, .6), P(Y=1) = .4 (tests/test_measures.py's tiny table)
TINY = JointTable(np.array([[0.4, 0.1], [0.2, 0.3]]), np.array([0, 1]))


@pytest.mark.parametrize("beta,expected", [
    # b^2 = 4. Top cell (eta .6): TP .3, Q .5: 5 * .3 / (4 * .4 + .5) = 1.5 / 2.1 = 5/7.
    # Both cells (all positive): TP .4, Q 1: 5 * .4 / (1.6 + 1) = 2 / 2.6 = 10/13 > 5/7: recall wins.
    (2.0, 10 / 13),
    # b^2 = 1/4. Top cell: 1.25 * .3 / (.1 + .5) = .375 / .6 = 5/8; both: 1.25 * .4 / (.1 + 1) = 5/11 < 5/8.
    (0.5, 5 / 8),
])
def test_bayes_f_beta_at_beta_2_and_one_half(beta, expected):
    """Both branches of the recall weight b^2 / (1 + b^2) (beta >= 1 and beta < 1), Example 7's sup over thresholds.
    With the weight b / (1 + b) the values would be 9/13 (beta 2: top cell) and 9/14 (beta 1/2)."""
    assert measure("f-beta", beta=beta).value(TINY) == pytest.approx(expected, abs=1e-12)


# Held out: one fold, two cells, counts [class 0, class 1]. Training: A = [4, 6] (eta .6), B = [8, 2] (eta .2), P = 8.
TRAIN = np.array([[[4.0, 6.0], [8.0, 2.0]]])
TEST = np.array([[[2.0, 2.0], [1.0, 3.0]]])   # test: A = [2, 2], B = [1, 3]; P_test = 5, 8 rows


@pytest.mark.parametrize("beta,expected", [
    # Training F at beta 2: top A 5*6 / (4*8 + 10) = 30/42; A and B 5*8 / (32 + 20) = 40/52 (larger): all positive.
    # On the test rows: TP 5, Q 8: 5*5 / (4*5 + 8) = 25/28.
    (2.0, 25 / 28),
    # Training F at beta 1/2: top A 1.25*6 / (.25*8 + 10) = 7.5/12; both 1.25*8 / (2 + 20) = 10/22: A only.
    # On the test rows: TP 2, Q 4: 1.25*2 / (.25*5 + 4) = 2.5 / 5.25 = 10/21.
    (0.5, 10 / 21),
])
def test_held_out_f_beta_of_the_training_threshold(beta, expected):
    """The cross-fitted estimate's F-beta (MeasureSpec.held_out): the cut chosen on the training counts, F-beta
    measured on the test counts, both with b^2."""
    value = MEASURES["f-beta"].held_out(TRAIN, TEST, np.array([0, 1]), beta=beta)
    assert value.shape == (1,) and value[0] == pytest.approx(expected, abs=1e-12)


def test_held_out_cost_sensitive_at_c_one_quarter():
    """c = 1/4: predict 1 where (1-c) eta > c (1-eta), i.e. eta > 1/4: cell A (eta .6) yes, B (eta .2) no.
    Test rows: FP = A's 2 negatives, FN = B's 3 positives: (c*2 + (1-c)*3) / 8 = (.5 + 2.25) / 8 = 0.34375
    (with c and 1-c swapped: (1.5 + .75) / 8 = 0.28125)."""
    value = MEASURES["cost-sensitive"].held_out(TRAIN, TEST, np.array([0, 1]), c=0.25)
    assert value[0] == pytest.approx(0.34375, abs=1e-12)


# Ten test rows: 4 positives of which 2 predicted (TP 2, FN 2), 6 negatives of which 1 predicted (FP 1).
Y = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
PRED = np.array([1, 1, 0, 0, 1, 0, 0, 0, 0, 0])


@pytest.mark.parametrize("params,expected", [
    ({"beta": 2.0}, 10 / 19),    # 5*2 / (5*2 + 4*2 + 1)
    ({"beta": 0.5}, 5 / 8),      # 1.25*2 / (1.25*2 + .25*2 + 1) = 2.5 / 4
    ({}, 4 / 7),                 # the default beta = 1: 2*2 / (2*2 + 2 + 1)
])
def test_empirical_f_beta_on_a_test_sample(params, expected):
    """Learning curves' and Compare's scorer (measures/empirical.py through learners.empirical_value)."""
    assert empirical_value("f-beta", Y, PRED, **params) == pytest.approx(expected, abs=1e-12)


def test_empirical_cost_sensitive_at_c_one_quarter():
    """(c FP + (1-c) FN) / m = (.25*1 + .75*2) / 10 = 0.175 (swapped: 0.125); the record's default c = 1/4 too."""
    assert empirical_value("cost-sensitive", Y, PRED, c=0.25) == pytest.approx(0.175, abs=1e-12)
    assert empirical_value("cost-sensitive", Y, PRED, c=0.75) == pytest.approx((0.75 + 0.25 * 2) / 10, abs=1e-12)


# Scores in descending order and their labels; P = 3. (TP, FP) after the top k: k=1 (1,0), k=3 (2,1), k=8 (3,5).
SCORES = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
LABELS = np.array([1, 0, 1, 0, 0, 0, 0, 1])


@pytest.mark.parametrize("beta,k", [
    # b^2 = 4: k=1 5/13, k=3 10/15, k=8 15/20 (best): everything positive, t = .2
    (2.0, 8),
    # b^2 = 1: k=1 2/4, k=3 4/6 (best), k=8 6/11
    (1.0, 3),
    # b^2 = 1/4: k=1 1.25/1.75 = .714 (best), k=3 2.5/3.75 = .667, k=8 3.75/8.75
    (0.5, 1),
])
def test_learner_threshold_maximises_f_beta(beta, k):
    """best_threshold, and the plug-in F-measure learner built with that beta (logistic regression on the score,
    increasing in it, then the threshold maximising training F-beta) predicts exactly the top k rows positive.
    With b^2 -> b the best cut would be k = 3 at beta 2 (6/9 > 9/14) and at beta 1/2 (3/4.5 > 1.5/2.5)."""
    assert best_threshold(LABELS, SCORES, beta) == SCORES[k - 1]
    fitted = learner("logistic-threshold").build(beta=beta).fit(SCORES[:, None], LABELS)
    assert fitted.predict(SCORES[:, None]).tolist() == [1] * k + [0] * (8 - k)


def test_s_variate_mean_over_three_subsets():
    """s = 3 (Section 3.2): C(J) ~ the mean of C(A) over the 3-subsets A of J once |J| > 3.

    Eight rows, y = 0 0 0 0 1 1 1 1. X0 = y (0-1 error 0 with any other feature); X1, X2 and X3 = X1 xor X2 take
    every pattern once in each class, so any subset of them has error 1/2; X4 is constant (error 1/2).
    Greedy, k = 4: X0, then ties (error 0) to the lowest index: X1, X2; at step 4 both candidates average
    (0 + 0 + 0 + 1/2) / C(4, 3) = 1/8 over their four 3-subsets, and X3 wins the tie. (Divided by C(4, 2) = 6, the
    bivariate count, it would be 1/12.)"""
    x1 = np.array([0, 1, 0, 1, 0, 1, 0, 1])
    x2 = np.array([0, 0, 1, 1, 0, 0, 1, 1])
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    data = EncodedDataset(np.stack([y, x1, x2, x1 ^ x2, np.zeros(8, dtype=int)], axis=1), y, labels=[0, 1])
    chosen = select(data, 4, "bayes-greedy", "zero-one", s=3)
    assert chosen.features == (0, 1, 2, 3)
    assert chosen.scores == pytest.approx([0.0, 0.0, 0.0, -1 / 8], abs=1e-12)


def test_npfs_bootstraps_draw_the_sample_fraction():
    """sample_fraction = 1/2 of 8 rows: every bootstrap has round(.5 * 8) = 4 rows. A selector that picks feature
    (rows - 1) therefore picks feature 3 in all 5 bootstraps (feature 7 if the fraction were ignored)."""
    X = (np.arange(8)[:, None] // 2 + np.arange(8)) % 2   # no column constant (a constant one counts for nothing)
    data = EncodedDataset(X, np.array([0, 1] * 4), labels=[0, 1])
    result = npfs(data, lambda boot, k: [boot.n_rows - 1], 1, n_bootstraps=5, sample_fraction=0.5, seed=0)
    assert result.counts.tolist() == [0, 0, 0, 5, 0, 0, 0, 0]


@pytest.mark.parametrize("alpha,zeta", [
    # Z ~ Binomial(10, 1/2): P(Z >= 8) = 56/1024 = .0547, P(Z >= 9) = 11/1024 = .0107, P(Z = 10) = 1/1024.
    # zeta = smallest z with P(Z > z) <= alpha: alpha .05 -> 8 (P(Z > 7) = .0547 is too large); alpha .01 -> 9.
    (0.05, 8),
    (0.01, 9),
])
def test_npfs_threshold_at_two_alphas(alpha, zeta):
    assert npfs_threshold(10, 0.5, alpha) == zeta
