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

import math

import numpy as np
import pandas as pd

from ..errors import DataError
from .data_checks import check_finite
from .discretize import (
    _DESCRIBE,
    DISCRETE_MAX,
    MISSING,
    bin_names,
    check_method,
    numeric_values,
    uniform_edges,
    value_name,
)
from .distributed import DaskSource, _compute, _tree_sum, require_dask
from .target import encode_target

# --- partition-side functions (run on the workers) --------------------------------------------------------

def _numeric_matrix(frame: pd.DataFrame, columns: list[str]) -> np.ndarray:
    if not columns:
        return np.empty((len(frame), 0))
    return np.column_stack([numeric_values(frame[c]) for c in columns])


def _target_text(column: pd.Series) -> np.ndarray:
    return column.astype(str).str.strip().to_numpy(dtype=object)


def _partition_stats(frame: pd.DataFrame, numeric: list[str], text: list[str], target: str, target_numeric: bool,
                     cap: int) -> dict:
    """One partition's sums, extremes, small value sets and category sets (what global cut points need)."""
    keep = frame[target].notna().to_numpy()
    frame = frame.loc[keep]
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
    for c in text:
        col = frame[c]
        miss = col.isna().to_numpy()
        categories.append((np.unique(col[~miss].astype(str).to_numpy(dtype=object)), bool(miss.any())))
    y = frame[target]
    if target_numeric:
        t = numeric_values(y)
        t_uniques, t_counts = np.unique(t, return_counts=True)
    else:
        t_uniques, t_counts = np.unique(_target_text(y), return_counts=True)
    return {"n": finite_n, "missing": missing.any(axis=0), "inf": inf, "lo": lo, "hi": hi, "integral": integral,
            "values": values, "categories": categories, "rows": int(keep.sum()),
            "dropped": int((~keep).sum()), "target": (t_uniques, t_counts)}


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
            x = numeric_values(col)
            miss = np.isnan(x)
            side = "right" if kind == "binned" else "left"
            codes = np.searchsorted(cuts, np.where(miss, 0.0, x), side=side)
        if has_missing:
            codes = np.where(miss, len(cuts) + (kind == "binned"), codes)
        X[:, j] = codes
    t = frame[plan["target"]]
    values = numeric_values(t) if plan["target_numeric"] else _target_text(t)
    y = plan["target_classes"][np.searchsorted(plan["target_uniques"], values)]
    return np.ascontiguousarray(X), y.astype(np.int64 if plan["n_classes"] > 127 else np.int8)


def _frame_from_arrays(X: np.ndarray, y: np.ndarray, names: list[str], target: str) -> pd.DataFrame:
    frame = pd.DataFrame(np.asarray(X), columns=names)
    frame[target] = np.asarray(y)
    return frame


# --- building a source: global statistics, then codes --------------------------------------------------------

def _combine_stats(stats: list[dict], n_numeric: int, cap: int) -> dict:
    out = {"missing": np.logical_or.reduce([s["missing"] for s in stats])}
    out["inf"] = np.logical_or.reduce([s["inf"] for s in stats])
    out["n"] = np.sum([s["n"] for s in stats], axis=0)
    out["lo"] = np.min([s["lo"] for s in stats], axis=0)
    out["hi"] = np.max([s["hi"] for s in stats], axis=0)
    out["integral"] = np.logical_and.reduce([s["integral"] for s in stats])
    values = []
    for j in range(n_numeric):
        parts = [s["values"][j] for s in stats]
        union = None if any(p is None for p in parts) else np.unique(np.concatenate(parts))
        values.append(union if union is not None and union.size <= cap else None)
    out["values"] = values
    return out


def _exact_quantiles(dask, parts, columns: list[str], target: str, n: np.ndarray, bins: int) -> list[np.ndarray]:
    """np.quantile(x, linspace(0, 1, bins + 1)[1:-1]) of each column (linear method), exactly: the order
    statistics it interpolates are found by an 8-bit radix select over the partitions (8 passes)."""
    q = np.linspace(0.0, 1.0, bins + 1)[1:-1]
    virtual = [n[j] * q + (1 + q * (1 - 1 - 1)) - 1 for j in range(len(columns))]  # numpy's linear method
    ranks = []
    for j in range(len(columns)):
        below = np.floor(virtual[j]).astype(np.int64)
        ranks.append(np.stack([np.clip(below, 0, n[j] - 1), np.clip(below + 1, 0, n[j] - 1)], axis=1).ravel())
    ranks = np.array(ranks, dtype=np.int64).reshape(len(columns), -1)
    prefixes = np.zeros(ranks.shape, dtype=np.uint64)
    remaining = ranks.copy()
    for shift in range(56, -8, -8):
        hist = _compute(dask, _tree_sum(dask, [dask.delayed(_partition_digits)(p, columns, target, prefixes, shift)
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
              feature_names=None) -> DaskSource:
    """A :class:`DaskSource` from a ``dask.dataframe.DataFrame`` and the name of its target column, or from a
    ``dask.array`` pair ``(X, y)`` (``frame=X``, ``target=y``; X must be 2-d with y's row chunks).

    The codes equal ``Dataset.from_frame(frame.compute(), target, positive).discretize(method, bins)``:
    the same target rule (rows with a missing target dropped, the default positive class), the same bins
    from global statistics (mean-std: mu and the sample std over all rows; quantile: exact order
    statistics; uniform: the global min and max), the same kept-as-is rule for few distinct values, the
    same category order. Mean and std are summed per partition, so they can differ from numpy's pairwise
    sums in the last bit; a value exactly on such an edge is the only way a code could differ.
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
            raise DataError(f"target column {key!r} is not in the data; the columns are {names[:10]}")
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

    numeric = [c for c in names if numeric_values(meta[c]) is not None]
    kinds = {meta[c].dtype for c in numeric}
    # discretize reads all-alike 8/16-bit integer columns natively and takes exact integer moments for mean-std
    small_ints = len(kinds) == 1 and isinstance(next(iter(kinds)), np.dtype) and next(iter(kinds)).kind in "biu" \
        and next(iter(kinds)).itemsize <= 2
    text = [c for c in names if c not in numeric]
    target_numeric = numeric_values(meta[target]) is not None
    cap = max(bins, DISCRETE_MAX)
    stats = _compute(dask, [dask.delayed(_partition_stats)(p, numeric, text, target, target_numeric, cap)
                            for p in parts])
    g = _combine_stats(stats, len(numeric), cap)
    rows = sum(s["rows"] for s in stats)
    dropped = sum(s["dropped"] for s in stats)
    if rows == 0:
        raise DataError(f"target {target!r} is missing in every row; choose another target column")
    for j, c in enumerate(numeric):
        if g["inf"][j]:
            check_finite(c, np.array([np.inf]))

    # target: the global set of classes with their counts, encoded by the in-memory rule
    t_uniques = np.concatenate([s["target"][0] for s in stats])
    t_counts = np.concatenate([s["target"][1] for s in stats])
    t_uniques, inverse = np.unique(t_uniques, return_inverse=True)
    t_counts = np.bincount(inverse, weights=t_counts).astype(np.int64)
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
        found = _exact_quantiles(dask, parts, [numeric[j] for j in binned], target, g["n"][binned], bins)
        edges = dict(zip(binned, found, strict=True))
    elif binned:   # lo + k (hi - lo) / bins, discretize's own formula
        E = uniform_edges(g["lo"][binned], g["hi"][binned], bins)
        edges = {j: np.unique(E[i]) for i, j in enumerate(binned)}
    short = 0
    for j, c in enumerate(numeric):
        if j in edges:
            if not np.all(np.isfinite(edges[j])):
                raise DataError(f"column {c!r} has values too large to bin (|x| up to "
                                f"{max(abs(g['lo'][j]), abs(g['hi'][j])):.3g}); rescale the column")
            cuts[c] = ("binned", edges[j], bin_names(edges[j]))
            short += method != "mean-std" and edges[j].size + 1 < bins
        else:
            vals = g["values"][j]
            cuts[c] = ("discrete", vals, tuple(value_name(v) for v in vals))
    text_missing = {}
    for i, c in enumerate(text):
        cats = np.unique(np.concatenate([s["categories"][i][0] for s in stats]))
        cuts[c] = ("categorical", cats, tuple(str(v) for v in cats))
        text_missing[c] = any(s["categories"][i][1] for s in stats)
    missing = dict(zip(numeric, g["missing"], strict=True)) | text_missing
    columns, categories = [], []
    for c in names:
        kind, cut, cats = cuts[c]
        columns.append((c, kind, cut, bool(missing[c])))
        categories.append(cats + ((MISSING,) if missing[c] else ()))
    arities = np.array([len(cats) for cats in categories], dtype=np.int64)
    kinds = [cuts[c][0] for c in names]
    if "binned" in kinds:
        notes.append(f"{kinds.count('binned')} numeric column(s) binned into "
                     + _DESCRIBE[method].format(bins=bins) + " (global statistics over all partitions).")
    if short:
        notes.append(f"{short} column(s) got fewer than {bins} bins because of tied or few distinct values.")
    if "discrete" in kinds:
        notes.append(f"{kinds.count('discrete')} column(s) with few distinct numbers kept as they are.")
    if "categorical" in kinds:
        notes.append(f"{kinds.count('categorical')} text column(s) coded as categories.")
    widest = int(arities.max()) if arities.size else 1
    plan = {"columns": columns, "target": target, "target_numeric": target_numeric, "target_uniques": t_uniques,
            "target_classes": classes, "n_classes": len(encoded.class_names),
            "dtype": np.uint8 if widest <= 256 else np.uint16 if widest <= 1 << 16 else np.int64}
    plan_d = dask.delayed(plan, traverse=False)
    encoded_parts = dask.persist(*[dask.delayed(_encode_partition)(p, plan_d) for p in parts])
    return DaskSource(list(encoded_parts), rows, arities, encoded.labels, names, class_names=encoded.class_names,
                      task=encoded.task, target=target, categories=tuple(categories), notes=notes)


__all__ = ["from_dask"]
