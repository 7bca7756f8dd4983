"""fslab.distributed on a local two-process Dask cluster: the same codes, count tables, selections (features,
scores, ties, traces) and Bayes values as in memory; a killed worker never gives a wrong answer; the command
line's --scheduler gives the same output as without it."""

from __future__ import annotations

import inspect
import os
import signal
import sys

import numpy as np
import pandas as pd
import pytest

import fslab
from fslab.cluster import connect
from fslab.data.dask_read import from_dask
from fslab.data.distributed import (
    ClusterError,
    DaskMissingError,
    DaskSource,
    require_dask,
    to_dask_source,
)
from tests import dask_cluster

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
pytestmark = pytest.mark.slow  # a LocalCluster of two worker processes: about 2 min under load

# Selectors that read per-row values a count table does not carry (declared ``needs_rows``): refused with a
# ParameterError on partitioned codes. mRMR runs there: its pair tables are (X_f, X_j, Y) tables summed over Y.
NEEDS_ROWS = {
    "fisher": "the Fisher score is built from raw values and per-class moments of every row, not from a count table",
    "precision-greedy": "its criterion multiplies each row's per-feature predictors (not a joint-table function)",
    "recall-greedy": "as precision-greedy: per-row products of per-feature predictors",
}
ROW_MEASURES = {"precision", "recall"}   # the same per-row criteria, as measures
PLAIN = "engine" in inspect.signature(fslab.select).parameters   # the evaluation seam's oracle, once it exists


client, dask_client = dask_cluster.client, dask_cluster.dask_client   # one 2-worker LocalCluster per process


def random_frame(seed: int, m: int = 400) -> pd.DataFrame:
    """Every column kind the discretiser distinguishes: reals with missing values, few and many integers, a wide
    integer range with few values, two-valued reals, text with missing values, a constant; a 3-class target."""
    rng = np.random.default_rng(seed)
    real = rng.normal(size=m)
    real[rng.random(m) < 0.1] = np.nan
    return pd.DataFrame({
        "real": real,
        "skewed": rng.exponential(size=m),
        "small_int": rng.integers(0, 5, size=m),
        "many_int": rng.integers(0, 60, size=m),
        "wide_int": rng.choice([0, 100_000, 250_000], size=m),
        "two_reals": rng.choice([0.25, 7.5], size=m),
        "text": pd.Series(rng.choice(["b", "a", "c", None], size=m), dtype=object),
        "constant": np.ones(m),
        "target": rng.integers(0, 3, size=m),
    })


def sample_frame(name: str, n_features: int) -> tuple[pd.DataFrame, str, str | None]:
    ds = fslab.load_sample(name)
    frame = ds.to_frame()
    return frame[list(ds.feature_names[:n_features]) + [ds.target]], ds.target, ds.positive


CASES = [("mushroom", 10, 4), ("splice", 12, 3), ("waveform", 21, 8)]


def pair(frame, target, positive, parts, method="mean-std", bins=3):
    enc = fslab.Dataset.from_frame(frame, target, positive=positive).discretize(method, bins)
    src = from_dask(dd.from_pandas(frame, npartitions=parts, sort=False), target, positive=positive,
                    method=method, bins=bins)
    return enc, src


def assert_same_codes(enc, src: DaskSource) -> None:
    got = src.to_encoded()
    np.testing.assert_array_equal(got.X, enc.X)
    np.testing.assert_array_equal(got.y, enc.y)
    np.testing.assert_array_equal(src.arities, enc.arities)
    np.testing.assert_array_equal(src.labels, enc.labels)
    assert src.categories == enc.categories
    assert src.class_names == enc.class_names and src.task == enc.task
    assert src.n_rows == enc.n_rows and src.feature_names == enc.feature_names


@pytest.mark.parametrize("method", ["mean-std", "quantile", "uniform"])
def test_codes_equal_in_memory(client, method):
    cases = CASES if method == "mean-std" else CASES[2:]   # mushroom and splice have no real-valued column
    for name, n, parts in cases:
        frame, target, positive = sample_frame(name, n)
        assert_same_codes(*pair(frame, target, positive, parts, method))
    frame = random_frame(0)
    frame.loc[frame.index[::37], "target"] = np.nan   # rows with a missing target are dropped, as in memory
    assert_same_codes(*pair(frame, "target", None, 3, method, bins=4))
    assert_same_codes(*pair(random_frame(1), "target", "2", 8, method, bins=4))   # one-vs-rest
    rng = np.random.default_rng(4)   # all-int16 columns: discretize takes exact integer moments for mean-std
    ints = pd.DataFrame(rng.integers(-3000, 3000, size=(300, 3)).astype(np.int16), columns=["a", "b", "c"])
    ints["y"] = rng.integers(0, 2, size=300).astype(np.int16)
    assert_same_codes(*pair(ints, "y", None, 4, method))


def test_tables_equal_in_memory_including_relabelled_cells(client):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.integers(0, 3, size=(60, 8)), columns=[f"f{j}" for j in range(8)])
    frame["y"] = rng.integers(0, 2, size=60)
    enc, src = pair(frame, "y", None, 5)
    # 3^5 = 243 cells > 60 rows: CodedSource keeps only the occupied ones, numbered by their global rank
    for subset in [(), (0,), (4, 1), (0, 1, 2, 3, 4), (7, 6, 5, 4, 3, 2, 1)]:
        np.testing.assert_array_equal(src.table(subset).counts, enc.table(subset).counts)
        rest = [j for j in range(8) if j not in subset]
        if rest:
            np.testing.assert_array_equal(src.extension_tables(subset, rest).counts,
                                          enc.extension_tables(subset, rest).counts)
    assert src.bytes_received > 0


def reference(enc, k, selector, **kw):
    """The in-memory selection; with the seam's plain engine when select() has one (bit-identical arithmetic)."""
    if PLAIN:
        return fslab.select(enc, k, selector, engine="plain", **kw), True
    return fslab.select(enc, k, selector, **kw), False


def assert_same_selection(got, want, exact: bool) -> None:
    assert got.features == want.features and got.names == want.names
    cols = [c for c in want.trace.columns if c != "value"]
    pd.testing.assert_frame_equal(got.trace[cols], want.trace[cols])
    if exact:
        np.testing.assert_array_equal(got.scores, want.scores)
        np.testing.assert_array_equal(got.trace["value"], want.trace["value"])
    else:   # the in-memory fast engine sums mixed cells in another order: equal up to rounding
        np.testing.assert_allclose(got.scores, want.scores, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(got.trace["value"], want.trace["value"], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("case", ["mushroom", "random"])
def test_every_selector_equals_in_memory(client, case):
    if case == "mushroom":
        frame, target, positive = sample_frame("mushroom", 6)   # 6 binary columns: backward 6+5+4 tables, not 8+...+4
        enc, src = pair(frame, target, positive, 4)
    else:   # three-valued features with ties between equal columns
        rng = np.random.default_rng(5)
        X = rng.integers(0, 3, size=(500, 6))
        X[:, 4] = X[:, 1]   # a duplicate column: candidates tie at every step, the lower index wins
        frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(6)])
        frame["y"] = (X[:, 1] + X[:, 2] + rng.integers(0, 2, size=500) > 2).astype(int)
        enc, src = pair(frame, "y", None, 6)
    for name, spec in fslab.SELECTORS.items():
        if name in NEEDS_ROWS:
            assert spec.needs_rows
            with pytest.raises(fslab.ParameterError, match="needs the rows in memory"):
                fslab.select(src, 3, name)
            continue
        measures = ["zero-one", "log-loss", "auc"] if spec.uses_measure and not spec.fixed_measure else [None]
        for measure in measures:
            kw = {} if measure is None else {"measure": measure}
            want, exact = reference(enc, 3, name, **kw)
            assert_same_selection(fslab.select(src, 3, name, **kw), want, exact)
    want, exact = reference(enc, 3, "bayes-greedy", s=2)
    assert_same_selection(fslab.select(src, 3, "bayes-greedy", s=2), want, exact)


def test_bayes_value_every_measure_equals_in_memory(client):
    frame, target, positive = sample_frame("splice", 10)
    enc, src = pair(frame, target, positive, 5)
    multi = random_frame(2)
    menc, msrc = pair(multi, "target", None, 3)
    for name in fslab.MEASURES:
        if name in ROW_MEASURES:
            with pytest.raises(fslab.ParameterError, match="needs the rows in memory"):
                fslab.bayes_value(src, [0, 1], name)
            continue
        for subset in [[0], [3, 1], [0, 2, 5, 7]]:
            assert fslab.bayes_value(src, subset, name) == fslab.bayes_value(enc, subset, name)
        if not fslab.MEASURES[name].binary_only:   # 0-1, balanced, log-loss, mi, squared and a cost matrix on 3
            params = {"c": [[0, 1, 2], [1, 0, 1], [4, 1, 0]]} if name == "cost-sensitive" else {}   # classes
            assert fslab.bayes_value(msrc, [2, 6], name, **params) == fslab.bayes_value(menc, [2, 6], name, **params)


def test_array_pair_and_shipped_codes(client):
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(7)
    X = rng.integers(0, 2, size=(3000, 5)).astype(np.uint8)
    y = (X[:, 0] ^ X[:, 3]).astype(np.int64)
    src = fslab.Dataset.from_dask(da.from_array(X, chunks=(700, 5)), da.from_array(y, chunks=700))
    enc = fslab.Dataset.from_arrays(X, y).discretize()
    assert_same_codes(enc, src)
    shipped = to_dask_source(enc, npartitions=4)
    for j in range(5):
        np.testing.assert_array_equal(shipped.extension_tables([j], [i for i in range(5) if i != j]).counts,
                                      enc.extension_tables([j], [i for i in range(5) if i != j]).counts)


def test_bad_input_and_missing_dask(client, monkeypatch):
    frame = random_frame(0)
    ddf = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(fslab.DataError, match="not in the data"):
        from_dask(ddf, "nope")
    with pytest.raises(fslab.DataError, match="dask.dataframe"):
        from_dask(frame, "target")
    with pytest.raises(fslab.ParameterError, match="method"):
        from_dask(ddf, "target", method="kmeans")
    monkeypatch.setitem(sys.modules, "distributed", None)   # as if dask[distributed] were not installed
    with pytest.raises(DaskMissingError, match=r"pip install 'fslab\[dask\]'"):
        require_dask()
    with pytest.raises(DaskMissingError):
        fslab.Dataset.from_dask(ddf, "target")


def test_command_line_scheduler_gives_the_same_answer(client, capsys):
    """`fslab npfs adult --k 10 --n N --scheduler ADDRESS` prints exactly what the local run prints; `fslab select`
    on the cluster counts on the workers and prints the same. (That ``import fslab`` and its command line never
    import dask: tests/test_import.py, in a fresh interpreter.)"""
    from fslab.cli.main import main

    address = client.scheduler.address
    for command, says in ((["npfs", "adult", "--k", "10", "--n", "4", "-q"], "relevant"),
                          (["select", "mushroom", "--k", "4", "-q"], "odor")):
        outputs = []
        for extra in (["--scheduler", address], []):
            assert main([*command, *extra]) == 0
            outputs.append(capsys.readouterr().out)
        assert outputs[0] == outputs[1] and says in outputs[0], command
    with pytest.raises(ClusterError, match="cannot reach the Dask scheduler"):
        with connect("tcp://127.0.0.1:9", timeout="1s"):
            pass


def test_worker_killed_mid_run_same_answer_or_clear_error(client):
    """Kill one worker process after the first greedy step: Dask recomputes the lost partitions from their lineage
    (the answer must be the in-memory one) or the run stops with a ClusterError; never a different selection."""
    rng = np.random.default_rng(11)
    X = rng.integers(0, 3, size=(20_000, 12))
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(12)])
    frame["y"] = ((X[:, 0] + X[:, 5] + X[:, 9] + rng.integers(0, 3, size=20_000)) > 4).astype(int)
    enc, src = pair(frame, "y", None, 6)
    want, exact = reference(enc, 5, "bayes-greedy")
    victim = {"pid": None}

    def kill_after_first_step(step, total):
        if step == 1 and victim["pid"] is None:
            pids = client.run(os.getpid)
            victim["pid"] = sorted(pids.values())[0]
            os.kill(victim["pid"], signal.SIGKILL)

    try:
        got = fslab.select(src, 5, "bayes-greedy", progress=kill_after_first_step)
    except ClusterError as err:
        assert "Dask cluster" in str(err)
    else:
        assert_same_selection(got, want, exact)
    assert victim["pid"] is not None


def test_app_npfs_on_the_scheduler_from_the_environment(client, monkeypatch):
    """The app reads FSLAB_DASK_SCHEDULER when it runs NPFS (not at import) and gets the same result there."""
    from fslab.cluster import SCHEDULER_ENV, cluster_note, npfs_on, scheduler_from_env

    monkeypatch.delenv(SCHEDULER_ENV, raising=False)
    assert scheduler_from_env() is None and cluster_note(None) is None
    monkeypatch.setenv(SCHEDULER_ENV, f" {client.scheduler.address} ")
    address = scheduler_from_env()
    assert address == client.scheduler.address and address in cluster_note(address)
    data = fslab.load_sample("mushroom")
    here = fslab.npfs(data, "mi-score", 4, n_bootstraps=6, seed=3)
    there = npfs_on(address, data, "mi-score", 4, n_bootstraps=6, seed=3)
    np.testing.assert_array_equal(there.matrix, here.matrix)
    np.testing.assert_array_equal(there.relevant, here.relevant)


def test_mixed_arities_with_a_300_level_column_on_worker_processes(client):
    """uint16 partitions (a 300-level column) counted by bincounts, the 2- to 16-valued part by the fast engine's
    partition counters (pickled to the worker processes): CodedSource's tables and the plain engine's selections,
    bit for bit; the occupied-cell path (more padded cells than rows) merged on the workers."""
    from fslab.data.encoded import EncodedDataset

    rng = np.random.default_rng(8)
    m = 4000
    X = np.c_[rng.integers(0, 300, m), rng.integers(0, 2, (m, 3)), rng.integers(0, 5, (m, 2)), rng.integers(0, 16, m)]
    y = ((X[:, 0] % 2) + X[:, 1] + (X[:, 6] > 7) + rng.integers(0, 2, m) >= 2).astype(int)
    wide = EncodedDataset(X, y, labels=[0, 1], arities=X.max(axis=0) + 1)
    narrow = EncodedDataset(X[:, 1:], y, labels=[0, 1], arities=X[:, 1:].max(axis=0) + 1)
    for enc in (wide, narrow):
        src = to_dask_source(enc, npartitions=5, client=client)
        for subset in [(), (1,), (0, 5) if enc is wide else (0, 5, 4)]:
            rest = [j for j in range(enc.n_features) if j not in subset]
            np.testing.assert_array_equal(src.extension_tables(subset, rest).counts,
                                          enc.extension_tables(subset, rest).counts)
        for selector in ("bayes-greedy", "jmi"):
            want, _ = reference(enc, 4, selector)
            assert_same_selection(fslab.select(src, 4, selector), want, True)
