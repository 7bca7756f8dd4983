"""Mixed tables at the speed of pandas (issue 27.2): every shortcut gives the codes of the plain path.

Text columns are hashed, not sorted; the column typing's hashing is reused by the codes; a mixed-dtype frame is
read column-major and coded column by column; mean-std edges are computed once per column; the whole-number check
skips integer-typed columns. Each is checked here against a plain reference on the same data."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fslab.data import Dataset
from fslab.data.column_stats import BLOCK_CELLS, NumericSource, scan
from fslab.data.discretize import _mean_std_blocks, encode_categorical, encode_frame, is_discrete

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# the costliest properties draw a seed for a whole frame (Dataset.from_frame, a profile: ~30 ms an example) and two
# or three options: 20 seeds still draw every option combination several times
SEEDED = settings(SETTINGS, max_examples=20)


def sorted_codes(column: pd.Series):
    """The former rule, by sorting every row's text: categories in sorted order of str(value), missing last."""
    missing = column.isna().to_numpy()
    uniques, inverse = np.unique(column[~missing].astype(str).to_numpy(dtype=object), return_inverse=True)
    codes = np.zeros(len(column), dtype=np.int64)
    codes[~missing] = inverse
    names = [str(u) for u in uniques]
    if missing.any():
        codes[missing] = len(names)
        names.append("missing")
    return codes, tuple(names)


VALUES = st.one_of(st.none(), st.sampled_from(["a", "b", " a", "a ", "B", "é", "", "1", "1.0"]),
                   st.integers(-2, 2), st.floats(allow_nan=False, allow_infinity=False, width=16), st.booleans())


@pytest.mark.slow  # 0.41 s measured (inner loop: unit and not slow)
@SETTINGS
@given(st.lists(VALUES, min_size=1, max_size=30), st.sampled_from(["object", "str", "category"]))
def test_hashed_text_codes_are_the_sorted_ones(values, kind):
    column = pd.Series(values, dtype=object)
    if kind == "str":
        column = column.map(lambda v: v if v is None else str(v)).astype("str")
    elif kind == "category":
        column = column.map(lambda v: v if v is None else str(v)).astype("category")
    got = encode_categorical(column)
    codes, names = sorted_codes(column)
    assert np.array_equal(got.codes, codes) and got.categories == names


def test_mixed_python_values_keep_their_own_text():
    """Hashing alone would merge 1, 1.0 and True (equal in Python); their texts differ, so their codes do."""
    got = encode_categorical(pd.Series([1, 1.0, True, "1", None], dtype=object))
    assert got.categories == ("1", "1.0", "True", "missing") and got.codes.tolist() == [0, 1, 2, 0, 3]


@pytest.mark.slow  # 1.67 s measured (inner loop: unit and not slow)
@SEEDED
@given(st.integers(0, 2**32 - 1), st.sampled_from(["level", "drop"]), st.booleans())
def test_the_typing_hashing_reused_by_the_codes_changes_nothing(seed, missing, target_gaps):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(30, 80))   # below ~20 rows, 5 words can be half the rows: 'spaced' is then near-unique
    words = np.array(["x", "y", "z", " z", "w ", "q"], dtype=object)
    frame = pd.DataFrame({
        "clean": pd.Series(rng.choice(words[[0, 1, 2, 5]], m)).astype("str"),
        "spaced": pd.Series(rng.choice(words, m)).astype("str"),
        "gappy": pd.Series(np.where(rng.random(m) < 0.2, None, rng.choice(words[:3], m))).astype("str"),
        "n": rng.normal(size=m), "y": rng.integers(0, 2, m).astype(float)})
    frame.loc[0, "y"], frame.loc[1, "y"] = 0, 1
    frame.loc[[0, 1], "gappy"] = "x"   # both classes survive missing="drop"
    if target_gaps:
        frame.loc[rng.random(m) < 0.1, "y"] = np.nan
        frame.loc[0, "y"], frame.loc[1, "y"] = 0, 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        ds = Dataset.from_frame(frame, "y", missing=missing)
    enc = ds.discretize()
    plain = encode_frame(ds.features, array=ds.array)   # no reuse: every text column hashed again
    assert np.array_equal(enc.X, plain.X) and enc.categories == plain.categories
    if (frame["spaced"].str.strip() != frame["spaced"]).any():   # a short sample may draw no spaced word
        # the plan reads text stripped: " z" and "z" are one level when typing and as codes, its hashing reused
        assert "spaced" in ds.text_codes or len(ds.features) != len(frame) or missing == "drop"
        assert not ds.features["spaced"].dropna().str.startswith(" ").any()
    if len(ds.features) == len(frame) and missing == "level":
        assert "clean" in ds.text_codes


def mixed(m: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cols = {}
    for j in range(6):
        v = pd.array(rng.integers(0, 3 + 4 * j, m), dtype="Int16")
        v[rng.random(m) < 0.1 * (j % 2)] = pd.NA
        cols[f"i{j}"] = v
    cols["wide"] = rng.integers(-40_000, 40_000, m)
    cols["few"] = rng.choice([0.5, 1.5, 7.25], m)
    for j in range(5):
        x = rng.normal(j, 1 + j, m)
        x[rng.random(m) < 0.05 * (j % 2)] = np.nan
        cols[f"r{j}"] = x
    return pd.DataFrame(cols)


@pytest.mark.slow  # 2.36 s measured (inner loop: unit and not slow)
@pytest.mark.parametrize("method, bins", [("mean-std", 3), ("quantile", 4), ("uniform", 5)])
@pytest.mark.parametrize("m", [500, BLOCK_CELLS // 12 + 777])   # one block, and several blocks of rows
def test_column_major_codes_are_the_row_major_ones(method, bins, m):
    """A frame of mixed dtypes is read column-major and coded column by column; the same values as one float64
    block take the row-major path. Same statistics, edges and codes."""
    frame = mixed(m)
    as_floats = frame.astype("float64")
    block = as_floats.to_numpy()
    assert not NumericSource.of(frame)._read(slice(0, 5), slice(None)).flags.c_contiguous
    a = encode_frame(frame, method, bins)
    b = encode_frame(as_floats, method, bins, array=block)
    assert np.array_equal(a.X, b.X) and a.categories == b.categories and a.kinds == b.kinds


def reference_mean_std(source: NumericSource, cols: np.ndarray, stats) -> np.ndarray:
    """The former computation: two passes over blocks of every numeric column, sliced to ``cols``."""
    scale = np.fmax(np.abs(stats.lo[cols]), np.abs(stats.hi[cols]))
    scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
    n = source.n_rows - stats.n_missing[cols]
    total, squares = np.zeros(cols.size), np.zeros(cols.size)
    for _, block in source.row_blocks():
        Z = block[:, cols] / scale
        total += np.nansum(Z, axis=0) if stats.n_missing[cols].any() else Z.sum(axis=0)
    mean = total / np.maximum(n, 1)
    for _, block in source.row_blocks():
        dev = block[:, cols] / scale - mean
        squares += np.einsum("ij,ij->j", np.where(np.isnan(dev), 0.0, dev), np.where(np.isnan(dev), 0.0, dev))
    sigma = np.sqrt(squares / np.maximum(n - 1, 1))
    return np.stack([(mean - sigma) * scale, (mean + sigma) * scale], axis=1)


@pytest.mark.slow  # 1.66 s measured (inner loop: unit and not slow)
@pytest.mark.parametrize("m", [2_000, BLOCK_CELLS // 10 + 5])
def test_mean_std_edges_are_bit_identical_to_the_former_passes(m):
    """The codes of a value on an edge must not move: same blocks, same layout, same sums, column by column."""
    frame = mixed(m, seed=4)
    rng = np.random.default_rng(5)
    array = rng.normal(size=(m, 9)) * 1e5 + 3
    for source in (NumericSource.of(frame), NumericSource.of(None, array)):
        stats = scan(source)
        cols = np.flatnonzero(~is_discrete(stats.n_distinct, stats.integral, 3))
        want = reference_mean_std(source, cols, stats)
        assert np.array_equal(_mean_std_blocks(source, cols[::2], stats), want[::2])   # a subset first: cached
        assert np.array_equal(_mean_std_blocks(source, cols, stats), want)
        blocks = list(source.row_blocks(cols=cols))   # the caller's blocks (data_checks.stretched_columns)
        assert np.array_equal(_mean_std_blocks(source, cols, scan(source), blocks), want)


def test_whole_numbers_are_found_past_the_first_rows():
    m = 5_000
    late = np.arange(m, dtype=np.float64)
    late[4_000] = 0.5          # real only after the rows that decide most columns
    frame = pd.DataFrame({"late": late, "ints": pd.array(np.arange(m) % 7, dtype="Int16"),
                          "whole": np.arange(m, dtype=np.float64) % 5, "real": np.linspace(0, 1, m)})
    stats = scan(NumericSource.of(frame))
    assert stats.integral.tolist() == [False, True, True, False]


def test_counts_by_runs_of_columns_are_the_whole_table_counts(monkeypatch):
    """scan counts small-range integers a run of columns at a time (a count table that fits in cache); one run over
    every slot gives the same statistics, and the exact sums of x and x^2 are those of the cells."""
    from fslab.data import column_stats

    rng = np.random.default_rng(7)
    X = rng.integers(0, 1000, size=(3_000, 300)).astype(np.int16)
    X[:, ::7] = rng.integers(-3, 3, size=(3_000, 43))
    X[:, 5] = 0
    source = NumericSource.of(None, X)
    monkeypatch.setattr(column_stats, "GROUP_SLOTS", 1_500)
    runs = scan(source)
    monkeypatch.setattr(column_stats, "GROUP_SLOTS", 1 << 40)
    whole = scan(source)
    for name in ("lo", "hi", "n_distinct", "present", "starts", "sums", "squares", "integral"):
        assert np.array_equal(getattr(runs, name), getattr(whole, name)), name
    assert runs.n_distinct[5] == 1 and runs.n_distinct[0] == 6
    wide = X.astype(np.int64)    # the exact moments come from the count table: value x count, no pass over cells
    counted = runs.small & (runs.hi - runs.lo >= 2)
    assert np.array_equal(runs.sums[counted], wide.sum(axis=0)[counted])
    assert np.array_equal(runs.squares[counted], (wide * wide).sum(axis=0)[counted])


@pytest.mark.slow  # 0.76 s measured (inner loop: unit and not slow)
@SEEDED
@given(st.integers(0, 2**32 - 1), st.integers(20, 90))
def test_profile_from_the_typing_hashing_is_the_plain_profile(seed, m):
    """data_checks.profile of text columns from the typing's (codes, distinct texts) gives the table and sentences
    of factorizing each column again: numbers as text, constant, empty, mostly missing and ID-like columns."""
    from fslab.data.column_types import infer_types
    from fslab.data.data_checks import profile

    rng = np.random.default_rng(seed)
    numbers = rng.integers(0, 9, m).astype(str).astype(object)
    order = rng.permutation(m)
    numbers[order[:m // 7]] = "x"   # ~86 % numbers: text for the typing (< 95 %), flagged (>= 80 %)
    numbers[order[m // 7:m // 7 + m // 10]] = None
    frame = pd.DataFrame({
        "nums": pd.Series(numbers).astype("str"),
        "const": pd.Series(["a"] * m).astype("str"),
        "empty": pd.Series([None] * m, dtype="str"),
        "mostly": pd.Series(np.where(rng.random(m) < 0.7, None, rng.choice(["p", "q"], m))).astype("str"),
        "ids": pd.Series([f"id{i}" for i in rng.permutation(m)]).astype("str"),
        "n": rng.normal(size=m)})
    typed = infer_types(frame, near_unique="keep")
    assert {"nums", "const", "mostly", "ids"} <= set(typed.text_codes)
    got = profile(typed.frame, None, None, typed.text_codes)
    want = profile(typed.frame)
    pd.testing.assert_frame_equal(got[0], want[0])
    assert got[1] == want[1]


def reference_stretched(frame, stats):
    """data_checks.stretched_columns as it was (27.2): float comparisons and one column's quartiles at a time."""
    from fslab.data.data_checks import DISCRETE_MAX, OUTLIER_IQR, STRETCHED, mean_std_block_edges

    source = NumericSource.of(frame, None)
    cols = np.flatnonzero(~is_discrete(stats.n_distinct, stats.integral, 3) & (stats.n_distinct > DISCRETE_MAX))
    if not cols.size:
        return {}
    E = mean_std_block_edges(source, cols, stats)
    low, high = np.zeros(cols.size, dtype=np.int64), np.zeros(cols.size, dtype=np.int64)
    for _, part in source.row_blocks(cols=cols):
        with np.errstate(invalid="ignore"):
            low += (part < E[:, 0]).sum(axis=0)
            high += (part >= E[:, 1]).sum(axis=0)
    n = source.n_rows - stats.n_missing[cols]
    middle = n - low - high
    crowded = np.flatnonzero(np.maximum(np.maximum(low, high), middle) >= STRETCHED * np.maximum(n, 1))
    out, names = {}, [str(c) for c in frame.columns]
    for idx, block in source.column_blocks(cols[crowded]):
        for k, x in zip(idx, block.T, strict=True):
            x = x[~np.isnan(x)] if x.dtype.kind == "f" else x
            q1, q3 = np.percentile(x, [25, 75])
            lo, hi = q1 - OUTLIER_IQR * (q3 - q1), q3 + OUTLIER_IQR * (q3 - q1)
            far = (x < lo) | (x > hi)
            if far.any():
                j = int(source.positions[int(cols[crowded[k]])])
                share = max(low[crowded[k]], middle[crowded[k]], high[crowded[k]]) / max(n[crowded[k]], 1)
                shown = ", ".join(f"{v:g}" for v in np.unique(x[far])[:3]) + (", ..." if far.sum() > 3 else "")
                out[j] = (f"Column {names[j]!r} has {int(far.sum())} outlier(s) ({shown}; "
                          f"beyond [Q1 - 3 IQR, Q3 + 3 IQR] = [{lo:g}, {hi:g}]) that stretch the mean-std bins: "
                          f"{share:.0%} of the rows fall in one bin. Use quantile bins, or fix the values.")
    return out


@pytest.mark.slow  # 0.71 s measured (inner loop: unit and not slow)
@SETTINGS
@given(st.integers(0, 2**32 - 1), st.sampled_from(["int16", "uint16", "int8", "int64", "float64", "mixed"]),
       st.integers(30, 400))
def test_outlier_sentences_are_the_per_column_ones(seed, kind, m):
    """stretched_columns (quartiles of a block at once, integer comparisons for small integers) gives the flags and
    sentences of one column at a time with float comparisons: sparse counts (most rows one value, a few far ones),
    skewed reals, missing values, edges on integer values."""
    from fslab.data.data_checks import column_stats, stretched_columns

    rng = np.random.default_rng(seed)
    sparse = np.where(rng.random((m, 8)) < 0.1, rng.integers(1, 120, (m, 8)), 0)
    if kind == "mixed":
        frame = mixed(m, seed)
        frame["spiky"] = np.where(rng.random(m) < 0.05, rng.normal(50, 5, m), rng.normal(0, 1, m))
        frame.loc[rng.random(m) < 0.1, "spiky"] = np.nan
        frame["counts"] = pd.array(sparse[:, 0], dtype="Int16")
    else:
        frame = pd.DataFrame((sparse - (60 if kind == "int8" else 0)).astype(kind),
                             columns=[f"c{j}" for j in range(8)])
    stats = column_stats(frame)
    def said(out):   # the part of each sentence the reference says (the fences), under mean-std
        return {j: s[:s.index("])") + 2] for j, s in out.items()}

    assert said(stretched_columns(frame, None, stats, "mean-std")) == said(reference_stretched(frame, stats))


def reference_compact(frame):
    """csv_io.compact_numeric's integer case as it was: one int64 interleave of the table, then astype."""
    values = frame.to_numpy(dtype=np.int64)
    dtype = np.result_type(np.min_scalar_type(values.min()), np.min_scalar_type(values.max()))
    return values.astype(dtype, copy=False) if dtype.kind in "biu" else None   # int64 and uint64: the frame kept


@pytest.mark.slow  # 0.48 s measured (inner loop: unit and not slow)
@SETTINGS
@given(st.integers(0, 2**32 - 1), st.lists(st.sampled_from(["int8", "int16", "int32", "int64", "uint8", "uint16",
                                                             "uint32", "bool"]), min_size=1, max_size=6),
       st.sampled_from([0, 1, 2, 300, 70_000, 5_000_000_000]), st.booleans())
def test_compact_integer_tables_are_the_former_matrix(seed, dtypes, scale, negative):
    """One column at a time into the smallest dtype gives the former int64 interleave's values, dtype and layout
    (separate column arrays, as pandas' parser returns them, and one consolidated block)."""
    from fslab.data.csv_io import compact_numeric

    if not any(d != "bool" for d in dtypes):
        dtypes = [*dtypes, "int64"]
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 40))
    cols = {}
    for j, d in enumerate(dtypes):
        if d == "bool":
            cols[f"c{j}"] = rng.random(m) < 0.5
            continue
        info = np.iinfo(d)
        lo = max(info.min, -scale if negative else 0)
        cols[f"c{j}"] = rng.integers(lo, min(info.max, scale) + 1, m).astype(d)
    for frame in (pd.DataFrame(cols), pd.DataFrame(cols).copy()):
        want = reference_compact(frame)
        if want is None:
            assert compact_numeric(frame) is frame
            continue
        got = compact_numeric(frame).to_numpy()
        assert got.dtype == want.dtype and np.array_equal(got, want)
        assert compact_numeric(frame).shape == frame.shape and list(compact_numeric(frame).columns) == list(cols)


@pytest.mark.parametrize("method, bins", [("mean-std", 3), ("quantile", 5), ("uniform", 4)])
def test_bin_names_of_every_column_at_once_are_each_columns(method, bins):
    """encode_frame names the binned columns from one formatting pass over the edges: the names bin_names gives
    each column's finite edges (ties marked +inf dropped), with 'missing' last where a value is missing."""
    from fslab.data.discretize import MISSING, _edges, bin_names, mark_ties

    m = 3_000
    frame = mixed(m, seed=7)
    frame["tied"] = np.where(np.arange(m) < 2_900, 1.5, np.linspace(2, 3, m))   # quantile edges tie at 1.5
    source = NumericSource.of(frame)
    stats = scan(source)
    binned = np.flatnonzero(~is_discrete(stats.n_distinct, stats.integral, bins))
    E = mark_ties(_edges(source, binned, stats, method, bins))
    if method == "quantile":
        assert not np.isfinite(E).all()   # the tie path is exercised
    got = encode_frame(frame, method, bins).categories
    for k, i in enumerate(binned):
        want = bin_names(E[k][np.isfinite(E[k])])
        assert got[i] == ((*want, MISSING) if stats.n_missing[i] else want)
