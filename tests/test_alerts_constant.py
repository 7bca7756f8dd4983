"""A constant column is never selected while a candidate that gains exists, and the default k keeps no zero gain."""

import numpy as np
import pytest

from fslab.data.dataset import Dataset
from fslab.measures import measure
from fslab.selectors import select
from fslab.stopping import steps_to_keep


@pytest.mark.parametrize("selector, crit", [("bayes-greedy", "log-loss"), ("jmi", "mi"), ("mrmr", "mi")])
def test_constant_column_loses_to_any_gaining_candidate(selector, crit):
    rng = np.random.default_rng(4)
    n = 400
    y = rng.integers(0, 2, n)
    strong = np.where(rng.random(n) < 0.9, y, 1 - y)
    weak = np.where(rng.random(n) < 0.6, y, 1 - y)
    # the constant first: the lowest index would win any tie
    ds = Dataset.from_arrays(np.c_[np.zeros(n, int), strong, weak], y, feature_names=["const", "strong", "weak"])
    sel = select(ds, 2, selector, measure=crit) if selector == "bayes-greedy" else select(ds, 2, selector)
    assert sel.names == ("strong", "weak")
    # k = 3 forces the constant in at a step that gains nothing: the stopping rule (tol 0) drops that step
    full = select(ds, 3, "bayes-greedy", measure="log-loss")
    ev = measure("log-loss").on(ds)
    k, stopped = steps_to_keep([ev.criterion([]), *full.scores.tolist()], 0.0)
    assert full.names[-1] == "const" and (k, stopped) == (2, 3)
