"""JointTable and CodedSource: hand-checked counts, batching, compression, marginalisation."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fslab.data.distributions import Distribution, example1
from fslab.errors import DataError, ParameterError
from fslab.tables import CodedSource, JointTable

# 6 rows, two features (arities 2 and 3), binary y.
X = np.array([[0, 0], [0, 1], [1, 2], [1, 2], [0, 0], [1, 1]])
Y = np.array([0, 1, 1, 1, 0, 0])


def source():
    return CodedSource(X, [2, 3], [0, 1], y=Y, feature_names=["a", "b"])


def test_table_of_one_feature_counts_by_hand():
    # feature a: value 0 on rows 0,1,4 (y = 0,1,0); value 1 on rows 2,3,5 (y = 1,1,0)
    np.testing.assert_array_equal(source().table([0]).counts, [[2, 1], [1, 2]])


def test_table_of_pair_uses_mixed_radix_cells():
    # cells (a,b) -> code a*3+b: (0,0):y0,y0  (0,1):y1  (1,2):y1,y1  (1,1):y0 ; more cells (6) than rows? no: 6 = 6
    counts = source().table([0, 1]).counts
    assert counts.sum() == 6
    assert sorted(map(tuple, counts[counts.sum(axis=1) > 0].tolist())) == [(0, 1), (0, 2), (1, 0), (2, 0)]


def test_empty_subset_is_the_class_marginal():
    np.testing.assert_array_equal(source().table([]).counts, [[3, 3]])


def test_extension_tables_equal_single_tables():
    src = source()
    batch = src.extension_tables([0], [1])
    single = src.table([0, 1]).counts
    got = batch.counts[0]
    # same multiset of non-empty rows (cell order may differ after compression)
    assert sorted(map(tuple, got[got.sum(1) > 0].tolist())) == sorted(map(tuple, single[single.sum(1) > 0].tolist()))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(1, 60), st.integers(0, 10_000))
def test_batched_tables_match_one_by_one(n_features, m, seed):
    rng = np.random.default_rng(seed)
    arities = rng.integers(1, 4, size=n_features)
    Xr = rng.integers(0, arities, size=(m, n_features))
    yr = rng.integers(0, 3, size=m)
    src = CodedSource(Xr, arities, [0, 1, 2], y=yr)
    base = [0] if n_features > 1 else []
    cands = [j for j in range(n_features) if j not in base]
    batch = src.extension_tables(base, cands)
    for i, j in enumerate(cands):
        one = src.table(base + [j]).counts
        got = batch.counts[i]
        assert got.sum() == m
        key = lambda c: sorted(map(tuple, c[c.sum(1) > 0].tolist()))  # noqa: E731
        assert key(got) == key(one)


def test_distribution_marginal_of_example1():
    # P(X1=1) = 0.3*0.4 + 0.7*0.1 = 0.19; P(X1=1, Y=1) = 0.12
    t = example1().table([0])
    np.testing.assert_allclose(t.probabilities(), [[0.63, 0.18], [0.07, 0.12]])
    np.testing.assert_allclose(t.eta(), [0.18 / 0.81, 0.12 / 0.19])


def test_weighted_extension_tables_match():
    d = example1()
    np.testing.assert_allclose(d.extension_tables([0], [1]).counts[0], d.table([0, 1]).counts)


def test_joint_table_validates_itself():
    with pytest.raises(ParameterError):
        JointTable(np.array([[1.0, -1.0]]), [0, 1])
    with pytest.raises(ParameterError):
        JointTable(np.zeros((2, 2)), [0, 1])
    with pytest.raises(ParameterError):
        JointTable(np.ones((2, 3)), [0, 1])


def test_coded_source_rejects_bad_codes():
    with pytest.raises(DataError):
        CodedSource(np.array([[0], [2]]), [2], [0, 1], y=[0, 1])
    with pytest.raises(DataError):
        CodedSource(np.array([[0.5]]), [2], [0, 1], y=[0])
    with pytest.raises(ParameterError):
        source().table([0, 0])


def test_compression_keeps_counts_when_cells_exceed_rows():
    rng = np.random.default_rng(0)
    Xr = rng.integers(0, 10, size=(50, 12))   # 10**12 possible cells, 50 rows
    src = CodedSource(Xr, [10] * 12, [0, 1], y=rng.integers(0, 2, size=50))
    codes, n_cells = src.cell_codes(list(range(12)))
    assert n_cells <= 50 and codes.max() < n_cells
    assert src.table(list(range(12))).counts.sum() == 50


def test_distribution_rejects_bad_probabilities():
    with pytest.raises(DataError):
        Distribution([[0], [1]], [[0.5, -0.1], [0.3, 0.3]])
    with pytest.raises(DataError):
        Distribution.from_json("{not json")


def test_extension_tables_of_distinct_per_row_columns_stay_linear_in_rows():
    """Issue 18: two text columns with a different value in every row made (rows^2 x classes x candidates)
    tables. Only occupied cells are kept now, and every measure gives the same value as the padded table."""
    from fslab.measures import measure

    rng = np.random.default_rng(0)
    m = 600
    X = np.column_stack([rng.permutation(m), rng.permutation(m), rng.integers(0, 3, m)])
    src = CodedSource(X, [m, m, 3], np.array([0, 1]), y=rng.integers(0, 2, m))
    occupied = src.extension_tables([0], [1, 2])
    assert occupied.counts.shape == (2, m, 2)           # padded would be (2, m * m, 2): 1.1 GB at m = 6,000
    assert occupied.counts.sum(axis=(1, 2)).tolist() == [m, m]
    for name in ("mi", "zero-one", "log-loss"):
        for k, j in enumerate((1, 2)):
            m_ = measure(name)
            assert np.isclose(m_.value(occupied[k]), m_.value(src.table([0, j]))), name
