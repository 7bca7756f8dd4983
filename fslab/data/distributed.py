"""Partitioned data on a Dask cluster as a table source: counts per partition on the workers, summed.

Every criterion fslab computes is a function of a joint count table, and counts add up across row
partitions (DESIGN.md, "Scale-out"). A :class:`DaskSource` holds a sample's codes as persisted partitions on the
workers: :func:`fslab.data.dask_read.from_dask` builds one from a Dask DataFrame (global bins),
:func:`to_dask_source` from an in-memory encoded sample.

``DaskSource.table(J)`` and ``extension_tables(J, candidates)`` build the same cell codes as
:class:`fslab.tables.CodedSource` on each partition (mixed radix; when the product of arities exceeds
the number of rows, the occupied codes are relabelled by their rank in the GLOBAL set of occupied codes,
itself a union reduced on the workers) and keep them there between steps; the kernels
(:mod:`fslab.counting.dask_kernels`) count every candidate with one ``np.bincount`` per partition, and the
per-partition tables are summed in a tree on the workers. Only count tables travel to the client, never rows
or code lists. Counts are whole numbers, so the sums, hence every measure, equal the in-memory ones exactly.

Small arities (at most 16 values, as the in-memory engine) are counted by the in-memory fast engine on each
partition (packed value bits made once per partition and kept on its worker; popcounts or float products per
group of (cell, class)); wider columns by one ``np.bincount`` over every candidate. Pure-row pruning (the
in-memory engine's merged pure cells) is not done here: it changes the tables' cells, hence the rounding of every
criterion, and the Dask tables are held to CodedSource's bit for bit.

Dask is optional (``pip install fslab[dask]``): importing this module needs no Dask; using it without
Dask raises :class:`DaskMissingError`.
"""

from __future__ import annotations

import copy
import os
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from ..counting import dask_kernels as kernels
from ..errors import ClusterError, DaskMissingError, FslabError, ParameterError  # Dask errors: errors.py
from ..tables import JointTable, check_subset, recall_prefix

SCHEDULER_ENV = "FSLAB_DASK_SCHEDULER"
_FAN_IN = 8          # partial tables summed per reduction task (the count-reduction tree)
_STATES = 8          # subsets whose cell codes stay on the workers (int64 per row each), least recently used out
_STATE_BYTES = 1 << 30
_TABLE_BYTES = 32 << 20   # count tables kept on the client per source (least recently used out): a round trip each


def require_dask():
    """Import dask (with distributed) or raise DaskMissingError saying what to install."""
    try:
        import dask
        import dask.dataframe  # noqa: F401
        import distributed  # noqa: F401
    except ImportError as err:
        raise DaskMissingError(
            "running on a Dask cluster needs Dask: pip install 'fslab[dask]' (or pip install 'dask[distributed]')"
        ) from err
    return dask


def _compute(dask, obj):
    """dask.compute with cluster failures turned into one clear ClusterError (never a partial answer)."""
    try:
        return dask.compute(obj)[0]
    except FslabError:
        raise
    except Exception as err:  # KilledWorker, CommClosedError, OSError from the comms ...
        name = type(err).__name__
        if name in ("KilledWorker", "CommClosedError", "FutureCancelledError", "CancelledError") or isinstance(
                err, OSError | TimeoutError):
            raise ClusterError(f"the Dask cluster could not finish the counts ({name}: {err}); "
                               "check that the scheduler and its workers are running, then try again") from err
        raise


def _tree(dask, parts: list, combine=kernels.sum_arrays, fan_in: int = _FAN_IN):
    """Combine delayed results in a tree of fan-in ``fan_in`` on the workers (log_fan_in(P) levels)."""
    while len(parts) > 1:
        parts = [dask.delayed(combine)(*parts[i:i + fan_in]) for i in range(0, len(parts), fan_in)]
    return parts[0]


def _tree_sum(dask, parts: list, fan_in: int = _FAN_IN):
    """Sum delayed arrays in a tree on the workers."""
    return _tree(dask, parts, kernels.sum_arrays, fan_in)


def _tree_sum_with(dask, parts: list, combine, fan_in: int = _FAN_IN):
    """Combine delayed results with ``combine`` in a tree on the workers (``from_dask``'s reductions)."""
    return _tree(dask, parts, combine, fan_in)


def _from_groups(flat: np.ndarray, n_base: int, B: int, width: int, n_labels: int) -> np.ndarray:
    """:func:`dask_kernels.fast_extensions`' sums as CodedSource's (B, n_base * width, L): v = 0 is the group size
    minus the other values."""
    G = n_base * n_labels
    sizes, upper = flat[:G], flat[G:].reshape(G, width - 1, B)
    out = np.empty((B, n_base, width, n_labels))
    out[:, :, 1:, :] = upper.reshape(n_base, n_labels, width - 1, B).transpose(3, 0, 2, 1)
    out[:, :, 0, :] = sizes.reshape(n_base, n_labels)[None] - out[:, :, 1:, :].sum(axis=2)
    return out.reshape(B, n_base * width, n_labels)


def _pad(flat: np.ndarray, n_base: int, arities: np.ndarray, n_labels: int) -> np.ndarray:
    """The kernels' concatenated value-major tables as CodedSource's (B, n_base * width, L), padded cells empty."""
    B, L, width = arities.size, n_labels, int(arities.max())
    out = np.zeros((B, n_base, width, L))
    starts = np.concatenate([[0], np.cumsum(n_base * L * arities)[:-1]])
    for a in np.unique(arities):
        which = np.flatnonzero(arities == a)
        block = flat[starts[which][:, None] + np.arange(int(a) * n_base * L)]
        out[which, :, :a, :] = block.reshape(which.size, int(a), n_base, L).transpose(0, 2, 1, 3)
    return out.reshape(B, n_base * width, L)


# --- the source --------------------------------------------------------------------------------------------

class DaskSource:
    """A discretised sample kept as persisted partitions of codes on a Dask cluster (a TableSource).

    Not a :class:`~fslab.tables.CodedSource`: it has no ``X``/``y`` on the client, so selectors use the generic
    table path (``table`` / ``extension_tables``), whose counts are summed from the partitions on the workers.
    The cell codes of the last few subsets stay on the workers (persisted), so a greedy step extends the
    previous step's codes by one feature instead of rebuilding them. The count tables already fetched are kept on
    the client (read-only, up to :data:`_TABLE_BYTES`), so a table asked again costs no round trip: the selectors and
    measures run on one source ask for the same tables (exhaustive search and backward elimination under three
    measures: 116 tables asked, 33-44 distinct). ``bytes_received`` counts the bytes that came back to the client:
    count tables only (at most the size of the tables the call returns).

    ``parts``: persisted delayed pairs (X codes, uint8/uint16 C-ordered; y class indices, int8/int64).
    """

    def __init__(self, parts: list, n_rows: int, arities, labels, feature_names, *, class_names=(), task="binary",
                 target="y", categories=None, notes=(), plan=None):
        self._parts = parts
        self.plan = plan   # the coded fslab.data.plan.TablePlan (from_dask), None for shipped codes
        self.n_rows = int(n_rows)
        self.arities = np.asarray(arities, dtype=np.int64)
        self.labels = np.asarray(labels)
        self.feature_names = tuple(str(n) for n in feature_names)
        self.class_names = tuple(class_names)
        self.task = task
        self.target = target
        self.categories = categories
        self.notes = tuple(notes)
        self.bytes_received = 0
        self._states: OrderedDict[tuple[int, ...], tuple[list, int]] = OrderedDict()
        self._offsets: list[int] | None = None
        self._boot: tuple[int, float] | None = None
        self._counters: list | None = None
        self._folded: dict[tuple[int, int], DaskSource] = {}   # folded views kept (the last two asked)
        self._tables: OrderedDict[tuple, JointTable] = OrderedDict()   # fetched tables (:meth:`_remember`)

    @property
    def n_features(self) -> int:
        return self.arities.size

    @property
    def n_partitions(self) -> int:
        return len(self._parts)

    @property
    def shape(self) -> tuple[int, int]:
        return self.n_rows, self.n_features

    @property
    def is_sample(self) -> bool:
        """Observed rows (plug-in estimates from counts / m), not an exact law."""
        return True

    @property
    def bootstrap_key(self) -> tuple[int, float] | None:
        """(key, mean) of this view's Poisson row weights (:meth:`bootstrap`), None for the plain counts."""
        return self._boot

    def to_encoded(self):
        """Gather every partition's codes to the client as an EncodedDataset: for small data only (tests, checks);
        selection never needs it."""
        from .encoded import EncodedDataset

        parts = _compute(require_dask(), list(self._parts))
        X = np.concatenate([p[0] for p in parts]) if parts else np.zeros((0, self.n_features), dtype=np.uint8)
        y = np.concatenate([p[1] for p in parts]).astype(np.int64)
        return EncodedDataset(X.astype(np.int64), y, labels=self.labels, feature_names=self.feature_names,
                              arities=self.arities, class_names=self.class_names, categories=self.categories,
                              target=self.target, task=self.task, notes=self.notes)

    def discretize(self, *args, **kwargs) -> DaskSource:
        """Already encoded: itself, so a DaskSource stands wherever a Dataset can."""
        return self

    def bootstrap(self, key: int, mean: float = 1.0) -> DaskSource:
        """A view whose every count weighs row i by w_i ~ Poisson(mean), drawn on the workers from (key, i) alone
        (:func:`fslab.counting.dask_kernels.poisson_weights`, :mod:`fslab.row_hash`): independent of the partitioning
        and of the workers, and equal to the weights a SQL engine computes for the same row order.

        The view shares the rows and the cached cell codes (codes do not depend on weights); its tables hold
        sum_i w_i 1(row i in the cell) (whole numbers, so sums are exact in any order).
        """
        if not mean > 0:
            raise ParameterError(f"the bootstrap's mean row weight must be positive; got {mean}")
        view = copy.copy(self)
        view._offsets = self._partition_offsets()
        self._offsets = view._offsets
        view._boot = (int(key) % (1 << 64), float(mean))
        view._folded = {}
        view._tables = OrderedDict()   # weighted counts: tables of their own
        view.bytes_received = 0
        return view

    def folded(self, n_folds: int, seed: int) -> DaskSource:
        """The same rows with class index ``fold * L + y`` and labels tiled per fold: the cross-fitted evaluator's
        count-only seam (:mod:`fslab.measures.cross_fit`). Folds are :func:`fslab.row_hash.folds` of the rows in
        partition order, computed on the workers (:func:`fslab.counting.dask_kernels.with_folds`) from each row's rank
        within its class: per-partition class counts (one small compute) and their running sum. The view shares the
        partitions' codes and the cached cell codes (cells do not depend on the class); its tables are the
        (cell, fold x class) counts the in-memory evaluator counts, so held-out values equal the in-memory ones."""
        if not 1 <= int(n_folds) <= 64:
            raise ParameterError(f"n_folds must be a whole number from 1 to 64; got {n_folds}")
        key = (int(n_folds), int(seed))
        if key in self._folded:   # each selection asks again: the fold codes and fast engines stay on the workers
            return self._folded[key]
        dask = require_dask()
        L = self.labels.shape[0]
        counts = np.array(_compute(dask, [dask.delayed(kernels.class_counts)(p, L) for p in self._parts]),
                          dtype=np.int64).reshape(len(self._parts), L)
        before = np.cumsum(counts, axis=0) - counts   # rows of each class in the earlier partitions
        view = copy.copy(self)
        view._parts = list(dask.persist(*[dask.delayed(kernels.with_folds)(p, b, int(n_folds), int(seed), L)
                                          for p, b in zip(self._parts, before, strict=True)]))
        view.labels = np.tile(self.labels, int(n_folds))
        view.class_names = ()
        view._counters = None          # the fast engine's class marginals depend on the classes
        view._folded = {}
        view._tables = OrderedDict()   # (cell, fold x class) counts: tables of their own
        view.bytes_received = 0
        while len(self._folded) >= 2:
            self._folded.pop(next(iter(self._folded)))
        self._folded[key] = view
        return view

    def _partition_offsets(self) -> list[int]:
        """The global index of each partition's first row (one small compute, then kept)."""
        if self._offsets is None:
            dask = require_dask()
            sizes = _compute(dask, [dask.delayed(kernels.n_rows)(p) for p in self._parts])
            self._offsets = [0, *np.cumsum(sizes)[:-1].tolist()]
        return self._offsets

    def _boots(self) -> list:
        if self._boot is None:
            return [None] * len(self._parts)
        return [(int(o), *self._boot) for o in self._partition_offsets()]

    def _check_subset(self, subset: Sequence[int]) -> tuple[int, ...]:
        return check_subset(subset, self.n_features)

    def _fetch(self, delayed_obj):
        out = _compute(require_dask(), delayed_obj)
        self.bytes_received += sum(int(getattr(x, "nbytes", 0)) for x in (out if isinstance(out, list) else [out]))
        return out

    def _state(self, subset: Sequence[int]) -> tuple[list, int]:
        """Per-partition cell codes of ``subset`` (persisted on the workers; None for the empty subset) and the
        number of cells: CodedSource.cell_codes' rule (mixed radix; once cells outnumber rows, each code's rank
        among the globally occupied codes, a union reduced on the workers: only its size reaches the client)."""
        key = self._check_subset(subset)
        hit, start = recall_prefix(self._states, key)
        if hit is not None:
            return hit
        codes, n_cells = self._states.get(key[:start], ([None] * len(self._parts), 1))
        dask = require_dask()
        for i in range(start, len(key)):
            j, arity = key[i], int(self.arities[key[i]])
            raw = [dask.delayed(kernels.extend)(p, c, j, arity) for p, c in zip(self._parts, codes, strict=True)]
            n_cells *= arity
            if n_cells > max(self.n_rows, 1):
                raw = list(dask.persist(*raw))
                occupied = dask.persist(_tree(dask, [dask.delayed(kernels.uniques)(r) for r in raw], kernels.union))[0]
                n_cells = int(_compute(dask, dask.delayed(kernels.size)(occupied)))
                raw = [dask.delayed(kernels.relabel)(r, occupied) for r in raw]
            codes = list(dask.persist(*raw))
            self._states[key[:i + 1]] = (codes, n_cells)
        while len(self._states) > max(2, min(_STATES, _STATE_BYTES // max(8 * self.n_rows, 1))):
            self._states.popitem(last=False)  # releases those futures: the workers drop the codes
        return codes, n_cells

    def _fast_counters(self) -> list | None:
        """The in-memory fast engine on every partition (persisted: its packed value bits are made once), for
        plain counts of small arities (as the in-memory engine: at most MAX_FAST_ARITY values, MAX_FAST_CLASSES
        classes); None otherwise (bootstrap views count weights with bincounts)."""
        from ..counting.engines import MAX_FAST_ARITY, MAX_FAST_CLASSES

        if self._boot is not None or not self.n_features or int(self.arities.max()) > MAX_FAST_ARITY or (
                self.labels.shape[0] > MAX_FAST_CLASSES):
            return None
        if self._counters is None:
            dask = require_dask()
            make = dask.delayed(kernels.fast_counter)
            self._counters = list(dask.persist(*[make(p, self.arities, self.labels) for p in self._parts]))
        return self._counters

    def _remember(self, key: tuple, make) -> JointTable:
        """The table ``make()`` fetches, kept under ``key`` (read-only) and given again without a round trip; one
        larger than :data:`_TABLE_BYTES` is not kept (it would stay in memory beside the next one)."""
        hit = self._tables.get(key)
        if hit is not None:
            self._tables.move_to_end(key)
            return hit
        table = make()
        if table.counts.nbytes > _TABLE_BYTES:
            return table
        table.counts.setflags(write=False)
        self._tables[key] = table
        kept = sum(t.counts.nbytes for t in self._tables.values())
        while kept > _TABLE_BYTES:
            kept -= self._tables.popitem(last=False)[1].counts.nbytes
        return table

    def table(self, subset: Sequence[int]) -> JointTable:
        """Joint table of (X_subset, Y): per-partition bincounts summed on the workers (kept: :meth:`_remember`)."""
        key = self._check_subset(subset)
        return self._remember(("table", key), lambda: self._table(key))

    def _table(self, subset: tuple[int, ...]) -> JointTable:
        return JointTable(self._fetch(self._table_task(subset)), self.labels)

    def _table_task(self, subset: tuple[int, ...]):
        """The delayed sum of the partitions' tables of ``subset``."""
        codes, n_cells = self._state(subset)
        dask = require_dask()
        L = self.labels.shape[0]
        tasks = [dask.delayed(kernels.table)(p, c, n_cells, L, b)
                 for p, c, b in zip(self._parts, codes, self._boots(), strict=True)]
        return _tree_sum(dask, tasks)

    def tables(self, subsets: Sequence[Sequence[int]]) -> list[JointTable]:
        """The joint tables of several subsets (:meth:`table`'s) in one round trip for those not kept yet: backward
        elimination's step asks C(J minus j) for every j of J (one compute, not |J|)."""
        keys = [self._check_subset(s) for s in subsets]
        new = [k for k in dict.fromkeys(keys) if ("table", k) not in self._tables]
        fetched: dict[tuple[int, ...], JointTable] = {}
        if len(new) > 1:   # (a table too large to keep is still given from this fetch, not fetched again)
            got = self._fetch([self._table_task(k) for k in new])
            fetched = {k: JointTable(counts, self.labels) for k, counts in zip(new, got, strict=True)}
        return [self._remember(("table", k), lambda k=k: fetched[k] if k in fetched else self._table(k)) for k in keys]

    def extension_tables(self, subset: Sequence[int], candidates: Sequence[int]) -> JointTable:
        """Batched tables of ``subset + [j]`` for every candidate j: (B, cells, L), as CodedSource pads them.

        One task per partition counts every candidate in one pass; the tables are summed in a tree on the workers.
        When the padded tables would have more than twice as many cells as rows, only each candidate's occupied
        cells are kept (as CodedSource does), merged and padded on the workers. Kept as :meth:`table`'s.
        """
        cand_list = self._check_subset(candidates)
        if not cand_list:
            raise ParameterError("extension_tables needs at least one candidate")
        key = self._check_subset(subset)
        return self._remember(("extensions", key, cand_list), lambda: self._extension_tables(key, cand_list))

    def _extension_tables(self, subset: tuple[int, ...], cand_list: tuple[int, ...]) -> JointTable:
        codes, n_base = self._state(subset)
        cand_array = np.asarray(cand_list, dtype=np.int64)
        arities = self.arities[cand_array]
        dask = require_dask()
        L = self.labels.shape[0]
        jobs = zip(self._parts, codes, self._boots(), strict=True)
        if n_base * int(arities.max()) > 2 * max(self.n_rows, 1):
            pairs = [dask.delayed(kernels.occupied)(p, c, n_base, cand_array, arities, L, b) for p, c, b in jobs]
            root = _tree(dask, pairs, kernels.merge_occupied)
            stride = n_base * int(arities.max())
            return JointTable(self._fetch(dask.delayed(kernels.pad_occupied)(root, cand_array.size, stride, L)),
                              self.labels)
        counters = self._fast_counters()
        if counters is not None and int(arities.max()) > 1:
            width = int(arities.max())
            tasks = [dask.delayed(kernels.fast_extensions)(f, c, n_base, cand_array, width)
                     for f, c in zip(counters, codes, strict=True)]
            return JointTable(_from_groups(self._fetch(_tree_sum(dask, tasks)), n_base, cand_array.size, width, L),
                              self.labels)
        tasks = [dask.delayed(kernels.extensions)(p, c, n_base, cand_array, arities, L, b) for p, c, b in jobs]
        flat = self._fetch(_tree_sum(dask, tasks))
        return JointTable(_pad(flat, n_base, arities, L), self.labels)


# --- the scheduler the app uses (connecting and running jobs there: fslab.cluster) --------------------------------

def scheduler_from_env() -> str | None:
    """The scheduler address the app should use: ``FSLAB_DASK_SCHEDULER``, read when called (never at import)."""
    address = os.environ.get(SCHEDULER_ENV, "").strip()
    return address or None


def _pack(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return X, y


def to_dask_source(encoded, npartitions: int | None = None, client=None) -> DaskSource:
    """Ship an in-memory encoded sample's codes to the cluster once (one partition per worker thread by default):
    the same codes, arities and labels, so every selection equals the in-memory one."""
    from .encoded import EncodedDataset

    if not isinstance(encoded, EncodedDataset):
        raise ParameterError(f"the Dask source ships an encoded dataset's codes; got {type(encoded).__name__}")
    dask = require_dask()
    if npartitions is None:
        threads = sum(client.nthreads().values()) if client is not None else os.cpu_count() or 1
        npartitions = threads
    m = encoded.n_rows
    widest = int(encoded.arities.max()) if encoded.n_features else 1
    X = np.asarray(encoded.X).astype(np.uint8 if widest <= 256 else np.uint16 if widest <= 1 << 16 else np.int64)
    y = np.asarray(encoded.y).astype(np.int8 if len(encoded.labels) <= 127 else np.int64)
    bounds = np.linspace(0, m, max(1, min(int(npartitions), m)) + 1).astype(np.int64)
    parts = dask.persist(*[dask.delayed(_pack)(X[a:b], y[a:b]) for a, b in zip(bounds[:-1], bounds[1:], strict=True)])
    return DaskSource(list(parts), m, encoded.arities, encoded.labels, encoded.feature_names,
                      class_names=encoded.class_names, task=encoded.task, target=encoded.target,
                      categories=encoded.categories, notes=encoded.notes + (
                          f"Counted on the Dask cluster in {len(parts)} partitions.",))


__all__ = ["SCHEDULER_ENV", "ClusterError", "DaskMissingError", "DaskSource", "require_dask", "scheduler_from_env",
           "to_dask_source"]
