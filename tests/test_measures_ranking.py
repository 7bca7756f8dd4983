"""F-beta and AUC cross-checks: brute force over every classifier, the paper's AUC formula, scikit-learn.

Example 7: the Bayes F-beta is a sup over thresholds of eta. For a fixed optimum F*, maximising the
linear-fractional F = (1+b^2) TP / (b^2 p + Q) over h is maximising sum_x h(x) [(1+b^2) p(x,1) - F* p(x)],
so some threshold classifier attains the sup over ALL classifiers: brute force over every subset of
cells must agree. Example 8: the AUC of scoring by eta with ties 1/2 equals the paper's formula.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.metrics import f1_score, roc_auc_score

from fslab.data.distributions import example1
from fslab.measures import measure
from fslab.measures._ranking import rank_cells
from fslab.measures.auc import auc_score
from fslab.measures.f_beta import f_beta_score
from fslab.tables import JointTable

LABELS = np.array([0, 1])

counts_tables = arrays(np.int64, st.tuples(st.integers(1, 7), st.just(2)), elements=st.integers(0, 6)).filter(
    lambda c: c[:, 1].sum() > 0 and c[:, 0].sum() > 0)


def brute_force_f(counts: np.ndarray, beta: float) -> float:
    """max over every subset S of cells predicted positive of (1+b^2) TP / (b^2 P + Q); empty set -> 0."""
    b2, pos, tot = beta ** 2, counts[:, 1], counts.sum(axis=1)
    best = 0.0
    for r in range(1, len(counts) + 1):
        for s in itertools.combinations(range(len(counts)), r):
            s = list(s)
            best = max(best, (1 + b2) * pos[s].sum() / (b2 * pos.sum() + tot[s].sum()))
    return best


def paper_auc(counts: np.ndarray) -> float:
    """1 - E[min(alpha(X,X'), alpha(X',X))] / (2p(1-p)), alpha(z,z') = eta(z)(1-eta(z')), X, X' iid."""
    p = counts / counts.sum()
    px = p.sum(axis=1)
    eta = np.divide(p[:, 1], px, out=np.zeros_like(px), where=px > 0)
    alpha = eta[:, None] * (1 - eta[None, :])
    e_min = (px[:, None] * px[None, :] * np.minimum(alpha, alpha.T)).sum()
    prior = p[:, 1].sum()
    return 1 - e_min / (2 * prior * (1 - prior))


@pytest.mark.slow  # 0.48 s measured (inner loop: unit and not slow)
@settings(max_examples=80, deadline=None)
@given(counts_tables, st.sampled_from([0.5, 1.0, 2.0]))
def test_f_beta_equals_brute_force_over_all_classifiers(counts, beta):
    table = JointTable(counts, LABELS)
    assert measure("f-beta", beta=beta).value(table) == pytest.approx(brute_force_f(counts, beta), abs=1e-12)


@pytest.mark.slow  # 1.37 s measured (inner loop: unit and not slow)
@settings(max_examples=80, deadline=None)
@given(counts_tables)
def test_auc_equals_paper_formula_and_sklearn_scoring_by_eta(counts):
    table = JointTable(counts, LABELS)
    value = measure("auc").value(table)
    assert value == pytest.approx(paper_auc(counts), abs=1e-12)
    # one weighted "row" per (cell, class), scored by the cell's eta; sklearn counts ties 1/2
    eta = table.eta()
    keep = counts.ravel() > 0
    y = np.tile([0, 1], len(counts))[keep]
    score = np.repeat(eta, 2)[keep]
    assert value == pytest.approx(roc_auc_score(y, score, sample_weight=counts.ravel()[keep]), abs=1e-12)


def test_auc_against_sklearn_on_sample_rows():
    """Expand a table into its sample rows (counts) and score each row by its cell's eta."""
    counts = np.array([[5, 1], [2, 2], [4, 4], [0, 3], [1, 0]])
    rows = np.repeat(np.arange(5), counts.sum(axis=1))
    y = np.concatenate([[0] * c0 + [1] * c1 for c0, c1 in counts])
    eta = JointTable(counts, LABELS).eta()
    assert measure("auc").value(JointTable(counts, LABELS)) == pytest.approx(roc_auc_score(y, eta[rows]))


def test_equal_eta_cells_move_together_within_tolerance():
    """Cells (10, 10) and (1+1e-15, 1-1e-15) have eta 1/2 up to rounding: one group, so no threshold
    separates them (ties count 1/2 between them in AUC). Sorted descending: eta .9 | .5, .5-5e-16 | 0.
    F1 options: top cell 2*9/(20+10) = .6; top + group 2*20/(20+32) = .769; all 40/(20+40) = .667."""
    counts = np.array([[1.0, 9.0], [10.0, 10.0], [1 + 1e-15, 1 - 1e-15], [8.0, 0.0]])
    t = JointTable(counts, LABELS)
    assert rank_cells(t, descending=True).last.tolist() == [True, False, True, True]
    assert rank_cells(JointTable(counts[[0, 1, 3]], LABELS), descending=True).last.tolist() == [True, True, True]
    assert measure("f-beta").value(t) == pytest.approx(40 / 52)
    assert measure("auc").value(t) == pytest.approx(paper_auc(counts), abs=1e-12)


def test_all_positive_classifier_is_included():
    """Every cell has eta = 1/2: the only non-empty threshold classifier is all-positive: F1 = 2p/(p+1)."""
    t = JointTable(np.array([[1.0, 1.0], [2.0, 2.0]]), LABELS)
    assert measure("f-beta").value(t) == pytest.approx(2 * 0.5 / 1.5)
    assert measure("auc").value(t) == pytest.approx(0.5)


def test_batched_equals_per_table_for_ranking_measures():
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 5, size=(9, 12, 2)).astype(float)
    counts[:, 0, :] += 1  # every table has both classes
    counts[2, 5:] = 0  # padded (empty) cells
    batch = JointTable(counts, LABELS)
    grid = JointTable(counts.reshape(3, 3, 12, 2), LABELS)  # two batch axes
    for func in (f_beta_score, auc_score):
        together = func(batch)
        assert together.shape == (9,)
        assert together == pytest.approx([func(batch[i]) for i in range(9)], abs=1e-14)
        assert func(grid) == pytest.approx(together.reshape(3, 3), abs=1e-14)


def test_auc_and_f_beta_on_a_sample_scored_row_by_row():
    """Plug-in AUC of a sample's subset table = roc_auc_score of the rows scored by their cell's eta-hat;
    plug-in F1 = best F1 of sklearn's f1_score over the thresholds 1(eta-hat >= each distinct eta-hat)."""
    sample = example1().sample(3000, seed=4)
    codes, _ = sample.cell_codes([0, 1])
    table = sample.table([0, 1])
    score = table.eta()[codes]
    assert measure("auc").value(table) == pytest.approx(roc_auc_score(sample.y, score), abs=1e-12)
    best = max(f1_score(sample.y, (score >= t).astype(int)) for t in np.unique(score))
    assert measure("f-beta").value(table) == pytest.approx(best, abs=1e-12)
