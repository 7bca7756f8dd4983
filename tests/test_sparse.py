"""Sparse input (issue 27.1): scipy.sparse matrices are counted from their non-zeros, zero being one level.

The differential tests hold the sparse engine to the dense path: the same raw matrix loaded densely and sparsely
gives the same partition of the rows per feature (mean +- std bins, two-valued columns kept), so every selector
picks the same features, ties included (the lowest index among values within 1e-12 relative).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import fslab
from fslab.data.encoded import EncodedDataset
from fslab.data.sparse import SparseDataset, encode_sparse
from fslab.data.sparse_io import read_sparse, read_svmlight
from fslab.errors import DataError, ParameterError

CASES = [("mi-greedy", "mi"), ("jmi", "mi"), ("mrmr", "mi"), ("cmim", "mi"), ("mi-score", "mi"),
         ("bayes-greedy", "zero-one"), ("bayes-greedy", "log-loss"), ("bayes-greedy", "balanced"),
         ("bayes-greedy", "auc"), ("bayes-greedy", "f-beta"), ("bayes-greedy", "cost-sensitive"),
         ("bayes-score", "zero-one")]


def text_like(m: int = 500, n: int = 60, seed: int = 0, classes: int = 2) -> tuple[sp.csr_matrix, np.ndarray]:
    """Counts-like floats: most columns 5 % dense, every tenth 95 % dense with larger values (so mu - sigma > 0:
    three levels), some columns informative, two duplicated columns (exact ties) and one all-zero column."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, m)
    density = np.where(np.arange(n) % 10 == 0, 0.95, 0.05)
    lift = np.where(np.arange(n) % 7 == 1, 3.0, 1.0)
    p = np.minimum(density[None, :] * np.where(y[:, None] == 1, lift[None, :], 1.0), 0.95)
    mask = rng.random((m, n)) < p
    shape = np.where(np.arange(n) % 10 == 0, 6.0, 2.0)
    values = np.round(rng.gamma(shape, 1.3, (m, n)) + 0.01, 3) * mask
    values[:, 5] = values[:, 8]  # duplicated columns: exact ties
    values[:, 12] = 0.0
    values[:, 13] = mask[:, 13]  # presence column
    return sp.csr_matrix(values), y


@pytest.mark.slow  # 0.26 s measured (inner loop: unit and not slow)
@pytest.mark.parametrize("selector, measure", CASES)
def test_sparse_selects_as_dense_from_raw(selector, measure):
    X, y = text_like()
    sparse = fslab.Dataset.from_arrays(X, y)
    dense = fslab.Dataset.from_arrays(X.toarray(), y).discretize()
    assert isinstance(sparse, SparseDataset)
    a = fslab.select(sparse, 8, selector, measure=measure)
    b = fslab.select(dense, 8, selector, measure=measure)
    assert a.features == b.features
    np.testing.assert_allclose(a.scores, b.scores, rtol=1e-9, atol=1e-12)
    assert list(a.trace["n_tied"]) == list(b.trace["n_tied"])


@pytest.mark.parametrize("selector, measure", [("mi-greedy", "mi"), ("jmi", "mi"), ("mrmr", "mi"),
                                               ("bayes-greedy", "zero-one"), ("bayes-greedy", "auc")])
def test_sparse_codes_as_dense_codes_multiclass_and_plain_engine(selector, measure):
    X, y = text_like(m=400, n=40, seed=3, classes=3)
    sparse = fslab.Dataset.from_arrays(X, y)
    dense = EncodedDataset(sparse.codes.toarray(), sparse.y, labels=sparse.labels, arities=sparse.arities)
    if measure == "auc":
        sparse, dense = (fslab.Dataset.from_arrays(X, (y == 1).astype(int)),
                         EncodedDataset(sparse.codes.toarray(), (y == 1).astype(int), arities=sparse.arities))
    picks = {fslab.select(src, 7, selector, measure=measure, engine=engine).features
             for src in (sparse, dense) for engine in ("auto", "plain")}
    assert len(picks) == 1


def test_mean_std_codes_partition_as_the_papers_encoding():
    """tools/make_samples.py's mean_std_codes (0 below mu - sigma, 1 inside, 2 at or above mu + sigma, ddof=1):
    the sparse codes give the same partition of the rows in every column, with zero's bin as code 0."""
    X, _ = text_like(m=300, n=30, seed=5)
    D = X.toarray()
    mu, sigma = D.mean(axis=0), D.std(axis=0, ddof=1)
    paper = (D >= mu - sigma).astype(int) + (D >= mu + sigma)
    codes, arities = encode_sparse(sp.csc_matrix(X), "mean-std")
    C = codes.toarray()
    for j in range(D.shape[1]):
        if np.unique(D[:, j][D[:, j] > 0]).size <= 1:
            continue  # presence columns (the dense path keeps two-valued columns as they are)
        pairs = set(zip(paper[:, j].tolist(), C[:, j].tolist(), strict=True))
        assert len(pairs) == len({p for p, _ in pairs}) == len({c for _, c in pairs})  # a bijection of levels
        assert C[:, j][D[:, j] == 0].max(initial=0) == 0
    assert arities.max() == 3 and C.max() == 2


def test_hand_counted_table():
    """Rows (x, y): (0,0) (0,1) (2,1) (5,1) (0,0) with presence codes: the table of X is
    zero cell: 2 of class 0, 1 of class 1; non-zero cell: 0 and 2."""
    X = sp.csr_matrix(np.array([[0.0], [0.0], [2.0], [5.0], [0.0]]))
    d = fslab.Dataset.from_arrays(X, np.array([0, 1, 1, 1, 0])).discretize("presence")
    np.testing.assert_array_equal(d.table([0]).counts, [[2, 1], [0, 2]])
    np.testing.assert_array_equal(d.extension_tables([], [0]).counts[0], [[2, 1], [0, 2]])


def test_bad_input_is_a_clear_data_error():
    X = sp.csr_matrix(np.array([[1.0, 0.0], [0.0, -2.0], [3.0, 0.0]]))
    with pytest.raises(DataError, match="negative"):
        fslab.Dataset.from_arrays(X, np.array([0, 1, 0]))
    X = sp.csr_matrix(np.array([[1.0, 0.0], [0.0, np.nan], [3.0, 0.0]]))
    with pytest.raises(DataError, match="non-finite"):
        fslab.Dataset.from_arrays(X, np.array([0, 1, 0]))
    X = sp.csr_matrix(np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0]]))
    with pytest.raises(DataError, match="shape"):
        fslab.Dataset.from_arrays(X, np.array([0, 1]))
    with pytest.raises(ParameterError):
        fslab.Dataset.from_arrays(X, np.array([0, 1, 0])).discretize("quantile")


def test_never_densified(monkeypatch):
    """No code path calls toarray / todense on the user's matrix or the codes."""
    X, y = text_like(m=300, n=30)

    def refuse(*args, **kwargs):
        raise AssertionError("densified")

    for cls in (sp.csr_matrix, sp.csc_matrix):
        monkeypatch.setattr(cls, "toarray", refuse)
        monkeypatch.setattr(cls, "todense", refuse)
    d = fslab.Dataset.from_arrays(X, y)
    for selector in ("mi-greedy", "jmi", "mrmr", "bayes-greedy"):
        fslab.select(d, 5, selector)


def test_svmlight_and_npz(tmp_path):
    from sklearn.datasets import dump_svmlight_file

    X, y = text_like(m=200, n=20)
    path = tmp_path / "data.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    a = read_svmlight(path)
    assert a.shape == (200, 20) and a.feature_names[0] == "f1"
    assert fslab.read_svmlight(path).feature_names == a.feature_names
    npz = tmp_path / "data.npz"
    sp.save_npz(npz, sp.csr_matrix(X))
    b = read_sparse(npz, y=y)
    assert fslab.select(a, 5, "jmi").features == fslab.select(b, 5, "jmi").features
    with pytest.raises(DataError, match="no target"):
        read_sparse(npz)


def test_feature_selector_takes_sparse():
    X, y = text_like(m=300, n=30)
    fs = fslab.FeatureSelector("jmi", k=5).fit(X, y)
    dense = fslab.select(fslab.Dataset.from_arrays(X, y), 5, "jmi")
    assert tuple(fs.features_) == dense.features
    out = fs.transform(X)
    assert sp.issparse(out) and out.shape == (300, 5)


def test_npfs_takes_sparse():
    X, y = text_like(m=200, n=20)
    sparse = fslab.Dataset.from_arrays(X, y)
    dense = fslab.Dataset.from_arrays(X.toarray(), y).discretize()
    a = fslab.npfs(sparse, "jmi", k=3, n_bootstraps=8, seed=1, counting="resample")
    b = fslab.npfs(dense, "jmi", k=3, n_bootstraps=8, seed=1, counting="resample")
    np.testing.assert_array_equal(a.matrix, b.matrix)


def test_subsample_and_pickle():
    import pickle

    X, y = text_like(m=200, n=20)
    d = fslab.Dataset.from_arrays(X, y)
    rows = np.array([0, 0, 5, 7, 199])
    sub = d.subsample(rows)
    np.testing.assert_array_equal(sub.codes.toarray(), d.codes.toarray()[rows])  # test-side only
    again = pickle.loads(pickle.dumps(d))
    assert fslab.select(again, 4, "jmi").features == fslab.select(d, 4, "jmi").features


def test_wide_sparse_lazy_cmim_and_mrmr_as_dense():
    """300 features: CMIM is lazy there (a few candidates at a time, through the sparse source's own tables); the
    picks and tie counts equal the dense engine's on the same codes."""
    X, y = text_like(m=400, n=300, seed=7)
    sparse = fslab.Dataset.from_arrays(X, y)
    dense = EncodedDataset(sparse.codes.toarray(), sparse.y, labels=sparse.labels, arities=sparse.arities)
    for selector in ("cmim", "mrmr", "jmi"):
        a, b = fslab.select(sparse, 12, selector), fslab.select(dense, 12, selector)
        assert a.features == b.features
        assert list(a.trace.groupby("step")["n_tied"].first()) == list(b.trace.groupby("step")["n_tied"].first())


@pytest.mark.parametrize("merge_pure", [True, False])
def test_sparse_counter_counts_as_the_dense_engine(merge_pure):
    """Engine level: the tables of J + {j} (as joint tables, cells in any order), the mixed-cell sums and mRMR's
    feature-pair tables of the sparse counter equal the dense fast engine's on the same codes."""
    from fslab.counting.dense import FastCounter
    from fslab.counting.sparse import SparseCounter
    from fslab.measures.log_loss import SPEC as LOG_LOSS
    from fslab.measures.zero_one import SPEC as ZERO_ONE

    X, y = text_like(m=300, n=25, seed=11, classes=3)
    sparse = fslab.Dataset.from_arrays(X, y)
    dense = EncodedDataset(sparse.codes.toarray(), sparse.y, labels=sparse.labels, arities=sparse.arities)
    a, b = SparseCounter(sparse, merge_pure), FastCounter(dense, merge_pure)
    cand = np.array([0, 2, 3, 9, 13, 20, 24])
    for subset in ([], [3], [3, 10], [10, 3, 20], [0, 1, 2, 4, 5]):
        ta, tb = a.extension_counts(subset, cand), b.extension_counts(subset, cand)
        for i in range(cand.size):  # same multiset of non-empty cells
            rows_a = sorted(map(tuple, ta[i][ta[i].sum(axis=1) > 0].tolist()))
            rows_b = sorted(map(tuple, tb[i][tb[i].sum(axis=1) > 0].tolist()))
            assert rows_a == rows_b
        if merge_pure:
            for spec in (ZERO_ONE, LOG_LOSS):
                np.testing.assert_allclose(a.cell_sums(subset, spec.mixed_cells, {}),
                                           b.cell_sums(subset, spec.mixed_cells, {}), rtol=1e-12, atol=1e-9)
    for f in (0, 3, 10):
        np.testing.assert_array_equal(a.pair_counts(f, cand), b.pair_counts(f, cand))


def test_encoding_by_blocks_is_the_same(monkeypatch):
    """Blocks of whole columns (here about 97 non-zeros each) give the codes of one pass."""
    from fslab.data import sparse_codes as module

    X, _ = text_like(m=300, n=40, seed=13)
    whole = encode_sparse(sp.csc_matrix(X), "mean-std")
    monkeypatch.setattr(module, "_ENCODE_ENTRIES", 97)
    blocks = encode_sparse(sp.csc_matrix(X), "mean-std")
    assert (whole[0] != blocks[0]).nnz == 0 and np.array_equal(whole[1], blocks[1])


def test_discretize_reencodes_and_missing_targets_drop():
    X, y = text_like(m=200, n=20)
    d = fslab.Dataset.from_arrays(X, y)
    presence = d.discretize("presence")
    assert presence.method == "presence" and d.discretize() is d
    np.testing.assert_array_equal(presence.codes.toarray() > 0, X.toarray() > 0)  # test-side only
    y_missing = y.astype(float)
    y_missing[[3, 7]] = np.nan
    e = fslab.Dataset.from_arrays(X, y_missing)
    assert e.n_rows == 198 and any("dropped" in note for note in e.notes)
    assert e.discretize("presence").n_rows == 198


# --- validation before any conversion (issue 32.4) ------------------------------------------------------------
# Only inputs scipy cannot crash on run in this process; the corrupt files that did crash it (an index past the
# shape, a negative one) run in subprocesses: tests/test_upload_hostile.py.


def test_every_scipy_format_of_a_valid_matrix_passes_the_structure_check():
    from fslab.data.sparse_codes import check_structure

    dense = np.array([[0, 2, 0], [1, 0, 3], [0, 0, 0], [4, 0, 0]], dtype=float)
    for fmt in ("csr", "csc", "coo", "bsr", "lil", "dok", "dia"):
        check_structure(sp.csr_matrix(dense).asformat(fmt))
    assert fslab.Dataset.from_arrays(sp.coo_matrix(dense), np.array([0, 1, 0, 1])).shape == (4, 3)


def test_duplicate_entries_are_added_up():
    """(row 0, column 1) stored twice with 1 and 2: one entry of 3, as scipy's sum_duplicates does."""
    from fslab.data.sparse_codes import check_sparse

    X = sp.csr_matrix((np.array([1.0, 2.0, 5.0]), np.array([1, 1, 0]), np.array([0, 2, 3])), shape=(2, 2))
    csc = check_sparse(X)
    assert csc.toarray().tolist() == [[0.0, 3.0], [5.0, 0.0]] and csc.nnz == 2
    assert X.nnz == 3   # the caller's matrix untouched


@pytest.mark.parametrize(("mutate", "fragment"), [
    (lambda X: setattr(X, "indptr", X.indptr[:-1]), "needs an indptr of 5 entries (one per row + 1); got 4"),
    (lambda X: setattr(X, "indptr", np.array([0, 1, 3, 3, 3], dtype=np.int32)), "indptr ends at 3 but there are 2"),
    (lambda X: setattr(X, "indices", X.indices.astype(float)), "needs 1-d integer indptr and indices"),
])
def test_inconsistent_index_arrays_are_data_errors(mutate, fragment):
    from fslab.data.sparse_codes import check_structure

    X = sp.csr_matrix((np.ones(2), np.array([0, 2]), np.array([0, 1, 2, 2, 2])), shape=(4, 3))
    mutate(X)
    with pytest.raises(DataError, match=fragment.replace("(", r"\(").replace(")", r"\)").replace("+", r"\+")):
        check_structure(X)


def test_a_coo_index_out_of_range_is_a_data_error():
    from fslab.data.sparse_codes import check_structure

    X = sp.coo_matrix((np.ones(2), (np.array([0, 1]), np.array([0, 1]))), shape=(2, 2))
    X.col = np.array([0, 9], dtype=np.int32)   # as a hand-made matrix can hold
    with pytest.raises(DataError, match=r"\(COO\) has a column index outside 0 \.\. 1"):
        check_structure(X)


def test_the_column_count_is_checked_before_names_are_made(monkeypatch):
    """10^7 empty columns under limits: refused from the shape, no name made (check_names never called)."""
    import fslab.data.data_checks as checks
    from fslab.limits import Limits

    monkeypatch.setattr(checks, "check_names", lambda names: pytest.fail("names made before the size check"))
    X = sp.csr_matrix((np.ones(1), np.array([0]), np.array([0, 1, 1])), shape=(2, 10_000_000))
    with pytest.raises(fslab.TooLargeError, match="the data has 10,000,001 columns; the limit is 2,000 columns"):
        fslab.Dataset.from_arrays(X, np.array([0, 1]), limits=Limits())
