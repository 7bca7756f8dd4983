"""The one tie rule (DESIGN.md): within 1e-12 * max(1, |best|) of the best, the first wins; NaN never does."""

from __future__ import annotations

import numpy as np

from fslab.pena_nilsson.orderings import subset_risks
from fslab.pena_nilsson.toy import random_dirichlet
from fslab.selectors import select
from fslab.selectors.ties import pick_best, ranks, tied_mask, ties_with


def test_relative_tolerance_first_wins_and_nan_never_ties():
    v = np.array([1e6 - 5e-7, np.nan, 1e6, 1e6 - 2e-6, -np.inf])
    assert tied_mask(v).tolist() == [True, False, True, False, False]  # 1e-12 * 1e6 = 1e-6
    assert pick_best(v) == (0, 2)
    assert pick_best(np.array([-0.5, -0.5 + 5e-13, -0.6])) == (0, 2)  # tolerance at least 1e-12
    assert pick_best(np.array([-np.inf, -np.inf])) == (0, 2)
    assert ties_with(np.array([np.inf, 1.0]), np.inf).tolist() == [True, False]


def test_ranks_share_ties_and_count_strictly_better_values():
    c = np.array([0.3, 0.3 + 1e-14, 0.5, -np.inf, 0.1])
    assert ranks(c).tolist() == [2, 2, 1, 5, 4]


def test_the_trace_tied_column_is_the_loop_s_tie_set():
    law = random_dirichlet(4, seed=3)
    sel = select(law, 3, "bayes-greedy")
    for _, step in sel.trace.groupby("step"):
        assert step["tied"].to_numpy().tolist() == tied_mask(step["value"].to_numpy()).tolist()
        assert (step["n_tied"] == step["tied"].sum()).all()
        assert step.loc[step["chosen"], "candidate"].item() == step.loc[step["tied"], "candidate"].min()
    risks = subset_risks(law)
    assert (risks["rank"].to_numpy() == ranks(risks["criterion"].to_numpy())).all()
