"""Reading partitioned data into a :class:`~fslab.data.distributed.DaskSource`: :func:`from_dask`.

:func:`from_dask` follows the one plan (:mod:`fslab.data.plan`) as ``Dataset.from_frame`` does, with every pass
over the rows on the workers:

1. each partition is summarised (:func:`fslab.data.plan.summarize`: counts that add across partitions) and the
   summaries are merged up a reduction tree (:func:`fslab.data.plan.merge`); numbers that may be IDs (a different
   value in every row) get their exact distinct count from one more pass over 64-bit hashes;
2. :func:`fslab.data.plan.decide` makes the plan on the client (types and parse readings, columns left out and
   why, the target's classes) from the merged summaries alone;
3. every partition is read by the plan (:func:`fslab.data.plan.apply`: dates, percentages, currency, units,
   decimal commas parsed on the workers) and the coding is computed from the parsed values with GLOBAL statistics
   (mean and range; the sum of squared deviations for mean-std; an exact 8-bit radix select of the order statistics
   for quantile bins; the global sets of categories and small value sets), recorded in the plan
   (:meth:`~fslab.data.plan.TablePlan.with_coding`), and every partition is coded by it
   (:func:`fslab.data.plan.code`), kept persisted on the workers as uint8 (uint16 for wider arities).

The :class:`~fslab.data.distributed.DaskSource` it returns carries the plan (``.plan``); its counting kernels live
in :mod:`fslab.data.distributed`. Dask is optional (``pip install fslab[dask]``): importing this module needs no
Dask; using it without Dask raises :class:`~fslab.errors.DaskMissingError`.
"""

from __future__ import annotations

import dataclasses
import functools
import glob
import math
import os

import numpy as np
import pandas as pd

from ..errors import DataError, ParameterError
from .data_checks import ID_MIN_ROWS, UnknownTargetError, check_finite
from .discretize import (
    DISCRETE_MAX,
    MISSING,
    ROBUST_SHARE,
    bin_names,
    check_method,
    fullest_share,
    numeric_values,
    robust_switch,
    uniform_edges,
    value_name,
)
from .distributed import DaskSource, _compute, _tree_sum, _tree_sum_with, require_dask
from .plan import (
    TEXT_CAP,
    PlanError,
    PlanOptions,
    TablePlan,
    TableSummary,
    _class_name,
    apply,
    code,
    decide,
    is_numeric,
    merge,
    summarize,
)
from .target import choose_classes

MAX_LEVELS = TEXT_CAP  # distinct values of a kept text column shipped to the client as its categories, at most
PERSIST_SHARE = 0.25   # persist="auto" keeps the data in the workers' memory up to this share of it
PARSED = ("numeric", "number", "percent", "date", "boolean")   # plan types read as numbers; text and category: text

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


def _text_values(column: pd.Series) -> np.ndarray:
    return column.astype(str).to_numpy(dtype=object)


def _summarize_partition(frame: pd.DataFrame, target: str, index: int, names: list[str],
                         numeric: list[str]) -> tuple[TableSummary, int]:
    """Partition ``index``'s :func:`~fslab.data.plan.summarize` (the data's columns, in its order) and its pandas
    bytes; a column missing from the partition, or numbers where the data's schema has text (or the other way
    round), is a PlanError naming the column and the partition."""
    have = {str(c) for c in frame.columns}
    for c in [*names, target]:
        if c not in have:
            raise PlanError(f"column {c!r} is missing from partition {index} of the data (the first partition's "
                            "schema has it); give every partition the same columns")
        if is_numeric(frame[c]) != (c in numeric):
            kinds = ("numbers", "text") if c in numeric else ("text", "numbers")
            raise PlanError(f"column {c!r} holds {kinds[1]} ({frame[c].dtype}) in partition {index} but "
                            f"{kinds[0]} in the data's schema; give every partition the same dtype")
    frame = frame[[*names, target]]
    return summarize(frame, target), int(frame.memory_usage(deep=True, index=False).sum())


def _merge_summaries(*parts: tuple[TableSummary, int]) -> tuple[TableSummary, int]:
    """Partition summaries merged in row order (a reduction-tree node on the workers)."""
    return functools.reduce(merge, [p[0] for p in parts]), sum(p[1] for p in parts)


def _typed(frame: pd.DataFrame, plan: TablePlan) -> pd.DataFrame:
    """One partition read by the plan (:func:`fslab.data.plan.apply`), rows with a missing target dropped, the
    target column last (as it is)."""
    assert plan.target is not None
    target = plan.target.name
    keep = frame[target].notna().to_numpy(bool)
    if not keep.all():
        frame = frame.loc[keep]
    typed = apply(plan, frame)
    return typed.assign(**{target: frame[target].to_numpy()})


def _partition_stats(frame: pd.DataFrame, numeric: list[str], text: list[str], cap: int, max_levels: int,
                     top_bytes: bool = False) -> dict:
    """One typed partition's sums, extremes, small value sets and category sets (what global cut points need).

    A text column's distinct values are kept up to ``max_levels`` of them (``categories``, else None: "many").
    ``top_bytes``: the histogram of the first byte of every numeric value's order key (the first pass of the
    quantile radix select)."""
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
        elif not integral[j]:   # kept as is only with at most two values; a few kept to count them (outliers)
            head = np.unique(x[:4 * cap])
            u = head if head.size > cap else np.unique(x)
            values.append(u if u.size <= cap else None)
        elif hi[j] - lo[j] > 1 << 16:
            u = np.unique(x)
            values.append(u if u.size <= cap else None)
        else:
            present = np.flatnonzero(np.bincount((x - lo[j]).astype(np.int64)) > 0) + lo[j]
            values.append(present if present.size <= cap else None)
    categories = []
    for c in text:
        col = frame[c]
        miss = col.isna().to_numpy()
        u = np.unique(_text_values(col[~miss]))
        categories.append((u if u.size <= max_levels else None, bool(miss.any())))
    top = None
    if top_bytes:
        top = np.zeros((V.shape[1], 256), dtype=np.int64)
        for j in range(V.shape[1]):
            keys = _float_keys(V[~missing[:, j], j])
            top[j] = np.bincount((keys >> np.uint64(56)).astype(np.int64), minlength=256)
    return {"n": finite_n, "missing": missing.any(axis=0), "inf": inf, "lo": lo, "hi": hi, "integral": integral,
            "values": values, "categories": categories, "rows": len(frame), "top": top}


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
        "rows": sum(s["rows"] for s in stats), "top": None if tops[0] is None else np.sum(tops, axis=0)}


def _partition_distinct(frame: pd.DataFrame, numeric: list[str], target: str,
                        grids: list) -> list[np.ndarray | None]:
    """Per column, the sorted 64-bit hashes of its distinct values over the rows with a target, or None when they
    cannot all differ: a value off the grid lo + k step of an evenly spaced column (``grids``: (lo, step), or None
    for whole numbers), checked before any hashing."""
    frame = frame.loc[frame[target].notna().to_numpy()]
    V = _numeric_matrix(frame, numeric)
    out: list[np.ndarray | None] = []
    for j, grid in enumerate(grids):
        x = V[:, j]
        if grid is not None and not all(np.allclose(r, np.round(r), rtol=0, atol=1e-6)
                                        for r in ((x[:64] - grid[0]) / grid[1], (x - grid[0]) / grid[1])):
            out.append(None)   # the first 64 values usually decide, as column_types.evenly_spaced
            continue
        out.append(np.unique(pd.util.hash_array(x)))
    return out


def _merge_distinct(*parts: list) -> list[np.ndarray | None]:
    return [None if any(h is None for h in hs) else np.unique(np.concatenate(hs)) for hs in zip(*parts, strict=True)]


def _distinct_counts(part: list) -> list[int | None]:
    return [None if h is None else int(h.size) for h in part]


def _partition_int_moments(frame: pd.DataFrame, columns: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Exact integer sums of x and x^2 per column (8/16-bit integer columns: no overflow in int64)."""
    V = np.column_stack([frame[c].to_numpy().astype(np.int64) for c in columns]) if len(frame) else \
        np.zeros((0, len(columns)), dtype=np.int64)
    return V.sum(axis=0), (V * V).sum(axis=0)


def _partition_sums(frame: pd.DataFrame, columns: list[str], scale: np.ndarray) -> np.ndarray:
    """sum x / scale per column over one partition's non-missing values."""
    return np.nansum(_numeric_matrix(frame, columns) / scale[None, :], axis=0)


def _partition_squares(frame: pd.DataFrame, columns: list[str], scale: np.ndarray, means: np.ndarray) -> np.ndarray:
    """sum (x / scale - mean)^2 per column over one partition's non-missing values (mean: the global one)."""
    Z = _numeric_matrix(frame, columns) / scale[None, :]
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


def _partition_digits(frame: pd.DataFrame, columns: list[str], prefixes: np.ndarray, shift: int) -> np.ndarray:
    """Radix-select pass: per (column, sought rank) the histogram of the key byte at ``shift`` among values
    whose higher bytes equal the sought prefix: shape (columns, ranks, 256)."""
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


def _encode_partition(frame: pd.DataFrame, plan: TablePlan, target: dict) -> tuple[np.ndarray, np.ndarray]:
    """Codes of one typed partition by the coded plan (:func:`fslab.data.plan.code`; uint8/uint16) and its class
    indices (``target``: the sorted distinct target values, their class index, numeric or not, the dtypes)."""
    X = code(plan, frame).astype(target["dtype"])
    t = frame[target["name"]]
    values = _numbers(t) if target["numeric"] else t.astype(str).str.strip().to_numpy(dtype=object)
    y = target["index"][np.searchsorted(target["levels"], values)]
    return np.ascontiguousarray(X), y.astype(np.int64 if target["n_classes"] > 127 else np.int8)


def _frame_from_arrays(X: np.ndarray, y: np.ndarray, names: list[str], target: str) -> pd.DataFrame:
    frame = pd.DataFrame(np.asarray(X), columns=names)
    frame[target] = np.asarray(y)
    return frame


# --- building a source: the plan, global statistics, then codes -----------------------------------------------

def _cluster_memory() -> float:
    """The memory limits of the connected cluster's workers, summed; without a distributed client (a local
    scheduler: the partitions live in this process) this machine's memory."""
    try:
        from distributed import get_client

        workers = get_client().scheduler_info(n_workers=-1)["workers"].values()
    except (ImportError, ValueError):
        try:
            return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
        except (ValueError, OSError, AttributeError):
            return 0.0
    return float(sum(w.get("memory_limit") or 0 for w in workers))


def _exact_ids(dask, parts, summary: TableSummary, near_unique: str) -> TableSummary:
    """The summary with the exact distinct count of every numeric feature that may be an ID (many values, none
    missing, at least ID_MIN_ROWS rows: whole numbers with room for a different one in every row, or reals whose
    values may sit on the grid lo + k (hi - lo) / (rows - 1)); counted on the workers as sets of 64-bit hashes
    reduced there (only the counts come back), a partition off the grid hashing nothing. ``evenly_spaced`` is set
    for the reals, so :func:`fslab.data.plan.decide` applies Dataset.from_frame's ID rule as it is."""
    rows = summary.n_rows_total - summary.target_missing
    asked, grids = [], []
    if near_unique == "drop" and rows >= ID_MIN_ROWS:
        for s in summary.columns:
            if s.name == summary.target or s.source != "numeric" or s.levels is not None or s.n_missing \
                    or not s.hi > s.lo:
                continue
            if s.integral and s.hi - s.lo + 1 < rows:
                continue
            asked.append(s.name)
            grids.append(None if s.integral else (s.lo, (s.hi - s.lo) / (rows - 1)))
    if not asked:
        return summary
    tasks = [dask.delayed(_partition_distinct)(p, asked, summary.target, grids) for p in parts]
    counts = dict(zip(asked, _compute(dask, dask.delayed(_distinct_counts)(_tree_sum_with(dask, tasks,
                                                                                          _merge_distinct))),
                      strict=True))
    columns = []
    for s in summary.columns:
        if s.name in counts and counts[s.name] is not None:
            s = dataclasses.replace(s, n_distinct=counts[s.name], distinct_exact=True,
                                    evenly_spaced=not s.integral and counts[s.name] == rows)
        columns.append(s)
    return dataclasses.replace(summary, columns=tuple(columns))


def _exact_quantiles(dask, parts, columns: list[str], n: np.ndarray, bins: int,
                     top: np.ndarray) -> list[np.ndarray]:
    """np.quantile(x, linspace(0, 1, bins + 1)[1:-1]) of each column (linear method), exactly, ties merged
    (:func:`_order_quantiles`)."""
    return [np.unique(e) for e in _order_quantiles(dask, parts, columns, n, np.linspace(0.0, 1.0, bins + 1)[1:-1],
                                                   top)]


def _order_quantiles(dask, parts, columns: list[str], n: np.ndarray, q: np.ndarray,
                     top: np.ndarray) -> list[np.ndarray]:
    """np.quantile(x, q) of each column (linear method), exactly: the order statistics it interpolates are found by
    an 8-bit radix select over the partitions (``top``: the first byte's histogram, from the statistics pass; then
    7 passes)."""
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
            dask, _tree_sum(dask, [dask.delayed(_partition_digits)(p, columns, prefixes, shift)
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
        out.append(np.where(a == b, a, lerp))
    return out




def _edges(dask, typed: list, numeric: list[str], binned: list[int], g: dict, method: str, bins: int,
           small_ints: bool) -> dict[int, np.ndarray]:
    """{position in ``numeric``: sorted distinct inner cut points} of the ``binned`` columns by ``method`` from the
    merged statistics ``g`` (:func:`_partition_stats`) and more passes over the parsed partitions ``typed``."""
    edges: dict[int, np.ndarray] = {}
    if not binned:
        return edges
    if method == "mean-std":   # as discretize: exact integer moments, else mu -+ sigma on x / max|x|
        exact = binned if small_ints and not g["missing"][binned].any() else []   # all or none, as discretize
        if exact:
            sums = _compute(dask, [dask.delayed(_partition_int_moments)(p, [numeric[j] for j in exact])
                                   for p in typed])
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
            for z in _compute(dask, [dask.delayed(_partition_sums)(p, cols, scale) for p in typed]):
                total += z   # partition sums added in row order, as discretize adds its row blocks'
            means = total / np.maximum(n, 1)
            squares = _compute(dask, _tree_sum(dask, [dask.delayed(_partition_squares)(p, cols, scale, means)
                                                      for p in typed]))
            sigma = np.sqrt(squares / np.maximum(n - 1, 1))
            with np.errstate(over="ignore", invalid="ignore"):
                for i, j in enumerate(floats):
                    edges[j] = np.unique([(means[i] - sigma[i]) * scale[i], (means[i] + sigma[i]) * scale[i]])
    elif method == "quantile":
        found = _exact_quantiles(dask, typed, [numeric[j] for j in binned], g["n"][binned], bins, g["top"][binned])
        edges = dict(zip(binned, found, strict=True))
    else:   # lo + k (hi - lo) / bins, discretize's own formula
        E = uniform_edges(g["lo"][binned], g["hi"][binned], bins)
        edges = {j: np.unique(E[i]) for i, j in enumerate(binned)}
    return edges


def _partition_at_least(frame: pd.DataFrame, columns: list[str], E: np.ndarray) -> np.ndarray:
    """#{x >= E[j, k]} per column j and edge k over one partition's non-missing values (+inf pads: none)."""
    X = _numeric_matrix(frame, columns)
    with np.errstate(invalid="ignore"):
        return np.stack([(X >= E[:, k][None, :]).sum(axis=0) for k in range(E.shape[1])], axis=1).astype(np.int64)


def _fullest_shares(dask, typed: list, columns: list[str], edges: list[np.ndarray], n: np.ndarray) -> np.ndarray:
    """Per column, the share of its ``n`` non-missing rows in its fullest bin under ``edges`` (code = #{e <= x}):
    g_k = #{x >= e_k} counted per partition and summed, bin b holds g_b - g_{b+1} (g_0 = n)."""
    E = np.full((len(columns), max(len(e) for e in edges)), np.inf)
    for i, e in enumerate(edges):
        E[i, :len(e)] = e
    ge = _compute(dask, _tree_sum(dask, [dask.delayed(_partition_at_least)(p, columns, E) for p in typed]))
    bounds = np.concatenate([np.asarray(n, dtype=np.int64)[:, None], ge, np.zeros((len(columns), 1), np.int64)],
                            axis=1)
    return fullest_share(-np.diff(bounds, axis=1), n)


def _robust_edges(dask, typed: list, numeric: list[str], binned: list[int], g: dict, edges: dict[int, np.ndarray],
                  bins: int, shares: dict | None = None
                  ) -> tuple[dict[int, np.ndarray], dict[int, tuple[float, float]]]:
    """``auto`` (discretize's robust bins) from the mean-std ``edges``: one pass counting each binned column's rows
    per mean-std bin, the exact quantile edges of the columns with at least ROBUST_SHARE of their rows in one bin,
    one pass counting those per quantile bin; quantile edges where they crowd fewer rows
    (:func:`fslab.data.discretize.robust_switch`). Returns (edges, {position: (mean-std's fullest share,
    quantile's)} of the columns switched); ``shares`` (a dict) gets {position: (mean-std's fullest share,
    quantile's, (Q1, Q3); None where not counted)} of every binned column."""
    share = _fullest_shares(dask, typed, [numeric[j] for j in binned], [edges[j] for j in binned], g["n"][binned])
    crowded = [j for j, s in zip(binned, share, strict=True) if s >= ROBUST_SHARE]
    if shares is not None:
        shares |= {j: (float(s), None, None) for j, s in zip(binned, share, strict=True)}
    if not crowded:
        return edges, {}
    cols = [numeric[j] for j in crowded]
    levels = np.linspace(0.0, 1.0, bins + 1)[1:-1]   # and the quartiles, for the outlier sentences: one select
    found = _order_quantiles(dask, typed, cols, g["n"][crowded], np.concatenate([levels, [0.25, 0.75]]),
                             g["top"][crowded])
    quantile = [np.unique(x[:levels.size]) for x in found]
    q_share = _fullest_shares(dask, typed, cols, quantile, g["n"][crowded])
    ms_share = share[[binned.index(j) for j in crowded]]
    if shares is not None:
        shares |= {j: (float(a), float(b), x[levels.size:])
                   for j, a, b, x in zip(crowded, ms_share, q_share, found, strict=True)}
    switch = robust_switch(ms_share, q_share)
    edges = dict(edges) | {j: q for j, q, s in zip(crowded, quantile, switch, strict=True) if s}
    return edges, {j: (float(a), float(b)) for j, a, b, s in zip(crowded, ms_share, q_share, switch, strict=True)
                   if s}


def _partition_far(frame: pd.DataFrame, columns: list[str], lo: np.ndarray, hi: np.ndarray
                   ) -> tuple[np.ndarray, list[np.ndarray]]:
    """Per column, the rows of one partition beyond [lo, hi] and its three smallest distinct such values."""
    X = _numeric_matrix(frame, columns)
    with np.errstate(invalid="ignore"):
        far = (X < lo[None, :]) | (X > hi[None, :])   # a missing value is never far
    return far.sum(axis=0).astype(np.int64), [np.unique(X[far[:, j], j])[:3] for j in range(len(columns))]


def _merge_far(*parts: tuple[np.ndarray, list[np.ndarray]]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Far counts added and the three smallest far values kept (a reduction-tree node on the workers)."""
    return (np.sum([p[0] for p in parts], axis=0),
            [np.unique(np.concatenate(vs))[:3] for vs in zip(*(p[1] for p in parts), strict=True)])


def _outlier_sentences(dask, typed: list, numeric: list[str], binned: list[int], g: dict,
                       edges: dict[int, np.ndarray], shares: dict, method: str, bins: int) -> list[str]:
    """The sentences :func:`fslab.data.data_checks.outlier_notes` says in memory, counted on the workers: the binned
    columns with more than DISCRETE_MAX distinct values whose fullest bin under ``method`` (``edges``; "auto": the
    mean-std bins, ``shares`` from :func:`_robust_edges`) holds at least STRETCHED of their rows; their quartiles and
    quantile edges by the exact radix select, the quantile bins' fullest share (auto counted it), then one pass
    counting the rows beyond the fences with the three smallest distinct far values. Quantile bins: none."""
    from .data_checks import OUTLIER_IQR, STRETCHED, outlier_columns, outlier_words

    n_distinct = np.array([DISCRETE_MAX + 1 if g["values"][j] is None else g["values"][j].size for j in binned])
    columns = [j for j, keep in zip(binned, outlier_columns(n_distinct, g["integral"][binned], bins), strict=True)
               if keep]
    if method == "quantile" or not columns:
        return []
    if method == "auto":
        share = {j: shares[j][0] for j in columns}
    else:
        share = dict(zip(columns, _fullest_shares(dask, typed, [numeric[j] for j in columns],
                                                  [edges[j] for j in columns], g["n"][columns]), strict=True))
    crowded = [j for j in columns if share[j] >= STRETCHED]
    if not crowded:
        return []
    cols = [numeric[j] for j in crowded]
    known = [i for i, j in enumerate(crowded) if method == "auto" and shares[j][1] is not None]
    counted = [i for i in range(len(crowded)) if i not in known]   # auto counted the others' quartiles, share
    q: list = [None] * len(crowded)
    q_share = {crowded[i]: shares[crowded[i]][1] for i in known}
    for i in known:
        q[i] = shares[crowded[i]][2]
    if counted:
        probs = np.concatenate([[0.25, 0.75], np.linspace(0.0, 1.0, bins + 1)[1:-1]])
        found = _order_quantiles(dask, typed, [cols[i] for i in counted], g["n"][[crowded[i] for i in counted]],
                                 probs, g["top"][[crowded[i] for i in counted]])
        got = _fullest_shares(dask, typed, [cols[i] for i in counted], [np.unique(x[2:]) for x in found],
                              g["n"][[crowded[i] for i in counted]])
        for i, x, share_q in zip(counted, found, got, strict=True):
            q[i], q_share[crowded[i]] = x, float(share_q)
    lo = np.array([x[0] - OUTLIER_IQR * (x[1] - x[0]) for x in q])
    hi = np.array([x[1] + OUTLIER_IQR * (x[1] - x[0]) for x in q])
    n_far, first = _compute(dask, _tree_sum_with(dask, [dask.delayed(_partition_far)(p, cols, lo, hi)
                                                        for p in typed], _merge_far))
    return [outlier_words(c, int(n_far[i]), first[i], float(lo[i]), float(hi[i]), method, bins, float(share[j]),
                          float(q_share[j]))[1]
            for i, (j, c) in enumerate(zip(crowded, cols, strict=True)) if n_far[i]]


def from_dask(frame, target, positive=None, method: str | None = None, bins: int = 3,
              feature_names=None, *, near_unique: str = "drop", max_levels: int = MAX_LEVELS,
              persist: bool | str = "auto", column_types: dict[str, str] | None = None, dayfirst: bool = False,
              constant: str | None = None) -> DaskSource:
    """A :class:`DaskSource` from a ``dask.dataframe.DataFrame`` and the name of its target column, or from a
    ``dask.array`` pair ``(X, y)`` (``frame=X``, ``target=y``; X must be 2-d with y's row chunks).

    The plan, the codes, the tables and the picks equal ``Dataset.from_frame(frame.compute(), target, positive,
    ...).discretize(method, bins)``'s: the same plan (:mod:`fslab.data.plan`: columns read as a person reads them,
    IDs and constant columns left out, the target's classes) made from the partitions' merged summaries, and the
    same coding from global statistics (mean-std: mu and the sample std over all rows; quantile: exact order
    statistics; uniform: the global min and max; the same kept-as-is rule for few distinct values and the same
    category order). Mean and std are summed per partition, so they can differ from numpy's pairwise sums in the
    last bit; a value exactly on such an edge is the only way a code could differ. The source's ``plan`` is the
    coded plan; its notes end with memory's outlier sentences for the binning
    (:func:`fslab.data.data_checks.outlier_notes`, counted on the workers).

    ``method``: None (the default) is "auto", robust bins (mean-std, quantile bins where outliers crowd 90 % of a
    column's rows into one mean-std bin: :mod:`fslab.data.discretize`), or the frame's ``attrs["fslab_binning"]``
    (a sample's "mean-std", set by ``Dataset.to_frame``), as ``Dataset.discretize()`` does.
    ``column_types``, ``dayfirst``, ``near_unique`` ("drop": ID-like columns left out with a note, "keep") and
    ``constant``: the plan's options (:class:`fslab.data.plan.PlanOptions`), as for ``Dataset.from_frame``
    (``constant=None``: the frame's ``attrs["fslab_constant"]``, which ``Dataset.to_frame`` sets so a sample keeps
    its constant columns, else "drop"; "keep" for a dask array pair, as ``Dataset.from_arrays``). A kept
    text column with more than ``max_levels`` distinct values is refused (its categories would all travel to the
    client). ``persist``: True reads the data once into the workers' memory (then keeps it parsed), so the passes
    (the summaries, the exact count of possible numeric IDs, the statistics, the coding) do not read or parse the
    files again; "auto" (default) does so after the summaries when more passes follow and the partitions' pandas
    size is at most :data:`PERSIST_SHARE` of the cluster's worker memory (2 reads in all); False never.
    A column missing from a partition, or of another dtype there, is a PlanError naming both.
    """
    dask = require_dask()
    import dask.array as da
    import dask.dataframe as dd

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
        meta = frame._meta.set_axis(names, axis=1)
        names = [c for c in names if c != key]
    else:
        raise DataError(f"from_dask needs a dask.dataframe.DataFrame or a dask.array pair; got {type(frame).__name__}")

    if near_unique not in ("drop", "keep"):
        raise ParameterError(f"near_unique must be 'drop' or 'keep'; got {near_unique!r}")
    if persist not in (True, False, "auto"):
        raise ParameterError(f"persist must be True, False or 'auto'; got {persist!r}")
    if isinstance(max_levels, bool) or not isinstance(max_levels, int | np.integer) or max_levels < 1:
        raise ParameterError(f"max_levels must be a positive whole number; got {max_levels!r}")
    if constant is None:
        constant = "keep" if isinstance(frame, da.Array) else str(meta.attrs.get("fslab_constant", "drop"))
    if method is None:   # a user's table: robust bins; a sample's frame (Dataset.to_frame) says mean-std
        method = "auto" if isinstance(frame, da.Array) else str(meta.attrs.get("fslab_binning", "auto"))
    method, bins = check_method(method, bins)
    options = PlanOptions.of(column_types, dayfirst=dayfirst, near_unique=near_unique, constant=constant,
                             positive=None if positive is None else str(positive), method=method, bins=bins)
    if persist is True:   # read once; every pass below then reads the workers' memory
        parts = list(dask.persist(*parts))

    # 1-2. the plan, from the partitions' summaries merged on the workers
    schema = [c for c in [*names, target] if is_numeric(meta[c])]
    tasks = [dask.delayed(_summarize_partition)(p, target, i, names, schema) for i, p in enumerate(parts)]
    summary, nbytes = _compute(dask, _tree_sum_with(dask, tasks, _merge_summaries))
    rows, dropped = summary.n_rows_total - summary.target_missing, summary.target_missing
    if rows == 0:
        raise DataError(f"target {target!r} is missing in every row; choose another target column")
    held = persist is True or (persist == "auto" and method != "uniform"
                               and nbytes <= PERSIST_SHARE * _cluster_memory())
    if held and persist == "auto":
        parts = list(dask.persist(*parts))   # the passes to come read the workers' memory, not the files
    summary = _exact_ids(dask, parts, summary, near_unique)
    plan = decide(summary, options)
    inexact = {s.name for s in summary.columns if not s.distinct_exact}
    if inexact:   # many numbers that cannot all differ: their exact count would ship every value; said unknown (-1)
        plan = dataclasses.replace(plan, columns=tuple(dataclasses.replace(c, n_distinct=-1) if c.name in inexact
                                                       else c for c in plan.columns))
    ts = summary[target]
    if ts.levels is None or ts.level_counts is None:
        raise DataError(f"target {target!r} has more than {len(ts.levels or ()) or 'a few hundred'} distinct values; "
                        "on partitioned data a real-valued target is not supported: bin it or name a positive class "
                        "on a column with fewer values")
    t_numeric = ts.source == "numeric"
    t_levels = np.asarray(ts.levels, dtype=np.float64 if t_numeric else object)
    if t_numeric:
        check_finite(target, t_levels)
    chosen = choose_classes(target, [_class_name(v, t_numeric) for v in ts.levels], np.asarray(ts.level_counts),
                            t_levels if t_numeric else None, positive)

    # 3. every partition read by the plan; the coding from global statistics of the parsed values
    plan_d = dask.delayed(plan, traverse=False)
    typed = [dask.delayed(_typed)(p, plan_d) for p in parts]
    if held:   # parsed once, kept parsed
        typed = list(dask.persist(*typed))
    kept = plan.kept
    features = [c.name for c in kept]
    numeric = [c.name for c in kept if c.type in PARSED]
    text = [c.name for c in kept if c.type not in PARSED]
    cap = max(bins, DISCRETE_MAX)
    g = _compute(dask, _tree_sum_with(dask, [dask.delayed(_partition_stats)(p, numeric, text, cap, max_levels, True)
                                      for p in typed],
                                      functools.partial(_merge_stats, cap, max_levels)))
    for j, c in enumerate(numeric):
        if g["inf"][j]:
            check_finite(c, np.array([np.inf]))
    for c, (cats, _) in zip(text, g["categories"], strict=True):
        if cats is None:
            raise DataError(f"text column {c!r} has more than {max_levels:,} distinct values; as categories they "
                            "would all travel to the client: leave the column out, or raise max_levels")
    kinds_of = {meta[c].dtype for c in numeric}
    # discretize reads all-alike 8/16-bit integer columns natively and takes exact integer moments for mean-std
    small_ints = len(kinds_of) == 1 and all(plan.column(c).type == "numeric" for c in numeric) and isinstance(
        next(iter(kinds_of)), np.dtype) and next(iter(kinds_of)).kind in "biu" and next(iter(kinds_of)).itemsize <= 2

    binned = [j for j, c in enumerate(numeric)
              if not (g["values"][j] is not None and (g["values"][j].size <= 2 or g["integral"][j]))]
    edges = _edges(dask, typed, numeric, binned, g, "mean-std" if method == "auto" else method, bins, small_ints)
    robust: dict[int, tuple[float, float]] = {}
    shares: dict[int, tuple] = {}
    if binned and method == "auto":
        edges, robust = _robust_edges(dask, typed, numeric, binned, g, edges, bins, shares)
    outliers = _outlier_sentences(dask, typed, numeric, binned, g, edges, shares, method, bins)
    coding: dict[str, tuple[str, np.ndarray, tuple[str, ...], bool]] = {}
    for j, c in enumerate(numeric):
        if j in edges:
            if not np.all(np.isfinite(edges[j])):
                raise DataError(f"column {c!r} has values too large to bin (|x| up to "
                                f"{max(abs(g['lo'][j]), abs(g['hi'][j])):.3g}); rescale the column")
            coding[c] = ("binned", edges[j], bin_names(edges[j]), bool(g["missing"][j]))
        else:
            vals = g["values"][j]
            coding[c] = ("discrete", vals, tuple(value_name(v) for v in vals), bool(g["missing"][j]))
    for c, (cats, has_missing) in zip(text, g["categories"], strict=True):
        coding[c] = ("categorical", cats, tuple(str(v) for v in cats), has_missing)
    categories = [coding[c][2] + ((MISSING,) if coding[c][3] else ()) for c in features]
    coded = plan.with_coding([coding[c][0] for c in features], categories, method, bins,
                             edges={j: coding[c][1] for j, c in enumerate(features) if coding[c][0] == "binned"},
                             values={j: coding[c][1] for j, c in enumerate(features) if coding[c][0] == "discrete"},
                             robust={features.index(numeric[j]): shares for j, shares in robust.items()})
    arities = np.array([len(cats) for cats in categories], dtype=np.int64)
    widest = int(arities.max()) if arities.size else 1
    how = {"name": target, "numeric": t_numeric, "levels": t_levels, "index": chosen.index,
           "n_classes": len(chosen.class_names),
           "dtype": np.uint8 if widest <= 256 else np.uint16 if widest <= 1 << 16 else np.int64}
    coded_d = dask.delayed(coded, traverse=False)
    encoded_parts = dask.persist(*[dask.delayed(_encode_partition)(p, coded_d, how) for p in typed])
    notes = [f"Partitioned data: {rows:,} rows in {len(parts)} partitions, counted on the Dask workers (the plan and "
             "the coding from global statistics over all partitions)."]
    if dropped:
        notes.append(f"{dropped} row(s) with a missing target were dropped; {rows} remain.")
    notes.extend(coded.describe(estimate=False))   # the selection says its estimate
    notes.extend(outliers)   # memory's words (Dataset.discretize's notes)
    return DaskSource(list(encoded_parts), rows, arities, chosen.labels, features, class_names=chosen.class_names,
                      task=chosen.task, target=target, categories=tuple(categories), notes=notes, plan=coded)


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
