"""Cross-fitted (held-out) estimates: equal to a brute-force per-fold computation with row-level predictions
for every table measure, stratified folds, the plug-in value when train == test, and no wins by cardinality."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

import fslab
from fslab.counting.folds import assign_folds, split
from fslab.data.encoded import EncodedDataset
from fslab.errors import ParameterError
from fslab.measures import MEASURES, measure
from fslab.measures._folds import LOG_SMOOTHING
from fslab.row_hash import folds as hash_folds
from fslab.tables import JointTable

TABLE_MEASURES = ("zero-one", "cost-sensitive", "balanced", "f-beta", "auc", "log-loss", "mi", "squared")


# --- an independent oracle: fit the rule on the training rows, predict each test row -------------------------

def _cells(X, subset):
    if not subset:
        return np.zeros(X.shape[0], dtype=np.int64)
    _, cell = np.unique(X[:, subset], axis=0, return_inverse=True)
    return cell.ravel()


def _hash(*values):
    """fslab.row_hash's hash with Python integers (the module docstring's formula, written out)."""
    P, x = 2**31 - 1, 20170601
    for v in values:
        x = ((x + v % P) * 48271) % P
        x = (x * x + 1013904223) % P
        x = (x * 69621) % P
        x = (x * x + 1013904223) % P
    return x


def _oracle_folds(y, folds, seed):
    """Row by row: F = min(folds, smallest class count); the j-th row of class c goes to fold
    (j mod F + hash(seed, c, j div F)) mod F."""
    counts = np.bincount(y)
    F = min(folds, int(counts[counts > 0].min()))
    seen = {}
    out = []
    for c in y.tolist():
        j = seen.get(c, 0)
        seen[c] = j + 1
        out.append((j % F + _hash(seed, c, j // F)) % F)
    return np.array(out)


def _oracle(name, X, y, subset, folds, seed, labels=(0, 1), **params):
    """Mean over folds of the measure of the plug-in rule fitted on the other folds, scored row by row."""
    fold = _oracle_folds(np.asarray(y), folds, seed)
    folds = int(fold.max()) + 1
    cell = _cells(X, subset)
    L = len(labels)
    values = []
    for f in range(folds):
        tr, te = fold != f, fold == f
        n_tr = np.zeros((cell.max() + 1, L))
        np.add.at(n_tr, (cell[tr], y[tr]), 1.0)
        prior = n_tr.sum(axis=0) / n_tr.sum()
        seen = n_tr.sum(axis=1) > 0
        eta_all = np.where(seen[:, None], n_tr / np.maximum(n_tr.sum(axis=1, keepdims=True), 1), prior)
        yt, ct = y[te], cell[te]
        if name == "zero-one":
            values.append(np.mean(eta_all.argmax(axis=1)[ct] != yt))
            continue
        if name in ("log-loss", "mi"):
            half = 0.5 if (n_tr.sum(axis=0) == 0).any() else 0.0
            kt = (n_tr.sum(axis=0) + half) / (n_tr.sum() + half * L)
            p = (n_tr + LOG_SMOOTHING * kt) / (n_tr.sum(axis=1, keepdims=True) + LOG_SMOOTHING)
            rule = -np.mean(np.log(p[ct, yt]))
            values.append(rule if name == "log-loss" else (-np.mean(np.log(kt[yt])) - rule) / np.log(2))
            continue
        if name == "squared":
            lab = np.asarray(labels, dtype=float)
            mean = (n_tr.sum(axis=0) @ lab) / n_tr.sum()
            mu = np.where(seen, (n_tr @ lab) / np.maximum(n_tr.sum(axis=1), 1), mean)
            values.append(np.mean((lab[yt] - mu[ct]) ** 2))
            continue
        eta = eta_all[:, 1]
        p1 = prior[1]
        if name == "cost-sensitive":
            c = params.get("c", 0.25)
            pred = (1 - c) * eta[ct] > c * (1 - eta[ct])
            values.append(np.mean(c * (pred & (yt == 0)) + (1 - c) * (~pred & (yt == 1))))
        elif name == "balanced":
            pred = eta[ct] * (1 - p1) > (1 - eta[ct]) * p1
            fnr = np.mean(~pred[yt == 1]) if np.any(yt == 1) else 0.0
            fpr = np.mean(pred[yt == 0]) if np.any(yt == 0) else 0.0
            values.append(0.5 * (fnr + fpr))
        elif name == "auc":
            values.append(roc_auc_score(yt, eta[ct]) if 0 < yt.sum() < yt.size else 0.5)
        elif name == "f-beta":
            b2 = params.get("beta", 1.0) ** 2
            ctr, ytr = cell[tr], y[tr]
            best, best_t = -1.0, None
            for t in np.sort(np.unique(eta))[::-1]:           # thresholds from the top: the first max wins
                pred = eta[ctr] >= t - 1e-12
                tp = np.sum(pred & (ytr == 1))
                denom = b2 * np.sum(ytr == 1) + pred.sum()
                score = (1 + b2) * tp / denom if denom > 0 else 0.0
                if score > best + 1e-12:
                    best, best_t = score, t
            pred = eta[ct] >= best_t - 1e-12
            tp = np.sum(pred & (yt == 1))
            denom = b2 * np.sum(yt == 1) + pred.sum()
            values.append((1 + b2) * tp / denom if denom > 0 else 0.0)
    return float(np.mean(values))


def _dataset(X, y, labels=(0, 1)):
    return EncodedDataset(np.asarray(X, dtype=np.uint8), np.asarray(y), labels=np.asarray(labels))


@st.composite
def samples(draw):
    m = draw(st.integers(20, 70))
    n = draw(st.integers(1, 3))
    arities = draw(st.lists(st.integers(2, 4), min_size=n, max_size=n))
    X = np.column_stack([draw(st.lists(st.integers(0, a - 1), min_size=m, max_size=m)) for a in arities])
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=m, max_size=m)))
    y[:4] = [0, 1, 0, 1]   # at least 2 rows of each class (fewer folds than asked when a class has 2-4)
    subset = draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
    return X, y, subset


@pytest.mark.slow  # 1.89 s measured (inner loop: unit and not slow)
@pytest.mark.parametrize("name", TABLE_MEASURES)
@settings(max_examples=25)
@given(data=samples(), folds=st.integers(2, 5), seed=st.integers(0, 3))
def test_cross_fitted_equals_brute_force_per_fold(name, data, folds, seed):
    X, y, subset = data
    got = fslab.bayes_value(_dataset(X, y), subset, name, estimate="cross-fitted", folds=folds, seed=seed)
    assert got == pytest.approx(_oracle(name, X, y, subset, folds, seed), abs=1e-9)


def test_cross_fitted_multiclass_and_real_labels_match_the_oracle():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(90, 2))
    y = (X[:, 0] + rng.integers(0, 2, 90)) % 3
    ds = EncodedDataset(X.astype(np.uint8), y, labels=np.array([0.5, 2.0, 7.0]))
    for name in ("zero-one", "log-loss", "mi", "squared"):
        got = fslab.bayes_value(ds, [0, 1], name, estimate="cross-fitted", folds=3, seed=1)
        assert got == pytest.approx(_oracle(name, X, y, [0, 1], 3, 1, labels=(0.5, 2.0, 7.0)), abs=1e-9)


@pytest.mark.slow  # 0.38 s measured (inner loop: unit and not slow)
@pytest.mark.parametrize("name", [n for n in TABLE_MEASURES if n not in ("log-loss", "mi")])
@settings(max_examples=30)
@given(counts=st.lists(st.lists(st.integers(0, 9), min_size=2, max_size=2), min_size=1, max_size=6))
def test_held_out_on_its_own_training_table_is_the_plug_in_value(name, counts):
    """Scoring the fitted rule on the rows it was fitted on gives the paper's plug-in value."""
    table = np.asarray(counts, dtype=float)
    if table.sum() == 0:
        table[0, 0] = 1.0
    spec = MEASURES[name]
    per_fold = spec.held_out(table[None], table[None], np.array([0, 1]), **spec.params)
    assert per_fold[0] == pytest.approx(float(spec.func(JointTable(table, np.array([0, 1])), **spec.params)),
                                        abs=1e-12)


@settings(max_examples=40)
@given(y=st.lists(st.integers(0, 2), min_size=3, max_size=200), folds=st.integers(2, 10), seed=st.integers(0, 9))
def test_folds_are_stratified_cover_every_row_and_none_is_empty(y, folds, seed):
    y = np.asarray(y)
    counts = np.bincount(y)
    if counts[counts > 0].min() < 2:
        with pytest.raises(ParameterError, match="single row"):
            assign_folds(y, folds, seed)
        return
    fold, used, notes = assign_folds(y, folds, seed)
    assert used == min(folds, counts[counts > 0].min()) and bool(notes) == (used < folds)
    assert np.array_equal(fold, _oracle_folds(y, folds, seed))
    assert np.array_equal(fold, hash_folds(y, used, seed))      # the engines' definition, fslab.row_hash
    for c in np.unique(y):
        per = np.bincount(fold[y == c], minlength=used)
        assert per.min() >= 1 and per.max() - per.min() <= 1     # every fold holds every class, balanced


def test_split_recovers_train_and_test_counts():
    counts = np.arange(2 * 3 * 6, dtype=float).reshape(2, 3, 6)   # 2 tables, 3 cells, 3 folds x 2 classes
    train, test = split(counts, 3)
    assert test.shape == (2, 3, 3, 2)
    assert np.array_equal(test[:, 1], counts[:, :, 2:4])
    assert np.array_equal(train[:, 1], counts[:, :, 0:2] + counts[:, :, 4:6])


@pytest.mark.slow  # 1.08 s measured (inner loop: unit and not slow)
@pytest.mark.parametrize("name", TABLE_MEASURES)
def test_engines_agree_under_cross_fitting(name):
    data = fslab.load_sample("mushroom").discretize()
    for selector in ("bayes-greedy", "mi-greedy", "jmi", "cmim"):
        if selector != "bayes-greedy" and name != "zero-one":
            continue
        kwargs = dict(k=4, selector=selector, measure=name, estimate="cross-fitted", seed=2)
        a, b = fslab.select(data, **kwargs), fslab.select(data, engine="plain", **kwargs)
        assert a.features == b.features
        np.testing.assert_allclose(a.scores, b.scores, rtol=1e-9, atol=1e-12)
        assert a.estimate == "cross-fitted" and a.folds == 5 and a.split_seed == 2


@pytest.mark.slow  # 0.37 s measured (inner loop: unit and not slow)
@pytest.mark.parametrize("name", ("zero-one", "balanced", "cost-sensitive", "log-loss", "mi", "auc", "f-beta"))
@settings(max_examples=15)
@given(seed=st.integers(0, 10_000), m=st.integers(120, 400))
def test_a_column_of_unique_values_never_beats_a_true_signal(name, seed, m):
    """An ID column (index 0, so it would win every tie) against a feature that predicts y 93 % of the time:
    the plug-in estimate picks the ID (in-sample error 0), the cross-fitted one the signal. Held out, the ID's
    value is exactly the value of no feature at all (every held-out row falls in a cell unseen in training)."""
    rng = np.random.default_rng(seed)
    signal = rng.integers(0, 2, m)
    y = np.where(rng.random(m) < 0.93, signal, 1 - signal)
    y[:2] = [0, 1]
    ident = rng.permutation(m)
    ds = EncodedDataset(np.column_stack([ident, signal]).astype(np.uint16), y, labels=np.array([0, 1]),
                        feature_names=("row_id", "signal"))
    assert fslab.select(ds, 1, "bayes-greedy", measure=name, estimate="cross-fitted").names == ("signal",)
    ev = measure(name).on(ds, estimate="cross-fitted", seed=seed)
    if name == "f-beta":   # the threshold fitted on one-row training cells is eta = 1: held out, nothing positive
        assert ev.value([0]) <= ev.value([])
    else:
        assert ev.value([0]) == pytest.approx(ev.value([]), abs=1e-12)
    if name not in ("auc", "mi", "log-loss", "f-beta"):   # ties at the perfect score: the ID wins in-sample
        assert fslab.select(ds, 1, "bayes-greedy", measure=name).names == ("row_id",)


@pytest.mark.slow  # 0.56 s measured (inner loop: unit and not slow)
def test_plug_in_is_the_default_and_unchanged():
    ex = fslab.example1()
    assert fslab.bayes_value(ex, [0], "zero-one") == pytest.approx(0.25)
    data = fslab.load_sample("mushroom").discretize()
    assert fslab.select(data, 2).estimate == "plug-in"
    ev = measure("zero-one").on(data)
    assert ev.estimate == "plug-in"


@pytest.mark.slow  # over 0.25 s of CPU: out of the inner loop
def test_bad_requests_are_parameter_errors():
    data = fslab.load_sample("mushroom").discretize()
    with pytest.raises(ParameterError, match="estimate must be one of"):
        fslab.select(data, 2, estimate="held-out")
    with pytest.raises(ParameterError, match="folds must be"):
        fslab.bayes_value(data, [0], estimate="cross-fitted", folds=1)
    with pytest.raises(ParameterError, match="exact law"):
        fslab.bayes_value(fslab.example1(), [0], estimate="cross-fitted")


def test_selection_records_and_describes_its_estimate():
    data = fslab.load_sample("mushroom").discretize()
    sel = fslab.select(data, 2, measure="balanced", estimate="cross-fitted", folds=4, seed=7)
    record = sel.to_dict()
    assert (record["estimate"], record["folds"], record["split_seed"]) == ("cross-fitted", 4, 7)
    assert sel.estimate_label == "held-out (4-fold cross-fitted)"
    assert fslab.select(data, 2).estimate_label.startswith("in-sample")


@pytest.mark.parametrize("name", ("zero-one", "cost-sensitive", "balanced", "log-loss", "mi"))
def test_cell_shares_agree_with_the_whole_table_formula(name):
    """The additive form (``held_out_cells``, used by the engines) equals ``held_out`` on whole tables."""
    rng = np.random.default_rng(5)
    X = rng.integers(0, 3, size=(300, 4)).astype(np.uint8)
    y = (X[:, 0] + rng.integers(0, 2, 300) > 1).astype(int)
    ds = _dataset(X, y)
    ev = measure(name).on(ds, estimate="cross-fitted", folds=4, seed=3)
    table = ev.extension_tables([1], np.array([0, 2, 3]))
    spec = MEASURES[name]
    train, test = split(table.counts, 4)
    whole = spec.held_out(train, test, np.array([0, 1]), **spec.params).mean(axis=-1)
    np.testing.assert_allclose(ev.sign * ev.table_criteria(table), whole, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["precision", "recall"])
@pytest.mark.parametrize("approach", [1, 2])
def test_cross_fitted_precision_recall_equal_a_row_level_oracle(name, approach):
    """Each row's factor from feature j's predictor fitted on the other folds (prior for an unseen value; approach 2
    smoothed by one pseudo-row), then the notes' objective over all rows."""
    rng = np.random.default_rng(11)
    X = rng.integers(0, 3, size=(150, 3))
    y = (X[:, 0] + rng.integers(0, 2, 150) > 1).astype(int)
    X[:4, 2] = 2   # a rare value
    fold = _oracle_folds(y, 5, 4)
    target = (y == 0) if name == "recall" else (y == 1)
    a = np.empty((3, 150))
    for r in range(150):
        tr = fold != fold[r]
        prior = y[tr].mean()
        for j in range(3):
            same = tr & (X[:, j] == X[r, j])
            s = LOG_SMOOTHING if approach == 2 else 0.0
            eta = (y[same].sum() + s * prior) / (same.sum() + s) if same.any() else prior
            a[j, r] = 1 - eta if name == "recall" else eta
    P = a[[0, 2]].prod(axis=0)
    if approach == 1:
        want = np.mean(np.where(target, P, 1 - P))
    else:
        want = np.mean(np.where(target, np.log(a[[0, 2]]).sum(axis=0), np.log(1 - P)))
    got = fslab.bayes_value(_dataset(X, y), [0, 2], name, approach=approach, estimate="cross-fitted", seed=4)
    assert got == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("name", ["zero-one", "balanced", "mi", "auc"])
def test_sparse_input_is_cross_fitted_like_the_dense_path(name):
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    X = sp.random(600, 40, density=0.1, format="csr", random_state=0)
    X.data[:] = 1
    y = ((np.asarray(X[:, 3].todense()).ravel() > 0) ^ (rng.random(600) < 0.1)).astype(int)
    a = fslab.select(fslab.Dataset.from_arrays(X, y), 4, measure=name, estimate="cross-fitted")
    b = fslab.select(fslab.Dataset.from_arrays(X.toarray(), y), 4, measure=name, estimate="cross-fitted")
    assert a.features == b.features and a.estimate == "cross-fitted"
    np.testing.assert_allclose(a.scores, b.scores, rtol=1e-10)
