"""The Toy page's convergence study counts ANY exactly optimal subset as found when several tie."""

from __future__ import annotations

import numpy as np

from fslab.convergence import optimum_rate
from fslab.criteria import bayes_value
from fslab.data.distributions import Distribution
from fslab.plots.toy import convergence_figure


def twin_signals() -> Distribution:
    """Y uniform; X1 and X2 each equal Y with probability 0.8 (independently given Y); X3 is noise.
    R({X1}) = R({X2}) = 0.2 exactly, R({X3}) = 0.5: {X1} and {X2} are both 1-optimal."""
    flip = [[0.8, 0.2], [0.2, 0.8]]
    return Distribution.naive_bayes([0.5, 0.5], [flip, flip, [[0.5, 0.5], [0.5, 0.5]]])


def test_every_tied_optimum_counts_as_a_success():
    dist = twin_signals()
    assert np.isclose(bayes_value(dist, [0]), 0.2) and np.isclose(bayes_value(dist, [1]), 0.2, rtol=0, atol=1e-12)
    rates = optimum_rate(dist, [2000], k=1, selectors=("bayes-greedy", "exhaustive"), repeats=12, seed=1)
    # samples split between X1 and X2 (each ~half the time); X3 (error 0.5) never wins at m = 2000
    assert rates["rate"].tolist() == [1.0, 1.0]
    assert rates.attrs["optima"] == ["X1", "X2"] and rates.attrs["target"] == "X1"
    assert "{X1} or {X2}" in convergence_figure(rates).layout.title.text


def test_a_unique_optimum_is_still_the_only_success():
    """{X1} alone is optimal when X2 is weaker: picking X2 is a miss."""
    dist = Distribution.naive_bayes([0.5, 0.5], [[[0.8, 0.2], [0.2, 0.8]], [[0.6, 0.4], [0.4, 0.6]]])
    rates = optimum_rate(dist, [3], k=1, selectors=("bayes-greedy",), repeats=40, seed=0)
    assert rates.attrs["optima"] == ["X1"]
    assert 0 < rates["rate"].iloc[0] < 1   # three rows often favour X2 by chance
