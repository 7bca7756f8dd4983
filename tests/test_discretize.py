"""Discretisation worked by hand: mean-std (Ahmed et al., footnote 6), quantile, uniform, kept columns."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fslab.data.discretize import (
    MISSING,
    bin_names,
    check_method,
    encode_column,
    encode_frame,
    encode_numeric,
    mean_std_edges,
)
from fslab.errors import DataError, ParameterError


def test_mean_std_edges_use_sample_std():
    """x = 0.5, 1.5, 2.5, 3.5, 4.5: mu = 2.5, sum of squares 10, sample var 10/4 = 2.5 (ddof=1),
    so the edges are 2.5 -+ sqrt(2.5) = 0.9189, 4.0811 (the population std sqrt(2) would give 1.086, 3.914)."""
    x = np.array([0.5, 1.5, 2.5, 3.5, 4.5])
    np.testing.assert_allclose(mean_std_edges(x), [2.5 - math.sqrt(2.5), 2.5 + math.sqrt(2.5)])


def test_mean_std_codes_and_names():
    """Same column: 0.5 < 0.919 -> bin 0; 1.5, 2.5, 3.5 in [0.919, 4.081) -> bin 1; 4.5 -> bin 2."""
    enc = encode_numeric(np.array([0.5, 1.5, 2.5, 3.5, 4.5]), "mean-std", 3)
    assert enc.kind == "binned"
    assert enc.codes.tolist() == [0, 1, 1, 1, 2]
    assert enc.categories == ("(-inf, 0.9189)", "[0.9189, 4.081)", "[4.081, inf)")


def test_value_on_an_edge_goes_up():
    """uniform, 3 bins on [0, 3]: edges 1 and 2; bins are left-closed, so 1.0 is in [1, 2)."""
    enc = encode_numeric(np.array([0.0, 0.5, 1.0, 1.5, 3.0]), "uniform", 3)
    assert enc.codes.tolist() == [0, 0, 1, 1, 2]
    assert enc.categories == ("(-inf, 1)", "[1, 2)", "[2, inf)")


def test_quantile_two_bins_split_at_median():
    """0.5 .. 9.5 (ten values): the median is 5.0, so five rows fall in each bin."""
    enc = encode_numeric(np.arange(10) + 0.5, "quantile", 2)
    assert np.bincount(enc.codes).tolist() == [5, 5]
    assert enc.categories == ("(-inf, 5)", "[5, inf)")


def test_quantile_ties_merge_edges():
    """Eight zeros and two distinct values: the 1/3 and 2/3 quantiles are both 0, leaving one inner edge."""
    x = np.array([0.0] * 8 + [0.25, 7.5])
    enc = encode_numeric(x, "quantile", 3)
    assert len(enc.categories) == 2
    assert enc.codes.tolist() == [1] * 10   # every value >= the single edge 0 (left-closed)


def test_few_integers_are_kept_as_ranks():
    enc = encode_column(pd.Series([5, 1, 3, 1, 5, 3, 9]))
    assert enc.kind == "discrete"
    assert enc.categories == ("1", "3", "5", "9")
    assert enc.codes.tolist() == [2, 0, 1, 0, 2, 1, 3]


def test_two_real_values_are_kept():
    enc = encode_column(pd.Series([0.1, 0.7, 0.7, 0.1]))
    assert enc.kind == "discrete" and enc.codes.tolist() == [0, 1, 1, 0]


def test_many_integers_are_binned():
    enc = encode_column(pd.Series(np.arange(40)), "mean-std", 3)
    assert enc.kind == "binned" and len(enc.categories) == 3


def test_missing_is_its_own_last_category():
    enc = encode_column(pd.Series([1.0, np.nan, 2.0, 1.0]))
    assert enc.categories == ("1", "2", MISSING)
    assert enc.codes.tolist() == [0, 2, 1, 0]
    text = encode_column(pd.Series(["b", None, "a", "b"]))
    assert text.kind == "categorical"
    assert text.categories == ("a", "b", MISSING)
    assert text.codes.tolist() == [1, 2, 0, 1]


def test_booleans_and_constant_columns():
    assert encode_column(pd.Series([True, False, True])).categories == ("0", "1")
    const = encode_column(pd.Series([4.2, 4.2, 4.2]))
    assert const.categories == ("4.2",) and const.codes.tolist() == [0, 0, 0]


def test_encode_frame_values_and_notes():
    frame = pd.DataFrame({"r": [0.5, 1.5, 2.5, 3.5, 4.5], "c": list("abcab"), "d": [0, 1, 0, 1, 1]})
    enc = encode_frame(frame, "mean-std", 3)
    assert enc.X.tolist() == [[0, 0, 0], [1, 1, 1], [1, 2, 0], [1, 0, 1], [2, 1, 1]]
    assert enc.arities.tolist() == [3, 3, 2]
    np.testing.assert_array_equal(enc.values[:, 0], frame["r"])
    assert np.isnan(enc.values[:, 1]).all()          # text: no numeric value for the Fisher score
    assert any("1 numeric column(s) binned" in n for n in enc.notes)
    assert any("1 text column(s)" in n for n in enc.notes)


def test_bin_names_and_bad_parameters():
    assert bin_names(np.array([1.0])) == ("(-inf, 1)", "[1, inf)")
    with pytest.raises(ParameterError, match="unknown discretisation method 'kmeans'"):
        check_method("kmeans", 3)
    for bad in (1, 0, 101, 2.5, True):
        with pytest.raises(ParameterError, match="bins must be an integer"):
            check_method("quantile", bad)


def test_huge_values_are_binned_and_only_an_overflowing_edge_is_refused():
    """Moments are computed on x / max|x| (issue 18: survive any finite input). By hand, with s = 1.5e308:
    z = (2/3, -2/3, 1, ~0), mean 0.25, sample std 0.7391, so the edges are (0.25 -+ 0.7391) s =
    -0.734e308 and 1.484e308: codes 1, 0, 2, 1 (this data used to be refused as 'too large to bin')."""
    enc = encode_numeric(np.array([1e308, -1e308, 1.5e308, 3.3]), "mean-std", 3, name="big")
    assert enc.codes.tolist() == [1, 0, 2, 1]
    np.testing.assert_allclose(mean_std_edges(np.array([1e308, -1e308, 1.5e308, 3.3])), [-0.7337e308, 1.4837e308],
                               rtol=1e-3)
    x = np.concatenate([np.linspace(1.70e308, 1.79e308, 25), np.full(5, -1.79e308)])   # mu + sigma ~ 2.5e308
    with pytest.raises(DataError, match="'big' has values too large to bin"):
        encode_numeric(x, "mean-std", 3, name="big")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.floats(-1e6, 1e6), st.just(math.nan)), min_size=1, max_size=40),
       st.sampled_from(["mean-std", "quantile", "uniform"]), st.integers(2, 8))
def test_codes_are_in_range_and_order_preserving(xs, method, bins):
    x = np.array(xs)
    enc = encode_numeric(x, method, bins)
    assert enc.codes.min() >= 0 and enc.codes.max() < len(enc.categories)
    ok = ~np.isnan(x)
    order = np.argsort(x[ok], kind="stable")
    assert np.all(np.diff(enc.codes[ok][order]) >= 0)   # binning never reorders values
    assert np.all(enc.codes[~ok] == len(enc.categories) - 1)


def _reference_codes(values: np.ndarray, method: str, bins: int) -> list[int]:
    """The per-column rule of the module docstring, one column at a time with numpy's own functions."""
    missing = np.isnan(values)
    x = values[~missing]
    uniques = np.unique(x)
    integral = bool(np.all(x == np.floor(x)))
    if uniques.size <= 2 or (integral and uniques.size <= max(bins, 17)):
        codes = np.searchsorted(uniques, values)
        n_names = uniques.size
    else:
        if method == "mean-std":
            edges = np.array([x.mean() - x.std(ddof=1), x.mean() + x.std(ddof=1)])
        elif method == "quantile":
            edges = np.unique(np.quantile(x, np.linspace(0, 1, bins + 1)[1:-1]))
        else:
            edges = np.unique(np.linspace(x.min(), x.max(), bins + 1)[1:-1])
        codes = np.searchsorted(edges, values, side="right")
        n_names = edges.size + 1
    return np.where(missing, n_names, codes).tolist()


@pytest.mark.parametrize("method, bins", [("mean-std", 3), ("quantile", 4), ("uniform", 5), ("quantile", 10)])
def test_block_encoding_matches_the_column_rule(method, bins):
    """encode_frame works on blocks of rows and columns at once; every column must get the one-column answer."""
    rng = np.random.default_rng(bins)
    m = 400
    frame = pd.DataFrame({
        "normal": rng.normal(size=m), "ints": rng.integers(0, 40, m).astype(float), "few": rng.integers(3, 9, m),
        "gaps": rng.choice([0, 5, 7], m), "binary": rng.integers(0, 2, m).astype(bool),
        "holes": np.where(rng.random(m) < 0.2, np.nan, rng.exponential(size=m)),
        "int_holes": pd.array(np.where(rng.random(m) < 0.1, None, rng.integers(0, 3, m)), dtype="Int64"),
        "text": rng.choice(["a", "b", None], m), "wide": rng.integers(-10**9, 10**9, m),
    })
    enc = encode_frame(frame, method, bins)
    assert enc.X.dtype == np.uint8
    for j, name in enumerate(frame.columns):
        if name == "text":
            continue
        values = frame[name].to_numpy(dtype=np.float64, na_value=np.nan)
        assert enc.X[:, j].tolist() == _reference_codes(values, method, bins), name
        assert enc.arities[j] == len(enc.categories[j]) > enc.X[:, j].max(), name
    one = encode_frame(frame[["normal"]], method, bins)
    assert one.X[:, 0].tolist() == enc.X[:, 0].tolist()


@pytest.mark.parametrize("method, bins", [("mean-std", 3), ("quantile", 5), ("uniform", 4)])
def test_small_integer_arrays_use_exact_moments_and_integer_edges(method, bins):
    """int16 counts (gisette-like): mean-std from exact integer sums, codes compared against ceil(edge)."""
    from fslab.data import Dataset
    from fslab.data.synthetic import gisette_like_data

    X, y = gisette_like_data(m=500, n_features=12, seed=3)
    enc = Dataset.from_arrays(X, y).discretize(method, bins)
    for j in range(X.shape[1]):
        assert enc.X[:, j].tolist() == _reference_codes(X[:, j].astype(np.float64), method, bins), j
