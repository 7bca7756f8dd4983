"""A table held by a SQL engine as a table source: every count table is one ``GROUP BY`` in the engine.

:func:`fslab.data.sql_read.from_sql` turns a table (a parquet or CSV path read by embedded DuckDB, or any Ibis
table expression: Postgres, BigQuery, Snowflake, Spark, ...) into a :class:`SqlSource` whose ``codes`` expression
holds one small-integer code column per feature and the class index ``y``, computed in the engine from cut points
fslab chose (mean and std, order statistics or categories, from SQL aggregates).

``table(J)`` asks ``SELECT c_J..., y, COUNT(*) GROUP BY c_J..., y`` and ``extension_tables(J, candidates)`` asks
one query per step: the ``UNION ALL`` of one ``GROUP BY c_J..., c_j, y`` per candidate (on the stored codes,
measured 100x faster than one scan with a ``COUNT(*) FILTER (WHERE c_j = v)`` per candidate value once a
300-level column is among the candidates). Only the occupied (cell, class) counts come back; the cells are
numbered on the client exactly as :meth:`fslab.tables.CodedSource.cell_codes` numbers rows (mixed radix, relabelled
by rank among the occupied codes once cells outnumber rows), so every table, measure and selection equals the
in-memory one.

Held out, :meth:`SqlSource.folded` stores the codes once more with the class index ``fold * L + y``, the folds
:func:`fslab.row_hash.folds` computed in the engine (:mod:`fslab.counting.sql_count`), so each step is the plug-in's
one ``GROUP BY`` over a table of the same size; NPFS's bootstraps (:meth:`SqlSource.bootstrap`) sum the
:func:`fslab.row_hash.poisson_weights` of the rows (``SUM(w)`` for ``COUNT(*)``), the weights Dask gives the same
rows.

Ibis (``pip install 'fslab[sql]'``) compiles the codes' SQL once per source and stores tables; the count queries are
plain SQL over it (an Ibis expression per candidate took longer to build and compile than the engine took to count:
Adult's 123 candidates, 1.4 s a step). Importing this module needs no Ibis.
"""

from __future__ import annotations

import re
import uuid
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from ..counting.sql_count import check_folds_and_seed, check_key_and_mean, folded_sql, ranked, weighted_sql
from ..errors import FslabError, ParameterError
from ..tables import JointTable, check_subset

COMPOUND = 250   # SELECTs per UNION ALL at most (SQLite allows 500)
_PLAIN_TABLE = re.compile(r'^SELECT \* FROM ((?:(?:"[^"]+"|`[^`]+`|\w+)\.)*(?:"[^"]+"|`[^`]+`|\w+))$')   # a table


class SqlError(FslabError, RuntimeError):
    """The SQL engine could not run a query (a file it cannot parse past its first rows, a lost connection, a
    dropped table)."""


@contextmanager
def engine_errors(what: str) -> Iterator[None]:
    """The engine's own errors, whatever their types, become one :class:`SqlError` saying what could not be done and
    the first line of the engine's message; fslab's own errors pass."""
    try:
        yield
    except FslabError:
        raise
    except Exception as err:   # each engine raises its own types
        first = (str(err).strip().splitlines() or [""])[0][:300]
        raise SqlError(f"the SQL engine could not {what}: {type(err).__name__}: {first}") from None


def fetch(expr, what: str = "count"):
    """Run an Ibis expression as a pyarrow table; the engine's own errors become one :class:`SqlError`."""
    with engine_errors(what):
        return expr.to_pyarrow()


def _backend(t) -> str:
    try:
        return t.get_backend().name
    except Exception:   # an unbound table
        return "unknown engine"


def _drop(backend, name: str) -> None:
    try:
        backend.drop_table(name, force=True)
    except Exception:   # Ibis 12's DROP on DuckDB 2 renders no name: say it in the engine's own SQL
        backend.raw_sql(f'DROP TABLE IF EXISTS "{name}"')


def _distinct_rows(columns: list[np.ndarray], radix) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(np.column_stack(columns), axis=0, return_inverse=True)`` (rows sorted lexicographically): through
    one int64 per row, the mixed-radix code of its values (column i below ``radix[i]``: the same order), when the
    codes fit; a sort of int64 instead of one of the rows as bytes (measured 6.1 s of a 7 s held-out step at 200,000
    rows)."""
    if float(np.prod(np.asarray(radix, dtype=np.float64))) >= 2.0**62:
        groups, rows = np.unique(np.column_stack(columns), axis=0, return_inverse=True)
        return groups, rows.ravel()
    code = np.zeros(columns[0].shape[0], dtype=np.int64)
    for column, a in zip(columns, radix, strict=True):
        code *= int(a)
        code += column
    _, first, rows = np.unique(code, return_index=True, return_inverse=True)
    return np.column_stack([column[first] for column in columns]), rows.ravel()


def code_column(j: int) -> str:
    """Name of feature j's code column in the coded table (``c0``, ``c1``, ...; the target's class is ``y``)."""
    return f"c{j}"


def fold_cells(tuples: np.ndarray, arities: Sequence[int] | np.ndarray, n_rows: int) -> tuple[np.ndarray, int]:
    """Cell codes of occupied value tuples (rows x features) and the number of cells, by CodedSource's rule:
    ``code = code * a_j + x_j``; once the cells outnumber ``n_rows``, codes become their rank among the occupied
    ones. Ranks among the distinct occupied tuples equal ranks among the rows that hold them."""
    codes = np.zeros(tuples.shape[0], dtype=np.int64)
    n_cells = 1
    for i, a in enumerate(arities):
        codes = codes * int(a) + tuples[:, i]
        n_cells *= int(a)
        if n_cells > max(n_rows, 1):
            uniques, codes = np.unique(codes, return_inverse=True)
            codes, n_cells = codes.astype(np.int64).ravel(), int(uniques.size)
    return codes, n_cells


class SqlSource:
    """A discretised sample whose rows stay in a SQL engine (a TableSource): count tables come from ``GROUP BY``.

    Not a :class:`~fslab.tables.CodedSource` (no rows on the client), so selectors use the generic table path and
    refuse the selectors that read rows. ``queries`` counts the queries run and ``bytes_received`` the bytes of
    their results (count tables only).

    Held-out estimates (:meth:`folded`) and NPFS's bootstrap weights (:meth:`bootstrap`) depend on the order of the
    rows: ``row_id`` names a column of ``codes`` that orders them (unique; any sortable type). Without it the order
    is the ``rowid`` of the ``stored`` table of codes on DuckDB and SQLite (the order ``from_sql`` read the rows
    in: the file's order for CSV and parquet); PostgreSQL and most warehouses keep no row order, so there the held-out
    estimate and NPFS ask for a ``row_id``.
    """

    def __init__(self, codes, n_rows: int, arities, labels, feature_names, *, class_names=(), task="binary",
                 target="y", categories=None, kinds=(), notes=(), stored: str | None = None,
                 row_id: str | None = None, plan=None):
        self.codes = codes
        self.plan = plan   # the fslab.data.plan.TablePlan the table was read by (from_sql)
        self.stored = stored
        self.row_id = row_id
        self._weighted = False       # a bootstrap view: its codes hold each row's weight w
        self._boot: tuple[int, float] | None = None
        self._root: SqlSource | None = None   # a bootstrap view's source (which owns the temporary tables)
        self._numbered: SqlSource | None = None   # the codes with the 0-based row index ``i`` (for bootstraps)
        self._table = ""             # the name of the temporary table of codes a derived source counts
        self._ranked = False         # that table has ``_j``, each row's rank in its class (a training fold)
        self._folded: dict[tuple[int, int], SqlSource] = {}
        self._temp: list[str] = []   # temporary tables this source stored (dropped by close())
        self._classes: np.ndarray | None = None   # table([]): the class counts
        self._codes_sql: tuple | None = None   # (codes, their SQL): compiled once
        self._quoted: dict[str, str] = {}   # names quoted for the engine
        self.n_rows = int(n_rows)
        self.arities = np.asarray(arities, dtype=np.int64)
        self.labels = np.asarray(labels)
        self.feature_names = tuple(str(n) for n in feature_names)
        self.class_names = tuple(class_names)
        self.task = task
        self.target = target
        self.categories = categories
        self.kinds = tuple(kinds)
        self.notes = tuple(notes)
        self.queries = 0
        self.bytes_received = 0

    @property
    def n_features(self) -> int:
        return self.arities.size

    @property
    def shape(self) -> tuple[int, int]:
        return self.n_rows, self.n_features

    @property
    def is_sample(self) -> bool:
        """Observed rows (plug-in estimates from counts / m), not an exact law."""
        return True

    def discretize(self, *args, **kwargs) -> SqlSource:
        """Already encoded: itself, so a SqlSource stands wherever a Dataset can."""
        return self

    @property
    def bootstrap_key(self) -> tuple[int, float] | None:
        """(key, mean) of this view's Poisson row weights (:meth:`bootstrap`), None for the plain counts."""
        return self._boot

    def _order_key(self, required: bool = True):
        """The expression that orders the rows (the row order every fold and bootstrap weight depends on): the
        ``row_id`` column when given, else the ``rowid`` of the table of codes that ``from_sql`` stored on DuckDB or
        SQLite (the order in which the source's rows were read). PostgreSQL and most warehouses have no stable
        row id: there a ``row_id`` column is required (``required=False``: None instead of the refusal)."""
        if self.row_id is not None:
            return self.codes[self.row_id]
        if self.stored is not None and _backend(self.codes) in ("duckdb", "sqlite"):
            return self.codes.rowid()
        if not required:
            return None
        raise ParameterError(
            f"held-out folds and bootstrap weights depend on the order of the rows, and this {_backend(self.codes)} "
            "source has no stable row order (PostgreSQL and most warehouses keep none; DuckDB and SQLite keep one for "
            "the codes from_sql stores): name a column that numbers the rows (a unique id or timestamp), "
            "SqlSource(..., row_id='column'), or use the in-sample estimate")

    def _store(self, expr, what: str):
        """``expr`` stored as a temporary table of the engine (dropped by :meth:`close`): (its Ibis table, name)."""
        name = f"fslab_{what}_{uuid.uuid4().hex}"
        try:
            table = self.codes.get_backend().create_table(name, expr, temp=True)
        except Exception as err:
            raise SqlError(f"the engine could not store the {what} in a temporary table ({type(err).__name__}: "
                           f"{(str(err).splitlines() or [''])[0][:200]})") from None
        self._temp.append(name)
        return table, name

    def _derived(self, codes, labels, row_id: str | None) -> SqlSource:
        return SqlSource(codes, self.n_rows, self.arities, labels, self.feature_names, class_names=self.class_names,
                         task=self.task, target=self.target, categories=self.categories, kinds=self.kinds,
                         notes=self.notes, row_id=row_id)

    def folded(self, n_folds: int, seed: int) -> SqlSource:
        """The same rows with class index ``fold * L + y`` and labels tiled per fold (the cross-fitted evaluator's
        count-only seam, :class:`fslab.measures.cross_fit.FoldCounting`): folds of :func:`fslab.row_hash.folds`
        computed in the engine (:func:`fslab.counting.sql_count.folded_sql`) over this source's row order, stored
        once per (folds, seed) as a temporary table of codes (and ``i``, each row's index), so each step's
        ``GROUP BY`` costs what the plug-in's does. On a bootstrap view: the source's folds of the ORIGINAL rows,
        each row counted with its weight (as the in-memory copies of a drawn row keep its fold; NPFS held out)."""
        n_folds, seed = check_folds_and_seed(n_folds, seed)
        if (n_folds, seed) not in self._folded:
            if self._weighted:
                assert self._root is not None and self._boot is not None   # a view of its root source
                base = self._root.folded(n_folds, seed)
                view = self._root._derived(None, base.labels, "i")
                view.codes = self._root._weigh(base, *self._boot, owner=view)
                view._weighted, view._boot, view._root = True, self._boot, self._root
                self._folded[n_folds, seed] = view
            else:
                self._folded[n_folds, seed] = self._fold(n_folds, seed)
        return self._folded[n_folds, seed]

    def _fold(self, n_folds: int, seed: int) -> SqlSource:
        import ibis

        columns = self._code_columns()
        if self._ranked:   # a training fold's stored rows carry their ranks already
            ranks, name = self.codes, self._table
        else:
            rows = self.codes.select(*columns, i=ibis.row_number().over(order_by=self._order_key()).cast("int64"))
            ranks, name = self._store(ranked(rows, "i"), "ranks")
        backend = self.codes.get_backend()
        kept = [*columns[:-1], "i"]
        sql = folded_sql(name, kept, n_folds, seed, self.labels.shape[0])
        schema = {c: ranks.schema()[c] for c in kept} | {"y": "int32"}
        codes, stored = self._store(backend.sql(sql, schema=schema, dialect="postgres"), "folds")
        if not self._ranked:
            self._temp.remove(name)
            _drop(backend, name)   # the ranks, once the folds are stored
        out = self._derived(codes, np.tile(self.labels, n_folds), "i")
        out._table = stored
        return out

    def training_folds(self, n_folds: int, seed: int) -> Iterator[SqlSource]:
        """Fold f's training rows (every row but fold f's) as a source of their own, for f = 0 .. n_folds - 1, one at
        a time: the folds of :meth:`folded` (:func:`fslab.row_hash.folds` in this source's row order), the class
        index back to y and the rows in this source's order (``i``). So a selection on them, plug-in or held out
        inside (:meth:`folded` of the training rows), is the one on the in-memory rows ``rows[fold != f]``
        (:func:`fslab.robustness.cv_selections`). Each is stored as a temporary table (each step's SQL then names
        one table, as the source's own steps do: compiled over the filter, a step took 0.1 s of Ibis) that its
        ``close()`` drops. The class index ``fold * L + y`` goes back to y without division (Ibis divides through
        a float): fold = #{g = 1 .. F - 1 : fold * L + y >= g L}, a CASE per g (PostgreSQL casts no boolean to
        bigint). The stored rows carry their own index ``i`` (0-based in this order) and ``_j``, their rank in their
        class (:func:`fslab.counting.sql_count.ranked`), so held out inside, :meth:`folded` stores one table, not
        two."""
        import ibis

        n_folds, seed = check_folds_and_seed(n_folds, seed)
        if self._weighted:
            raise ParameterError("the training folds of a bootstrap view are not defined; call it on the source")
        folded = self.folded(n_folds, seed)
        L = self.labels.shape[0]
        per_fold = np.asarray(folded.table([]).counts, dtype=np.int64).reshape(n_folds, L).sum(axis=1)
        t = folded.codes
        for f in range(n_folds):
            rows = t.filter((t.y < f * L) | (t.y >= (f + 1) * L))
            fold = sum((rows.y >= g * L).ifelse(1, 0) for g in range(1, n_folds))
            back = rows.select(*self._code_columns()[:-1], "i", y=(rows.y - fold * L).cast("int32"))
            local = back.select(*self._code_columns()[:-1], "y",
                                i=ibis.row_number().over(order_by=back.i).cast("int64"))
            codes, name = self._store(ranked(local, "i"), "train")
            self._temp.remove(name)
            train = self._derived(codes, self.labels, "i")
            train._table, train._temp, train._ranked = name, [name], True
            train.n_rows = int(per_fold.sum() - per_fold[f])
            yield train

    def _numbered_rows(self) -> SqlSource:
        """The codes with ``i``, the 0-based index of each row in this source's row order (stored once)."""
        if self._numbered is None:
            import ibis

            order = self._order_key()
            codes, stored = self._store(self.codes.select(
                *self._code_columns(), i=ibis.row_number().over(order_by=order).cast("int64")), "rows")
            self._numbered = self._derived(codes, self.labels, "i")
            self._numbered._table = stored
        return self._numbered

    def _weigh(self, rows: SqlSource, key: int, mean: float, owner: SqlSource):
        """The stored rows of ``rows`` (with ``i``) and ``w``, their Poisson weights for bootstrap ``key``, stored
        as a temporary table that is dropped when ``owner`` goes (or at :meth:`close`)."""
        schema = dict(rows.codes.schema().items()) | {"w": "int64"}
        sql = weighted_sql(rows._table, list(rows.codes.columns), key, mean)
        table, name = self._store(self.codes.get_backend().sql(sql, schema=schema, dialect="postgres"), "weights")
        weakref.finalize(owner, self._forget, name)
        return table

    def bootstrap(self, key: int, mean: float = 1.0) -> SqlSource:
        """A view whose every count weighs row i by its Poisson(mean) weight for bootstrap ``key``,
        :func:`fslab.row_hash.poisson_weights` computed in the engine (:func:`fslab.counting.sql_count.weighted_sql`;
        i the row's 0-based index in this source's row order): ``SUM(w)`` where the plain counts have ``COUNT(*)``.
        The weights are stored once (a temporary table of the codes and w, dropped with the view), so a step costs
        the plug-in's ``GROUP BY``. The same rows weigh the same on Dask (``DaskSource.bootstrap``), so NPFS gives
        the same matrix there."""
        key, mean = check_key_and_mean(key, mean)
        if self._weighted:
            raise ParameterError("a bootstrap view cannot be bootstrapped again; call bootstrap on the source")
        view = self._derived(None, self.labels, "i")
        view.codes = self._weigh(self._numbered_rows(), key, mean, owner=view)
        view._weighted, view._boot, view._root = True, (key, mean), self
        return view

    def _forget(self, name: str) -> None:
        if name in self._temp:
            self._temp.remove(name)
            try:
                _drop(self.codes.get_backend(), name)
            except Exception:   # a closed connection: its temporary tables are gone with it
                pass

    def close(self) -> None:
        """Drop the temporary tables of codes that :func:`~fslab.data.sql_read.from_sql` and the held-out and
        bootstrap counts stored (if any)."""
        backend = self.codes.get_backend()
        for name in [*self._temp, *([self.stored] if self.stored is not None else [])]:
            _drop(backend, name)
        self._temp, self.stored, self._numbered, self._folded = [], None, None, {}

    def _run(self, expr) -> dict[str, np.ndarray]:
        table = fetch(expr)
        self.queries += 1
        self.bytes_received += int(table.nbytes)
        return {name: table.column(name).to_numpy().astype(np.int64) for name in table.column_names}

    def _sql_of_codes(self) -> tuple[str, str]:
        """(WITH clause, table) the count queries read the codes from (compiled by Ibis once per source): a stored
        table by its name (read through a WITH, DuckDB took 4x the CPU of a step: it materializes a CTE used more
        than once), else ``fslab_c`` defined by the codes' SQL."""
        if self._codes_sql is None or self._codes_sql[0] is not self.codes:
            import ibis

            sql = str(ibis.to_sql(self.codes, pretty=False)).strip()
            table = _PLAIN_TABLE.match(sql)
            self._codes_sql = (self.codes, ("", table.group(1)) if table else (f"WITH fslab_c AS ({sql}) ", "fslab_c"))
        return self._codes_sql[1]

    def _q(self, name: str) -> str:
        """``name`` quoted for the engine (sqlglot's quoting, once per source: the names are few)."""
        if name not in self._quoted:
            import sqlglot as sg

            try:
                self._quoted[name] = sg.to_identifier(name, quoted=True).sql(_backend(self.codes))
            except Exception:   # an engine sqlglot does not name: ANSI quotes
                self._quoted[name] = f'"{name}"'
        return self._quoted[name]

    def _group_sql(self, keys: list[str], value: str | None = None, index: int | None = None) -> str:
        """``SELECT keys..., [value AS v,] y, COUNT(*) (a bootstrap view: SUM(w)) AS n [, index AS i] FROM codes
        GROUP BY ...`` in plain SQL: an Ibis expression per candidate cost more to build and compile than the engine
        took to count (Adult's 123 candidates: 1.4 s a step, 4 s with the compile)."""
        q = self._q
        cols = [q(k) for k in keys]
        if value is not None:
            cols.append(f"CAST({q(value)} AS INTEGER) AS {q('v')}")
        cols.append(q("y"))
        groups = ", ".join([*(q(k) for k in keys), *([q(value)] if value is not None else []), q("y")])
        count = f"SUM({q('w')})" if self._weighted else "COUNT(*)"
        tail = f", {int(index)} AS {q('i')}" if index is not None else ""
        return f"SELECT {', '.join(cols)}, {count} AS {q('n')}{tail} FROM {self._sql_of_codes()[1]} GROUP BY {groups}"

    def _raw(self, selects: list[str]) -> dict[str, np.ndarray]:
        """The UNION ALL of ``selects`` (SQL over the codes, :meth:`_sql_of_codes`) as {column: int64 array}: one
        query per :data:`COMPOUND` of them (SQLite allows 500 SELECTs in a compound), run as plain SQL (no Ibis
        compile); the engine's errors become one :class:`SqlError`."""
        backend = self.codes.get_backend()
        parts: list[dict[str, np.ndarray]] = []
        for start in range(0, len(selects), COMPOUND):
            sql = self._sql_of_codes()[0] + " UNION ALL ".join(selects[start:start + COMPOUND])
            with engine_errors("count"):
                cursor = backend.raw_sql(sql)
                try:
                    if backend.name == "duckdb":   # DuckDB's raw_sql gives the connection: read columns as arrays
                        got = {k: np.asarray(v, dtype=np.int64) for k, v in cursor.fetchnumpy().items()}
                    else:
                        rows = cursor.fetchall()
                        names = [d[0] for d in cursor.description]
                        got = {k: np.array([r[c] for r in rows], dtype=np.int64) for c, k in enumerate(names)}
                finally:
                    if backend.name != "duckdb":   # keep DuckDB's connection open
                        cursor.close()
            self.queries += 1
            self.bytes_received += sum(int(v.nbytes) for v in got.values())
            parts.append(got)
        return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}

    def _code_columns(self) -> list[str]:
        return [code_column(j) for j in range(self.n_features)] + ["y"]

    def to_encoded(self, rows=None):
        """The codes of every row (or of ``rows``: an Ibis table of codes, as :meth:`sample` draws) gathered to the
        client as an EncodedDataset with this source's cut points; rows in this source's row order when it has one
        (:meth:`row_order`), else in the engine's. For small data only (tests, checks); selection never needs it."""
        from .encoded import EncodedDataset

        if rows is None:
            order = self._order_key(required=False)
            rows = self.codes if order is None else self.codes.order_by(order)
        cols = self._run(rows.select(*self._code_columns()))
        X = np.column_stack([cols[code_column(j)] for j in range(self.n_features)]) if self.n_features else \
            np.zeros((cols["y"].size, 0), dtype=np.int64)
        return EncodedDataset(X, cols["y"], labels=self.labels, feature_names=self.feature_names,
                              arities=self.arities, class_names=self.class_names, categories=self.categories,
                              target=self.target, task=self.task, notes=self.notes)

    def sample(self, rows: int, seed: int = 0):
        """About ``rows`` rows drawn by the engine (each row kept with probability rows / n_rows; ``seed`` is passed
        to the engine, and DuckDB repeats a draw only with one thread), coded with this source's cut points, as an
        in-memory EncodedDataset: what NPFS, which resamples rows, runs on."""
        if isinstance(rows, bool) or not isinstance(rows, int | np.integer) or rows < 1:
            raise ParameterError(f"rows must be a positive whole number; got {rows!r}")
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= int(seed) < 2**31:
            raise ParameterError(f"seed must be a whole number from 0 to 2**31 - 1 (the engines' sampling seed); "
                                 f"got {seed!r}")
        if rows >= self.n_rows:
            return self.to_encoded()
        return self.to_encoded(self.codes.sample(rows / self.n_rows, seed=int(seed)))

    def table(self, subset: Sequence[int]) -> JointTable:
        """Joint table of (X_subset, Y) from ``SELECT c_J..., y, COUNT(*) ... GROUP BY c_J..., y`` (the class counts
        of the empty subset asked once: every selection and held-out split starts with them)."""
        subset = check_subset(subset, self.n_features)
        if not subset and self._classes is not None:
            return JointTable(self._classes.copy(), self.labels)
        keys = [code_column(j) for j in subset]
        got = self._raw([self._group_sql(keys)])
        tuples = np.column_stack([got[k] for k in keys]) if subset else np.zeros((got["y"].size, 0), np.int64)
        cells, n_cells = fold_cells(tuples, self.arities[list(subset)], self.n_rows)
        L = self.labels.shape[0]
        counts = np.bincount(cells * L + got["y"], weights=got["n"], minlength=n_cells * L).reshape(n_cells, L)
        if not subset:
            self._classes = counts.copy()
        return JointTable(counts, self.labels)

    def extension_tables(self, subset: Sequence[int], candidates: Sequence[int] | np.ndarray) -> JointTable:
        """Batched tables of ``subset + [j]`` for every candidate j: (B, cells, L), laid out as CodedSource lays
        them out (cell = base cell * width + x_j, or each candidate's occupied cells once that padding would hold
        more than twice as many cells as rows). One query for all candidates."""
        subset = check_subset(subset, self.n_features)
        candidates = np.asarray([int(j) for j in candidates], dtype=np.int64)
        if candidates.size == 0:
            raise ParameterError("extension_tables needs at least one candidate")
        check_subset(tuple(candidates), self.n_features)
        if set(candidates.tolist()) & set(subset):
            raise ParameterError(f"candidates {candidates.tolist()} must not repeat the subset {list(subset)}")
        base, y, per_candidate = self._grouped_counts(subset, candidates)
        return self._layout(subset, candidates, base, y, per_candidate)

    def _grouped_counts(self, subset, candidates):
        """The UNION ALL of one GROUP BY (subset codes, c_j, y) per candidate: for many occupied base cells."""
        keys = [code_column(j) for j in subset]
        got = self._raw([self._group_sql(keys, code_column(int(j)), i) for i, j in enumerate(candidates.tolist())])
        groups, rows = _distinct_rows([got[k] for k in keys] + [got["y"]], [*self.arities[list(subset)],
                                                                          self.labels.shape[0]])
        order = np.argsort(got["i"], kind="stable")
        bounds = np.searchsorted(got["i"][order], np.arange(candidates.size + 1))
        per_candidate = [(rows[order[a:b]], got["v"][order[a:b]], got["n"][order[a:b]])
                         for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        return groups[:, :-1], groups[:, -1], per_candidate

    def _layout(self, subset, candidates, base, y, per_candidate) -> JointTable:
        cells, n_base = fold_cells(base, self.arities[list(subset)], self.n_rows)
        L = self.labels.shape[0]
        width = int(self.arities[candidates].max())
        n_cells = n_base * width
        B = candidates.size
        if n_cells <= 2 * max(self.n_rows, 1):
            flat = np.zeros(B * n_cells * L)
            for i, (rows, vals, counts) in enumerate(per_candidate):
                flat[((i * n_cells) + cells[rows] * width + vals) * L + y[rows]] = counts
            return JointTable(flat.reshape(B, n_cells, L), self.labels)
        tables = []   # each candidate's occupied cells, in the order of their codes (CodedSource's rank)
        for j, (rows, vals, counts) in zip(candidates.tolist(), per_candidate, strict=True):
            uniques, rank = np.unique(cells[rows] * int(self.arities[j]) + vals, return_inverse=True)
            table = np.zeros((uniques.size, L))
            table[rank.ravel(), y[rows]] = counts
            tables.append(table)
        out = np.zeros((B, max(t.shape[0] for t in tables), L))
        for i, table in enumerate(tables):
            out[i, :table.shape[0]] = table
        return JointTable(out, self.labels)


__all__ = ["SqlError", "SqlSource", "code_column", "fetch", "fold_cells"]
