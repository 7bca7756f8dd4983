"""The seam of count-only sources (SQL, Dask) into the cross-fitted evaluator (fslab.measures.cross_fit's
contract): a reference source that keeps its rows hidden and counts by (fold, class, cell) itself gives exactly the
in-memory held-out values, selections, fold counts and notes."""

from __future__ import annotations

import numpy as np
import pytest

import fslab
from fslab import row_hash
from fslab.counting.folds import TooFewRowsError
from fslab.data.encoded import EncodedDataset
from fslab.measures import measure
from fslab.measures.cross_fit import FoldCounting, can_hold_out, fold_source


class CountOnly:
    """A TableSource with no rows on the client: tables only, plus ``folded`` as the contract says (the reference
    implementation for an engine: folds from fslab.row_hash.folds of the class codes in row order)."""

    def __init__(self, inner):
        self._inner = inner
        self.feature_names, self.arities, self.labels = inner.feature_names, inner.arities, inner.labels
        self.task, self.target = inner.task, inner.target
        self.calls: list[tuple[int, int]] = []

    @property
    def n_features(self) -> int:
        return self._inner.n_features

    @property
    def is_sample(self) -> bool:
        return True

    def table(self, subset):
        return self._inner.table(subset)

    def extension_tables(self, subset, candidates):
        return self._inner.extension_tables(subset, candidates)

    def folded(self, n_folds: int, seed: int) -> CountOnly:
        self.calls.append((n_folds, seed))
        fold = row_hash.folds(self._inner.y, n_folds, seed)
        return CountOnly(fold_source(self._inner, fold, n_folds))


def _data(m=240, seed=0, rare=None):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(m, 5))
    y = ((X[:, 0] + X[:, 2] + rng.integers(0, 2, m)) > 2).astype(int)
    if rare is not None:   # a third class with `rare` rows
        y[:rare] = 2
    labels = np.arange(y.max() + 1)
    return EncodedDataset(X.astype(np.uint8), y, labels=labels)


def test_a_count_only_source_declares_the_seam():
    src = CountOnly(_data())
    assert isinstance(src, FoldCounting) and can_hold_out(src)


@pytest.mark.parametrize("name", ("zero-one", "balanced", "log-loss", "mi", "auc", "f-beta", "squared",
                                  "cost-sensitive"))
def test_held_out_values_equal_in_memory(name):
    ds = _data()
    mem = measure(name).on(ds, estimate="cross-fitted", folds=4, seed=9)
    src = CountOnly(ds)
    ev = measure(name).on(src, estimate="cross-fitted", folds=4, seed=9)
    assert src.calls == [(4, 9)] and ev.fold_of_row is None and ev.n_folds == 4
    for subset in ([], [0], [0, 2], [1, 3, 4]):
        assert ev.value(subset) == pytest.approx(mem.value(subset), abs=1e-12)
    np.testing.assert_allclose(ev.extensions([0], [1, 2, 3, 4]), mem.extensions([0], [1, 2, 3, 4]), atol=1e-12)


def test_selection_equals_in_memory_with_fewer_folds_and_the_same_note():
    ds = _data(rare=3)   # a class of 3 rows: 3 folds instead of 5
    a = fslab.select(ds, 3, measure="zero-one", estimate="cross-fitted")
    src = CountOnly(ds)
    b = fslab.select(src, 3, measure="zero-one", estimate="cross-fitted")
    assert a.features == b.features and a.folds == b.folds == 3 and src.calls == [(3, 0)]
    np.testing.assert_allclose(a.scores, b.scores, atol=1e-12)
    mem, eng = (measure("zero-one").on(s, estimate="cross-fitted") for s in (ds, src))
    assert mem.notes == eng.notes and "3 folds instead of 5" in eng.notes[0]


def test_a_single_row_class_is_refused_on_both():
    ds = _data(rare=1)
    for src in (ds, CountOnly(ds)):
        with pytest.raises(TooFewRowsError, match="single row"):
            measure("zero-one").on(src, estimate="cross-fitted")
