"""Hand-derived cases for every selector (derivations in the docstrings)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from fslab.data.distributions import Distribution, example1
from fslab.data.encoded import EncodedDataset
from fslab.errors import ParameterError, TooLargeError
from fslab.selectors import SELECTORS, Selection, select


def h(q: float) -> float:
    """Binary entropy in bits."""
    return float(-q * np.log2(q) - (1 - q) * np.log2(1 - q))


def flips(a=(0.1, 0.2, 0.3)) -> Distribution:
    """Y uniform; X_i = Y flipped with probability a_i, independently given Y (naive Bayes)."""
    return Distribution.naive_bayes([0.5, 0.5], [[[1 - ai, ai], [ai, 1 - ai]] for ai in a])


def xor_law() -> Distribution:
    """X1, X2 uniform bits, Y = X1 xor X2, X3 = Y flipped with probability 0.2."""
    states, probs = [], []
    for x1, x2, x3 in itertools.product((0, 1), repeat=3):
        y = x1 ^ x2
        p = 0.25 * (0.8 if x3 == y else 0.2)
        states.append((x1, x2, x3))
        probs.append([p, 0.0] if y == 0 else [0.0, p])
    return Distribution(states, probs)


def test_example1_mi_picks_x2_and_zero_one_picks_x1():
    """Ahmed et al., Example 1: I(X1;Y)=0.08 < I(X2;Y)=0.17 bit, but er(X1)=0.25 < er(X2)=0.30."""
    mi = select(example1(), 1, "mi-greedy")
    bayes = select(example1(), 1, "bayes-greedy")
    assert mi.features == (1,) and mi.names == ("X2",)
    assert round(mi.scores[0], 2) == 0.17
    assert bayes.features == (0,)
    assert bayes.scores[0] == pytest.approx(-0.25)
    assert select(example1(), 1, "mi-score").features == (1,)
    assert select(example1(), 1, "bayes-score").features == (0,)


def test_mrmr_values_by_hand():
    """X_i = Y xor N_i with flip rates a = (.1, .2, .3): I(X_i;Y) = 1 - h(a_i); X_i xor X_j flips with
    q_ij = a_i(1-a_j) + a_j(1-a_i), so I(X_i;X_j) = 1 - h(q_ij) (X_i uniform).
    Step 2 (J={X1}): X2: r2 - I12 = .2781 - .1733 = .1048; X3: r3 - I13 = .1187 - .0752 = .0435 -> X2.
    Step 3: X3: r3 - (I13 + I23)/2 = .1187 - (.0752 + .0420)/2 = .0601."""
    r = [1 - h(a) for a in (0.1, 0.2, 0.3)]
    i12, i13, i23 = 1 - h(0.26), 1 - h(0.34), 1 - h(0.38)
    sel = select(flips(), 3, "mrmr")
    assert sel.features == (0, 1, 2)
    t = sel.trace.set_index(["step", "candidate"])["value"]
    assert t[(1, 0)] == pytest.approx(r[0]) and t[(1, 2)] == pytest.approx(r[2])
    assert t[(2, 1)] == pytest.approx(r[1] - i12)
    assert t[(2, 2)] == pytest.approx(r[2] - i13)
    assert t[(3, 2)] == pytest.approx(r[2] - (i13 + i23) / 2)
    assert t[(3, 2)] == pytest.approx(0.0601, abs=1e-4)


def test_jmi_and_cmim_values_by_hand():
    """Given Y the flips are independent, so H(X_i,X_j|Y) = h(a_i) + h(a_j) and H(X_i,X_j) = 1 + h(q_ij):
    I(X_i,X_j;Y) = 1 + h(q_ij) - h(a_i) - h(a_j). Step 2: X2: .6358, X3: .5745 -> X2; step 3:
    X3: I(X3,X1;Y) + I(X3,X2;Y) = .5745 + .3548 = .9294. CMIM: I(Xj;Y|X1) = I(Xj,X1;Y) - I(X1;Y)."""
    ha = {i: h(a) for i, a in enumerate((0.1, 0.2, 0.3))}
    q = {(0, 1): 0.26, (0, 2): 0.34, (1, 2): 0.38}
    pair = {key: 1 + h(v) - ha[key[0]] - ha[key[1]] for key, v in q.items()}
    jmi = select(flips(), 3, "jmi").trace.set_index(["step", "candidate"])["value"]
    assert jmi[(2, 1)] == pytest.approx(pair[(0, 1)]) and jmi[(2, 2)] == pytest.approx(pair[(0, 2)])
    assert jmi[(3, 2)] == pytest.approx(pair[(0, 2)] + pair[(1, 2)])
    assert jmi[(3, 2)] == pytest.approx(0.9294, abs=1e-4)
    cmim = select(flips(), 3, "cmim")
    t = cmim.trace.set_index(["step", "candidate"])["value"]
    r1 = 1 - ha[0]
    assert t[(2, 1)] == pytest.approx(pair[(0, 1)] - r1)
    # step 3: min over J = {X1, X2} of I(X3;Y|Xi)
    assert t[(3, 2)] == pytest.approx(min(pair[(0, 2)] - r1, pair[(1, 2)] - (1 - ha[1])))


def test_ties_go_to_lowest_index_and_are_counted():
    """Features 0 and 2 are identical copies, feature 1 pure noise: step 1 ties 0 and 2 (n_tied=2) -> 0."""
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 400)
    x = np.where(rng.random(400) < 0.8, y, 1 - y)
    ds = EncodedDataset(np.column_stack([x, rng.integers(0, 2, 400), x]), y)
    for name in ("bayes-greedy", "mi-greedy", "bayes-score", "mrmr", "jmi"):
        sel = select(ds, 1, name)
        assert sel.features == (0,), name
        step1 = sel.trace[sel.trace.step == 1]
        assert step1.n_tied.iloc[0] == 2, name
        assert step1.chosen.tolist() == [True, False, False]


def test_exhaustive_finds_the_xor_pair_greedy_misses():
    """Y = X1 xor X2: alone each gives 0-1 error .5; X3 (= Y with 20% flips) gives .2 and greedy takes it first,
    then any pair containing X3 stays at .2. The exhaustive best pair {X1, X2} has error 0."""
    law = xor_law()
    greedy = select(law, 2, "bayes-greedy")
    assert greedy.features[0] == 2 and greedy.scores[-1] == pytest.approx(-0.2)
    best = select(law, 2, "exhaustive")
    assert best.features == (0, 1)
    assert best.scores[-1] == pytest.approx(0.0)
    assert len(best.trace) == 3 and best.trace.chosen.sum() == 1
    assert best.trace.loc[best.trace.chosen, "subset"].iloc[0] == [0, 1]


def test_exhaustive_returns_lexicographically_first_best_and_refuses_large_requests():
    """Two identical copies: {0,1} and {0,2}... all pairs containing a copy tie; {0, 1} comes first."""
    law = Distribution.naive_bayes([0.5, 0.5], [[[0.9, 0.1], [0.1, 0.9]]] * 4)
    assert select(law, 2, "exhaustive").features == (0, 1)
    with pytest.raises(TooLargeError, match=r"6 subsets.*max_subsets=5"):
        select(law, 2, "exhaustive", max_subsets=5)


def test_backward_eliminates_the_redundant_feature():
    """XOR law, start {X1,X2,X3} (error 0): removing X1 or X2 leaves error .2, removing X3 leaves 0 -> X3 goes."""
    sel = select(xor_law(), 2, "backward")
    assert sel.features == (0, 1) and sel.eliminated == (2,)
    t = sel.trace.set_index("candidate")["value"]
    assert t[0] == pytest.approx(-0.2) and t[1] == pytest.approx(-0.2) and t[2] == pytest.approx(0.0)
    assert sel.scores.tolist() == pytest.approx([0.0])


def test_s_variate_is_exact_when_s_covers_the_set():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, (300, 6))
    ds = EncodedDataset(X, (X[:, 0] + X[:, 1] + rng.integers(0, 2, 300) > 2).astype(int))
    exact = select(ds, 3, "bayes-greedy")
    approx = select(ds, 3, "bayes-greedy", s=3)
    assert approx.features == exact.features
    np.testing.assert_allclose(approx.trace.value, exact.trace.value)


def test_fisher_score_by_hand():
    """Feature 0 values [1,2,3,4] with classes [0,0,1,1]: class means 1.5, 3.5, overall 2.5, between-class
    .5*1 + .5*1 = 1, within .5*.25 + .5*.25 = .25 -> F = 4. Feature 1 values [1,3,2,4]: means 2, 3,
    between .25, within 1 -> F = .25. The codes (all 0) are ignored because the real values are kept."""
    ds = EncodedDataset(np.zeros((4, 2), dtype=int), [0, 0, 1, 1], arities=[1, 1],
                        values=np.array([[1.0, 1.0], [2.0, 3.0], [3.0, 2.0], [4.0, 4.0]]))
    sel = select(ds, 2, "fisher")
    assert sel.features == (0, 1)
    assert sel.scores.tolist() == pytest.approx([4.0, 0.25])


def test_fisher_exact_on_a_distribution():
    """Example 1: X1 ~ Bernoulli(.1 | Y=0, .4 | Y=1), p = (.7, .3): mean .19, between .7*.09^2 + .3*.21^2 = .0189,
    within .7*.09 + .3*.24 = .135 -> .14. X2: between .0525, within .195 -> .26923."""
    sel = select(example1(), 2, "fisher")
    assert sel.features == (1, 0)
    assert sel.scores.tolist() == pytest.approx([0.0525 / 0.195, 0.14])


def test_trace_has_one_row_per_step_and_candidate():
    sel = select(flips(), 3, "bayes-greedy")
    assert list(sel.trace.columns[:6]) == ["step", "candidate", "name", "value", "chosen", "n_tied"]
    assert len(sel.trace) == 3 + 2 + 1
    assert sel.trace.groupby("step").chosen.sum().tolist() == [1, 1, 1]
    assert not sel.trace.duplicated(["step", "candidate"]).any()
    assert sel.support(3).tolist() == [True, True, True]


def test_selection_summary_and_json():
    sel = select(example1(), 2, "bayes-greedy")
    assert isinstance(sel, Selection)
    summary = sel.summary()
    assert summary.name.tolist() == ["X1", "X2"] and summary["rank"].tolist() == [1, 2]
    assert '"features": [0, 1]' in sel.to_json()


@pytest.mark.parametrize(("kwargs", "pattern"), [
    ({"k": 5}, r"k=5 is out of range.*2 features"),
    ({"k": 0}, r"k=0 is out of range"),
    ({"k": 1.5}, r"k must be a whole number"),
    ({"k": 1, "selector": "nope"}, r"unknown selector 'nope'.*bayes-greedy"),
    ({"k": 1, "selector": "mrmr", "s": 2}, r"does not apply to selector 'mrmr'"),
    ({"k": 1, "s": 0}, r"s must be at least 1"),
    ({"k": 1, "selector": "jmi", "c": 0.3}, r"takes no parameter \['c'\]"),
    ({"k": 1, "measure": "nope"}, r"unknown measure 'nope'"),
])
def test_errors_are_parameter_errors_with_clear_messages(kwargs, pattern):
    with pytest.raises(ParameterError, match=pattern):
        select(example1(), **kwargs)


@pytest.mark.parametrize("name", sorted(SELECTORS))
def test_every_selector_runs_on_a_sample_and_a_distribution(name):
    if SELECTORS[name].fixed_measure and SELECTORS[name].fixed_measure not in _measure_names():
        pytest.skip(f"measure {SELECTORS[name].fixed_measure} not registered yet")
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (200, 4))
    ds = EncodedDataset(X, (X[:, 1] | X[:, 2]) ^ (rng.random(200) < 0.1))
    for source in (ds, flips((0.1, 0.2, 0.3, 0.4))):
        sel = select(source, 2, name)
        assert len(sel.features) == 2 and len(set(sel.features)) == 2
        assert sel.support(4).sum() == 2
        assert sel.selector == name


def _measure_names():
    from fslab.measures import MEASURES

    return set(MEASURES)


@pytest.mark.parametrize(("bits_cost", "block"), [(0.0, 1 << 21), (1e9, 1 << 21), (0.0, 40), (1e9, 40)])
def test_fast_engine_bitset_and_sparse_paths_agree_with_plain_tables(monkeypatch, bits_cost, block):
    """Force popcounts (cost 0) or the sparse product (cost huge), in one block of cells or many small ones:
    every path must reproduce the plain joint tables."""
    from fslab.counting import dense as _fast
    from fslab.measures import measure
    from fslab.selectors._counting import feature_pair_counts

    monkeypatch.setattr(_fast, "_BITS_COST", bits_cost)
    monkeypatch.setattr(_fast, "_BLOCK_ENTRIES", block)
    rng = np.random.default_rng(7)
    X = rng.integers(0, 3, (700, 6))
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 3, 700)) % 3  # three classes
    ds = EncodedDataset(X, y)
    m = measure("zero-one")
    crit = m.on(ds)
    entropy = measure("log-loss").on(ds)
    for subset in ([], [0], [0, 1], [0, 1, 2]):
        cand = np.arange(len(subset), 6)
        np.testing.assert_allclose(crit.extensions(subset, cand), m.criterion(ds.extension_tables(subset, cand)))
        np.testing.assert_allclose(entropy.extensions(subset, cand),
                                   measure("log-loss").criterion(ds.extension_tables(subset, cand)))
    red = feature_pair_counts(crit, 2, np.array([0, 4]))
    assert red[1, 1, 2] == np.sum((X[:, 4] == 1) & (X[:, 2] == 2))


def test_precision_and_recall_greedy_are_the_greedy_loop_with_those_measures():
    """precision-greedy = BayesGreedy with the notes' precision criterion (per-feature predictors), any approach."""
    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, (300, 5))
    ds = EncodedDataset(X, (X[:, 0] & X[:, 2]) | (rng.random(300) < 0.1))
    for approach in (1, 2):
        for name in ("precision", "recall"):
            fixed = select(ds, 3, f"{name}-greedy", approach=approach)
            plain = select(ds, 3, "bayes-greedy", measure=name, approach=approach)
            assert fixed.features == plain.features and fixed.measure == name
            np.testing.assert_allclose(fixed.scores, plain.scores)


def test_binary_only_measure_refuses_a_multiclass_target():
    from fslab.errors import ParameterError, UnsupportedTargetError

    rng = np.random.default_rng(2)
    ds = EncodedDataset(rng.integers(0, 2, (90, 3)), np.arange(90) % 3)
    with pytest.raises(UnsupportedTargetError, match="needs a positive class"):   # F-beta needs one (one-vs-rest)
        select(ds, 1, "bayes-greedy", measure="f-beta")
    with pytest.raises(ParameterError, match="Give a 3 x 3 cost matrix"):   # a scalar c is for two classes
        select(ds, 1, "bayes-greedy", measure="cost-sensitive", c=0.3)
    assert len(select(ds, 2, "bayes-greedy").features) == 2  # 0-1 error handles three classes
