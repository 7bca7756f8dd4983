"""Joint tables of (feature cell, class) and the sources that build them.

A feature subset J becomes one variable: each row's values on J are folded into one integer cell
code (mixed radix, re-compressed with ``np.unique`` once there are more cells than rows), and the
table of J is ``np.bincount`` over ``code * L + class``. Every measure is a pure function of the
resulting :class:`JointTable`, so selectors run unchanged on samples, bootstrap resamples and exact
distributions (Ahmed et al., Section 3: all criteria are functionals of the joint law of (X_J, Y)).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import FrozenInstanceError, dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from .errors import DataError, ParameterError

# Upper bound on the number of float cells one batched bincount may allocate (32 MiB of float64).
_BATCH_CELLS = 1 << 22
_MEMO_SIZE = 128


@dataclass(frozen=True, eq=False)
class JointTable:
    """Counts (or probabilities) of every (cell, class) pair: shape ``(..., cells, L)``.

    Leading axes are a batch (one table per candidate feature); every measure accepts them and
    returns one value per table. Cells with zero mass contribute nothing to any measure, so padded
    or unseen cells are harmless. ``labels[l]`` is the value of Y for column ``l``; binary tables
    have ``labels == [0, 1]`` and column 1 is the positive class.
    """

    counts: np.ndarray
    labels: np.ndarray

    def __post_init__(self) -> None:
        counts = np.asarray(self.counts, dtype=np.float64)
        labels = np.asarray(self.labels)
        if counts.ndim < 2:
            raise ParameterError(f"a joint table needs shape (cells, classes); got shape {counts.shape}")
        if counts.shape[-1] != labels.shape[0]:
            raise ParameterError(
                f"a joint table with {counts.shape[-1]} class columns needs as many labels; got {labels.shape[0]}"
            )
        if not np.all(np.isfinite(counts)) or np.any(counts < 0):
            raise ParameterError("a joint table needs finite, non-negative entries")
        if np.any(counts.sum(axis=(-2, -1)) <= 0):
            raise ParameterError("a joint table needs positive total mass")
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "labels", labels)

    @property
    def n_cells(self) -> int:
        return self.counts.shape[-2]

    @property
    def n_classes(self) -> int:
        return self.counts.shape[-1]

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.counts.shape[:-2]

    def total(self) -> np.ndarray:
        """Total mass of each table, shape ``batch_shape``."""
        return self.counts.sum(axis=(-2, -1))

    def probabilities(self) -> np.ndarray:
        """p(x, y): counts normalised to sum to 1 per table."""
        return self.counts / self.total()[..., None, None]

    def cell_probabilities(self) -> np.ndarray:
        """p(x), shape ``(..., cells)``."""
        return self.probabilities().sum(axis=-1)

    def class_probabilities(self) -> np.ndarray:
        """p(y), shape ``(..., L)``."""
        return self.probabilities().sum(axis=-2)

    def eta(self) -> np.ndarray:
        """eta(x) = P(Y = 1 | x) for a binary table; 0 on cells with no mass."""
        if self.n_classes != 2:
            raise ParameterError(f"eta needs a binary table; this one has {self.n_classes} classes")
        p = self.probabilities()
        px = p.sum(axis=-1)
        return np.divide(p[..., 1], px, out=np.zeros_like(px), where=px > 0)

    def __getitem__(self, index) -> JointTable:
        """One table (or a sub-batch) of a batched table."""
        if not self.batch_shape:
            raise IndexError("this joint table is not batched")
        return JointTable(self.counts[index], self.labels)


@runtime_checkable
class TableSource(Protocol):
    """Anything that can produce the joint table of a feature subset: a coded sample or a distribution.

    Declared capabilities (read these; never probe with ``getattr`` / ``hasattr``):

    - ``is_sample``: True when the rows are observations (plug-in estimates; bootstraps, permutation tests
      and learners apply), False for an exact law (a Distribution).
    - Row codes: a :class:`CodedSource` (``X``, ``arities``, ``y`` or ``weights``, ``subsample``) also lets
      evaluators use the fast counting engine and one-pass removal steps; any other source gets the generic
      per-subset path through ``table`` / ``extension_tables`` (same numbers). Test it with
      ``isinstance(source, CodedSource)``; rows to resample are ``isinstance(source, CodedSource) and
      source.is_sample``.
    - ``task`` and ``target`` (declared by every fslab source: :class:`CodedSource` and its subclasses, the Dask
      source; not required of other table sources): ``task`` is ``"binary"``, ``"multiclass"`` or
      ``"regression"`` (a real-valued target whose ``labels`` are its values); ``target`` names the target
      column. A plain CodedSource or Distribution says ``"binary"`` / ``"multiclass"`` from its number of
      labels and ``target = "y"``; an encoded dataset says what its target is.
    - Raw values (Fisher's score): only an ``EncodedDataset`` keeps them; ask ``has_values``.
    """

    feature_names: tuple[str, ...]
    arities: np.ndarray
    labels: np.ndarray

    @property
    def n_features(self) -> int: ...

    @property
    def is_sample(self) -> bool: ...

    def table(self, subset: Sequence[int]) -> JointTable: ...

    def extension_tables(self, subset: Sequence[int], candidates: Sequence[int]) -> JointTable: ...


def recall_prefix(cache: OrderedDict, key: tuple) -> tuple[Any, int]:
    """LRU lookup for a prefix-extension cache: ``(cache[key], len(key))`` on a hit (now most recently used), else
    ``(None, s)`` with ``s`` the length of the longest proper prefix of ``key`` held in ``cache`` (0 if none),
    found in a loop, so any length of subset is safe (no recursion limit)."""
    hit = cache.get(key)
    if hit is not None:
        cache.move_to_end(key)
        return hit, len(key)
    start = max(len(key) - 1, 0)
    while start > 0 and key[:start] not in cache:
        start -= 1
    return None, start


def readonly(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array``: no copy, and the caller's own array keeps its flags (it stays writable)."""
    view = array.view()
    view.flags.writeable = False
    return view


def _same(a, b) -> bool:
    """Equal field values: arrays element by element (NaN equals NaN), frames by ``equals``, others by ``==``."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)) or a.shape != b.shape:
            return False
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc" and b.dtype.kind in "fc"))
    if hasattr(a, "equals") and type(a) is type(b):  # pandas frames
        return bool(a.equals(b))
    return type(a) is type(b) and a == b


class _Memo(OrderedDict):
    """The bounded cell-code memo: a cache (the one part of a frozen source that changes). A shared sample is
    read by several sessions' threads at once: a key evicted between a hit and ``move_to_end`` is a miss, never
    an error."""

    def move_to_end(self, key, last: bool = True) -> None:
        try:
            super().move_to_end(key, last)
        except KeyError:
            pass

    def popitem(self, last: bool = True):
        try:
            return super().popitem(last)
        except KeyError:
            return None, None



def _feature_index(j, n_features: int | None) -> int:
    """``j`` as a feature index: an integer (a float only when whole, e.g. 1.0), never text or a bool."""
    if isinstance(j, bool | np.bool_) or isinstance(j, str | bytes):
        raise ParameterError(f"a subset holds feature indices (0-based integers), not {j!r}; for a feature's name "
                             "use its index, e.g. source.feature_names.index(name)")
    if isinstance(j, int | np.integer):
        return int(j)
    if isinstance(j, float | np.floating) and float(j).is_integer():
        return int(j)
    raise ParameterError(f"a subset holds feature indices (0-based integers); got {j!r}")


def check_subset(subset, n_features: int | None = None) -> tuple[int, ...]:
    """``subset`` as a tuple of distinct feature indices in ``0 .. n_features - 1`` (any range when
    ``n_features`` is None); a ParameterError that says what is wrong otherwise (a bare index instead of a list,
    a name, a fraction, a bool, a repeat, out of range)."""
    if isinstance(subset, str | bytes) or not isinstance(subset, Iterable):
        raise ParameterError(f"subset must be a list of feature indices, e.g. [0] for the first feature; got "
                             f"{subset!r}")
    index = tuple(_feature_index(j, n_features) for j in subset)
    if n_features is not None and (len(set(index)) != len(index) or any(j < 0 or j >= n_features for j in index)):
        raise ParameterError(f"subset {index} must hold distinct feature indices in 0 .. {n_features - 1}")
    return index

class CodedSource:
    """Rows of integer feature codes, each with a class index (a sample) or class weights (a distribution).

    Parameters
    ----------
    X : (r, n) int array, ``0 <= X[:, j] < arities[j]``; kept in its own integer dtype (an encoded dataset's
        codes are uint8 up to 256 levels; int8, int16 and int32 codes are viewed as the unsigned type of their size,
        not copied), cast to intp only inside the cell-code arithmetic.
    arities : (n,) number of values of each feature.
    labels : (L,) value of Y for each class index.
    y : (r,) class index of each row, for a sample; or
    weights : (r, L) non-negative mass of each (row, class), for a distribution.

    Cell codes of subsets are memoised on the instance (a bounded per-object cache, never module state).

    A frozen record: assigning an attribute raises ``dataclasses.FrozenInstanceError`` (an AttributeError), and
    its arrays are read-only. The row arrays (``X``, ``y``, ``weights``) are read-only *views* of what the caller
    passed (no copy: an encoded sample's uint8 codes are its largest object; the caller's own array keeps its
    flags, so a caller that keeps writing into an array it handed over changes the record: pass a copy then);
    ``arities`` and ``labels`` (one value per feature or class) are copied. Derive a changed source with
    :meth:`replace`. Only the memo of cell codes (``_memo``, a cache) changes after construction.
    """

    # the record's fields, set once by __init__ (through _set) and never again
    X: np.ndarray
    arities: np.ndarray
    labels: np.ndarray
    y: np.ndarray | None        # None for a distribution
    weights: np.ndarray | None  # None for a sample
    feature_names: tuple[str, ...]
    task: str
    target: str
    _memo: _Memo
    counter: ClassVar[str] = "dense"   # the engine that counts it: fslab.counting.engines.counter_of

    def __init__(self, X, arities, labels, *, y=None, weights=None, feature_names=None):
        X = np.asarray(X)
        if X.ndim != 2:
            raise DataError(f"feature codes need a 2-d array; got shape {X.shape}")
        if not np.issubdtype(X.dtype, np.integer):
            raise DataError("feature codes must be integers; discretise real-valued features first")
        if X.dtype.kind == "i" and X.dtype.itemsize <= 4 and X.dtype.isnative and not (X.size and X.min() < 0):
            X = X.view(np.dtype(f"u{X.dtype.itemsize}"))   # non-negative codes keep their bytes: int8 -> uint8, no copy
        X = readonly(np.ascontiguousarray(X if X.dtype.kind == "u" else X.astype(np.int64, copy=False)))
        arities = np.array(arities, dtype=np.int64)
        labels = np.array(labels)
        if arities.shape != (X.shape[1],):
            raise DataError(f"need one arity per feature: {X.shape[1]} features, {arities.size} arities")
        if X.size and (X.min() < 0 or np.any(X.max(axis=0) >= arities)):
            raise DataError("feature codes must lie in 0 .. arity-1")
        if (y is None) == (weights is None):
            raise ParameterError("give exactly one of y (a sample) or weights (a distribution)")
        n_labels = labels.shape[0]
        if y is not None:
            y = np.asarray(y, dtype=np.int64)
            if y.shape != (X.shape[0],) or (y.size and (y.min() < 0 or y.max() >= n_labels)):
                raise DataError("class indices must be one per row, in 0 .. L-1")
            y = readonly(y)
        else:
            weights = np.asarray(weights, dtype=np.float64)
            if weights.shape != (X.shape[0], n_labels):
                raise DataError(f"weights need shape (rows, classes) = {(X.shape[0], n_labels)}")
            weights = readonly(weights)
        names = feature_names if feature_names is not None else [f"X{j + 1}" for j in range(X.shape[1])]
        names = tuple(str(name) for name in names)
        if len(names) != X.shape[1]:
            raise DataError(f"need one name per feature: {X.shape[1]} features, {len(names)} names")
        arities.flags.writeable = labels.flags.writeable = False  # fresh copies: fslab's own
        # task and target are declared (TableSource); an encoded dataset overrides them
        self._set(X=X, arities=arities, labels=labels, y=y, weights=weights, feature_names=names,
                  task="binary" if n_labels == 2 else "multiclass", target="y", _memo=_Memo())

    # --- the frozen record ---------------------------------------------------------------------------------

    def _set(self, **fields) -> None:
        """Set fields during construction (the only writes a frozen source takes)."""
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}: {type(self).__name__} is a frozen record; "
                                  "derive a changed copy with .replace(...)")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}: {type(self).__name__} is a frozen record")

    def _fields(self) -> dict:
        """The constructor's arguments that rebuild this source (what :meth:`replace` starts from)."""
        return {"X": self.X, "arities": self.arities, "labels": self.labels, "y": self.y, "weights": self.weights,
                "feature_names": self.feature_names}

    def replace(self, **changes):
        """A new source of the same type with ``changes`` applied to the constructor's arguments, validated as
        the constructor validates them; the original is unchanged (``dataclasses.replace`` for sources)."""
        fields = self._fields()
        unknown = sorted(set(changes) - set(fields))
        if unknown:
            raise ParameterError(f"{type(self).__name__}.replace takes {', '.join(fields)}; got {', '.join(unknown)}")
        return type(self)(**{**fields, **changes})

    def __eq__(self, other) -> bool:
        """Equal type and equal fields (arrays element by element); the memo is not compared."""
        if type(other) is not type(self):
            return NotImplemented
        mine, theirs = self._fields(), other._fields()
        return all(_same(mine[name], theirs[name]) for name in mine)

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.X.shape, self.feature_names))

    def __getstate__(self) -> dict:
        """Pickled without the memo (a cache: rebuilt on use)."""
        return {name: value for name, value in vars(self).items() if name != "_memo"}

    def __setstate__(self, state: dict) -> None:
        """Unpickled arrays are read-only again (pickle does not keep the flag)."""
        for name, value in state.items():
            object.__setattr__(self, name, readonly(value) if isinstance(value, np.ndarray) else value)
        object.__setattr__(self, "_memo", _Memo())

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    @property
    def n_rows(self) -> int:
        return self.X.shape[0]

    @property
    def is_sample(self) -> bool:
        """True for observed rows (one class index each), False for an exact law (class weights per row)."""
        return self.y is not None

    def _check_subset(self, subset: Sequence[int]) -> tuple[int, ...]:
        return check_subset(subset, self.n_features)

    def cell_codes(self, subset: Sequence[int]) -> tuple[np.ndarray, int]:
        """One integer cell code per row for the features in ``subset``, and the number of cells."""
        key = self._check_subset(subset)
        hit, start = recall_prefix(self._memo, key)  # a hit, or the longest memoised prefix to extend
        if hit is not None:
            return hit
        codes, n_cells = self._memo.get(key[:start], (np.zeros(self.n_rows, dtype=np.int64), 1))
        for j in key[start:]:
            codes = codes * self.arities[j] + self.X[:, j]
            n_cells = n_cells * int(self.arities[j])
            if n_cells > max(self.n_rows, 1):  # more cells than rows: keep only the occupied ones
                uniques, codes = np.unique(codes, return_inverse=True)
                codes, n_cells = codes.astype(np.int64), len(uniques)
        codes.flags.writeable = False  # memoised, so shared by every caller (and every session of a shared sample)
        result = (codes, n_cells)
        self._memo[key] = result
        if len(self._memo) > _MEMO_SIZE:
            self._memo.popitem(last=False)
        return result

    def _count(self, index: np.ndarray, n_cells: int) -> np.ndarray:
        """Counts of (cell, class) for cell indices ``index`` of shape (r, ...): (n_cells, L)."""
        n_labels = self.labels.shape[0]
        if self.y is not None:
            y = self.y.reshape((-1,) + (1,) * (index.ndim - 1))
            flat = (index * n_labels + y).ravel()
            return np.bincount(flat, minlength=n_cells * n_labels).reshape(n_cells, n_labels).astype(np.float64)
        assert self.weights is not None  # not a sample: a distribution, which has weights
        flat = index.ravel()
        reps = flat.size // max(self.n_rows, 1)
        columns = [
            np.bincount(flat, weights=np.repeat(self.weights[:, l], reps) if reps > 1 else self.weights[:, l],
                        minlength=n_cells)
            for l in range(n_labels)
        ]
        return np.stack(columns, axis=-1)

    def table(self, subset: Sequence[int]) -> JointTable:
        """Joint table of (X_subset, Y)."""
        codes, n_cells = self.cell_codes(subset)
        return JointTable(self._count(codes, n_cells), self.labels)

    def extension_tables(self, subset: Sequence[int], candidates: Sequence[int] | np.ndarray) -> JointTable:
        """Batched tables of ``subset + [j]`` for every j in ``candidates``: shape (B, cells, L).

        Cells are padded to the largest candidate arity; padded cells are empty. When that padded table would
        have more than twice as many cells as there are rows (columns with a value per row, deep subsets), only
        the occupied cells of each candidate are kept (at most one per row; every measure ignores empty cells),
        so memory grows with rows x classes x candidates, never rows^2 (issue 18).
        """
        subset = self._check_subset(subset)
        candidates = np.asarray([int(j) for j in candidates], dtype=np.int64)
        if candidates.size == 0:
            raise ParameterError("extension_tables needs at least one candidate")
        self._check_subset(tuple(candidates))
        base, n_base = self.cell_codes(subset)
        width = int(self.arities[candidates].max())
        n_cells = n_base * width
        n_labels = self.labels.shape[0]
        if n_cells > 2 * max(self.n_rows, 1):
            return self._occupied_extension_tables(base, n_base, candidates)
        chunk = max(1, _BATCH_CELLS // max(n_cells * n_labels, 1))
        parts = []
        for start in range(0, candidates.size, chunk):
            cand = candidates[start:start + chunk]
            offsets = np.arange(cand.size, dtype=np.int64) * n_cells
            index = base[:, None] * width + self.X[:, cand] + offsets[None, :]
            parts.append(self._count(index, cand.size * n_cells).reshape(cand.size, n_cells, n_labels))
        return JointTable(np.concatenate(parts, axis=0), self.labels)

    def _occupied_extension_tables(self, base: np.ndarray, n_base: int, candidates: np.ndarray) -> JointTable:
        """Tables of (subset cell, X_j) over each candidate's occupied cells, padded to the largest count."""
        n_labels = self.labels.shape[0]
        chunk = max(1, _BATCH_CELLS // max(self.n_rows, 1))
        parts, widths = [], []
        for start in range(0, candidates.size, chunk):
            cand = candidates[start:start + chunk]
            arities = self.arities[cand]
            stride = n_base * int(arities.max())
            lanes = np.arange(cand.size, dtype=np.int64) * stride
            codes = base[:, None] * arities[None, :] + self.X[:, cand].astype(np.int64) + lanes[None, :]
            uniques, inverse = np.unique(codes, return_inverse=True)
            begins = np.searchsorted(uniques, lanes)
            width = int(np.diff(np.append(begins, uniques.size)).max())
            index = inverse.reshape(codes.shape) - begins[None, :] + np.arange(cand.size, dtype=np.int64) * width
            parts.append(self._count(index, cand.size * width).reshape(cand.size, width, n_labels))
            widths.append(width)
        widest = max(widths)
        counts = np.zeros((candidates.size, widest, n_labels))
        at = 0
        for part in parts:
            counts[at:at + part.shape[0], :part.shape[1]] = part
            at += part.shape[0]
        return JointTable(counts, self.labels)

    def subsample(self, rows: np.ndarray) -> CodedSource:
        """A source over the given rows (with repeats, as a bootstrap resample): a plain CodedSource of the taken
        rows (its class indices or weights), whatever the subclass (an encoded dataset keeps its type)."""
        rows = np.asarray(rows)
        fields = CodedSource._fields(self) | {
            "X": self.X[rows], "y": None if self.y is None else self.y[rows],
            "weights": None if self.weights is None else self.weights[rows]}
        return CodedSource(**fields)


@runtime_checkable
class Discretizable(Protocol):
    """Raw data that becomes a table source when discretised with its defaults (a ``fslab.data.Dataset``): this
    module names the capability, not the class, because the data layer builds on this module."""

    def discretize(self) -> TableSource: ...


def as_source(obj) -> TableSource:
    """The table source behind a Dataset (discretised with its defaults), an encoded dataset or a Distribution."""
    if isinstance(obj, TableSource):
        return obj
    if isinstance(obj, Discretizable) and isinstance(source := obj.discretize(), TableSource):
        return source
    raise ParameterError(
        f"expected a Dataset, an encoded dataset or a Distribution; got {type(obj).__name__}"
    )
