"""Safe folds (issue 31.5): never an empty fold, fewer folds than asked when a class is small (with a note), a
single-row class refused with a plain message, and never a nan in a held-out value, a selection or a verdict."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fslab
from fslab.counting.folds import TooFewRowsError, assign_folds, fold_count
from fslab.data.encoded import EncodedDataset
from fslab.measures import measure
from fslab.robustness import holdout_check

TABLE_MEASURES = ("zero-one", "cost-sensitive", "balanced", "f-beta", "auc", "log-loss", "mi", "squared")


def _ds(X, y):
    return EncodedDataset(np.asarray(X, dtype=np.uint8), np.asarray(y), labels=np.arange(int(np.max(y)) + 1))


def test_seven_rows_use_three_folds_and_a_hand_worked_value():
    """y = 0101010 (4 and 3 rows): 3 folds, every fold with a row of each class. With the one feature equal to y the
    held-out 0-1 error is 0; with no feature each fold predicts its training majority: the fold holding 2 zeros
    and 1 one trains on 2 + 2 (a tie: class 0) and errs on 1 of 3, the two folds of 1 + 1 train on 3 zeros and
    2 ones and err on 1 of 2, so the value is (1/3 + 1/2 + 1/2) / 3 = 4/9."""
    y = np.array([0, 1, 0, 1, 0, 1, 0])
    fold, used, notes = assign_folds(y, 5, 0)
    assert used == 3 and notes == ("Held out over 3 folds instead of 5: the class #1 has only 3 rows, and every "
                                   "fold needs a row of every class.",)
    assert sorted(np.bincount(fold[y == 1])) == [1, 1, 1] and sorted(np.bincount(fold[y == 0])) == [1, 1, 2]
    ev = measure("zero-one").on(_ds(y[:, None], y), estimate="cross-fitted")
    assert ev.n_folds == 3 and ev.notes == (notes[0].replace("#1", "'1'"),)   # the class named by its label
    assert ev.value([0]) == 0.0 and ev.value([]) == pytest.approx(4 / 9, abs=1e-12)


def test_a_single_row_class_is_a_plain_refusal():
    with pytest.raises(TooFewRowsError, match="the class 'yes' has a single row of 3.*estimate='plug-in'"):
        fold_count([2, 1], 5, ("no", "yes"))
    y = np.array([0, 0, 1])
    for name in ("zero-one", "precision"):
        with pytest.raises(TooFewRowsError, match="single row"):
            measure(name).on(_ds(y[:, None], y), estimate="cross-fitted")
    assert fold_count([2, 0, 9], 5) == (2, ("Held out over 2 folds instead of 5: the class #0 has only 2 rows, and "
                                            "every fold needs a row of every class.",))   # an absent class: ignored


def test_given_fold_indices_drop_the_empty_folds():
    fold, used, notes = assign_folds(np.zeros(4, dtype=int), np.array([0, 3, 3, 0]), None)
    assert used == 2 and list(fold) == [0, 1, 1, 0] and "2 folds that hold rows" in notes[0]
    with pytest.raises(TooFewRowsError):
        assign_folds(np.zeros(3, dtype=int), np.array([2, 2, 2]), None)


@st.composite
def tiny(draw):
    L = draw(st.integers(2, 3))
    m = draw(st.integers(2 * L, 12))
    y = np.array(draw(st.lists(st.integers(0, L - 1), min_size=m, max_size=m)))
    y[:2 * L] = np.repeat(np.arange(L), 2)   # every class at least twice
    n = draw(st.integers(1, 3))
    X = np.array(draw(st.lists(st.lists(st.integers(0, 3), min_size=n, max_size=n), min_size=m, max_size=m)))
    return X, y


@pytest.mark.slow  # 0.1-0.24 s measured per measure
@pytest.mark.parametrize("name", TABLE_MEASURES)
@settings(max_examples=20, deadline=None)
@given(data=tiny(), folds=st.integers(2, 10), seed=st.integers(0, 5))
def test_tiny_tables_never_give_nan(name, data, folds, seed):
    X, y = data
    ds = _ds(X, y)
    if name in ("cost-sensitive", "balanced", "f-beta", "auc") and len(ds.labels) > 2:
        return   # binary-only measures
    ev = measure(name).on(ds, estimate="cross-fitted", folds=folds, seed=seed)
    assert ev.n_folds == min(folds, int(np.bincount(y).min()))
    values = [ev.value([])] + [ev.value([j]) for j in range(X.shape[1])] + [ev.value(list(range(X.shape[1])))]
    assert np.isfinite(values).all()
    assert np.isfinite(ev.extensions([], np.arange(X.shape[1]))).all()


@pytest.mark.slow  # 0.24 s measured
@settings(max_examples=15, deadline=None)
@given(data=tiny(), folds=st.integers(2, 6))
def test_tiny_tables_select_and_get_a_verdict_without_nan(data, folds):
    X, y = data
    ds = _ds(X, y)
    k = X.shape[1]
    sel = fslab.select(ds, k, "bayes-greedy", estimate="cross-fitted", folds=folds)
    assert np.isfinite(sel.scores).all() and sel.folds == min(folds, int(np.bincount(y).min()))
    numbers = sel.trace.select_dtypes("number").to_numpy(dtype=float)
    assert np.isfinite(numbers).all()
    check = holdout_check(ds, sel, folds=folds)
    assert np.isfinite(check.steps[["in-sample", "held-out", "gap", "held-out gain"]].to_numpy()).all()
    assert np.isfinite(check.kept) and check.folds == sel.folds and check.level in ("green", "amber", "red")
    assert not any("nan" in reason.lower() for reason in check.reasons)


@pytest.mark.slow  # 0.66 s CPU measured (20 held-out selections)
def test_npfs_on_a_tiny_sample_never_fails_on_a_one_fold_resample():
    """7 rows in 3 folds (3, 2, 2 rows): a resample of 7 draws lies in one fold with probability (3/7)^7 + 2 (2/7)^7,
    about 0.3 %; one of seed 29's 20 resamples does, and it is selected with the plug-in instead of failing."""
    y = np.array([0, 1, 0, 1, 0, 1, 0])
    X = np.column_stack([y, (np.arange(7) % 3)])
    result = fslab.npfs(_ds(X, y), "bayes-greedy", 1, n_bootstraps=20, seed=29, estimate="cross-fitted")
    assert result.n_bootstraps == 20 and result.counts.sum() + result.tied_picks.sum() == 20   # tied picks: uncounted
    rng_rows = [np.sort(np.random.default_rng(s).integers(0, 7, 7)) for s in np.random.SeedSequence(29).spawn(20)]
    fold, _, _ = assign_folds(y, 5, 0)
    assert any(len(set(fold[r])) == 1 for r in rng_rows)   # the case happened


@settings(max_examples=40, deadline=None)
@given(y=st.lists(st.integers(0, 6), min_size=1, max_size=60), folds=st.integers(2, 8), seed=st.integers(0, 50))
def test_fold_sizes_from_class_counts_alone_equal_the_folds(y, folds, seed):
    """What the count-only engines can compute without rows: every (fold, class) size of fslab.row_hash.folds."""
    from fslab import row_hash
    from fslab.counting.folds import fold_sizes

    y = np.asarray(y)
    fold = row_hash.folds(y, folds, seed)
    want = np.zeros((folds, y.max() + 1), dtype=np.int64)
    np.add.at(want, (fold, y), 1)
    assert np.array_equal(fold_sizes(np.bincount(y), folds, seed), want)


def test_a_real_valued_target_needs_no_class_in_every_fold_only_no_empty_fold():
    """Each value of a real-valued target is its own class, most with one row: not refused; the folds used are the
    most (up to those asked) that leave no fold empty, so 3 rows give 2 or 3 folds and 1 row is refused."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(200, 2)).astype(np.uint8)
    t = X[:, 0] * 1.5 + rng.normal(size=200)
    ds = fslab.Dataset.from_arrays(X, t).discretize()
    assert ds.task == "regression"
    ev = measure("squared").on(ds, estimate="cross-fitted")
    assert ev.n_folds == 5 and ev.notes == () and np.isfinite(ev.value([0]))
    for m in range(2, 9):
        small = fslab.Dataset.from_arrays(X[:m], t[:m]).discretize()
        if small.task != "regression":
            continue
        n_folds, notes = fold_count(np.ones(m), 5, stratified=False)
        assert 2 <= n_folds <= min(5, m) and bool(notes) == (n_folds < 5)
        assert np.isfinite(measure("squared").on(small, estimate="cross-fitted").value([0]))
    with pytest.raises(TooFewRowsError, match="1 row cannot fill 2 folds"):
        fold_count(np.ones(1), 5, stratified=False)


def test_a_selection_carries_the_fewer_folds_note():
    import pandas as pd

    import fslab

    frame = pd.DataFrame({"x": [0, 1, 0, 1, 1, 0, 1], "z": [1, 1, 0, 0, 1, 0, 1], "y": [0, 1, 0, 1, 1, 0, 0]})
    data = fslab.Dataset.from_frame(frame, "y").discretize()
    for selector in ("bayes-greedy", "exhaustive", "backward"):
        sel = fslab.select(data, 1, selector, estimate="cross-fitted")
        assert sel.folds == 3 and any("Held out over 3 folds instead of 5" in n for n in sel.notes), selector
