"""Partitioned data on a Dask cluster as a table source: counts per partition on the workers, summed.

Every criterion fslab computes is a function of a joint count table, and counts add up across row
partitions (DESIGN.md, "Scale-out"). A :class:`DaskSource` holds a sample's codes as persisted partitions on the
workers: :func:`fslab.data.dask_read.from_dask` builds one from a Dask DataFrame (global bins),
:func:`to_dask_source` from an in-memory encoded sample.

``DaskSource.table(J)`` and ``extension_tables(J, candidates)`` build the same cell codes as
:class:`fslab.tables.CodedSource` on each partition (mixed radix; when the product of arities exceeds
the number of rows, the occupied codes are relabelled by their rank in the GLOBAL set of occupied codes,
itself a union reduced on the workers), count with ``np.bincount``, and sum the per-partition tables in
a tree on the workers. Only count tables travel to the client, never rows. Counts are whole numbers, so
the sums, hence every measure, equal the in-memory ones exactly.

Dask is optional (``pip install fslab[dask]``): importing this module needs no Dask; using it without
Dask raises :class:`DaskMissingError`.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from ..errors import ClusterError, DaskMissingError, FslabError, ParameterError  # Dask errors: errors.py
from ..tables import _BATCH_CELLS, JointTable

SCHEDULER_ENV = "FSLAB_DASK_SCHEDULER"
_FAN_IN = 8          # partial tables summed per reduction task (the count-reduction tree)
_MEMO_SIZE = 128     # client-side memo of cell-code plans per subset
_MAX_GROUPS = 4096   # (cell, class) groups summed slice by slice; beyond, bincounts


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


def _tree_sum(dask, parts: list, fan_in: int = _FAN_IN):
    """Sum delayed arrays in a tree of fan-in ``fan_in`` on the workers (log_fan_in(P) levels)."""
    while len(parts) > 1:
        parts = [dask.delayed(_sum_arrays)(*parts[i:i + fan_in]) for i in range(0, len(parts), fan_in)]
    return parts[0]


def _sum_arrays(*arrays):
    out = arrays[0].copy()
    for a in arrays[1:]:
        out += a
    return out


def _rows(part) -> int:
    return part[0].shape[0]


def _apply_plan(part, plan: tuple) -> np.ndarray:
    """Cell codes of one partition for a subset, from its plan: ((feature, arity, occupied codes or None), ...)."""
    X = part[0]
    codes = np.zeros(X.shape[0], dtype=np.int64)
    for j, arity, uniques in plan:
        codes = codes * arity + X[:, j]
        if uniques is not None:
            codes = np.searchsorted(uniques, codes)
    return codes


def _part_uniques(part, plan: tuple) -> np.ndarray:
    return np.unique(_apply_plan(part, plan))


def _union(*arrays) -> np.ndarray:
    return np.unique(np.concatenate(arrays))


def _part_occupied(part, plan: tuple, candidates: np.ndarray, arities: np.ndarray) -> list[np.ndarray]:
    """Occupied codes base * a_j + x_j of every candidate j in one partition."""
    base = _apply_plan(part, plan)
    return [np.unique(base * int(a) + part[0][:, j]) for j, a in zip(candidates, arities, strict=True)]


def _union_lists(*lists) -> list[np.ndarray]:
    return [np.unique(np.concatenate(arrays)) for arrays in zip(*lists, strict=True)]


def _part_occupied_counts(part, plan: tuple, candidates: np.ndarray, arities: np.ndarray, occupied: list,
                          widest: int, n_labels: int) -> np.ndarray:
    """Counts (B, widest, L) over each candidate's occupied cells, in the order of their codes, zero-padded."""
    X, y = part
    base = _apply_plan(part, plan)
    out = np.empty((candidates.size, widest, n_labels))
    for i, (j, a) in enumerate(zip(candidates, arities, strict=True)):
        index = np.searchsorted(occupied[i], base * int(a) + X[:, j])
        out[i] = np.bincount(index * n_labels + y, minlength=widest * n_labels).reshape(widest, n_labels)
    return out


def _part_table(part, plan: tuple, n_cells: int, n_labels: int) -> np.ndarray:
    codes = _apply_plan(part, plan)
    flat = codes * n_labels + part[1]
    return np.bincount(flat, minlength=n_cells * n_labels).reshape(n_cells, n_labels).astype(np.float64)


def _part_extensions(part, plan: tuple, n_base: int, candidates: np.ndarray, width: int,
                     n_labels: int) -> np.ndarray:
    """Counts (B, n_base * width, L) of subset + [j] for every candidate j, laid out as CodedSource's tables
    (cell = base cell * width + value of X_j).

    Count by group, not by row (as the in-memory fast engine): the rows are sorted once by their group
    g = (base cell, class), and each group's slice of the sorted uint8 codes is summed down its rows: for all
    candidates at once, n(g, X_j = v) for v >= 1; v = 0 is the group size minus the others. Many groups (deep
    subsets) use bounded chunks of bincounts instead.
    """
    X, y = part
    base = _apply_plan(part, plan)
    B, L = candidates.size, n_labels
    group = base * L + y
    sizes = np.bincount(group, minlength=n_base * L)
    present = np.flatnonzero(sizes)
    if present.size > _MAX_GROUPS or B * n_base * width * L > 1 << 24:
        return _part_extensions_bincount(X, y, base, n_base, candidates, width, L)
    out = np.zeros((B, n_base, width, L))
    if present.size:
        rows = X[np.argsort(group, kind="stable")]
        ends = np.cumsum(sizes)[present]
        for g, stop, size in zip(present, ends, sizes[present], strict=True):
            block = rows[stop - size:stop]
            c, l = divmod(int(g), L)
            for v in range(1, width):
                hits = block if width == 2 else block == v
                out[:, c, v, l] = hits.sum(axis=0, dtype=np.int64)[candidates]
    out[:, :, 0, :] = sizes.reshape(n_base, L)[None] - out[:, :, 1:, :].sum(axis=2)
    return out.reshape(B, n_base * width, L)


def _part_extensions_bincount(X, y, base, n_base: int, candidates: np.ndarray, width: int, L: int) -> np.ndarray:
    n_cells = n_base * width
    chunk = max(1, _BATCH_CELLS // max(n_cells * L, 1))
    out = np.empty((candidates.size, n_cells, L))
    for start in range(0, candidates.size, chunk):
        cand = candidates[start:start + chunk]
        offsets = np.arange(cand.size, dtype=np.int64) * n_cells
        index = (base[:, None] * width + X[:, cand] + offsets[None, :]) * L + y[:, None]
        out[start:start + cand.size] = np.bincount(index.ravel(), minlength=cand.size * n_cells * L
                                                   ).reshape(cand.size, n_cells, L)
    return out


# --- the source --------------------------------------------------------------------------------------------

class DaskSource:
    """A discretised sample kept as persisted partitions of codes on a Dask cluster (a TableSource).

    Not a :class:`~fslab.tables.CodedSource`: it has no ``X``/``y`` on the client, so selectors use the generic
    table path (``table`` / ``extension_tables``), whose counts are summed from the partitions.
    ``bytes_received`` counts the bytes of the count tables that came back to the client.
    """

    def __init__(self, parts: list, n_rows: int, arities, labels, feature_names, *, class_names=(), task="binary",
                 target="y", categories=None, notes=()):
        self._parts = parts
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
        self._plans: OrderedDict[tuple[int, ...], tuple[tuple, int]] = OrderedDict()

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

    def _check_subset(self, subset: Sequence[int]) -> tuple[int, ...]:
        subset = tuple(int(j) for j in subset)
        if len(set(subset)) != len(subset) or any(j < 0 or j >= self.n_features for j in subset):
            raise ParameterError(f"subset {subset} must hold distinct feature indices in 0 .. {self.n_features - 1}")
        return subset

    def _fetch(self, delayed_obj):
        out = _compute(require_dask(), delayed_obj)
        self.bytes_received += int(getattr(out, "nbytes", 0))
        return out

    def _fetch_list(self, delayed_obj) -> list:
        out = _compute(require_dask(), delayed_obj)
        self.bytes_received += sum(int(a.nbytes) for a in out)
        return out

    def plan(self, subset: Sequence[int]) -> tuple[tuple, int]:
        """How each partition builds the cell codes of ``subset`` (CodedSource.cell_codes' rule, with global
        relabelling by the occupied codes once cells outnumber rows), and the number of cells."""
        key = self._check_subset(subset)
        hit = self._plans.get(key)
        if hit is not None:
            self._plans.move_to_end(key)
            return hit
        start = max(len(key) - 1, 0)
        while start > 0 and key[:start] not in self._plans:
            start -= 1
        steps, n_cells = self._plans.get(key[:start], ((), 1))
        for j in key[start:]:
            n_cells *= int(self.arities[j])
            steps = steps + ((j, int(self.arities[j]), None),)
            if n_cells > max(self.n_rows, 1):
                dask = require_dask()
                plan = dask.delayed(steps, traverse=False)
                uniques = self._fetch(_tree_sum_with(dask, [dask.delayed(_part_uniques)(p, plan) for p in self._parts],
                                                     _union))
                steps = steps[:-1] + ((j, int(self.arities[j]), uniques),)
                n_cells = int(uniques.size)
        self._plans[key] = (steps, n_cells)
        if len(self._plans) > _MEMO_SIZE:
            self._plans.popitem(last=False)
        return steps, n_cells

    def table(self, subset: Sequence[int]) -> JointTable:
        """Joint table of (X_subset, Y): per-partition bincounts summed on the workers."""
        steps, n_cells = self.plan(subset)
        dask = require_dask()
        plan = dask.delayed(steps, traverse=False)
        L = self.labels.shape[0]
        counts = self._fetch(_tree_sum(dask, [dask.delayed(_part_table)(p, plan, n_cells, L) for p in self._parts]))
        return JointTable(counts, self.labels)

    def extension_tables(self, subset: Sequence[int], candidates: Sequence[int]) -> JointTable:
        """Batched tables of ``subset + [j]`` for every candidate j: (B, cells, L), as CodedSource pads them."""
        subset = self._check_subset(subset)
        candidates = np.asarray([int(j) for j in candidates], dtype=np.int64)
        if candidates.size == 0:
            raise ParameterError("extension_tables needs at least one candidate")
        self._check_subset(tuple(candidates))
        steps, n_base = self.plan(subset)
        width = int(self.arities[candidates].max())
        dask = require_dask()
        plan = dask.delayed(steps, traverse=False)
        cand = dask.delayed(candidates, traverse=False)
        L = self.labels.shape[0]
        if n_base * width > 2 * max(self.n_rows, 1):   # as CodedSource: only each candidate's occupied cells
            arities = self.arities[candidates]
            occupied = self._fetch_list(_tree_sum_with(
                dask, [dask.delayed(_part_occupied)(p, plan, cand, arities) for p in self._parts], _union_lists))
            widest = max(int(u.size) for u in occupied)
            occ = dask.delayed(occupied, traverse=False)
            tasks = [dask.delayed(_part_occupied_counts)(p, plan, cand, arities, occ, widest, L) for p in self._parts]
            return JointTable(self._fetch(_tree_sum(dask, tasks)), self.labels)
        tasks = [dask.delayed(_part_extensions)(p, plan, n_base, cand, width, L) for p in self._parts]
        return JointTable(self._fetch(_tree_sum(dask, tasks)), self.labels)


def _tree_sum_with(dask, parts: list, combine, fan_in: int = _FAN_IN):
    while len(parts) > 1:
        parts = [dask.delayed(combine)(*parts[i:i + fan_in]) for i in range(0, len(parts), fan_in)]
    return parts[0]


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
