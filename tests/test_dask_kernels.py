"""The DaskSource's partition kernels on Dask's synchronous scheduler (no cluster: the inner loop): the same tables
as CodedSource for mixed arities (a 300-level column included), relabelled and occupied cells; bytes to the client
bounded by the returned tables; Poisson bootstrap weights that do not depend on the partitioning.

The same kernels on a LocalCluster of worker processes: tests/test_dask_source.py and tests/test_npfs_dask.py."""

from __future__ import annotations

import numpy as np
import pytest

import fslab
from fslab.data.encoded import EncodedDataset

dask = pytest.importorskip("dask")
pytest.importorskip("distributed")

from fslab.counting.dask_kernels import poisson_weights  # noqa: E402
from fslab.data.distributed import to_dask_source  # noqa: E402


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def mixed(m: int = 3000, seed: int = 0, widest: int = 300) -> EncodedDataset:
    """A ``widest``-level column, binary, 5- and 17-valued columns; 3 classes, y depending on columns 0, 1 and 6.
    Up to 16 levels the source counts with the in-memory fast engine on each partition, beyond with bincounts."""
    rng = np.random.default_rng(seed)
    X = np.c_[rng.integers(0, widest, m), rng.integers(0, 2, (m, 3)), rng.integers(0, 5, (m, 2)),
              rng.integers(0, 17 if widest > 16 else 16, m)]
    y = (X[:, 0] % 3 + X[:, 1] + (X[:, 6] > 8) + rng.integers(0, 2, m)) % 3
    return EncodedDataset(X, y, labels=[0, 1, 2], arities=X.max(axis=0) + 1)


@pytest.mark.slow  # 0.67 s measured (inner loop: unit and not slow)
@pytest.mark.parametrize(("parts", "widest"), [(1, 300), (4, 300), (7, 300), (3, 16), (5, 3)])
def test_tables_equal_coded_source_for_mixed_arities(parts, widest):
    enc = mixed(widest=widest)
    src = to_dask_source(enc, npartitions=parts)
    # (0, 6): 300 x 17 cells > 3,000 rows, relabelled by their global rank; (0, 6) + a 300-level candidate:
    # more than twice as many padded cells as rows, so only occupied cells come back
    for subset in [(), (1,), (0,), (6, 0), (1, 2, 3), (0, 6, 4), (0, 1, 2, 3, 4, 5)]:
        np.testing.assert_array_equal(src.table(subset).counts, enc.table(subset).counts)
        rest = [j for j in range(enc.n_features) if j not in subset]
        for candidates in (rest, rest[::-1], rest[-1:]):
            got, want = src.extension_tables(subset, candidates).counts, enc.extension_tables(subset, candidates).counts
            assert got.shape == want.shape
            np.testing.assert_array_equal(got, want)


@pytest.mark.slow  # 0.27 s measured (inner loop: unit and not slow)
@pytest.mark.parametrize("widest", [300, 4])
def test_selections_bit_identical_to_the_plain_engine(widest):
    enc = mixed(seed=1, widest=widest)
    src = to_dask_source(enc, npartitions=3)
    for selector in ["bayes-greedy", "jmi", "mrmr", "mi-score", "cmim"]:
        got, want = fslab.select(src, 4, selector), fslab.select(enc, 4, selector, engine="plain")
        assert got.features == want.features
        np.testing.assert_array_equal(got.scores, want.scores)
    for measure in ["log-loss", "mi"]:
        got = fslab.select(src, 4, "bayes-greedy", measure=measure)
        want = fslab.select(enc, 4, "bayes-greedy", measure=measure, engine="plain")
        assert got.features == want.features
        np.testing.assert_array_equal(got.scores, want.scores)


@pytest.mark.parametrize("measure", ["zero-one", "balanced"])
def test_bytes_to_the_client_per_step_at_most_one_count_table(measure):
    """BayesGreedy k=5: each step's bytes are at most the float64 tables of that step's extension batch (the
    padded (B, cells, L) batch CodedSource returns). Before: the occupied-cell code lists per candidate went to
    the client and back (96 MB at 100,000 rows)."""
    rng = np.random.default_rng(2)
    m = 5000   # 30-valued columns: from step 3 on, 900 x 30 padded cells > 2 m, so only occupied cells count
    X = rng.integers(0, 30, size=(m, 10))
    y = ((X[:, 0] + X[:, 3] + X[:, 7] + rng.integers(0, 30, m)) > 58).astype(int)
    enc = EncodedDataset(X, y, labels=[0, 1], arities=np.full(10, 30))
    src = to_dask_source(enc, npartitions=4)
    seen = [0]
    steps: list[int] = []

    def progress(step, total):
        steps.append(src.bytes_received - seen[0])
        seen[0] = src.bytes_received

    got = fslab.select(src, 5, "bayes-greedy", measure=measure, progress=progress)
    assert got.features == fslab.select(enc, 5, "bayes-greedy", measure=measure, engine="plain").features
    assert len(steps) == 5 and min(steps) > 0
    for t, received in enumerate(steps):
        subset = list(got.features[:t])
        rest = [j for j in range(10) if j not in subset]
        assert received <= enc.extension_tables(subset, rest).counts.nbytes


def test_poisson_weights_depend_on_the_row_and_key_only():
    w = poisson_weights(200_000, 0, key=12345, mean=1.0)
    np.testing.assert_array_equal(w[50_000:50_100], poisson_weights(100, 50_000, key=12345, mean=1.0))
    assert abs(w.mean() - 1) < 0.01 and abs(w.var() - 1) < 0.02   # Poisson(1): mean = variance = 1
    assert abs((w == 0).mean() - np.exp(-1)) < 0.005                # P(N = 0) = e^-1 = 0.368
    assert not np.array_equal(w[:1000], poisson_weights(1000, 0, key=12346, mean=1.0))
    half = poisson_weights(200_000, 0, key=7, mean=0.5)
    assert abs(half.mean() - 0.5) < 0.01


def test_poisson_weights_are_the_portable_row_hash_ones():
    """The SQL engines' weights: row i of key 2^40 + 3 (key_hi = 256, key_lo = 3) weighs #{k : u_i >= T_k},
    u_i = hash(256, 3, i), recomputed here with Python integers from the definition in fslab.row_hash."""
    from fslab import row_hash as rh

    def h(*values):
        x = rh.START
        for v in values:
            x = ((x + v % rh.P) * rh.MULT) % rh.P
            x = (x * x + rh.ADD) % rh.P
            x = (x * rh.MULT2) % rh.P
            x = (x * x + rh.ADD) % rh.P
        return x

    key = (1 << 40) + 3
    thresholds = [int(t) for t in rh.poisson_thresholds(1.0)]
    want = [sum(h(256, 3, i) >= t for t in thresholds) for i in range(1000, 1050)]
    np.testing.assert_array_equal(poisson_weights(50, 1000, key, 1.0), want)


def test_bootstrap_tables_do_not_depend_on_the_partitioning():
    enc = mixed(m=2000, seed=3)
    two, five = to_dask_source(enc, npartitions=2), to_dask_source(enc, npartitions=5)
    a, b = two.bootstrap(99), five.bootstrap(99)
    w = poisson_weights(enc.n_rows, 0, 99, 1.0)
    for subset in [(), (2,), (0, 6)]:
        np.testing.assert_array_equal(a.table(subset).counts, b.table(subset).counts)
        rest = [j for j in range(enc.n_features) if j not in subset]
        np.testing.assert_array_equal(a.extension_tables(subset, rest).counts,
                                      b.extension_tables(subset, rest).counts)
    # the weighted table is the in-memory table of the rows repeated w_i times
    rows = np.repeat(np.arange(enc.n_rows), w.astype(int))
    np.testing.assert_array_equal(a.table([1, 4]).counts, enc.subsample(rows).table([1, 4]).counts)
    np.testing.assert_array_equal(two.table([1, 4]).counts, enc.table([1, 4]).counts)   # the parent is unweighted
    with pytest.raises(fslab.ParameterError, match="mean row weight"):
        two.bootstrap(1, mean=0)


def test_partition_counter_reports_its_arrays_to_the_scheduler():
    """dask.sizeof of a partition's counter is its arrays' bytes (not a plain object's few bytes), so the scheduler
    moves the small cell codes to the counter's worker rather than the counter (codes, value bits) to the codes."""
    from dask.sizeof import sizeof

    from fslab.counting.dask_kernels import fast_counter

    X = np.zeros((20_000, 30), dtype=np.uint8)
    counter = fast_counter((X, np.zeros(20_000, dtype=np.int8)), np.full(30, 2), np.array([0, 1]))
    assert sizeof(counter) >= X.nbytes + counter.y.nbytes + counter._value_bits().nbytes


def test_a_table_asked_again_costs_no_round_trip(monkeypatch):
    """The tables a source fetched are kept (read-only): asked again, the same table and no byte to the client; a
    bootstrap or folded view counts its own; beyond _TABLE_BYTES the least recently used table goes."""
    from fslab.data import distributed

    enc = mixed(m=400, widest=3)
    src = to_dask_source(enc, npartitions=3)
    first = src.table([0, 1])
    np.testing.assert_array_equal(first.counts, enc.table([0, 1]).counts)
    seen = src.bytes_received
    assert src.table((0, 1)) is first and src.bytes_received == seen
    assert not first.counts.flags.writeable   # a caller writing into a kept table fails instead of corrupting it
    batch = src.extension_tables([0], [1, 2])
    seen = src.bytes_received
    assert src.extension_tables((0,), (1, 2)) is batch and src.bytes_received == seen
    assert src.extension_tables([0], [2, 1]) is not batch   # another order is another batch
    boot = src.bootstrap(7)
    weighted = boot.table([0, 1])
    assert weighted is not first and boot.bytes_received > 0 and weighted.counts.sum() != first.counts.sum()
    assert src.folded(2, 0).table([0, 1]).counts.shape[-1] == 2 * 3   # (cell, fold x class)
    small = to_dask_source(enc, npartitions=3)   # room for one table: asking a second drops the first
    monkeypatch.setattr(distributed, "_TABLE_BYTES", small.table([1, 2]).counts.nbytes)
    small.table([2, 1])
    seen = small.bytes_received
    assert small.table([2, 1]) is small.table([2, 1]) and small.bytes_received == seen
    small.table([1, 2])
    assert small.bytes_received > seen
    seen = small.bytes_received
    small.extension_tables([1], [2, 3])   # larger than the room: given, not kept
    assert small.extension_tables([1], [2, 3]) is not small.extension_tables([1], [2, 3])
    assert small.table([1, 2]) is small.table([1, 2])   # and the kept one stays


def test_several_tables_in_one_round_trip(monkeypatch):
    """``tables``: backward elimination's C(J minus j) for every j of J asked at once: the tables ``table`` gives,
    fetched in one compute (the kept ones in none)."""
    from fslab.data import distributed

    enc = mixed(m=400, widest=3)
    src = to_dask_source(enc, npartitions=3)
    src.table([0, 2])   # kept: not fetched again
    computes: list[int] = []
    compute = distributed._compute
    monkeypatch.setattr(distributed, "_compute", lambda dask, obj: computes.append(1) or compute(dask, obj))
    kept = np.array([0, 1, 2, 5])
    subsets = [kept[kept != j] for j in kept] + [np.array([0, 2])]
    got = src.tables(subsets)
    assert len(computes) == 1
    for subset, table in zip(subsets, got, strict=True):
        np.testing.assert_array_equal(table.counts, enc.table(list(subset)).counts)
    assert src.tables(subsets[:2]) == got[:2] and len(computes) == 1


def test_backward_removals_on_dask_fetch_their_tables_in_one_round_trip(monkeypatch):
    """A table measure's removals(kept) on a DaskSource: C(kept minus j) for every j from one compute (the
    evaluator asks ``tables``), equal to memory's."""
    from fslab.data import distributed
    from fslab.measures import measure

    enc = mixed(m=400, widest=3)
    src = to_dask_source(enc, npartitions=3)
    computes: list[int] = []
    compute = distributed._compute
    monkeypatch.setattr(distributed, "_compute", lambda dask, obj: computes.append(1) or compute(dask, obj))
    kept = [0, 1, 2, 5]
    got = measure("zero-one").on(src).removals(kept)
    assert len(computes) == 1
    np.testing.assert_allclose(got, measure("zero-one").on(enc, engine="plain").removals(kept), rtol=0, atol=1e-12)


def test_tables_too_large_to_keep_are_fetched_once(monkeypatch):
    """``tables`` gives a table it may not keep (larger than the room) from its one compute, not from another."""
    from fslab.data import distributed

    enc = mixed(m=400, widest=3)
    src = to_dask_source(enc, npartitions=3)
    monkeypatch.setattr(distributed, "_TABLE_BYTES", 0)   # no room: nothing is kept
    computes: list[int] = []
    compute = distributed._compute
    monkeypatch.setattr(distributed, "_compute", lambda dask, obj: computes.append(1) or compute(dask, obj))
    subsets = [[0, 1], [0, 2], [1, 2]]
    got = src.tables(subsets)
    assert len(computes) == 1
    for subset, table in zip(subsets, got, strict=True):
        np.testing.assert_array_equal(table.counts, enc.table(subset).counts)
