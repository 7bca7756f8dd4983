"""SQL engines for the tests: Ibis connections to DuckDB (embedded), SQLite (a file) and a real PostgreSQL server.

The PostgreSQL server is Debian's ``postgresql`` binaries (``.ci/run`` installs the package when missing): ``initdb``
in a temporary directory, ``pg_ctl start`` on a free port of 127.0.0.1 (its socket in the same directory), stopped
and deleted after the session. PostgreSQL refuses to run as root, so as root it runs as the ``postgres`` user
(``runuser``). Tests on it are marked ``slow`` (they start a process).

Use in a test module::

    from tests import sql_engines
    from tests.sql_engines import ENGINES, load

    engine, postgres_server = sql_engines.engine, sql_engines.postgres_server   # the fixtures

    @pytest.mark.parametrize("engine", ENGINES, indirect=True)
    def test_x(engine):
        table = load(engine, "t", frame)   # the frame's rows with a row_id column 0..n-1 (their order)
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid

import numpy as np
import pandas as pd
import pytest

ENGINES = ["duckdb", "sqlite", pytest.param("postgres", marks=pytest.mark.slow)]
ROW_ID = "row_id"


def postgres_bin() -> str | None:
    """The directory of Debian's PostgreSQL server binaries (initdb, pg_ctl), or None when not installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return os.path.dirname(found[-1])
    initdb = shutil.which("initdb")
    return os.path.dirname(os.path.realpath(initdb)) if initdb else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    """A throw-away PostgreSQL cluster on 127.0.0.1:``port`` (user ``postgres``, trust authentication)."""

    def __init__(self, bindir: str):
        self.bindir = bindir
        self.dir = tempfile.mkdtemp(prefix="fslab-pg-")
        self.data = os.path.join(self.dir, "data")
        self.port = _free_port()
        self.as_user: list[str] = []
        self._shared: str | None = None
        if os.geteuid() == 0:   # "initdb: cannot be run as root": the postgres user of Debian's package
            user = pwd.getpwnam("postgres")
            os.chown(self.dir, user.pw_uid, user.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]

    def _run(self, *argv: str, timeout: float = 120) -> None:
        subprocess.run([*self.as_user, *argv], check=True, capture_output=True, timeout=timeout)

    def start(self) -> PostgresServer:
        self._run(os.path.join(self.bindir, "initdb"), "-D", self.data, "-U", "postgres", "-A", "trust",
                  "--no-sync", "-E", "UTF8", "--locale", "C")
        options = (f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c shared_buffers=16MB -c max_connections=20")
        self._run(os.path.join(self.bindir, "pg_ctl"), "-D", self.data, "-o", options, "-l",
                  os.path.join(self.dir, "log"), "-w", "-t", "120", "start", timeout=180)
        return self

    def stop(self) -> None:
        try:
            self._run(os.path.join(self.bindir, "pg_ctl"), "-D", self.data, "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def connect(self, database: str = "postgres"):
        import ibis

        return ibis.postgres.connect(host="127.0.0.1", port=self.port, user="postgres", database=database)

    def _admin(self, sql: str, database: str = "postgres") -> None:
        import psycopg

        with psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname=database,
                             autocommit=True) as con:
            con.execute(sql)

    def test_database(self) -> str:
        """The database the tests share, made on first use: each test's tables are dropped after it
        (:meth:`empty`), 0.03-0.1 s, where a database of its own took 0.3 s to create (a copy of template1)."""
        if self._shared is None:
            self._shared = self.create_database()
        return self._shared

    def empty(self, name: str) -> None:
        """Drop everything a test left in the database ``name``: its other sessions ended, the public schema made
        anew (a TEMPORARY table ends with its session)."""
        self._admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND pid <> pg_backend_pid(); DROP SCHEMA public CASCADE; CREATE SCHEMA public", name)

    def create_database(self) -> str:
        """A new empty database."""
        name = f"t_{uuid.uuid4().hex}"
        self._admin(f'CREATE DATABASE "{name}"')
        return name

    def drop_database(self, name: str) -> None:
        self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


_SERVER: list[PostgresServer] = []   # the session's server, whichever test module asks first


@pytest.fixture(scope="session")
def postgres_server():
    """One PostgreSQL server for the test session (skipped where Debian's postgresql package is missing). Each
    module that imports this fixture has its own definition of it, so the server is kept here: one start per
    session (2-5 s on a loaded machine), not one per module; stopped at the session's end."""
    pytest.importorskip("psycopg")
    bindir = postgres_bin()
    if bindir is None:
        pytest.skip("Debian's postgresql package is not installed (.ci/run installs it)")
    if not _SERVER:
        _SERVER.append(PostgresServer(bindir).start())
    try:
        yield _SERVER[0]
    finally:   # session-scoped: torn down after the last test, so the first module's teardown stops it
        if _SERVER:
            _SERVER.pop().stop()


@pytest.fixture
def engine(request, tmp_path):
    """An Ibis connection to the engine named by the test's parameter: "duckdb", "sqlite" or "postgres"."""
    ibis = pytest.importorskip("ibis")
    name = request.param
    if name == "duckdb":
        con = ibis.duckdb.connect()
    elif name == "sqlite":
        con = ibis.sqlite.connect(str(tmp_path / "data.sqlite"))
    else:
        server = request.getfixturevalue("postgres_server")
        database = server.test_database()
        con = server.connect(database)
    yield con
    con.disconnect()
    if name == "postgres":
        server.empty(database)   # the next test starts from an empty database: table names never collide


def load(con, name: str, frame: pd.DataFrame):
    """The frame stored as table ``name`` in the engine with a ``row_id`` column 0..n-1 first (the rows' order), as
    an Ibis table. Numbers and text only (what the tests need); NaN in a float column is stored as NULL."""
    frame = frame.copy()
    frame.insert(0, ROW_ID, np.arange(len(frame), dtype=np.int64))
    backend = con.name
    if backend == "duckdb":   # through DuckDB's own API: Ibis 12 cannot drop its pandas view on DuckDB 2.0
        view = f"_load_{uuid.uuid4().hex}"
        con.con.register(view, frame)
        con.con.execute(f'CREATE TABLE "{name}" AS SELECT * FROM "{view}" ORDER BY {ROW_ID}')
        con.con.unregister(view)
    elif backend == "sqlite":
        frame.to_sql(name, con.con, index=False)
        con.con.commit()
    else:
        con.create_table(name, frame.astype({c: object for c in frame.columns if frame[c].dtype == object}))
    return con.table(name)
