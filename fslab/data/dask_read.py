"""Reading partitioned data into a :class:`~fslab.data.distributed.DaskSource`: :func:`from_dask`.

:func:`from_dask` discretises a ``dask.dataframe.DataFrame`` (or a ``dask.array`` pair) with GLOBAL statistics,
one pass over the partitions per statistic (mean and range; the sum of squared deviations for mean-std; an exact
8-bit radix select of the order statistics for quantile bins; the global sets of categories, small integer values
and target classes), keeps the codes persisted on the workers as uint8 (uint16 for wider arities) and returns a
:class:`~fslab.data.distributed.DaskSource`, whose counting kernels live in :mod:`fslab.data.distributed`.

Dask is optional (``pip install fslab[dask]``): importing this module needs no Dask; using it without
Dask raises :class:`~fslab.errors.DaskMissingError`.
"""

from __future__ import annotations

import functools
import glob
import math
import os

import numpy as np
import pandas as pd

from ..errors import DataError, ParameterError
from .column_types import id_message, near_unique_text
from .data_checks import ID_MIN_ROWS, UnknownTargetError, check_finite
from .discretize import (
    DISCRETE_MAX,
    MISSING,
    bin_names,
    check_method,
    kind_notes,
    numeric_values,
    uniform_edges,
    value_name,
)
from .distributed import DaskSource, _compute, _tree_sum, _tree_sum_with, require_dask
from .target import encode_target

MAX_LEVELS = 1 << 16   # distinct values of a text column shipped to the client as its categories, at most
PERSIST_SHARE = 0.25   # persist="auto" keeps the data in the workers' memory up to this share of it
_HEAD = 64             # first values of each numeric column in the statistics: a real column off the ID grid there
                       # is no ID (column_types.evenly_spaced checks its first 64 values first, too)

# --- partition-side functions (run on the workers) --------------------------------------------------------

def _numbers(column: pd.Series) -> np.ndarray:
    """A numeric column's values as floats (missing: NaN); the columns asked are numeric by their dtype."""
    x = numeric_values(column)
    assert x is not None, column.name
    return x


def _numeric_matrix(frame: pd.DataFrame, columns: list[str]) -> np.ndarray:
    if not columns:
        return np.empty((len(frame), 0))
    return np.column_stack([_numbers(frame[c]) for c in columns])


def _target_text(column: pd.Series) -> np.ndarray:
    return column.astype(str).str.strip().to_numpy(dtype=object)


def _text_values(column: pd.Series) -> np.ndarray:
    return column.astype(str).to_numpy(dtype=object)


def _partition_stats(frame: pd.DataFrame, numeric: list[str], text: list[str], target: str, target_numeric: bool,
                     cap: int, max_levels: int, top_bytes: bool = False) -> dict:
    """One partition's sums, extremes, small value sets and category sets (what global cut points need).

    A text column's distinct values are kept up to ``max_levels`` of them, over the rows kept (``categories``, else
    None: "many") and over every row (``everything``, what the near-unique rule counts; beyond ``max_levels``, the
    set of their 64-bit hashes, which the reduction tree unites and its root turns into a count), so an ID column
    never ships its values. ``top_bytes``: the histogram of the first byte of every numeric value's order key
    (the first pass of the quantile radix select)."""
    keep = frame[target].notna().to_numpy()
    everything = []
    for c in text:   # near-unique counts run over every row, as Dataset.from_frame types columns before the target
        col = frame[c]
        u = np.unique(_text_values(col[col.notna().to_numpy()]))
        everything.append(u if u.size <= max_levels else _hashes(u))
    frame = frame.loc[keep] if not keep.all() else frame
    V = _numeric_matrix(frame, numeric)
    missing = np.isnan(V)
    finite_n = (~missing).sum(axis=0)
    inf = np.isinf(V).any(axis=0)
    with np.errstate(invalid="ignore", over="ignore"):
        lo = np.where(finite_n > 0, np.where(missing, np.inf, V).min(axis=0, initial=np.inf), np.inf)
        hi = np.where(finite_n > 0, np.where(missing, -np.inf, V).max(axis=0, initial=-np.inf), -np.inf)
        integral = np.all((V == np.floor(V)) | missing, axis=0)
    values: list[np.ndarray | None] = []
    for j in range(V.shape[1]):   # small value sets: at most `cap` distinct values, else None ("many")
        x = V[~missing[:, j], j]
        if x.size == 0:
            values.append(np.empty(0))
        elif not integral[j]:   # kept as is only with at most two values
            ends = (x == lo[j]) | (x == hi[j])
            values.append(np.unique(x[ends]) if ends.all() else None)
        elif hi[j] - lo[j] > 1 << 16:
            u = np.unique(x)
            values.append(u if u.size <= cap else None)
        else:
            present = np.flatnonzero(np.bincount((x - lo[j]).astype(np.int64)) > 0) + lo[j]
            values.append(present if present.size <= cap else None)
    categories = []
    for i, c in enumerate(text):
        col = frame[c]
        miss = col.isna().to_numpy()
        if keep.all():
            cats = everything[i] if isinstance(everything[i], np.ndarray) else None
        else:
            u = np.unique(_text_values(col[~miss]))
            cats = u if u.size <= max_levels else None
        categories.append((cats, bool(miss.any())))
    y = frame[target]
    if target_numeric:
        t_uniques, t_counts = np.unique(_numbers(y), return_counts=True)
    else:
        t_uniques, t_counts = np.unique(_target_text(y), return_counts=True)
    top = None
    if top_bytes:
        top = np.zeros((V.shape[1], 256), dtype=np.int64)
        for j in range(V.shape[1]):
            keys = _float_keys(V[~missing[:, j], j])
            top[j] = np.bincount((keys >> np.uint64(56)).astype(np.int64), minlength=256)
    head = [V[~missing[:, j], j][:_HEAD] for j in range(V.shape[1])]
    nbytes = int(frame.memory_usage(deep=True, index=False).sum())
    return {"n": finite_n, "missing": missing.any(axis=0), "inf": inf, "lo": lo, "hi": hi, "integral": integral,
            "values": values, "categories": categories, "everything": everything, "head": head, "nbytes": nbytes,
            "rows": int(keep.sum()),
            "dropped": int((~keep).sum()), "target": (t_uniques, t_counts), "top": top}


def _hashes(values: np.ndarray) -> tuple[str, np.ndarray]:
    return "hashes", np.unique(pd.util.hash_array(values))


def _union_or_hashes(parts: list, cap: int) -> np.ndarray | tuple[str, np.ndarray]:
    """Distinct values united while at most ``cap``, else the union of their hashes."""
    if all(isinstance(p, np.ndarray) for p in parts):
        u = np.unique(np.concatenate(parts))
        return u if u.size <= cap else _hashes(u)
    return "hashes", np.unique(np.concatenate([p[1] if isinstance(p, tuple) else _hashes(p)[1] for p in parts]))


def _finish_stats(stats: dict) -> dict:
    """The root of the statistics tree: a hash set becomes its size (only the count reaches the client)."""
    return stats | {"everything": [e if isinstance(e, np.ndarray) else int(e[1].size) for e in stats["everything"]]}


def _union_capped(parts: list, cap: int) -> np.ndarray | None:
    if any(p is None for p in parts):
        return None
    u = np.unique(np.concatenate(parts)) if parts else np.empty(0)
    return u if u.size <= cap else None


def _merge_stats(cap: int, max_levels: int, *stats: dict) -> dict:
    """Partition statistics merged (a reduction-tree node on the workers): value and category sets stay capped,
    so what reaches the client is bounded whatever the number of partitions."""
    if len(stats) == 1:
        return stats[0]
    t_uniques, inverse = np.unique(np.concatenate([s["target"][0] for s in stats]), return_inverse=True)
    t_counts = np.bincount(inverse, weights=np.concatenate([s["target"][1] for s in stats])).astype(np.int64)
    tops = [s["top"] for s in stats]
    return {
        "n": np.sum([s["n"] for s in stats], axis=0),
        "missing": np.logical_or.reduce([s["missing"] for s in stats]),
        "inf": np.logical_or.reduce([s["inf"] for s in stats]),
        "lo": np.min([s["lo"] for s in stats], axis=0), "hi": np.max([s["hi"] for s in stats], axis=0),
        "integral": np.logical_and.reduce([s["integral"] for s in stats]),
        "values": [_union_capped(list(v), cap) for v in zip(*(s["values"] for s in stats), strict=True)],
        "categories": [(_union_capped([c[0] for c in cs], max_levels), any(c[1] for c in cs))
                       for cs in zip(*(s["categories"] for s in stats), strict=True)],
        "everything": [_union_or_hashes(list(e), max_levels) for e in zip(*(s["everything"] for s in stats),
                                                                           strict=True)],
        "head": [np.concatenate(h)[:_HEAD] for h in zip(*(s["head"] for s in stats), strict=True)],
        "rows": sum(s["rows"] for s in stats), "dropped": sum(s["dropped"] for s in stats),
        "nbytes": sum(s["nbytes"] for s in stats),
        "target": (t_uniques, t_counts), "top": None if tops[0] is None else np.sum(tops, axis=0)}


def _partition_distinct(frame: pd.DataFrame, numeric: list[str], target: str,
                        grids: list) -> tuple[list[np.ndarray], np.ndarray]:
    """Sorted 64-bit hashes of the distinct values of each numeric column over the kept rows, and whether its
    values sit on the grid lo + k step (``grids``: (lo, step) or None)."""
    hashes = []
    frame = frame.loc[frame[target].notna().to_numpy()]
    V = _numeric_matrix(frame, numeric)
    on_grid = np.ones(len(numeric), dtype=bool)
    for j, grid in enumerate(grids):
        x = V[:, j]
        hashes.append(np.unique(pd.util.hash_array(x)))
        if grid is not None:
            r = (x - grid[0]) / grid[1]
            on_grid[j] = bool(np.allclose(r, np.round(r), rtol=0, atol=1e-6))
    return hashes, on_grid


def _merge_distinct(*parts):
    return ([np.unique(np.concatenate(h)) for h in zip(*(p[0] for p in parts), strict=True)],
            np.logical_and.reduce([p[1] for p in parts]))


def _distinct_counts(part) -> tuple[np.ndarray, np.ndarray]:
    return np.array([h.size for h in part[0]], dtype=np.int64), part[1]


def _scaled(frame: pd.DataFrame, columns: list[str], target: str, scale: np.ndarray) -> np.ndarray:
    frame = frame.loc[frame[target].notna().to_numpy()]
    return _numeric_matrix(frame, columns) / scale[None, :]


def _partition_int_moments(frame: pd.DataFrame, columns: list[str], target: str) -> tuple[np.ndarray, np.ndarray]:
    """Exact integer sums of x and x^2 per column (8/16-bit integer columns: no overflow in int64)."""
    frame = frame.loc[frame[target].notna().to_numpy()]
    V = np.column_stack([frame[c].to_numpy().astype(np.int64) for c in columns]) if len(frame) else \
        np.zeros((0, len(columns)), dtype=np.int64)
    return V.sum(axis=0), (V * V).sum(axis=0)


def _partition_sums(frame: pd.DataFrame, columns: list[str], target: str, scale: np.ndarray) -> np.ndarray:
    """sum x / scale per column over one partition's non-missing values."""
    return np.nansum(_scaled(frame, columns, target, scale), axis=0)


def _partition_squares(frame: pd.DataFrame, columns: list[str], target: str, scale: np.ndarray,
                       means: np.ndarray) -> np.ndarray:
    """sum (x / scale - mean)^2 per column over one partition's non-missing values (mean: the global one)."""
    Z = _scaled(frame, columns, target, scale)
    D = np.where(np.isnan(Z), 0.0, Z - means[None, :])
    return np.einsum("ij,ij->j", D, D)


def _float_keys(x: np.ndarray) -> np.ndarray:
    """Order-preserving uint64 keys of finite floats (sign bit flipped; negatives bitwise inverted)."""
    bits = np.ascontiguousarray(x, dtype=np.float64).view(np.uint64)
    return np.where(bits >> np.uint64(63), ~bits, bits | np.uint64(1 << 63))


def _key_floats(keys: np.ndarray) -> np.ndarray:
    keys = np.asarray(keys, dtype=np.uint64)
    bits = np.where(keys >> np.uint64(63), keys & ~np.uint64(1 << 63), ~keys)
    return bits.view(np.float64)


def _partition_digits(frame: pd.DataFrame, columns: list[str], target: str, prefixes: np.ndarray,
                      shift: int) -> np.ndarray:
    """Radix-select pass: per (column, sought rank) the histogram of the key byte at ``shift`` among values
    whose higher bytes equal the sought prefix: shape (columns, ranks, 256)."""
    frame = frame.loc[frame[target].notna().to_numpy()]
    V = _numeric_matrix(frame, columns)
    out = np.zeros(prefixes.shape + (256,), dtype=np.int64)
    for j in range(V.shape[1]):
        x = V[:, j]
        keys = _float_keys(x[~np.isnan(x)])
        high = keys >> np.uint64(shift + 8) if shift + 8 < 64 else np.zeros_like(keys)
        digit = ((keys >> np.uint64(shift)) & np.uint64(255)).astype(np.int64)
        for r, prefix in enumerate(prefixes[j]):
            out[j, r] = np.bincount(digit[high == prefix], minlength=256)
    return out


def _encode_partition(frame: pd.DataFrame, plan: dict) -> tuple[np.ndarray, np.ndarray]:
    """Codes of one partition (rows x features, uint8/uint16) and class indices, from the global plan."""
    frame = frame.loc[frame[plan["target"]].notna().to_numpy()]
    m = len(frame)
    X = np.empty((m, len(plan["columns"])), dtype=plan["dtype"])
    for j, (name, kind, cuts, has_missing) in enumerate(plan["columns"]):
        col = frame[name]
        if kind == "categorical":
            miss = col.isna().to_numpy()
            codes = np.zeros(m, dtype=np.int64)
            codes[~miss] = np.searchsorted(cuts, col[~miss].astype(str).to_numpy(dtype=object))
        else:
            x = _numbers(col)
            miss = np.isnan(x)
            codes = np.searchsorted(cuts, np.where(miss, 0.0, x), side="right" if kind == "binned" else "left")
        if has_missing:
            codes = np.where(miss, len(cuts) + (kind == "binned"), codes)
        X[:, j] = codes
    t = frame[plan["target"]]
    values = _numbers(t) if plan["target_numeric"] else _target_text(t)
    y = plan["target_classes"][np.searchsorted(plan["target_uniques"], values)]
    return np.ascontiguousarray(X), y.astype(np.int64 if plan["n_classes"] > 127 else np.int8)


def _frame_from_arrays(X: np.ndarray, y: np.ndarray, names: list[str], target: str) -> pd.DataFrame:
    frame = pd.DataFrame(np.asarray(X), columns=names)
    frame[target] = np.asarray(y)
    return frame


# --- building a source: global statistics, then codes --------------------------------------------------------

def _cluster_memory() -> float:
    """The memory limits of the connected cluster's workers, summed (0 without a distributed client)."""
    try:
        from distributed import get_client

        workers = get_client().scheduler_info(n_workers=-1)["workers"].values()
    except (ImportError, ValueError):
        return 0.0
    return float(sum(w.get("memory_limit") or 0 for w in workers))


def _near_unique(dask, parts, g: dict, numeric: list[str], text: list[str], target: str, m_all: int,
                 max_levels: int, rule: str) -> dict[str, str]:
    """{column: why} of the ID-like columns to leave out, by Dataset.from_frame's rule (text: distinct values in at
    least NEAR_UNIQUE of all m_all rows; numbers: a different value in every kept row, whole or evenly spaced; all
    kept if every feature is one). Columns whose values were too many to ship are counted on the workers as sets
    of 64-bit hashes, reduced there (text in the statistics pass; a number that may be an ID in one more pass); only
    the counts come back. A kept text column over ``max_levels`` is refused."""
    counts = {c: e.size if isinstance(e, np.ndarray) else e for c, e in zip(text, g["everything"], strict=True)}
    rows = g["rows"]
    gone: dict[str, str] = {}
    if rule == "drop":
        ask_num, grids = [], []
        if rows >= ID_MIN_ROWS:
            for j, c in enumerate(numeric):
                lo, hi = g["lo"][j], g["hi"][j]
                if g["values"][j] is None and g["n"][j] == rows and hi > lo:   # many values, none missing
                    step = (hi - lo) / (rows - 1)
                    if g["integral"][j]:
                        maybe = hi - lo + 1 >= rows   # room for a different whole number in every row
                    else:
                        r = (g["head"][j] - lo) / step   # the grid of an evenly spaced ID, on the first values
                        maybe = bool(np.allclose(r, np.round(r), rtol=0, atol=1e-6))
                    if maybe:
                        ask_num.append(c)
                        grids.append(None if g["integral"][j] else (lo, step))
        if ask_num:
            tasks = [dask.delayed(_partition_distinct)(p, ask_num, target, grids) for p in parts]
            n, on_grid = _compute(dask, dask.delayed(_distinct_counts)(_tree_sum_with(dask, tasks, _merge_distinct)))
            index = {c: j for j, c in enumerate(numeric)}
            for i, (c, grid) in enumerate(zip(ask_num, grids, strict=True)):
                if n[i] == rows and (grid is None or (grid[1] > 0 and on_grid[i])):
                    gone[c] = ("whole numbers, a different one in every row" if g["integral"][index[c]]
                               else "evenly spaced, a different value in every row")
        for c in text:
            if near_unique_text(counts[c], m_all):
                gone[c] = ("a different value in every row" if counts[c] == m_all
                           else f"{counts[c] / max(m_all, 1):.0%} of rows distinct")
        if len(gone) == len(numeric) + len(text):   # nothing else to select from: keep them, as in memory
            gone = {}
    for c in text:
        if c not in gone and counts[c] > max_levels:
            raise DataError(f"text column {c!r} has more than {max_levels:,} distinct values; as categories they "
                            "would all travel to the client: leave the column out, or raise max_levels")
    return gone


def _exact_quantiles(dask, parts, columns: list[str], target: str, n: np.ndarray, bins: int,
                     top: np.ndarray) -> list[np.ndarray]:
    """np.quantile(x, linspace(0, 1, bins + 1)[1:-1]) of each column (linear method), exactly: the order
    statistics it interpolates are found by an 8-bit radix select over the partitions (``top``: the first byte's
    histogram, from the statistics pass; then 7 passes)."""
    q = np.linspace(0.0, 1.0, bins + 1)[1:-1]
    virtual = [(n[j] - 1) * q for j in range(len(columns))]   # numpy's linear method: (n - 1) q, as it rounds
    pairs = []
    for j in range(len(columns)):
        below = np.floor(virtual[j]).astype(np.int64)
        pairs.append(np.stack([np.clip(below, 0, n[j] - 1), np.clip(below + 1, 0, n[j] - 1)], axis=1).ravel())
    ranks = np.array(pairs, dtype=np.int64).reshape(len(columns), -1)
    prefixes = np.zeros(ranks.shape, dtype=np.uint64)
    remaining = ranks.copy()
    for shift in range(56, -8, -8):
        hist = np.broadcast_to(top[:, None, :], prefixes.shape + (256,)) if shift == 56 else _compute(
            dask, _tree_sum(dask, [dask.delayed(_partition_digits)(p, columns, target, prefixes, shift)
                                   for p in parts]))
        cum = np.cumsum(hist, axis=-1)
        digit = (cum <= remaining[..., None]).sum(axis=-1)
        before = np.where(digit > 0, np.take_along_axis(cum, np.maximum(digit - 1, 0)[..., None], -1)[..., 0], 0)
        remaining = remaining - before
        prefixes = (prefixes << np.uint64(8)) | digit.astype(np.uint64)
    stats = _key_floats(prefixes).reshape(len(columns), -1, 2)
    out = []
    for j in range(len(columns)):
        a, b = stats[j, :, 0], stats[j, :, 1]
        t = virtual[j] - np.floor(virtual[j])
        diff = b - a
        lerp = a + diff * t
        lerp = np.where(t >= 0.5, b - diff * (1 - t), lerp)
        out.append(np.unique(np.where(a == b, a, lerp)))
    return out


def from_dask(frame, target, positive=None, method: str = "mean-std", bins: int = 3,
              feature_names=None, *, near_unique: str = "drop", max_levels: int = MAX_LEVELS,
              persist: bool | str = "auto") -> DaskSource:
    """A :class:`DaskSource` from a ``dask.dataframe.DataFrame`` and the name of its target column, or from a
    ``dask.array`` pair ``(X, y)`` (``frame=X``, ``target=y``; X must be 2-d with y's row chunks).

    The codes equal ``Dataset.from_frame(frame.compute(), target, positive).discretize(method, bins)``:
    the same target rule (rows with a missing target dropped, the default positive class), the same bins
    from global statistics (mean-std: mu and the sample std over all rows; quantile: exact order
    statistics; uniform: the global min and max), the same kept-as-is rule for few distinct values, the
    same category order. Mean and std are summed per partition, so they can differ from numpy's pairwise
    sums in the last bit; a value exactly on such an edge is the only way a code could differ.

    ``near_unique``: "drop" (default) leaves out ID-like columns by the in-memory rule (text with a distinct value
    in at least half the rows; numbers with a different value in every row that are whole or evenly spaced), with
    a note; their distinct values are counted on the workers as 64-bit hashes, so only a count reaches the client.
    A kept text column with more than ``max_levels`` distinct values is refused (its categories would all travel
    to the client). ``persist``: True reads the data once into the workers' memory, so the statistics passes and
    the coding do not read the files again (else 4 reads for mean-std, 9 for quantile bins); "auto" (default) does
    so after the first pass when more passes follow and the partitions' pandas size is at most
    :data:`PERSIST_SHARE` of the cluster's worker memory (2 reads in all); False never.
    """
    dask = require_dask()
    import dask.array as da
    import dask.dataframe as dd

    method, bins = check_method(method, bins)
    if isinstance(frame, da.Array):
        if not isinstance(target, da.Array):
            raise DataError("with a dask array X, pass the target as a dask array y: from_dask(X, y)")
        X, y = frame, target
        if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
            raise DataError(f"need X of shape (rows, features) and y of shape (rows,); got {X.shape} and {y.shape}")
        names = list(feature_names) if feature_names is not None else [f"X{j + 1}" for j in range(X.shape[1])]
        if len(names) != X.shape[1]:
            raise DataError(f"need one name per feature: {X.shape[1]} features, {len(names)} names")
        X = X.rechunk({1: -1})
        y = y.rechunk((X.chunks[0],))
        target = "y" if "y" not in names else "target"
        xs, ys = X.to_delayed().ravel(), y.to_delayed().ravel()
        parts = [dask.delayed(_frame_from_arrays)(a, b, names, target) for a, b in zip(xs, ys, strict=True)]
        meta = _frame_from_arrays(np.zeros((0, X.shape[1]), dtype=X.dtype), np.zeros(0, dtype=y.dtype), names, target)
    elif isinstance(frame, dd.DataFrame):
        names = [str(c) for c in frame.columns]
        key = str(target).strip() if target is not None else ""
        if key not in names:
            raise UnknownTargetError(f"target column {key!r} is not in the data; the columns are {names[:10]}")
        if len(set(names)) != len(names):
            raise DataError("column names must be distinct")
        if len(names) < 2:
            raise DataError(f"the data has only the target column {key!r}; it needs at least one feature column")
        target = key
        parts = list(frame.to_delayed())
        meta = frame._meta
        names = [c for c in names if c != key]
    else:
        raise DataError(f"from_dask needs a dask.dataframe.DataFrame or a dask.array pair; got {type(frame).__name__}")

    if near_unique not in ("drop", "keep"):
        raise ParameterError(f"near_unique must be 'drop' or 'keep'; got {near_unique!r}")
    if persist not in (True, False, "auto"):
        raise ParameterError(f"persist must be True, False or 'auto'; got {persist!r}")
    if persist is True:   # read once; every pass below then reads the workers' memory
        parts = list(dask.persist(*parts))
    numeric = [c for c in names if numeric_values(meta[c]) is not None]
    text = [c for c in names if c not in numeric]
    target_numeric = numeric_values(meta[target]) is not None
    cap = max(bins, DISCRETE_MAX)
    tasks = [dask.delayed(_partition_stats)(p, numeric, text, target, target_numeric, cap, max_levels,
                                            method == "quantile") for p in parts]
    g = _compute(dask, dask.delayed(_finish_stats)(_tree_sum_with(dask, tasks,
                                                                  functools.partial(_merge_stats, cap, max_levels))))
    rows, dropped = g["rows"], g["dropped"]
    if rows == 0:
        raise DataError(f"target {target!r} is missing in every row; choose another target column")
    if persist == "auto" and method != "uniform" and g["nbytes"] <= PERSIST_SHARE * _cluster_memory():
        parts = list(dask.persist(*parts))   # the passes to come read the workers' memory, not the files
    for j, c in enumerate(numeric):
        if g["inf"][j]:
            check_finite(c, np.array([np.inf]))
    gone = _near_unique(dask, parts, g, numeric, text, target, rows + dropped, max_levels, near_unique)
    if gone:
        kept = [j for j, c in enumerate(numeric) if c not in gone]
        for key_ in ("n", "missing", "inf", "lo", "hi", "integral"):
            g[key_] = g[key_][kept]
        g["values"] = [g["values"][j] for j in kept]
        g["top"] = None if g["top"] is None else g["top"][kept]
        g["categories"] = [cat for cat, c in zip(g["categories"], text, strict=True) if c not in gone]
        names, numeric, text = ([c for c in cols if c not in gone] for cols in (names, numeric, text))
    kinds = {meta[c].dtype for c in numeric}
    # discretize reads all-alike 8/16-bit integer columns natively and takes exact integer moments for mean-std
    small_ints = len(kinds) == 1 and isinstance(next(iter(kinds)), np.dtype) and next(iter(kinds)).kind in "biu" \
        and next(iter(kinds)).itemsize <= 2

    # target: the global set of classes with their counts, encoded by the in-memory rule
    t_uniques, t_counts = g["target"]
    if target_numeric:
        check_finite(target, t_uniques)
    weights = np.ones(t_uniques.size, dtype=np.int64)
    if t_uniques.size == 2 and t_counts[0] != t_counts[1]:
        weights[np.argmax(t_counts)] = 2   # the tiny stand-in column keeps which class is less frequent
    stand_in = pd.Series(np.repeat(t_uniques, weights), dtype=np.float64 if target_numeric else object)
    encoded = encode_target(stand_in, target, positive)
    classes = encoded.y[np.cumsum(weights) - 1]
    class_counts = np.bincount(classes, weights=t_counts, minlength=len(encoded.class_names))
    notes = [f"Partitioned data: {rows:,} rows in {len(parts)} partitions, counted on the Dask workers."]
    if gone:
        notes.append(id_message(list(gone), gone))
    if dropped:
        notes.append(f"{dropped} row(s) with a missing target were dropped; {rows} remain.")
    if encoded.task == "binary":
        notes.append(f"Positive class: {encoded.class_names[1]!r} ({class_counts[1] / rows:.1%} of rows).")
    else:
        notes.extend(encoded.notes)

    # features: kept as is (small value sets), binned from global statistics, or categories
    cuts: dict[str, tuple[str, np.ndarray, tuple[str, ...]]] = {}
    binned = [j for j, c in enumerate(numeric)
              if not (g["values"][j] is not None and (g["values"][j].size <= 2 or g["integral"][j]))]
    edges: dict[int, np.ndarray] = {}
    if binned and method == "mean-std":   # as discretize: exact integer moments, else mu -+ sigma on x / max|x|
        exact = binned if small_ints and not g["missing"][binned].any() else []   # all or none, as discretize
        if exact:
            sums = _compute(dask, [dask.delayed(_partition_int_moments)(p, [numeric[j] for j in exact], target)
                                   for p in parts])
            for i, j in enumerate(exact):
                s1, s2, n = sum(int(z[0][i]) for z in sums), sum(int(z[1][i]) for z in sums), int(g["n"][j])
                sigma = math.sqrt(max((n * s2 - s1 * s1) / (n * max(n - 1, 1)), 0.0))
                edges[j] = np.unique([s1 / n - sigma, s1 / n + sigma])
        floats = [j for j in binned if j not in edges]
        if floats:
            cols = [numeric[j] for j in floats]
            scale = np.fmax(np.abs(g["lo"][floats]), np.abs(g["hi"][floats]))
            scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
            n = g["n"][floats]
            total = np.zeros(len(cols))
            for z in _compute(dask, [dask.delayed(_partition_sums)(p, cols, target, scale) for p in parts]):
                total += z   # partition sums added in row order, as discretize adds its row blocks'
            means = total / np.maximum(n, 1)
            squares = _compute(dask, _tree_sum(dask, [dask.delayed(_partition_squares)(p, cols, target, scale, means)
                                                      for p in parts]))
            sigma = np.sqrt(squares / np.maximum(n - 1, 1))
            with np.errstate(over="ignore", invalid="ignore"):
                for i, j in enumerate(floats):
                    edges[j] = np.unique([(means[i] - sigma[i]) * scale[i], (means[i] + sigma[i]) * scale[i]])
    elif binned and method == "quantile":
        found = _exact_quantiles(dask, parts, [numeric[j] for j in binned], target, g["n"][binned], bins,
                                 g["top"][binned])
        edges = dict(zip(binned, found, strict=True))
    elif binned:   # lo + k (hi - lo) / bins, discretize's own formula
        E = uniform_edges(g["lo"][binned], g["hi"][binned], bins)
        edges = {j: np.unique(E[i]) for i, j in enumerate(binned)}
    for j, c in enumerate(numeric):
        if j in edges:
            if not np.all(np.isfinite(edges[j])):
                raise DataError(f"column {c!r} has values too large to bin (|x| up to "
                                f"{max(abs(g['lo'][j]), abs(g['hi'][j])):.3g}); rescale the column")
            cuts[c] = ("binned", edges[j], bin_names(edges[j]))
        else:
            vals = g["values"][j]
            cuts[c] = ("discrete", vals, tuple(value_name(v) for v in vals))
    text_missing = {}
    for c, (cats, has_missing) in zip(text, g["categories"], strict=True):
        cuts[c] = ("categorical", cats, tuple(str(v) for v in cats))
        text_missing[c] = has_missing
    missing = dict(zip(numeric, g["missing"], strict=True)) | text_missing
    columns, categories = [], []
    for c in names:
        kind, cut, cats = cuts[c]
        columns.append((c, kind, cut, bool(missing[c])))
        categories.append(cats + ((MISSING,) if missing[c] else ()))
    arities = np.array([len(cats) for cats in categories], dtype=np.int64)
    notes.extend(kind_notes([cuts[c][0] for c in names], categories, method, bins,
                            " (global statistics over all partitions)"))
    widest = int(arities.max()) if arities.size else 1
    plan = {"columns": columns, "target": target, "target_numeric": target_numeric, "target_uniques": t_uniques,
            "target_classes": classes, "n_classes": len(encoded.class_names),
            "dtype": np.uint8 if widest <= 256 else np.uint16 if widest <= 1 << 16 else np.int64}
    plan_d = dask.delayed(plan, traverse=False)
    encoded_parts = dask.persist(*[dask.delayed(_encode_partition)(p, plan_d) for p in parts])
    return DaskSource(list(encoded_parts), rows, arities, encoded.labels, names, class_names=encoded.class_names,
                      task=encoded.task, target=target, categories=tuple(categories), notes=notes)




# --- files the workers read: a parquet or CSV file, a directory of them, a glob ---------------------------------

PARQUET_SUFFIXES = (".parquet", ".parq", ".pq")
CSV_SUFFIXES = (".csv", ".csv.gz", ".tsv", ".txt")


def _file_kind(path: str) -> str | None:
    name = path.lower()
    if name.endswith(PARQUET_SUFFIXES):
        return "parquet"
    if name.endswith(CSV_SUFFIXES):
        return "csv"
    try:
        with open(path, "rb") as fh:
            return "parquet" if fh.read(4) == b"PAR1" else None
    except OSError:
        return None


def table_files(path: str) -> tuple[str, list[str]]:
    """The files ``path`` names: one parquet or CSV file, a directory holding parquet files (else CSV files; hidden
    and ``_``-prefixed ones skipped, as Spark and Dask write them) or a glob (``data/*.parquet``, ``part-*.csv``).
    Returns ("parquet" | "csv", sorted paths); a DataError when there are none or they mix kinds. Reads at most the
    4-byte magic number of a file without a known suffix, never its rows."""
    shown = os.fspath(path)
    if glob.has_magic(shown):
        files = sorted(f for f in glob.glob(shown, recursive=True) if os.path.isfile(f))
        if not files:
            raise DataError(f"no file matches {shown!r}; check the pattern (quote it so the shell leaves it to "
                            "fslab) and that the files are there")
    elif os.path.isdir(shown):
        found = sorted(os.path.join(d, f) for d, dirs, fs in os.walk(shown) for f in fs
                       if not f.startswith((".", "_")) and not any(p.startswith((".", "_"))
                                                                    for p in os.path.relpath(d, shown).split(os.sep)
                                                                    if p != "."))
        by_file = {f: _file_kind(f) for f in found}
        files = [f for f in found if by_file[f] == "parquet"] or [f for f in found if by_file[f] == "csv"]
        if not files:
            raise DataError(f"the directory {shown!r} holds no parquet or CSV files")
    elif os.path.isfile(shown):
        files = [shown]
    else:
        raise DataError(f"no such file or directory: {shown!r}")
    kinds = {_file_kind(f) or f for f in files}   # a file of no known kind stands for itself
    unknown = sorted(kinds - {"parquet", "csv"})
    if unknown:
        raise DataError(f"{unknown[0]!r} is neither a parquet file nor a CSV file (.csv, .csv.gz, .tsv)")
    if len(kinds) > 1:
        raise DataError(f"{shown!r} mixes parquet and CSV files; give one kind")
    return kinds.pop(), files


def read_files(path: str, blocksize: str = "64MB"):
    """A lazy ``dask.dataframe.DataFrame`` over the files ``path`` names (:func:`table_files`): the workers read
    them when it is computed (the client reads parquet footers only), so the files must be reachable from every
    worker under the same path."""
    require_dask()
    import dask.dataframe as dd

    kind, files = table_files(path)
    try:
        if kind == "parquet":
            return dd.read_parquet(files)
        gz = any(f.lower().endswith(".gz") for f in files)
        sep = "\t" if all(f.lower().endswith(".tsv") for f in files) else ","
        # whole-number columns as floats: a later block with a missing value or a decimal does not contradict the
        # types dask guessed from the first one (value names are the same: 1.0 is named "1")
        return dd.read_csv(files, blocksize=None if gz else blocksize, sep=sep, assume_missing=True)
    except (OSError, ValueError) as err:
        raise DataError(f"cannot read {os.fspath(path)!r} as {kind}: {str(err).splitlines()[0][:200]}") from None


__all__ = ["MAX_LEVELS", "from_dask", "read_files", "table_files"]
