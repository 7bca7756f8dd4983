"""fslab.rank_tests: average ranks over data sets and the Wilcoxon signed-rank test (Ditzler et al., Table II)."""

from __future__ import annotations

import numpy as np
import pytest

from fslab.errors import ParameterError
from fslab.rank_tests import rank_analysis, wilcoxon_signed_rank


def test_average_ranks_by_hand_with_a_tie():
    # errors:        all   jmi   npfs      ranks (1 = lowest error)
    # set 1        0.20  0.10  0.15  ->   3, 1, 2
    # set 2        0.30  0.30  0.10  ->   2.5, 2.5, 1   (tie of the 2nd and 3rd places: (2 + 3) / 2)
    # set 3        0.05  0.25  0.15  ->   1, 3, 2
    # averages: all (3 + 2.5 + 1) / 3 = 2.1667, jmi (1 + 2.5 + 3) / 3 = 2.1667, npfs (2 + 1 + 2) / 3 = 1.6667
    res = rank_analysis([[0.20, 0.10, 0.15], [0.30, 0.30, 0.10], [0.05, 0.25, 0.15]], ["all", "jmi", "npfs"])
    assert res.ranks.tolist() == [[3, 1, 2], [2.5, 2.5, 1], [1, 3, 2]]
    assert res.average == pytest.approx({"all": 6.5 / 3, "jmi": 6.5 / 3, "npfs": 5 / 3})
    assert res.best() == ["npfs"]


def test_scores_rank_the_other_way():
    res = rank_analysis([[0.9, 0.8]], ["a", "b"], lower_is_better=False)
    assert res.average == {"a": 1.0, "b": 2.0}


def test_wilcoxon_by_hand():
    # a - b = (-0.01, -0.02, -0.03, -0.04, -0.05, +0.06): |d| ranks 1..6; positive rank sum W+ = 6, W- = 15.
    # scipy reports min(W+, W-) = 6; exact two-sided p for n = 6 is P(W <= 6) * 2 = 2 * 14 / 64 = 0.4375.
    a = np.array([0.10, 0.20, 0.30, 0.40, 0.50, 0.66])
    b = a - np.array([-0.01, -0.02, -0.03, -0.04, -0.05, 0.06])
    res = wilcoxon_signed_rank(a, b)
    assert res.statistic == 6 and res.n_nonzero == 6
    assert res.pvalue == pytest.approx(0.4375)
    assert res.mean_difference == pytest.approx(np.mean([-0.01, -0.02, -0.03, -0.04, -0.05, 0.06]))
    # all eight differences negative: W+ = 0, exact two-sided p = 2 / 2^8 = 0.0078 (significant at 0.1)
    res = wilcoxon_signed_rank(np.zeros(8), np.arange(1, 9) / 100)
    assert res.statistic == 0 and res.pvalue == pytest.approx(2 / 256)


def test_no_difference_is_no_evidence():
    res = wilcoxon_signed_rank([0.1, 0.2], [0.1, 0.2])
    assert res.pvalue == 1.0 and res.n_nonzero == 0


def test_bad_input_names_the_problem():
    with pytest.raises(ParameterError, match="at least 2 methods"):
        rank_analysis([[0.1], [0.2]])
    with pytest.raises(ParameterError, match="same length"):
        wilcoxon_signed_rank([0.1, 0.2], [0.1])
