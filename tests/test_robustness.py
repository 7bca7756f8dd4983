"""fslab.robustness: the Select page's "Does this pick hold up?" table, checked by hand and against the library."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fslab
from fslab.binning import BinningResult, binning_sensitivity
from fslab.npfs import npfs
from fslab.npfs.result import NPFSResult
from fslab.robustness import COLUMNS, pick_robustness, robustness_table

NAMES = ("X1", "X2", "X3", "X4")


def _npfs() -> NPFSResult:
    """K = 4, n = 10, p0 = 1/2, alpha = 0.05; counts 10, 9, 5, 0. Binomial(10, 1/2): P(Z > 8) = 11/1024 = 0.011
    <= 0.05 < P(Z > 7) = 56/1024 = 0.055, so zeta = 8 (equation (3)) and X1, X2 are relevant."""
    counts = [10, 9, 5, 0]
    matrix = np.array([[j < c for j in range(10)] for c in counts])
    return NPFSResult.from_matrix(matrix, p0=0.5, alpha=0.05, feature_names=NAMES, k=2)


def _bins() -> BinningResult:
    return BinningResult({"a": [0, 1], "b": [0, 2], "c": [1, 0]}, NAMES, ("X2",), 2, "bayes-greedy", "zero-one")


def test_table_by_hand():
    result = _npfs()
    assert result.threshold == 8
    table = robustness_table(["X2", "X1", "X3", "X4", "Z"], result, _bins())
    assert tuple(table.columns) == COLUMNS
    assert table["feature"].tolist() == ["X2", "X1", "X3", "X4", "Z"]     # the order given, unknown names kept
    assert table["NPFS frequency"].tolist()[:4] == [0.9, 1.0, 0.5, 0.0]
    assert np.isnan(table["NPFS frequency"].iloc[4])
    assert table["relevant (NPFS test)"].tolist()[:4] == [True, True, False, False]
    assert pd.isna(table["relevant (NPFS test)"].iloc[4])
    assert table["picked under binnings"].tolist()[:4] == ["2 of 3", "3 of 3", "1 of 3", "0 of 3"]
    assert pd.isna(table["picked under binnings"].iloc[4])


def test_checks_not_run_leave_empty_cells():
    table = robustness_table(["X1"], None, None)
    assert table["NPFS frequency"].isna().all() and table["relevant (NPFS test)"].isna().all()
    assert table["picked under binnings"].isna().all()
    assert robustness_table(["X1"], _npfs(), None)["NPFS frequency"].tolist() == [1.0]


@pytest.mark.slow  # 0.50 s measured (inner loop: unit and not slow)
def test_pick_robustness_is_npfs_and_binning_sensitivity():
    """Waveform (real-valued: the binning matters), MIGreedy k = 3: each column equals the underlying call."""
    raw = fslab.load_sample("waveform")
    encoded = raw.discretize()
    names = list(fslab.select(encoded, 3, "mi-greedy").names)
    table = pick_robustness(encoded, names, "mi-greedy", 3, raw=raw, n_bootstraps=12, alpha=0.05, seed=3)
    ref = npfs(encoded, "mi-greedy", 3, n_bootstraps=12, alpha=0.05, seed=3)
    index = [ref.feature_names.index(n) for n in names]
    assert table["NPFS frequency"].tolist() == pytest.approx((ref.counts[index] / 12).tolist())
    assert table["relevant (NPFS test)"].tolist() == ref.relevant_mask[index].tolist()
    bins = binning_sensitivity(raw, 3, "mi-greedy", "zero-one")
    picked = [sum(bins.feature_names.index(n) in s for s in bins.selections.values()) for n in names]
    assert table["picked under binnings"].tolist() == [f"{p} of 7" for p in picked]
    assert robustness_table(names, ref, bins).equals(table)
