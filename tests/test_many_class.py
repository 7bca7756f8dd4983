"""Many-class balanced error and K x K cost matrices (issue 33.5): numbers worked by hand, brute-force oracles (the
exact value is the minimum over EVERY classifier of the cells; plug-in = exact on the empirical law; held out = a
row-level computation fold by fold), the binary c as the matrix [[0, c], [1 - c, 0]], and the refusals."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fslab
from fslab.counting.folds import assign_folds, split
from fslab.data.encoded import EncodedDataset
from fslab.errors import ParameterError, UnsupportedTargetError
from fslab.measures import MEASURES, measure
from fslab.measures.cost_sensitive import parse_cost_matrix
from fslab.tables import JointTable

C3 = ((0.0, 1.0, 2.0), (1.0, 0.0, 1.0), (4.0, 1.0, 0.0))     # non-symmetric: missing class 2 as 0 costs 4


# --- numbers worked by hand ------------------------------------------------------------------------------------

def test_three_class_values_worked_by_hand():
    """counts n(x, y) = [[3, 1, 0], [1, 2, 5]], N_y = (4, 3, 5), 12 rows.
    Balanced: q = n / N = [[3/4, 1/3, 0], [1/4, 2/3, 1]]; the rule takes class 0 at x0 and 2 at x1; per-class
    errors 1/4, 3/3, 0 -> (1/4 + 1 + 0) / 3 = 5/12.
    Cost matrix C3: x0 costs (n @ C)_k = (1, 3, 7) -> 1; x1: (22, 6, 4) -> 4; (1 + 4) / 12 = 5/12."""
    t = JointTable(np.array([[3.0, 1.0, 0.0], [1.0, 2.0, 5.0]]), np.array([0, 1, 2]))
    assert measure("balanced").value(t) == pytest.approx(5 / 12, abs=1e-15)
    assert measure("cost-sensitive", c=C3).value(t) == pytest.approx(5 / 12, abs=1e-15)
    # the transposed matrix changes the decision at x1: (n @ C.T)_k = (12, 6, 6) -> 6 (class 1); x0: (1, 3, 13) -> 1
    assert measure("cost-sensitive", c=np.array(C3).T).value(t) == pytest.approx(7 / 12, abs=1e-15)
    # a non-zero diagonal: C3 + 1 costs every row 1 more
    assert measure("cost-sensitive", c=np.array(C3) + 1).value(t) == pytest.approx(17 / 12, abs=1e-15)


def test_three_class_held_out_worked_by_hand():
    """Feature x in {0, 1}; 2 folds. Fold 0 rows (x, y): (0,0) (0,1) (1,2) (1,2); fold 1: (0,0) (1,1) (1,2) (0,1).
    Fitted on fold 1, scored on fold 0: n_train = [[1, 1, 0], [0, 1, 1]], N = (1, 2, 1): ratios x0 (1, 1/2, 0) ->
    0, x1 (0, 1/2, 1) -> 2; fold 0: class 0 right, class 1 wrong (1/1), class 2 right (2/2): BER = (0 + 1 + 0)/3.
    Fitted on fold 0, scored on fold 1: n_train = [[1, 1, 0], [0, 0, 2]], N = (1, 1, 2): x0 ties 0 and 1 -> 0 (the
    lower label), x1 -> 2; fold 1: class 0 right, class 1 rows (1,1) wrong and (0,1) wrong, class 2 right: 1/3.
    Mean 1/3."""
    X = np.array([[0], [0], [1], [1], [0], [1], [1], [0]], dtype=np.uint8)
    y = np.array([0, 1, 2, 2, 0, 1, 2, 1])
    ds = EncodedDataset(X, y, labels=np.array([0, 1, 2]))
    folds = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    got = fslab.bayes_value(ds, [0], "balanced", estimate="cross-fitted", folds=folds)
    assert got == pytest.approx(1 / 3, abs=1e-15)
    # cost C3, fitted on fold 1, scored on fold 0: risks sum_y C[y, k] n(x, y): x0 (1, 1, 3) -> 0 (tie: the lower
    # label), x1 (5, 1, 1) -> 1 (tie); fold-0 rows cost C[0,0] + C[1,0] + C[2,1] + C[2,1] = 3 -> 3/4. Fitted on fold
    # 0, scored on fold 1: x0 (1, 1, 3) -> 0; x1 (8, 2, 0) -> 2; rows (0,0) 0, (1,1) C[1,2] = 1, (1,2) 0,
    # (0,1) C[1,0] = 1 -> 2/4. Mean 5/8.
    got = fslab.bayes_value(ds, [0], "cost-sensitive", estimate="cross-fitted", folds=folds, c=C3)
    assert got == pytest.approx(5 / 8, abs=1e-15)


# --- brute force over every classifier ---------------------------------------------------------------------------

def _balanced_of(h, p):
    """(1/K) sum over classes with mass of P(h(X) != y | Y = y), h one prediction per cell."""
    K = p.shape[1]
    prior = p.sum(axis=0)
    right = np.array([p[h == y, y].sum() for y in range(K)])
    return sum(1 - right[y] / prior[y] for y in range(K) if prior[y] > 0) / K


def _cost_of(h, p, C):
    return sum(C[y, h[x]] * p[x, y] for x in range(p.shape[0]) for y in range(p.shape[1]))


@st.composite
def laws(draw):
    K = draw(st.integers(2, 3))
    cells = draw(st.integers(1, 4))
    counts = np.array(draw(st.lists(st.integers(0, 6), min_size=cells * K, max_size=cells * K)), dtype=float)
    counts = counts.reshape(cells, K)
    counts[0, 0] += 1   # at least one row
    C = np.array(draw(st.lists(st.sampled_from((0.0, 0.5, 1.0, 2.0, 3.0)), min_size=K * K, max_size=K * K)))
    return counts, C.reshape(K, K)


@pytest.mark.slow  # 1.4 s measured
@settings(max_examples=60, deadline=None)
@given(law=laws())
def test_exact_value_is_the_minimum_over_every_classifier(law):
    counts, C = law
    cells, K = counts.shape
    t = JointTable(counts, np.arange(K))
    p = counts / counts.sum()
    every = [np.array(h) for h in itertools.product(range(K), repeat=cells)]
    assert measure("balanced").value(t) == pytest.approx(min(_balanced_of(h, p) for h in every), abs=1e-12)
    assert measure("cost-sensitive", c=C).value(t) == pytest.approx(min(_cost_of(h, p, C) for h in every),
                                                                     abs=1e-12)


# --- held out: a row-level oracle ------------------------------------------------------------------------------

def _cells(X, subset):
    if not subset:
        return np.zeros(X.shape[0], dtype=np.int64)
    return np.unique(X[:, subset], axis=0, return_inverse=True)[1].ravel()


def _held_out_oracle(name, X, y, K, subset, fold, C=None):
    """Per fold, in plain Python: fit the rule on the other folds' rows, predict each test row, score the fold."""
    cell = _cells(X, subset)
    values = []
    for f in range(int(fold.max()) + 1):
        train = [(c, yy) for c, yy, g in zip(cell.tolist(), y.tolist(), fold.tolist(), strict=True) if g != f]
        N = [sum(1 for _, yy in train if yy == k) for k in range(K)]

        def predict(x, train=train, N=N):
            n = [sum(1 for c, yy in train if c == x and yy == k) for k in range(K)]
            if name == "balanced":   # argmax n(x, y) / N_y, first max; a class without training rows never
                ratio = [n[k] / N[k] if N[k] else -1.0 for k in range(K)]
                return ratio.index(max(ratio))
            base = n if sum(n) else N   # an unseen cell: the training class counts
            risk = [sum(C[yy, k] * base[yy] for yy in range(K)) for k in range(K)]
            return risk.index(min(risk))

        test = [(c, yy) for c, yy, g in zip(cell.tolist(), y.tolist(), fold.tolist(), strict=True) if g == f]
        pred = [predict(c) for c, _ in test]
        if name == "balanced":
            rates = [np.mean([p != k for p, (_, yy) in zip(pred, test, strict=True) if yy == k])
                     for k in range(K) if any(yy == k for _, yy in test)]
            values.append(sum(rates) / K)
        else:
            values.append(np.mean([C[yy, p] for p, (_, yy) in zip(pred, test, strict=True)]))
    return float(np.mean(values))


@st.composite
def samples(draw):
    K = draw(st.integers(2, 4))
    m = draw(st.integers(3 * K, 40))
    n = draw(st.integers(1, 3))
    arities = draw(st.lists(st.integers(2, 3), min_size=n, max_size=n))
    X = np.column_stack([draw(st.lists(st.integers(0, a - 1), min_size=m, max_size=m)) for a in arities])
    y = np.array(draw(st.lists(st.integers(0, K - 1), min_size=m, max_size=m)))
    y[:2 * K] = np.tile(np.arange(K), 2)   # two rows of every class at least
    C = np.array(draw(st.lists(st.sampled_from((0.0, 1.0, 2.0, 5.0)), min_size=K * K, max_size=K * K)))
    return X.astype(np.uint8), y, K, C.reshape(K, K)


@pytest.mark.slow  # 4.9 s measured
@settings(max_examples=40, deadline=None)
@given(data=samples(), folds=st.integers(2, 4), seed=st.integers(0, 3))
def test_held_out_equals_a_row_level_oracle_and_plug_in_the_empirical_law(data, folds, seed):
    X, y, K, C = data
    ds = EncodedDataset(X, y, labels=np.arange(K))
    fold = assign_folds(y, folds, seed)[0]
    params = {"balanced": {}, "cost-sensitive": {"c": C}}
    for name, kw in params.items():
        for subset in ([], [0], list(range(X.shape[1]))):
            want = _held_out_oracle(name, X, y, K, subset, fold, C)
            for engine in ("auto", "plain"):
                ev = measure(name, **kw).on(ds, engine, estimate="cross-fitted", folds=folds, seed=seed)
                assert ev.value(subset) == pytest.approx(want, abs=1e-12), (name, subset, engine)
            # the plug-in value on the sample is the exact value of its empirical law
            counts = np.zeros((int(_cells(X, subset).max()) + 1, K))
            np.add.at(counts, (_cells(X, subset), y), 1.0)
            exact = measure(name, **kw).value(JointTable(counts, np.arange(K)))
            assert fslab.bayes_value(ds, subset, name, **kw) == pytest.approx(exact, abs=1e-12)
        # the engines' mixed-cell path (greedy extensions) scores the same subsets
        sel = fslab.select(ds, X.shape[1], "bayes-greedy", measure=name, estimate="cross-fitted", folds=folds,
                           seed=seed, **kw)
        for t in range(1, len(sel.features) + 1):
            want = _held_out_oracle(name, X, y, K, sorted(sel.features[:t]), fold, C)
            assert -sel.scores[t - 1] == pytest.approx(want, abs=1e-12)


# --- the binary c is the matrix [[0, c], [1 - c, 0]]; two-class held-out branches equal the general path ---------

@pytest.mark.slow  # 2.2 s measured
@settings(max_examples=30, deadline=None)
@given(data=samples(), c=st.sampled_from((0.125, 0.25, 0.375, 0.5, 0.625, 0.75)), seed=st.integers(0, 3))
def test_binary_c_equals_its_cost_matrix(data, c, seed):
    X, y, _, _ = data
    y = (y > 0).astype(int)
    y[:4] = [0, 1, 0, 1]
    ds = EncodedDataset(X, y, labels=np.array([0, 1]))
    matrix = ((0.0, c), (1.0 - c, 0.0))
    for estimate in ("plug-in", "cross-fitted"):
        for engine in ("auto", "plain"):
            a = measure("cost-sensitive", c=c).on(ds, engine, estimate=estimate, folds=3, seed=seed)
            b = measure("cost-sensitive", c=matrix).on(ds, engine, estimate=estimate, folds=3, seed=seed)
            for subset in ([], [0], list(range(X.shape[1]))):
                assert a.value(subset) == pytest.approx(b.value(subset), abs=1e-12)
    sel_c = fslab.select(ds, X.shape[1], "bayes-greedy", measure="cost-sensitive", c=c, estimate="cross-fitted")
    sel_m = fslab.select(ds, X.shape[1], "bayes-greedy", measure="cost-sensitive", c=matrix, estimate="cross-fitted")
    assert sel_c.features == sel_m.features
    np.testing.assert_allclose(sel_c.scores, sel_m.scores, rtol=0, atol=1e-12)


@pytest.mark.slow  # 0.3-0.6 s measured
@pytest.mark.parametrize("name", ("zero-one", "balanced", "cost-sensitive"))
@settings(max_examples=25, deadline=None)
@given(counts=st.lists(st.integers(0, 3), min_size=6 * 3 * 3, max_size=6 * 3 * 3), K=st.integers(2, 3))
def test_cell_shares_equal_the_whole_table_rule_with_ties(name, counts, K):
    """Small counts make ties everywhere: the two-class branches of ``held_out_cells`` (issue 35.2) and the K-class
    ones give the whole-table ``held_out`` value (its general argmax / argmin path), fold by fold."""
    F = 3
    counts = np.asarray(counts, dtype=float)[: 6 * F * K].reshape(6, F * K)
    counts[np.arange(F * K) % 6, np.arange(F * K)] += 2   # every (fold, class) holds rows
    spec = MEASURES[name]
    params = {"c": np.ones((K, K)) - np.eye(K) + np.eye(K)[::-1]} if name == "cost-sensitive" and K == 3 else \
        dict(spec.params)
    train, test = split(counts, F)
    whole = spec.held_out(train, test, np.arange(K), **params)
    rows = test.sum(axis=1)                                  # (F, L)
    cells = spec.held_out_cells
    share = cells.cell_loss(np.moveaxis(train, 0, 1), np.moveaxis(test, 0, 1), rows, params)
    np.testing.assert_allclose(share.sum(axis=0), whole, rtol=1e-12, atol=1e-15)


# --- refusals ----------------------------------------------------------------------------------------------------

def test_cost_matrix_parameters_are_checked():
    t3 = JointTable(np.array([[3.0, 1.0, 0.0], [1.0, 2.0, 5.0]]), np.array(["a", "b", "c"]))
    with pytest.raises(ParameterError, match="square"):
        measure("cost-sensitive", c=[[0, 1, 2], [1, 0, 1]])
    with pytest.raises(ParameterError, match="non-negative.*C\\[1, 0\\] = -1"):
        measure("cost-sensitive", c=[[0, 1], [-1, 0]])
    with pytest.raises(ParameterError, match="finite"):
        measure("cost-sensitive", c=[[0, np.nan], [1, 0]])
    with pytest.raises(ParameterError, match="2 x 2 but the target has 3 classes \\(a, b, c\\)"):
        measure("cost-sensitive", c=[[0, 1], [1, 0]]).value(t3)
    with pytest.raises(ParameterError, match="3 x 3 cost matrix.*--cost-matrix.*--positive"):
        measure("cost-sensitive").value(t3)
    with pytest.raises(ParameterError, match="strictly between 0 and 1"):
        measure("cost-sensitive", c=1.5)


@pytest.mark.parametrize("name", ("f-beta", "auc", "precision", "recall"))
def test_measures_that_need_a_positive_class_say_so_and_name_one_vs_rest(name):
    ds = EncodedDataset(np.array([[0], [1], [0], [1], [0], [1]], dtype=np.uint8), np.array([0, 1, 2, 0, 1, 2]),
                        labels=np.array([0, 1, 2]))
    with pytest.raises(ParameterError, match="needs a positive class.*positive=.*--positive") as err:
        fslab.bayes_value(ds, [0], name)
    assert isinstance(err.value, UnsupportedTargetError)   # what callers caught before


def test_cost_matrix_text():
    assert parse_cost_matrix("0,1,2;1,0,1;4,1,0") == C3
    assert parse_cost_matrix("[[0, 1], [3, 0]]") == ((0.0, 1.0), (3.0, 0.0))
    with pytest.raises(ParameterError, match="rows separated by ';'"):
        parse_cost_matrix("0,1;x,0")
    with pytest.raises(ParameterError, match="square"):
        parse_cost_matrix("0,1,2;1,0")


def test_scorers_learner_weights_and_labels_on_many_classes():
    """Test-sample scorers: y = (0, 0, 1, 1, 1, 2), pred = (0, 1, 1, 1, 0, 0): per-class errors 1/2, 1/3, 1 ->
    balanced (1/2 + 1/3 + 1) / 3 = 11/18; C3 costs 0 + 1 + 0 + 0 + 1 + 4 = 6 over 6 rows -> 1."""
    from fslab.learners import LEARNERS, empirical_value
    from fslab.terms import label

    y, pred = np.array([0, 0, 1, 1, 1, 2]), np.array([0, 1, 1, 1, 0, 0])
    assert empirical_value("balanced", y, pred) == pytest.approx(11 / 18, abs=1e-15)
    assert empirical_value("cost-sensitive", y, pred, c=C3) == pytest.approx(1.0, abs=1e-15)
    assert empirical_value("balanced", y[:4] % 2, pred[:4]) == pytest.approx((1 / 2 + 0 / 2) / 2)   # binary
    # weights: class y's mean extra cost of a wrong prediction (C3: (1+2)/2, (1+1)/2, (4+1)/2); 1 / share
    svm = LEARNERS["svm-cost"].build(c=C3)
    assert svm[-1].class_weight == {0: 1.5, 1: 1.0, 2: 2.5}
    assert LEARNERS["svm-cost"].build(c=((0, 0.25), (0.75, 0)))[-1].class_weight == {0: 0.25, 1: 0.75}
    assert LEARNERS["svm-balanced"].build(p=[0.5, 0.25, 0.25])[-1].class_weight == {0: 2.0, 1: 4.0, 2: 4.0}
    assert LEARNERS["svm-balanced"].build(p=0.2)[-1].class_weight == {1: 5.0, 0: 1.25}
    assert measure("cost-sensitive", c=C3).label == "cost-sensitive error (c=0,1,2;1,0,1;4,1,0)"
    assert label("cost-sensitive", {"c": C3}) == "cost-sensitive error (c=0,1,2;1,0,1;4,1,0)"
    assert label("cost-sensitive", {"c": 0.25}) == "cost-sensitive error (c=0.25)"
