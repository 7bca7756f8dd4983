"""Sources are frozen records (issue 15.5): no attribute can be reassigned, their arrays are read-only, and every
derivation is a ``replace`` that leaves the original as it was. One shipped sample is shared by every session of the
app (ui/cache.py), so a write by one session would reach all of them."""

from __future__ import annotations

import copy
import pickle
from dataclasses import FrozenInstanceError

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fslab.data.distributions import example1
from fslab.data.encoded import EncodedDataset
from fslab.errors import DataError, ParameterError
from fslab.selectors import select
from fslab.tables import CodedSource

FIELDS = ("X", "y", "labels", "feature_names", "arities", "class_names", "categories", "values", "target", "task",
          "notes")


@st.composite
def datasets(draw, raw: str | None = None):
    """A small encoded sample (2-3 classes, 1-4 features of arity 1-4), with raw values as an array, a frame or
    none, categories and notes."""
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    m, n, n_labels = draw(st.integers(1, 30)), draw(st.integers(1, 4)), draw(st.integers(2, 3))
    arities = rng.integers(1, 5, n)
    X = (rng.random((m, n)) * arities).astype(np.uint8)
    y = rng.integers(0, n_labels, m)
    raw = raw or draw(st.sampled_from(("array", "frame", "none")))
    names = [f"f{j}" for j in range(n)]
    values = {"array": X * 1.5 + rng.random((m, n)), "frame": pd.DataFrame(X * 2.0, columns=names), "none": None}[raw]
    return EncodedDataset(X, y, labels=np.arange(n_labels), arities=arities, feature_names=names,
                          class_names=[f"c{l}" for l in range(n_labels)],
                          categories=[[f"v{v}" for v in range(a)] for a in arities], values=values, target="t",
                          notes=draw(st.lists(st.text(max_size=5), max_size=2)))


def snapshot(ds: EncodedDataset) -> dict:
    """Deep copies of every field, to compare with later."""
    return copy.deepcopy(ds._fields())


def same_fields(a: dict, b: dict) -> list[str]:
    """Names of the fields that differ between two field dicts."""
    return [name for name in a if not _equal(a[name], b[name])]


def _equal(u, v) -> bool:
    if isinstance(u, pd.DataFrame) or isinstance(v, pd.DataFrame):
        return isinstance(u, pd.DataFrame) and isinstance(v, pd.DataFrame) and u.equals(v)
    if isinstance(u, np.ndarray) or isinstance(v, np.ndarray):
        return np.array_equal(np.asarray(u), np.asarray(v))
    return u == v


# --- replace ----------------------------------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(datasets())
def test_replace_without_changes_gives_an_equal_record(ds):
    again = ds.replace()
    assert again == ds and again is not ds and hash(again) == hash(ds)
    assert same_fields(again._fields(), ds._fields()) == []


def _changes(ds: EncodedDataset, rng: np.random.Generator) -> dict:
    """One new value per field that replace can change on its own (each still valid with the other fields)."""
    m, n = ds.shape
    return {
        "X": (rng.random((m, n)) * ds.arities).astype(np.uint8),
        "y": (ds.y + 1) % len(ds.labels),
        "labels": np.arange(len(ds.labels)) + 10,
        "feature_names": tuple(f"g{j}" for j in range(n)),
        "arities": ds.arities + 1,
        "class_names": tuple(f"k{l}" for l in range(len(ds.labels))),
        "categories": tuple(tuple(f"w{v}" for v in range(a)) for a in ds.arities),
        "values": None,
        "target": "other",
        "task": "multiclass" if ds.task == "binary" else "binary",
        "notes": ("changed",),
    }


@settings(max_examples=40, deadline=None)
@given(datasets(), st.sampled_from(FIELDS), st.integers(0, 2**31 - 1))
def test_replace_changes_only_that_field(ds, field, seed):
    before = snapshot(ds)
    value = _changes(ds, np.random.default_rng(seed))[field]
    new = ds.replace(**{field: value})
    assert isinstance(new, EncodedDataset)
    changed = new._fields()
    assert _equal(changed[field], value)
    assert same_fields({k: v for k, v in changed.items() if k != field},
                       {k: v for k, v in ds._fields().items() if k != field}) == []
    assert same_fields(ds._fields(), before) == []                              # the original is unchanged


def test_replace_validates_like_the_constructor():
    ds = EncodedDataset(np.array([[0, 1], [1, 0]]), [0, 1])
    with pytest.raises(DataError, match="0 .. arity-1"):
        ds.replace(X=np.array([[0, 2], [1, 0]]))
    with pytest.raises(DataError, match="one per row"):
        ds.replace(y=[0, 1, 1])
    with pytest.raises(ParameterError, match="replace takes X, y, labels.*got colour"):
        ds.replace(colour="red")


# --- derivations never mutate the original ----------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(datasets(), st.integers(0, 2**31 - 1))
def test_derivations_leave_the_original_unchanged(ds, seed):
    rng = np.random.default_rng(seed)
    before, flags = snapshot(ds), (ds.X.flags.writeable, ds.y.flags.writeable)
    rows = rng.integers(0, ds.n_rows, ds.n_rows)
    boot = ds.subsample(rows)
    assert np.array_equal(boot.X, ds.X[rows]) and np.array_equal(boot.y, ds.y[rows]) and boot.notes == ds.notes
    if ds.has_values:
        assert np.array_equal(boot.values, ds.values[rows], equal_nan=True)
    cols = rng.permutation(ds.n_features)[:max(1, ds.n_features - 1)]
    kept = ds.keep_features(cols)
    assert kept.feature_names == tuple(ds.feature_names[j] for j in cols)
    assert np.array_equal(kept.X, ds.X[:, cols]) and np.array_equal(kept.arities, ds.arities[cols])
    assert kept.categories == tuple(ds.categories[j] for j in cols)
    if ds.has_values:
        assert np.array_equal(kept.values, ds.values[:, cols], equal_nan=True)
    ds.replace(notes=ds.notes + ("one more",))
    ds.replace(values=None)
    ds.cell_codes(tuple(cols))  # the memo (a cache) is the one thing that changes
    assert same_fields(ds._fields(), before) == []
    assert (ds.X.flags.writeable, ds.y.flags.writeable) == flags == (False, False)


def test_selection_leaves_a_shared_sample_unchanged():
    ds = example1().sample(300, seed=0)
    before = snapshot(ds)
    select(ds, 1, "bayes-greedy")
    select(ds, 2, "exhaustive")
    assert same_fields(ds._fields(), before) == []


def test_keep_features_refuses_bad_columns():
    ds = EncodedDataset(np.zeros((2, 3), dtype=int), [0, 1])
    with pytest.raises(ParameterError, match="distinct feature indices in 0 .. 2"):
        ds.keep_features([0, 0])
    with pytest.raises(ParameterError, match="distinct feature indices"):
        ds.keep_features([3])


# --- frozen: no assignment, read-only arrays ----------------------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(datasets(raw="array"))
def test_writing_into_the_arrays_raises(ds):
    for array in (ds.X, ds.y, ds.labels, ds.arities, ds.values):
        with pytest.raises(ValueError, match="read-only"):
            array[(0,) * array.ndim] = 0
    codes, _ = ds.cell_codes((0,))   # memoised codes are shared by every caller
    with pytest.raises(ValueError, match="read-only"):
        codes[0] = 1


@pytest.mark.parametrize("name", ["X", "y", "notes", "target", "task", "categories", "class_names", "feature_names",
                                  "_raw", "_memo", "new_attribute"])
def test_assigning_an_attribute_raises(name):
    ds = EncodedDataset(np.array([[0, 1], [1, 0]]), [0, 1])
    with pytest.raises(FrozenInstanceError, match=f"cannot assign to field '{name}'.*frozen record.*replace"):
        setattr(ds, name, None)
    with pytest.raises(AttributeError, match="frozen record"):
        delattr(ds, name)


def test_distributions_and_plain_sources_are_frozen_too():
    law = example1()
    with pytest.raises(ValueError, match="read-only"):
        law.probs[0, 0] = 1.0
    with pytest.raises(FrozenInstanceError):
        law.weights = None
    doubled = law.replace(probs=law.probs * 2)           # validated and normalised as the constructor does
    assert np.allclose(doubled.probs, law.probs) and law.replace() == law
    assert law.replace(feature_names=["a", "b"]).feature_names == ("a", "b") and law.feature_names == ("X1", "X2")
    plain = CodedSource(np.array([[0], [1]]), [2], [0, 1], y=[0, 1])
    with pytest.raises(FrozenInstanceError):
        plain.y = None
    assert plain.replace(y=[1, 0]).y.tolist() == [1, 0] and plain.y.tolist() == [0, 1]
    assert plain.subsample([1, 1]).X.ravel().tolist() == [1, 1]


def test_the_callers_array_keeps_its_flags_and_no_codes_are_copied():
    X = np.array([[0, 1], [1, 2], [2, 0]], dtype=np.uint8)
    values = np.array([[0.5, 1.0], [1.5, 2.0], [2.5, 0.0]])
    ds = EncodedDataset(X, [0, 1, 1], values=values)
    assert np.shares_memory(ds.X, X) and np.shares_memory(ds._raw, values)   # zero-copy: views
    assert X.flags.writeable and values.flags.writeable                       # the caller still owns its arrays
    X[0, 0] = 0
    values[0, 0] = 9.0


def test_pickled_records_stay_frozen_and_leave_the_memo_behind():
    ds = EncodedDataset(np.array([[0, 1], [1, 0], [1, 1]]), [0, 1, 1], values=np.eye(3, 2))
    ds.cell_codes((0, 1))
    again = pickle.loads(pickle.dumps(ds))
    assert again == ds and len(again._memo) == 0 and len(ds._memo) == 1
    assert not again.X.flags.writeable and not again._raw.flags.writeable
    with pytest.raises(FrozenInstanceError):
        again.notes = ("x",)
    assert copy.deepcopy(ds) == ds


def test_records_with_different_content_differ():
    ds = EncodedDataset(np.array([[0, 1], [1, 0]]), [0, 1])
    assert ds != ds.replace(y=[1, 0]) and ds != ds.replace(notes=("n",)) and ds != example1()
