"""NPFS counts no pick made by the tie rule alone, nor any pick of a constant column (issue 33.2)."""

import numpy as np
import pytest

from fslab.data.dataset import Dataset
from fslab.npfs import npfs
from fslab.npfs.result import PICKED, TIED_PICK, split_picks


def planted(n=200, seed=0):
    # columns: two constants first (the lowest indices win ties), the class itself, a noise column
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = np.c_[np.zeros(n, int), np.ones(n, int), y, rng.integers(0, 3, n)]
    return Dataset.from_arrays(X, y, feature_names=["const_a", "const_b", "signal", "noise"])


@pytest.mark.slow
def test_tie_break_alone_makes_nothing_relevant():
    # k = 3 of K = 4, 20 bootstraps, bayes-greedy under the 0-1 error: step 1 picks signal (error 0); steps 2 and 3
    # gain nothing for any candidate (the error stays 0), so const_a then const_b win by lowest index. Before
    # issue 33.2 both constants were counted 20 times (z = 20 > zeta = 19 for alpha 0.05) and called relevant.
    r = npfs(planted(), "bayes-greedy", 3, n_bootstraps=20, alpha=0.05, seed=1)
    assert r.counts.tolist() == [0, 0, 20, 0]
    assert r.relevant_names == ["signal"]
    assert r.tied_picks.tolist() == [20, 20, 0, 0]
    assert "const_a 20, const_b 20 of 20 bootstraps" in r.tie_note
    assert r.p0 == pytest.approx(3 / 4)   # the null rate still assumes k picks: the test only gets stricter


@pytest.mark.slow
@pytest.mark.parametrize("counting", ["weights", "resample"])
def test_jmi_tied_step_counts_for_nobody(counting):
    # k = 2, JMI: step 2 scores I(X_j, signal; Y) = H(Y) for every j (signal is Y): a 3-way tie, const_a wins by
    # index and is not counted; the weighted engine and the resampling one agree
    r = npfs(planted(), "jmi", 2, n_bootstraps=20, alpha=0.05, seed=1, counting=counting)
    assert r.counts.tolist() == [0, 0, 20, 0]
    assert r.tied_picks.tolist() == [20, 0, 0, 0]
    assert r.summary()["tied picks (not counted)"].sum() == 20


def test_split_picks_by_hand():
    codes = np.array([[PICKED, TIED_PICK, 0], [0, PICKED, PICKED], [PICKED, PICKED, TIED_PICK]], dtype=np.int8)
    counted, tied = split_picks(codes)
    assert counted.sum(axis=1).tolist() == [1, 2, 2] and tied.tolist() == [1, 0, 1]
    counted, tied = split_picks(codes, constant=np.array([False, True, False]))   # a constant row: nothing counts
    assert counted.sum(axis=1).tolist() == [1, 0, 2] and tied.tolist() == [1, 2, 1]
    bools = codes.astype(bool)                    # an engine without tie codes (Dask, SQL): every pick counts
    assert split_picks(bools.astype(np.int8))[0].sum() == 7
