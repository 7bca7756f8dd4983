"""Issue 18, selector internals: work and memory bounded by what the limits check, any finite input
scored, long steps interruptible. Each test failed before its fix."""

from __future__ import annotations

import itertools
import tracemalloc
from math import comb

import numpy as np
import pytest

import fslab
from fslab.data.encoded import EncodedDataset
from fslab.measures import measure
from fslab.selectors import SelectionCancelled, _exhaustive, select


def test_exhaustive_visits_at_most_c_n_k_prefixes(monkeypatch):
    """k > n/2: C(n, k-1) prefixes used to be listed while the limit checks C(n, k) (digits-in-noise k=254:
    5.8 GB). Only prefixes with an extension are drawn now, lazily: at most C(n, k) of them."""
    drawn, combinations = [], itertools.combinations

    def counting(iterable, r):
        for combo in combinations(iterable, r):
            drawn.append(1)
            yield combo

    monkeypatch.setattr(_exhaustive.itertools, "combinations", counting)
    rng = np.random.default_rng(0)
    n, k = 16, 13
    ds = EncodedDataset(rng.integers(0, 2, (60, n)), rng.integers(0, 2, 60))
    sel = select(ds, k, "exhaustive")
    assert len(drawn) <= comb(n, k) < comb(n, k - 1)
    assert len(sel.trace) == comb(n, k) and sel.trace["subset"].map(len).eq(k).all()
    best = sel.trace.loc[sel.trace["chosen"], "subset"].iloc[0]
    assert tuple(best) == sel.features


def test_fisher_survives_values_near_1e200_and_picks_the_signal():
    """Values near +-1e200 overflowed to 1.8e308 for signal and noise alike, so the ranking took the noise
    (column 0, the lower index); centred and scaled first, the same data picks the signal."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    noise = rng.uniform(-1e200, 1e200, 400)
    signal = np.where(y == 1, 1e200, -1e200) + rng.normal(0, 1e199, 400)
    ds = fslab.Dataset.from_arrays(np.column_stack([noise, signal]), y)
    sel = select(ds, 2, "fisher")
    assert sel.features == (1, 0)
    scaled = select(fslab.Dataset.from_arrays(np.column_stack([noise, signal]) / 1e200, y), 2, "fisher")
    np.testing.assert_allclose(sel.scores, scaled.scores, rtol=1e-9)
    assert np.all(np.isfinite(sel.scores))


def test_plain_counting_memory_does_not_grow_with_the_candidates():
    """Columns with more values than the fast engine takes: the batched tables of all candidates used to be
    built at once (cells x classes x candidates floats: BayesGreedy on digits-in-noise, k = 20: 4.1 GB).
    Now batches stay within a byte budget, so the peak does not grow with the number of candidates."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 70, (2000, 300))  # 70 values: beyond the fast engine
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 10, 2000)) % 10
    ds = EncodedDataset(X, y, arities=np.full(300, 70))
    ev = measure("zero-one").on(ds)
    assert ev.counter is None
    tracemalloc.start()
    try:
        ev.extensions([0, 1], np.arange(2, 300))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # one padded batch of all 298 candidates: ~2,000 x 70 cells x 10 classes x 8 bytes x 298 = 3.3 GB
    assert peak < 400 << 20


def test_an_s_variate_step_can_be_cancelled_inside_the_step():
    """s = 4 updates C(t, 2) tables per step; cancel() is polled between them, so a long step stops early."""
    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, (200, 12))
    ds = EncodedDataset(X, X[:, 0] ^ X[:, 1])
    polls, steps = [], []

    def cancel():
        polls.append(1)
        return len(polls) > 12

    with pytest.raises(SelectionCancelled):
        select(ds, 8, "bayes-greedy", s=4, cancel=cancel, progress=lambda t, total: steps.append(t))
    assert len(steps) < 7  # stopped inside a step, before the run finished
    with pytest.raises(SelectionCancelled):
        select(ds, 3, "bayes-greedy", progress=lambda t, total: t < 2)  # progress returning False stops too


def test_exhaustive_search_polls_cancel_between_blocks():
    rng = np.random.default_rng(3)
    ds = EncodedDataset(rng.integers(0, 2, (50, 14)), rng.integers(0, 2, 50))
    with pytest.raises(SelectionCancelled):
        select(ds, 7, "exhaustive", cancel=lambda: True)


def test_distinct_per_row_columns_count_occupied_cells_only():
    """Two text columns with a distinct value on every row (issue 18: a 325 KB CSV used 7.8 GB): the pair's
    padded table has rows x rows cells; only the occupied ones (at most one per row) are counted now."""
    m = 4000
    rng = np.random.default_rng(4)
    X = np.column_stack([rng.permutation(m), rng.permutation(m), rng.integers(0, 2, m)])
    y = (X[:, 2] ^ (rng.random(m) < 0.2)).astype(int)
    ds = EncodedDataset(X, y, arities=[m, m, 2])
    tracemalloc.start()
    try:
        sel = select(ds, 3, "bayes-greedy")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20  # the padded pair table alone: 4,000 x 4,000 cells x 2 classes x 8 bytes = 256 MB
    plain = select(ds, 3, "bayes-greedy", engine="plain")
    assert sel.features == plain.features and sel.features[0] in (0, 1)  # a per-row id fits the sample
