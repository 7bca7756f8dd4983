"""NPFS bootstraps counted as row weights (fslab.npfs_weighted) give exactly the resampling path's matrix."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fslab.data.encoded import EncodedDataset
from fslab.data.synthetic import uniform_dataset
from fslab.errors import ParameterError
from fslab.npfs import npfs
from fslab.npfs.weighted import WeightedBootstraps, bootstrap_weights, supports
from fslab.selectors import select

SELECTORS = ["jmi", "mrmr", "cmim", "mi-score"]


def _ties_data(seed=1, m=300):
    """Three classes, mixed arities, a duplicated column (exact ties), a constant column."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(m, 12))
    X[:, 5] = X[:, 2]
    X[:, 7] = rng.integers(0, 2, m)
    X[:, 8] = 0
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 2, m)) % 3
    return EncodedDataset(X, y, arities=np.r_[[3] * 8, 1, [3] * 3])


@pytest.mark.slow  # 0.39 s measured (inner loop: unit and not slow)
@pytest.mark.parametrize("selector", SELECTORS)
@pytest.mark.parametrize("fraction", [1.0, 0.5])
def test_weights_equal_resampling(selector, fraction):
    for data in (uniform_dataset(m=400).discretize(method="uniform", bins=3), _ties_data()):
        a = npfs(data, selector, k=5, n_bootstraps=12, seed=3, sample_fraction=fraction, counting="weights")
        b = npfs(data, selector, k=5, n_bootstraps=12, seed=3, sample_fraction=fraction, counting="resample")
        np.testing.assert_array_equal(a.matrix, b.matrix)


def test_counts_are_the_resampled_data_sets_counts():
    """n_b(Y, X_j) and n_b(X_f, X_j, Y) from weights equal the bincounts of the materialised bootstrap."""
    data = _ties_data()
    engine = WeightedBootstraps(data)
    seeds = np.random.SeedSequence(7).spawn(3)
    W = bootstrap_weights(seeds, data.n_rows, data.n_rows)
    rel = engine.relevance_counts(W)
    f = np.array([0, 4, 9])
    pairs = engine.pair_counts(W, f, rel)
    for b, seq in enumerate(seeds):
        rows = np.random.default_rng(seq).integers(0, data.n_rows, size=data.n_rows)
        Xb, yb = data.X[rows], data.y[rows]
        for j in range(data.n_features):
            want = np.zeros((3, 3))
            np.add.at(want, (yb, Xb[:, j]), 1)
            np.testing.assert_array_equal(rel[b, :, j], want)
            joint = np.zeros((3, 3, 3))
            np.add.at(joint, (Xb[:, f[b]], Xb[:, j], yb), 1)
            np.testing.assert_array_equal(pairs[b, j], joint)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(SELECTORS), st.integers(1, 6))
def test_weighted_selection_equals_select_on_the_bootstrap(seed, selector, k):
    """Each weighted bootstrap picks the set select() picks on the materialised resample, ties included."""
    rng = np.random.default_rng(seed)
    m, K = int(rng.integers(20, 120)), 8
    X = rng.integers(0, int(rng.integers(2, 5)), size=(m, K))
    X[:, 3] = X[:, 1]  # an exact tie
    y = (X[:, 0] + rng.integers(0, 2, m)) % 2
    data = EncodedDataset(X, y, arities=np.maximum(X.max(axis=0) + 1, 1))
    seq = np.random.SeedSequence(seed)
    W = bootstrap_weights([seq], m, m)
    got = np.flatnonzero(WeightedBootstraps(data).select(W, k, selector)[0])
    rows = np.sort(np.random.default_rng(seq).integers(0, m, size=m))
    want = sorted(select(data.subsample(rows), k, selector).features)
    assert got.tolist() == want


@pytest.mark.slow  # worker pools: 1.5 s wall
def test_same_matrix_whatever_the_workers_and_batches():
    data = uniform_dataset(m=500).discretize(method="uniform", bins=3)
    ref = npfs(data, "jmi", k=6, n_bootstraps=40, seed=11)
    for kw in ({"batch_size": 1}, {"batch_size": 7}, {"n_jobs": 2, "prefer": "threads"},
               {"n_jobs": 2, "prefer": "processes", "batch_size": 5}):
        np.testing.assert_array_equal(npfs(data, "jmi", k=6, n_bootstraps=40, seed=11, **kw).matrix, ref.matrix)


def test_which_runs_use_weights():
    data = uniform_dataset(m=200).discretize(method="uniform", bins=3)
    assert supports(data, "jmi", {})
    assert not supports(data, "bayes-greedy", {})
    assert not supports(data, "jmi", {"measure": "zero-one"})
    assert not supports(data, lambda d, k: list(range(k)), {})
    with pytest.raises(ParameterError, match="counting='weights' covers"):
        npfs(data, "bayes-greedy", k=3, n_bootstraps=2, seed=0, counting="weights")
    with pytest.raises(ParameterError, match="counting must be"):
        npfs(data, "jmi", k=3, n_bootstraps=2, seed=0, counting="fast")


def test_progress_and_cancel_on_the_weighted_path():
    data = uniform_dataset(m=300).discretize(method="uniform", bins=3)
    seen = []

    def progress(done, total):
        seen.append(done)
        return done < 20

    result = npfs(data, "jmi", k=5, n_bootstraps=100, seed=2, batch_size=10, progress=progress)
    assert seen[0] == 0 and result.cancelled and result.n_bootstraps == 20
    full = npfs(data, "jmi", k=5, n_bootstraps=100, seed=2)
    np.testing.assert_array_equal(result.matrix, full.matrix[:, :20])  # the first bootstraps, as with n = 20


def test_library_takes_any_number_of_bootstraps_and_the_server_caps_them():
    """fslab.limits' policy: the library has no size caps by default (the paper's Fig. 3 uses 10,000 bootstraps);
    the server side passes limits=LIMITS and gets a refusal naming FSLAB_MAX_BOOTSTRAPS."""
    from fslab.errors import TooLargeError
    from fslab.limits import LIMITS

    data = uniform_dataset(m=60, n_features=6, k_star=2).discretize(method="uniform", bins=3)
    n = LIMITS.max_bootstraps + 1
    assert npfs(data, "jmi", k=2, n_bootstraps=n, seed=0).n_bootstraps == n
    with pytest.raises(TooLargeError, match="FSLAB_MAX_BOOTSTRAPS"):
        npfs(data, "jmi", k=2, n_bootstraps=n, seed=0, limits=LIMITS)


def test_predicted_seconds_by_hand():
    """Adult-shaped JMI, k = 10: 2 classes x 48,842 rows x 123 columns x (1 + 9) = 120.1 M multiply-adds x 3e-11
    + 10 steps x 1.5e-5 = 3.75 ms per bootstrap (measured 3.3-3.6 ms of CPU)."""
    from fslab.npfs.weighted import predicted_seconds

    assert predicted_seconds(48_842, 123, 2, 2, 10, 1) == pytest.approx(2 * 48_842 * 123 * 10 * 3e-11 + 1.5e-4)
    assert predicted_seconds(48_842, 123, 2, 2, 10, 10_000) == pytest.approx(37.5, rel=0.01)


def _digits_shaped(seed=0, m=240, K=30, levels=17, classes=10):
    """Digits-in-noise-shaped: pixels of up to 17 levels, 10 classes, a few informative columns, a duplicated
    column (exact ties), a constant column and a binary one."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, m)
    X = rng.integers(0, levels, size=(m, K))
    X[:, :4] = (y[:, None] + rng.integers(0, 3, size=(m, 4))) % levels  # the informative "digit" pixels
    X[:, 7] = X[:, 2]
    X[:, 9] = 0
    X[:, 11] = rng.integers(0, 2, m)
    X[:, 12:] %= max(levels - 1, 1)
    return EncodedDataset(X, y, arities=X.max(axis=0) + 1)


@pytest.mark.slow  # 0.49 s measured (inner loop: unit and not slow)
def test_many_levels_and_classes_are_counted_directly_and_equal_resampling():
    """17 levels and 10 classes: (A - 1) L = 160 multiply-adds per indicator cell, so the product engine does not
    fit (it used to refuse the data); the direct counts give the resampling path's matrix, ties included."""
    from fslab.npfs.weighted import CountedBootstraps, engine

    data = _digits_shaped()
    assert supports(data, "jmi", {}) and isinstance(engine(data), CountedBootstraps)
    for selector in SELECTORS:
        a = npfs(data, selector, k=6, n_bootstraps=10, seed=4, counting="weights")
        b = npfs(data, selector, k=6, n_bootstraps=10, seed=4, counting="resample")
        np.testing.assert_array_equal(a.matrix, b.matrix)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(SELECTORS), st.integers(1, 6), st.sampled_from([0.5, 1.0]))
def test_counted_selection_equals_select_on_the_bootstrap(seed, selector, k, fraction):
    """Each directly counted bootstrap picks the set select() picks on the materialised resample, any arity."""
    from fslab.npfs.weighted import CountedBootstraps

    rng = np.random.default_rng(seed)
    data = _digits_shaped(seed, m=int(rng.integers(15, 90)), K=14, levels=int(rng.integers(2, 20)),
                          classes=int(rng.integers(2, 12)))
    m = data.n_rows
    n_draw = max(1, round(fraction * m))
    seqs = np.random.SeedSequence(seed).spawn(2)
    got = CountedBootstraps(data).select(bootstrap_weights(seqs, m, n_draw), k, selector)
    for b, seq in enumerate(seqs):
        rows = np.sort(np.random.default_rng(seq).integers(0, m, size=n_draw))
        assert np.flatnonzero(got[b]).tolist() == sorted(select(data.subsample(rows), k, selector).features)


def test_both_engines_agree_where_both_fit():
    from fslab.npfs.weighted import CountedBootstraps

    data = _ties_data()
    W = bootstrap_weights(np.random.SeedSequence(9).spawn(8), data.n_rows, data.n_rows)
    for selector in SELECTORS:
        np.testing.assert_array_equal(CountedBootstraps(data).select(W, 6, selector),
                                      WeightedBootstraps(data).select(W, 6, selector))


def test_tables_too_large_to_count_resample():
    """A feature of 3,000 levels with 2 classes: pair tables of 3,000^2 x 2 = 18 M cells (beyond MAX_TABLE_CELLS)
    and indicator products beyond the product engine's bounds: no weighted engine; 'auto' resamples."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(60, 4))
    X[:, 0] = np.arange(60) * 50
    y = rng.integers(0, 2, 60)
    data = EncodedDataset(X, y, arities=np.r_[3000, 3, 3, 3])
    assert not supports(data, "jmi", {})
    with pytest.raises(ParameterError, match="counting='weights' covers"):
        npfs(data, "jmi", k=2, n_bootstraps=2, seed=0, counting="weights")


@pytest.mark.slow  # 2.9 s CPU: JMI on the uint16 codes (the engine's >256-level path) takes 2.8 s of it; uint8: 0.005 s
def test_counted_engine_keeps_small_codes():
    """Signed codes are stored as int64 by EncodedDataset; the direct engine copies a bootstrap's rows per run, so it
    keeps them in uint8 (uint16 beyond 256 levels): 8x less memory per bootstrap, the same selections."""
    from fslab.npfs.weighted import CountedBootstraps

    data = _digits_shaped(3)
    assert np.asarray(data.X).dtype == np.int64
    engine = CountedBootstraps(data)
    assert engine.X.dtype == np.uint8 and np.array_equal(engine.X, data.X)
    W = bootstrap_weights(np.random.SeedSequence(2).spawn(3), data.n_rows, data.n_rows)
    wide = EncodedDataset(np.asarray(data.X) * 20, data.y, arities=np.asarray(data.arities) * 20)
    assert CountedBootstraps(wide).X.dtype == np.uint16
    np.testing.assert_array_equal(CountedBootstraps(wide).select(W, 5, "jmi"), engine.select(W, 5, "jmi"))
