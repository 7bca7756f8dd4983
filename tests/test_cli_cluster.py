"""Big data from the command line (issue 23.2): `fslab select|npfs PATH --scheduler ADDRESS` with PATH a parquet file,
a directory or a glob of parquet or CSV files, read by the Dask workers and not bound by the upload limits; the
same answers as in memory; from_dask's ID-like columns; bad input as one clear message."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import fslab
import fslab.cluster
from fslab import limits as _limits
from fslab.cli.main import main
from fslab.cluster import SchedulerAddressError, parse_address, probe, usable_scheduler
from fslab.data.dask_read import from_dask, table_files
from fslab.errors import ClusterError, DataError
from tests import dask_cluster

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")
client, dask_client = dask_cluster.client, dask_cluster.dask_client   # one 2-worker LocalCluster per process


def frame(m: int = 3000, seed: int = 0) -> pd.DataFrame:
    """Reals (with missing values), small integers, text levels and a binary target planted on two columns."""
    rng = np.random.default_rng(seed)
    real = rng.normal(size=m)
    real[rng.random(m) < 0.05] = np.nan
    small = rng.integers(0, 4, size=m)
    text = rng.choice(["red", "green", "blue"], size=m)
    y = ((small >= 2) ^ (text == "red") ^ (rng.random(m) < 0.1)).astype(int)
    return pd.DataFrame({"real": real, "skewed": rng.exponential(size=m), "small": small, "text": text,
                         "noise": rng.integers(0, 9, size=m), "y": y})


def write_parts(df: pd.DataFrame, folder, kind: str = "parquet", parts: int = 4) -> None:
    folder.mkdir(exist_ok=True)
    for i, chunk in enumerate(np.array_split(np.arange(len(df)), parts)):
        part = df.iloc[chunk]
        if kind == "parquet":
            part.to_parquet(folder / f"part-{i}.parquet", index=False)
        else:
            part.to_csv(folder / f"part-{i}.csv", index=False)


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def small_limits(monkeypatch):
    """The server's row limit below the data's 3,000 rows (FSLAB_MAX_ROWS, read again by server_limits)."""
    monkeypatch.setenv("FSLAB_MAX_ROWS", "1000")
    _limits.server_limits.cache_clear()
    yield
    monkeypatch.delenv("FSLAB_MAX_ROWS")
    _limits.server_limits.cache_clear()


def same_selection(a: dict, b: dict) -> None:
    assert a["features"] == b["features"] and a["names"] == b["names"]
    # the same counts; the engines sum a score's terms in their own order (as tests/test_dask_source.py allows)
    np.testing.assert_allclose(a["scores"], b["scores"], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(a["criteria"], b["criteria"], rtol=1e-12, atol=1e-15)
    assert a["ties"] == b["ties"]
    assert a["data"]["rows"] == b["data"]["rows"] == 3000


# --- the command line on a LocalCluster --------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_select_reads_a_glob_on_the_workers_beyond_the_limits(client, tmp_path, capsys, monkeypatch, kind):
    """3,000 rows in 4 files with the server's row limit at 1,000: read here, the files are refused (FSLAB_MAX_ROWS);
    read by the workers (--scheduler), the selection is the in-memory one on the same rows, step by step, held out
    by default as in memory (issue 31.2: folds counted on the workers)."""
    df = frame()
    write_parts(df, tmp_path / "data", kind)
    pattern = str(tmp_path / "data" / f"part-*.{kind}")
    opts = ["--target", "y", "--k", "3", "--json", "-q", "--selector", "jmi"]
    _limits.server_limits.cache_clear()
    code, out, err = run(capsys, "select", str(tmp_path / "data"), *opts)
    assert code == 0, err
    local = json.loads(out)
    monkeypatch.setenv("FSLAB_MAX_ROWS", "1000")
    _limits.server_limits.cache_clear()
    try:
        code, _, err = run(capsys, "select", pattern, *opts)
        assert code == 1 and "FSLAB_MAX_ROWS" in err and "Traceback" not in err   # here: the server's limit
        code, out, err = run(capsys, "select", pattern, *opts, "--scheduler", client.scheduler.address)
    finally:
        monkeypatch.delenv("FSLAB_MAX_ROWS")
        _limits.server_limits.cache_clear()
    assert code == 0, err
    cluster = json.loads(out)
    same_selection(cluster, local)
    assert cluster["estimate"] == local["estimate"] == "cross-fitted" and "plug-in" not in err
    in_memory = fslab.select(fslab.Dataset.from_frame(df, "y").discretize(), 3, "jmi", estimate="cross-fitted")
    assert cluster["features"] == list(in_memory.features)


@pytest.mark.slow
def test_the_client_never_reads_the_rows(client, tmp_path, capsys, monkeypatch):
    """With --scheduler, reading rows in this process would fail (pandas' and pyarrow's row readers broken here):
    the workers, other processes, read them; this process reads the parquet footers only."""
    import pyarrow.parquet as pq

    write_parts(frame(m=800, seed=6), tmp_path / "d")

    def refuse(*args, **kwargs):
        raise AssertionError("rows read on the client")

    for module, name in ((pd, "read_parquet"), (pq, "read_table"), (pq.ParquetFile, "read"),
                         (pq.ParquetFile, "read_row_group"), (pq.ParquetFile, "iter_batches")):
        monkeypatch.setattr(module, name, refuse)
    code, out, err = run(capsys, "select", str(tmp_path / "d"), "--target", "y", "--k", "2", "--json", "-q",
                         "--scheduler", client.scheduler.address)
    assert code == 0, err
    assert json.loads(out)["data"]["rows"] == 800


@pytest.mark.slow
def test_one_parquet_file_and_persist(client, tmp_path, capsys):
    """One parquet file (no glob) with --persist: the workers read it once; the same selection as reading it here."""
    df = frame(seed=1)
    df.to_parquet(tmp_path / "one.parquet", index=False)
    opts = ["--target", "y", "--k", "2", "--json", "-q", "--method", "quantile", "--bins", "4"]
    code, out, err = run(capsys, "select", str(tmp_path / "one.parquet"), *opts)
    assert code == 0, err
    code, out2, err = run(capsys, "select", str(tmp_path / "one.parquet"), *opts, "--scheduler",
                          client.scheduler.address, "--persist")
    assert code == 0, err
    same_selection(json.loads(out2), json.loads(out))




@pytest.mark.slow
def test_npfs_on_partitioned_files_routes_to_the_dask_source(client, tmp_path, capsys, monkeypatch):
    """`fslab npfs GLOB --scheduler` hands the workers' DaskSource to fslab.npfs (Poisson bootstraps drawn on the
    workers), not a client-side copy: the counts are fslab.npfs's on the same rows in other partitions (its matrix
    depends on the seed only), held out as in memory (each Dask bootstrap in the original rows' folds)."""
    df = frame(m=1200, seed=2)
    write_parts(df, tmp_path / "d")
    seen = {}
    real_npfs = fslab.cli.commands.npfs

    def spy(source, *args, **kwargs):
        seen["source"] = type(source).__name__
        return real_npfs(source, *args, **kwargs)

    monkeypatch.setattr(fslab.cli.commands, "npfs", spy)
    code, out, err = run(capsys, "npfs", str(tmp_path / "d" / "*.parquet"), "--target", "y", "--k", "2", "--n", "6",
                         "--json", "-q", "--scheduler", client.scheduler.address)
    assert code == 0, err
    assert seen["source"] == "DaskSource" and "plug-in" not in err
    doc = json.loads(out)
    want = fslab.npfs(from_dask(dd.from_pandas(df, npartitions=3, sort=False), "y"), "jmi", 2, n_bootstraps=6,
                      seed=0, estimate="cross-fitted")
    assert doc["data"]["rows"] == 1200 and doc["counts"] == want.counts.tolist() and sum(doc["counts"]) == 12


# --- from_dask: ID-like columns never ship their values; same codes as in memory ---------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("max_levels", [50, 250])
def test_id_like_columns_are_left_out_as_in_memory(client, max_levels):
    """A text ID (every row distinct, more values than max_levels), a row number and an evenly spaced real are left
    out with the in-memory note; the rest is coded as Dataset.from_frame codes it. The ID's 200 values per partition
    are over a cap of 50 in every partition, and under 250 per partition but over it united: either way they are
    counted on the workers as hashes (only the count comes back)."""
    df = frame(m=600, seed=3)
    df.insert(0, "id", [f"cust-{i:05d}" for i in range(600)])
    df.insert(1, "row", np.arange(600))
    df.insert(2, "stamp", 0.5 + 0.25 * np.arange(600))
    with pytest.warns(UserWarning, match="near-unique"):
        enc = fslab.Dataset.from_frame(df, "y").discretize()
    src = from_dask(dd.from_pandas(df, npartitions=3, sort=False), "y", max_levels=max_levels)
    got = src.to_encoded()
    assert src.feature_names == enc.feature_names and "id" not in src.feature_names and "row" not in src.feature_names
    assert "stamp" not in src.feature_names
    np.testing.assert_array_equal(got.X, enc.X)
    np.testing.assert_array_equal(src.arities, enc.arities)
    assert src.categories == enc.categories
    assert any("near-unique" in n and "'id'" in n and "'row'" in n for n in src.notes)
    with pytest.raises(DataError, match=f"more than {max_levels} distinct values"):
        from_dask(dd.from_pandas(df, npartitions=3, sort=False), "y", near_unique="keep", max_levels=max_levels)


def counting_reader(path: str) -> pd.DataFrame:
    """Read one parquet file on a worker, counting the read in a file beside it (workers are other processes)."""
    with open(f"{path}.reads", "a") as fh:
        fh.write("1\n")
    return pd.read_parquet(path)


def reads_of(folder) -> int:
    n = sum(len(f.read_text().splitlines()) for f in folder.glob("*.reads"))
    for f in folder.glob("*.reads"):
        f.unlink()
    return n


@pytest.mark.slow
@pytest.mark.parametrize(("method", "persist", "expected"), [
    # summaries, exact distinct count of 'skewed' (a real that may be evenly spaced), statistics, sums, squares, the
    # outlier sentence's pass (its crowded columns' quartiles and far rows), codes
    ("mean-std", False, 7), ("mean-std", "auto", 2), ("mean-std", True, 1),
    ("quantile", False, 11), ("quantile", "auto", 2),   # summaries, distinct count, statistics, 7 radix passes, codes
])
def test_file_reads_per_method_and_persist(client, tmp_path, method, persist, expected):
    """How often each file is read: the plan's summaries (text distinct counts in them), the exact distinct count of
    a real column that may be an ID, the statistics of the parsed values (with the quantile select's first byte),
    the passes that need its results, the codes; persist="auto" keeps the data in the workers' memory after the
    summaries (it fits), True before them. The codes are the in-memory ones every time."""
    import dask
    import distributed

    df = frame(m=1000, seed=7)
    df.insert(0, "id", [f"c{i}" for i in range(1000)])   # a text ID: counted in the statistics pass
    write_parts(df, tmp_path, parts=4)
    files = sorted(str(f) for f in tmp_path.glob("*.parquet"))
    ddf = dd.from_delayed([dask.delayed(counting_reader)(f) for f in files], meta=df.iloc[:0])
    src = from_dask(ddf, "y", method=method, persist=persist, max_levels=100)
    distributed.wait(src._parts)
    assert reads_of(tmp_path) == expected * len(files)
    with pytest.warns(UserWarning, match="near-unique"):
        enc = fslab.Dataset.from_frame(df, "y").discretize(method)
    np.testing.assert_array_equal(src.to_encoded().X, enc.X)


@pytest.mark.slow
def test_quantile_bins_after_the_fused_first_byte(client):
    """The quantile radix select starts from the statistics pass's first-byte histogram: same codes as in memory,
    on values of both signs and with missing values, in more partitions than rows per partition."""
    df = frame(m=500, seed=4)
    df["signed"] = np.random.default_rng(4).normal(size=500) * 1e3
    enc = fslab.Dataset.from_frame(df, "y").discretize("quantile", 5)
    src = from_dask(dd.from_pandas(df, npartitions=7, sort=False), "y", method="quantile", bins=5, persist=True)
    np.testing.assert_array_equal(src.to_encoded().X, enc.X)
    assert src.categories == enc.categories


# --- bad input: one message, no traceback ------------------------------------------------------------------------

def test_table_files_bad_paths(tmp_path):
    with pytest.raises(DataError, match="no file matches"):
        table_files(str(tmp_path / "*.parquet"))
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.md").write_text("hello")
    with pytest.raises(DataError, match="holds no parquet or CSV files"):
        table_files(str(tmp_path / "empty"))
    with pytest.raises(DataError, match="no such file or directory"):
        table_files(str(tmp_path / "nope.parquet"))
    (tmp_path / "mixed").mkdir()
    frame(m=20).to_parquet(tmp_path / "mixed" / "a.parquet")
    frame(m=20).to_csv(tmp_path / "mixed" / "b.csv")
    (tmp_path / "mixed" / "_SUCCESS").write_text("")
    assert table_files(str(tmp_path / "mixed")) == ("parquet", [str(tmp_path / "mixed" / "a.parquet")])
    with pytest.raises(DataError, match="mixes parquet and CSV"):
        table_files(str(tmp_path / "mixed" / "*.*"))


@pytest.mark.parametrize("address", ["tcp//host:1", "tcp://host:99999", "nonsense://x:1", "tcp://a b:1", ""])
def test_malformed_scheduler_address_is_a_usage_error(capsys, address):
    with pytest.raises(SchedulerAddressError, match="give one like tcp://host:8786"):
        parse_address(address)
    code, out, err = run(capsys, "select", "mushroom", "--scheduler", address)
    assert code == 2 and out == "" and "argument --scheduler:" in err and "Traceback" not in err


def test_persist_needs_a_scheduler(capsys):
    code, out, err = run(capsys, "select", "mushroom", "--persist")
    assert code == 2 and out == "" and "--persist keeps the data in the workers' memory: it needs --scheduler" in err


@pytest.mark.slow
def test_csv_files_that_disagree_on_types(client, tmp_path, capsys):
    """A whole-number column with a missing value or a decimal in a later file is read (as numbers); a column of
    numbers in one file and words in another is one message naming the column, never a traceback."""
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "part-0.csv").write_text("a,b,y\n" + "1,x,0\n2,y,1\n3,x,0\n" * 5)
    (tmp_path / "ok" / "part-1.csv").write_text("a,b,y\n1.5,x,0\n,y,1\n3,x,1\n")
    code, out, err = run(capsys, "select", str(tmp_path / "ok" / "*.csv"), "--json", "-q", "--k", "1",
                         "--scheduler", client.scheduler.address)
    assert code == 0, err
    assert json.loads(out)["data"]["rows"] == 18
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "part-0.csv").write_text("a,b,y\n1,x,0\n2,y,1\n")
    (tmp_path / "bad" / "part-1.csv").write_text("a,b,y\nfoo,x,0\nbar,y,1\n")
    code, out, err = run(capsys, "select", str(tmp_path / "bad"), "--scheduler", client.scheduler.address)
    assert code == 1 and out == "" and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("fslab: error: the Dask workers could not read")
    assert "the files disagree on column types: 'a' is" in err


def test_unreachable_scheduler_and_empty_glob_say_so(capsys, tmp_path):
    code, out, err = run(capsys, "select", "mushroom", "-q", "--scheduler", "tcp://127.0.0.1:9")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err.startswith("fslab: error: cannot reach the Dask scheduler at 'tcp://127.0.0.1:9'")
    code, out, err = run(capsys, "npfs", str(tmp_path / "*.parquet"), "--scheduler", "tcp://127.0.0.1:9")
    assert code == 1 and "no file matches" in err and err.count("\n") == 1   # before any connection is tried
    code, out, err = run(capsys, "select", str(tmp_path), "--scheduler", "tcp://127.0.0.1:9")
    assert code == 1 and "holds no parquet or CSV files" in err
    assert probe("tcp://127.0.0.1:9", timeout=0.5).startswith("nothing answers at 127.0.0.1:9")
    assert usable_scheduler(None) == (None, None)
    address, note = usable_scheduler("tcp://127.0.0.1:9", timeout=0.5)
    assert address is None and "not reachable" in note and "computed on this server instead" in note
    assert issubclass(SchedulerAddressError, ClusterError)


LONG_LABEL = "a" * 64 + ".example.org"   # one DNS label of 64 characters: the IDNA codec refuses it


def test_a_64_character_host_label_is_a_clear_error(capsys, monkeypatch):
    """Issue 32.6: before, socket's IDNA codec raised a raw UnicodeError in the probe, on every NPFS page view."""
    with pytest.raises(SchedulerAddressError, match="its label aaaa.* has 64 characters .at most 63."):
        parse_address(f"tcp://{LONG_LABEL}:8786")
    for bad in ("tcp://a..b:8786", "tcp://" + ".".join(["abc"] * 70)):   # an empty label; 279 characters
        with pytest.raises(SchedulerAddressError, match="the host name is not valid"):
            parse_address(bad)
    assert parse_address("tcp://" + "a" * 63 + ".example.org:1") == ("tcp", "a" * 63 + ".example.org", 1)
    assert "has 64 characters" in probe(LONG_LABEL, timeout=0.2)
    monkeypatch.setenv("FSLAB_DASK_SCHEDULER", LONG_LABEL)   # the app's setting: an operator note, no exception
    used, note = usable_scheduler(fslab.cluster.scheduler_from_env(), timeout=0.2)
    assert used is None and "has 64 characters" in note and "computed on this server instead" in note
    code, out, err = run(capsys, "select", "mushroom", "--scheduler", LONG_LABEL)
    assert code == 2 and out == "" and "has 64 characters" in err and "Traceback" not in err


class Service:
    """A TCP service on 127.0.0.1 that is not a Dask scheduler: it sends ``banner`` (an SSH server's greeting; b""
    sends nothing, as an HTTP server waiting for a request) to each connection, then holds it open."""

    def __init__(self, banner: bytes):
        import socket
        import threading

        self.banner, self.server, self.held = banner, socket.socket(), []
        self.server.bind(("127.0.0.1", 0))
        self.server.listen()
        self.address = f"tcp://127.0.0.1:{self.server.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.held.append(conn)
            conn.sendall(self.banner)

    def close(self):
        self.server.close()
        for conn in self.held:
            conn.close()


@pytest.mark.parametrize(("banner", "says"), [
    (b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n", "is not a Dask scheduler (it answered b'SSH-2.0-'"),
    (b"", "sent no Dask handshake within 0.3 s"),
    (b"\x00" * 8, "is not a Dask scheduler (it answered b'\\x00"),
])
def test_a_service_that_is_not_dask_is_named_as_such(capsys, monkeypatch, banner, says):
    """Issue 32.6: an SSH server's banner read as a Dask message length made the client allocate gigabytes
    ("not enough memory"); a silent service made it wait for its whole timeout. Now the probe reads the 8 bytes a
    scheduler sends unasked and says what answered instead, within the probe's timeout (0.3 s here, connect's
    probe too: the silent service waited its 2 s default)."""
    import time

    monkeypatch.setattr(fslab.cluster, "probe", lambda address, timeout=0.3: probe(address, timeout))
    service = Service(banner)
    try:
        start = time.perf_counter()
        assert says in probe(service.address, timeout=0.3)
        used, note = usable_scheduler(service.address, timeout=0.3)
        assert used is None and says in note
        with pytest.raises(ClusterError, match="not a Dask scheduler") as caught, fslab.cluster.connect(
                service.address):
            pass
        assert "start one with" not in str(caught.value)   # something runs there: no advice to start a scheduler
        assert time.perf_counter() - start < 10
    finally:
        service.close()


@pytest.mark.slow
def test_parquet_without_the_target_column(client, tmp_path, capsys):
    frame(m=50).drop(columns="y").to_parquet(tmp_path / "x.parquet", index=False)
    code, out, err = run(capsys, "select", str(tmp_path / "x.parquet"), "--target", "y", "--scheduler",
                         client.scheduler.address)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err.startswith("fslab: error: target column 'y' is not in the data; the columns are")
    code, out, err = run(capsys, "select", str(tmp_path / "x.parquet"), "--target", "y")   # read here: the same
    assert code == 1 and "target column 'y' is not in the data" in err


def test_local_directory_reads_within_the_limits(tmp_path, capsys, small_limits):
    """Without --scheduler a directory of parquet files is one table read here, so the server's limits hold."""
    df = frame(m=600, seed=5)
    write_parts(df, tmp_path / "d", parts=3)
    code, out, err = run(capsys, "select", str(tmp_path / "d"), "--target", "y", "--k", "2", "--json", "-q",
                         "--estimate", "plug-in")
    assert code == 0, err
    doc = json.loads(out)
    expected = fslab.select(fslab.Dataset.from_frame(df, "y").discretize(), 2)
    assert doc["features"] == list(expected.features) and doc["data"]["rows"] == 600
    write_parts(frame(m=1200), tmp_path / "big", parts=2)
    code, out, err = run(capsys, "select", str(tmp_path / "big"), "--target", "y", "-q")
    assert code == 1 and "FSLAB_MAX_ROWS" in err
