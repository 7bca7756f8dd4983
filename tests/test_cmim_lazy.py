"""Lazy CMIM (issue 27.3, Fleuret's fast CMIM): the picks and the tie counts of the full evaluation.

A candidate's partial minimum over the first features of J only falls as more features are folded in, so the
lazy scorer brings candidates up to date only while their bound can still reach the best exact gain; the winner
(lowest index among values within 1e-12 relative of the best) and the number tied must be those of counting every
pair at every step.
"""

from __future__ import annotations

import numpy as np
import pytest

from fslab import select
from fslab.data.encoded import EncodedDataset
from fslab.measures import measure
from fslab.selectors._loop import run_search
from fslab.selectors._scorers import MIGainScorer


def data(seed: int, m: int = 600, n: int = 60, arity: int = 3, classes: int = 2) -> EncodedDataset:
    """Noisy copies of a few hidden causes of y (so gains are close and J matters), exact duplicates (ties) and
    pure noise columns."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, m)
    causes = [np.where(rng.random(m) < 0.7, y, rng.integers(0, classes, m)) % arity for _ in range(4)]
    cols = []
    for j in range(n):
        base = causes[j % 4] if j % 3 else rng.integers(0, arity, m)
        cols.append(np.where(rng.random(m) < 0.15 + 0.01 * (j % 7), rng.integers(0, arity, m), base))
    X = np.column_stack(cols)
    X[:, 10] = X[:, 4]  # duplicates: exact ties, the lower index wins
    X[:, 31] = X[:, 7]
    return EncodedDataset(X, y)


def runs(source, k: int, engine: str = "auto"):
    ev = measure("mi").on(source, engine)
    logs = [run_search(source.n_features, k, MIGainScorer(ev, "cmim", lazy=lazy)) for lazy in (True, False)]
    return logs


@pytest.mark.slow  # 0.27 s measured (inner loop: unit and not slow)
@pytest.mark.parametrize("seed, arity, classes", [(0, 2, 2), (1, 3, 2), (2, 3, 3), (3, 5, 4), (4, 2, 2)])
@pytest.mark.parametrize("engine", ["auto", "plain"])
def test_lazy_picks_and_ties_equal_full(seed, arity, classes, engine):
    source = data(seed, arity=arity, classes=classes)
    lazy, full = runs(source, 25, engine)
    assert lazy.order == full.order
    assert lazy.n_tied == full.n_tied
    for step, (lv, fv, lt) in enumerate(zip(lazy.values, full.values, lazy.tied, strict=True)):
        np.testing.assert_allclose(lv[lt], fv[lt], rtol=1e-12, atol=1e-15, err_msg=f"step {step + 1}")
        assert np.all(lv >= fv - 1e-12)  # the others show an upper bound of their gain


def test_lazy_counts_fewer_pairs():
    """Most candidates are never brought up to date: on 300 features (lazy by default: the fast engine counts a
    round's pairs at once), k = 20, far fewer than the full evaluation's (k - 1) x features pair gains are counted;
    select() picks the same. With the plain engine (no pair counts) it stays full below 256 features."""
    assert not MIGainScorer(measure("mi").on(data(5, m=800, n=100, classes=30), engine="plain"), "cmim").lazy
    source = data(5, m=800, n=300, arity=3)
    ev = measure("mi").on(source)
    scorer = MIGainScorer(ev, "cmim")
    assert scorer.lazy
    log = run_search(source.n_features, 20, scorer)
    folded = int(scorer.seen.sum())
    assert folded < 0.5 * 19 * 300
    full = run_search(source.n_features, 20, MIGainScorer(measure("mi").on(source), "cmim", lazy=False))
    assert list(select(source, 20, "cmim").features) == log.order == full.order


def test_select_cmim_ties_by_hand():
    """Features 0 and 2 identical, 1 noise: CMIM's first pick ties 0 and 2 (n_tied 2) -> 0."""
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 400)
    x = np.where(rng.random(400) < 0.8, y, 1 - y)
    ds = EncodedDataset(np.column_stack([x, rng.integers(0, 2, 400), x, rng.integers(0, 2, 400)]), y)
    sel = select(ds, 3, "cmim")
    assert sel.features[0] == 0 and int(sel.trace.query("step == 1")["n_tied"].iloc[0]) == 2


def test_lazy_held_out_equals_full():
    """Held out, the engine counts fold-classes: the lazy few-pair counts must come from the held-out evaluator,
    not from the plug-in reducer over fold-classes (which gave other gains before issue 35)."""
    source = data(6, m=500, n=40, arity=3, classes=3)
    ev = measure("mi").on(source, estimate="cross-fitted", folds=3)
    lazy, full = (run_search(source.n_features, 8, MIGainScorer(ev, "cmim", lazy=flag)) for flag in (True, False))
    assert lazy.order == full.order
    for lv, fv, lt in zip(lazy.values, full.values, lazy.tied, strict=True):
        np.testing.assert_allclose(lv[lt], fv[lt], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("seed, arity, classes", [(0, 2, 2), (3, 5, 4), (8, 9, 6)])
@pytest.mark.parametrize("engine", ["auto", "plain"])
def test_lazy_mrmr_picks_and_ties_equal_full(seed, arity, classes, engine):
    """mRMR's bound (relevance minus the redundancy folded so far over |J|): the picks, ties and exact gains of the
    full evaluation."""
    source = data(seed, arity=arity, classes=classes)
    ev = measure("mi").on(source, engine)
    lazy, full = (run_search(source.n_features, 20, MIGainScorer(ev, "mrmr", lazy=flag)) for flag in (True, False))
    assert lazy.order == full.order
    assert lazy.n_tied == full.n_tied
    for step, (lv, fv, lt) in enumerate(zip(lazy.values, full.values, lazy.tied, strict=True)):
        np.testing.assert_allclose(lv[lt], fv[lt], rtol=1e-12, atol=1e-15, err_msg=f"step {step + 1}")
        assert np.all(lv >= fv - 1e-12)
