"""The analyst's alerts: columns too good to be true (leaks) and data worth a look, as small frozen records.

Leak alerts (``severity="leak"``), on the integer codes a selector sees:

- ``"determines-target"``: H(Y | X_j) = 0, every occupied value of X_j holds one class only, with at least
  ``ROWS_PER_LEVEL`` rows per occupied value (fewer rows per value and any column would look like that);
- ``"function-of-target"``: H(X_j | Y) = 0 and X_j not constant: one value of X_j per class (``reject = 1 -
  approve``), with at least ``ROWS_PER_LEVEL`` rows in every class;
- ``"one-class-only"``: the raw column is filled in only for rows of one class (missing in every row of the
  others, and in at least ``ROWS_PER_LEVEL`` of them): recorded after the outcome (``cancel_reason``);
- ``"near-perfect"`` / ``"near-perfect-pair"``: the held-out balanced error (mean per-class error, cross-fitted
  over stratified folds) of the column alone, or of the pair of the two best columns, is at most ``PERFECT``
  (0.002: 1 error in 500 per class) with at least ``MIN_CLASS_ROWS`` rows in the smallest class.
  ``PERFECT`` is chosen below the best legitimate single columns of the shipped tables: Mushroom's ``odor`` has
  a held-out balanced error of 0.0153 (120 of 3,916 poisonous mushrooms smell of nothing) and the pair
  ``odor, spore-print-color`` 0.0061; a leak coded from the outcome scores 0 (the loan table's ``action``) or
  within a few rows of it (the churn table's ``cancel_reason``: 0.0005).

Data alerts (``severity="data"``): ``"high-cardinality"`` (a coded column with at least ``MANY_LEVELS`` values
and fewer than ``ROWS_PER_LEVEL`` rows per value: its plug-in estimates fit the sample), ``"associated-pair"``
(normalised mutual information I(X_i; X_j) / min(H(X_i), H(X_j)) >= ``ASSOCIATED``, 1 when one column is a
function of the other; 0.9 keeps only pairs where one column nearly restates the other, counted with at least
``ROWS_PER_LEVEL`` rows per cell of the pair) and ``"imbalance"`` (a class with under ``IMBALANCE`` = 10 % of the
rows: the 0-1 error of "always the majority" is already below 0.1, use the balanced error).

Every alert names the one fix: leave the column out (``column_types={col: "drop"}``, command line ``--drop COL``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import ParameterError
from .information import _batched_counts
from .tables import as_source

PERFECT = 0.002
MIN_CLASS_ROWS = 20
ROWS_PER_LEVEL = 10
MANY_LEVELS = 20
ASSOCIATED = 0.9
IMBALANCE = 0.10
MAX_PAIRS = 5_000    # associated pairs: at most this many column pairs (the first columns' pairs beyond it)
PAIR_ROWS = 4_000    # ... counted on at most this many rows (a fixed random subset: an NMI of 0.9 is no edge case)
_EPS = 1e-12


@dataclass(frozen=True)
class Alert:
    """One alert: ``kind`` (see the module docstring), ``columns`` it names, ``message`` (a plain sentence of
    why it deserves a look), ``value`` (the number behind it), ``fix`` (the one thing to do), ``severity``
    ("leak" or "data")."""

    kind: str
    columns: tuple[str, ...]
    message: str
    value: float
    fix: str
    severity: str = "leak"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "columns": list(self.columns), "message": self.message,
                "value": float(self.value), "fix": self.fix, "severity": self.severity}

    @property
    def line(self) -> str:
        """The alert as one warning line (the command line prints one per alert)."""
        return f"{self.message} Fix: {self.fix}."


def drop_fix(columns) -> str:
    cols = list(columns)
    types = ", ".join(f"{c!r}: 'drop'" for c in cols)
    flags = " ".join(f"--drop {c}" for c in cols)
    return f"leave {'it' if len(cols) == 1 else 'them'} out and rerun (column_types={{{types}}}; command line {flags})"


def _codes(source):
    src = as_source(source)
    X, y = getattr(src, "X", None), getattr(src, "y", None)
    if not src.is_sample or X is None or y is None or getattr(src, "task", "binary") == "regression":
        return None
    X = np.asarray(X)
    if X.ndim != 2 or not np.issubdtype(X.dtype, np.integer):   # a sparse or row-less source: no code matrix here
        return None
    return src, X, np.asarray(y)


def _class_tables(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """n(X_j = v, Y = c) for every column j: shape (p, max value + 1, classes), one batched bincount."""
    return _batched_counts([X, y], None)


def _column_class_tables(source, columns) -> tuple | None:
    """(src, cols, t): t[i, v, c] = n(X_cols[i] = v, Y = c) for ``columns`` (default all). From the codes in memory
    (one batched bincount), else from a counting source without them (SQL, Dask: its batched tables of each column
    with the class, ``extension_tables((), cols)``, one pass of the engine); None for an exact law, a regression
    target, a sparse matrix or no rows."""
    got = _codes(source)
    src = as_source(source)
    if got is None and (getattr(src, "X", None) is not None or not src.is_sample
                        or getattr(src, "task", "binary") == "regression" or not hasattr(src, "extension_tables")):
        return None
    cols = np.arange(src.n_features) if columns is None else np.asarray(list(columns), dtype=np.intp)
    if cols.size == 0 or (got[1].shape[0] if got is not None else getattr(src, "n_rows", 0)) == 0:
        return None
    if got is not None:
        _, X, y = got
        return src, cols, _class_tables(X[:, cols], y)
    return src, cols, src.extension_tables((), cols.tolist()).counts


def code_alerts(source, columns=None) -> tuple[Alert, ...]:
    """The in-sample leak alerts of the codes (``determines-target``, ``function-of-target``) for ``columns``
    (indices; default all): cheap, one count over the rows and columns, in memory or in the source's engine (the
    same alerts on every path); empty for a regression target."""
    got = _column_class_tables(source, columns)
    if got is None:
        return ()
    src, cols, t = got                         # (p, V, C)
    per_value = t.sum(axis=2)                  # rows per value
    per_class = t.sum(axis=1)                  # rows per class (same for every column)
    occupied = (per_value > 0).sum(axis=1)
    classes = int((per_class[0] > 0).sum())
    if classes < 2:
        return ()
    pure_values = ((t > 0).sum(axis=2) <= 1) | (per_value == 0)
    determines = pure_values.all(axis=1) & (per_value.sum(axis=1) >= ROWS_PER_LEVEL * occupied)
    one_value = (t > 0).sum(axis=1) <= 1       # (p, C): every class holds one value only
    function_of = one_value.all(axis=1) & (occupied >= 2) & (per_class[0][per_class[0] > 0].min() >= ROWS_PER_LEVEL)
    names = src.feature_names
    out = []
    for i in np.flatnonzero(determines | function_of):   # only the flagged columns: a few at most
        name = names[int(cols[i])]
        if function_of[i]:
            out.append(Alert("function-of-target", (name,),
                             f"{name!r} takes one value per class of the target: it is the target under another "
                             "name (or recorded from it), not a predictor.", 0.0, drop_fix([name])))
        else:
            out.append(Alert("determines-target", (name,),
                             f"{name!r} gives the class exactly (H(target | {name}) = 0 over {int(occupied[i])} "
                             "values): either the target under another name or recorded after the outcome.",
                             0.0, drop_fix([name])))
    return tuple(out)


def one_class_alerts(dataset) -> tuple[Alert, ...]:
    """Raw columns filled in only for rows of one class (missing in every row of the other classes)."""
    features = getattr(dataset, "features", None)
    if features is None or getattr(dataset, "task", "binary") == "regression" or not hasattr(features, "notna"):
        return ()
    y = np.asarray(dataset.y)
    filled = features.notna().to_numpy()                       # (n, p)
    onehot = (y[:, None] == np.arange(int(y.max()) + 1 if y.size else 0)).astype(np.int64)
    filled_per_class = onehot.T @ filled                       # (C, p)
    rows_per_class = onehot.sum(axis=0)
    present = rows_per_class > 0
    lit = (filled_per_class > 0) & present[:, None]
    empty_rows = (rows_per_class[:, None] * (~lit) * present[:, None]).sum(axis=0)
    flagged = (lit.sum(axis=0) == 1) & (filled.sum(axis=0) < y.size) & (empty_rows >= ROWS_PER_LEVEL) & \
        (int(present.sum()) >= 2)
    classes = list(getattr(dataset.encoded_target, "class_names", range(len(rows_per_class))))
    out = []
    for j in np.flatnonzero(flagged):
        name, c = str(features.columns[j]), int(np.argmax(lit[:, j]))
        out.append(Alert("one-class-only", (name,),
                         f"{name!r} is filled in only for class {classes[c]!r} (missing in all {int(empty_rows[j])} "
                         "rows of the other classes): it was recorded after the outcome.",
                         float(filled_per_class[c, j] / max(rows_per_class[c], 1)), drop_fix([name])))
    return tuple(out)


def perfect_alerts(source, columns=None, *, pair: bool = True, folds: int = 5, seed: int = 0,
                   skip=()) -> tuple[Alert, ...]:
    """``near-perfect`` columns (held-out balanced error <= PERFECT) among ``columns`` (default all), and the pair
    of the two best when neither alone is flagged (``pair``); ``skip``: names already alerted."""
    from .measures import measure

    got = _codes(source)
    if got is None:
        return ()
    src, X, y = got
    counts = np.bincount(y)
    if counts[counts > 0].size < 2 or counts[counts > 0].min() < MIN_CLASS_ROWS:
        return ()
    cols = np.arange(X.shape[1]) if columns is None else np.asarray(list(columns), dtype=np.intp)
    if cols.size == 0:
        return ()
    ev = measure("balanced").on(src, estimate="cross-fitted", folds=folds, seed=seed)
    errors = -np.asarray(ev.extensions([], cols), dtype=float)   # criterion = -error
    names = src.feature_names
    out = []
    for i in np.flatnonzero(errors <= PERFECT + _EPS):
        name = names[int(cols[i])]
        if name in skip:
            continue
        out.append(Alert("near-perfect", (name,),
                         f"{name!r} alone predicts the target almost perfectly on held-out rows (balanced error "
                         f"{errors[i]:.4f}): too good to be true unless it is known before the outcome.",
                         float(errors[i]), drop_fix([name])))
    if pair and cols.size >= 2 and not np.any(errors <= PERFECT + _EPS):
        best = cols[np.argsort(errors, kind="stable")[:2]]
        err = float(ev.value([int(best[0]), int(best[1])]))
        if err <= PERFECT + _EPS:
            a, b = names[int(best[0])], names[int(best[1])]
            out.append(Alert("near-perfect-pair", (a, b),
                             f"{a!r} and {b!r} together predict the target almost perfectly on held-out rows "
                             f"(balanced error {err:.4f}): check both were known before the outcome.",
                             err, drop_fix([a, b])))
    return tuple(out)


def _dedupe(alerts) -> tuple[Alert, ...]:
    """One single-column leak alert per column (the first, most specific, one)."""
    seen: set[str] = set()
    out = []
    for a in alerts:
        if len(a.columns) == 1 and a.columns[0] in seen:
            continue
        seen.update(a.columns if len(a.columns) == 1 else ())
        out.append(a)
    return tuple(out)


def leak_alerts(dataset, columns=None, *, folds: int = 5, seed: int = 0) -> tuple[Alert, ...]:
    """Every leak alert for ``columns`` (indices; default all), the most specific first per column."""
    first = code_alerts(dataset, columns) + one_class_alerts_for(dataset, columns)
    named = {c for a in first for c in a.columns}
    return _dedupe(first + perfect_alerts(dataset, columns, folds=folds, seed=seed, skip=named))


def one_class_alerts_for(dataset, columns=None) -> tuple[Alert, ...]:
    alerts = one_class_alerts(dataset)
    if columns is None:
        return alerts
    names = as_source(dataset).feature_names
    keep = {names[int(j)] for j in columns}
    return tuple(a for a in alerts if a.columns[0] in keep)


def data_alerts(dataset, *, folds: int = 5, seed: int = 0) -> tuple[Alert, ...]:
    """Leak alerts on every column, then high cardinality, strongly associated pairs and class imbalance."""
    out = list(leak_alerts(dataset, folds=folds, seed=seed))
    got = _codes(dataset)
    src = as_source(dataset)
    X = np.asarray(getattr(src, "X", None)) if src.is_sample else None
    if X is not None and X.ndim == 2 and X.size:
        n = X.shape[0]
        levels = (_batched_counts([X], None) > 0).sum(axis=1)
        names = src.feature_names
        for j in np.flatnonzero((levels >= MANY_LEVELS) & (levels * ROWS_PER_LEVEL > n)):
            out.append(Alert("high-cardinality", (names[j],),
                             f"{names[j]!r} has {int(levels[j])} values for {n} rows ({n / levels[j]:.1f} rows per "
                             "value): estimates that use it fit this sample; merge its rare values or leave it out.",
                             float(levels[j] / n), drop_fix([names[j]]), "data"))
        out += associated_pairs(X, names)
    if got is not None:
        _, _, y = got
        share = np.bincount(y) / max(y.size, 1)
        share = share[share > 0]
        if share.size >= 2 and share.min() < IMBALANCE:
            classes = list(getattr(getattr(dataset, "encoded_target", None), "class_names", ()) or
                           getattr(src, "class_names", ()) or range(share.size))
            rare = int(np.argmin(np.where(np.bincount(y) > 0, np.bincount(y), np.inf)))
            label = classes[rare] if rare < len(classes) else rare
            out.append(Alert("imbalance", (), f"Class {label!r} is only {share.min():.1%} of the rows: a 0-1 error "
                             "below that is no better than always guessing the majority; use the balanced error.",
                             float(share.min()), "choose the balanced error (--measure balanced)", "data"))
    return tuple(out)


_PAIR_CODES = 4_000_000   # associated pairs: (row, pair) joint codes held at once (32 MB of int64)


def _column_entropies(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(H in bits, number of distinct values) of each column of ``codes`` (n x c), from its sorted values' run
    lengths: H = log2 n - sum_v n_v log2 n_v / n. Memory n x c, whatever the number of levels (a joint table of
    A x A cells per pair would be 8 A^2 bytes: 400 MB for 210 pairs of a 300-level text column)."""
    n, c = codes.shape
    ordered = np.sort(codes, axis=0)
    starts = np.ones((n, c), dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    run = np.cumsum(starts, axis=0) - 1 + np.arange(c) * n          # a run id per (row, column), columns apart
    counts = np.bincount(run.ravel(), minlength=n * c).reshape(c, n).astype(np.float64)
    xlogx = counts * np.log2(counts + (counts == 0))
    return np.log2(n) - xlogx.sum(axis=1) / n, starts.sum(axis=0)


_SMALL_JOINT = 4_096      # a pair with at most this many joint cells is counted in a table, not a sort


def _joint_entropies(X: np.ndarray, a: np.ndarray, b: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """H(X_a, X_b) in bits of each pair, from one table of every pair's joint cells: pair p's cells are numbered
    o_p + X_a s_b + X_b (o_p: the cells of the pairs before it), counted by one ``bincount``, and
    H = log2 n - sum_cells c log2 c / n summed per pair (``reduceat``). For pairs of few joint cells: no sort."""
    cells = sizes[a] * sizes[b]
    offsets = np.concatenate(([0], np.cumsum(cells)[:-1]))
    counts = np.bincount((X[:, a] * sizes[b] + X[:, b] + offsets).ravel(), minlength=int(cells.sum()))
    counts = counts.astype(np.float64)
    return np.log2(X.shape[0]) - np.add.reduceat(counts * np.log2(counts + (counts == 0)), offsets) / X.shape[0]


def _sorted_joint_entropies(X: np.ndarray, a: np.ndarray, b: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """H(X_a, X_b) in bits of each pair from the sorted joint codes' run lengths (:func:`_column_entropies`):
    memory n x pairs, whatever the number of joint cells."""
    return _column_entropies(X[:, a] * sizes[b] + X[:, b])[0]


def associated_pairs(X: np.ndarray, names) -> list[Alert]:
    """Pairs with I(X_i; X_j) / min(H(X_i), H(X_j)) >= ASSOCIATED, I = H(X_i) + H(X_j) - H(X_i, X_j), the joint
    entropy from the pair's combined codes X_i A_j + X_j, a chunk of pairs at a time (the first MAX_PAIRS pairs, on
    at most PAIR_ROWS rows)."""
    X = np.asarray(X)
    if X.shape[0] > PAIR_ROWS:
        X = X[np.sort(np.random.default_rng(0).choice(X.shape[0], PAIR_ROWS, replace=False))]
    n, p = X.shape
    if p < 2 or n == 0:
        return []
    X = X.astype(np.int64)
    i, j = np.triu_indices(p, 1)
    i, j = i[:MAX_PAIRS], j[:MAX_PAIRS]
    h, levels = _column_entropies(X)
    sizes = X.max(axis=0) + 1
    hij = np.empty(i.size)
    chunk = max(1, _PAIR_CODES // n)
    small = np.flatnonzero(sizes[i] * sizes[j] <= _SMALL_JOINT)
    large = np.flatnonzero(sizes[i] * sizes[j] > _SMALL_JOINT)
    for pick, entropies in ((small, _joint_entropies), (large, _sorted_joint_entropies)):
        for start in range(0, pick.size, chunk):   # chunks of pairs: bounded memory
            at = pick[start:start + chunk]
            hij[at] = entropies(X, i[at], j[at], sizes)
    mi = h[i] + h[j] - hij
    cells = levels[i] * levels[j]
    low = np.minimum(h[i], h[j])
    nmi = np.where(low > _EPS, mi / np.where(low > _EPS, low, 1.0), 0.0)
    hit = (nmi >= ASSOCIATED) & (cells * ROWS_PER_LEVEL <= n)
    return [Alert("associated-pair", (names[a], names[b]),
                  f"{names[a]!r} and {names[b]!r} nearly restate each other (normalised mutual information "
                  f"{v:.2f}): a selector will rarely want both, and either may take the other's place.",
                  float(v), drop_fix([names[b]]), "data") for a, b, v in zip(i[hit], j[hit], nmi[hit], strict=True)]


def selection_alerts(dataset, selection, *, folds: int = 5, seed: int = 0) -> tuple[Alert, ...]:
    """Leak alerts on the columns ``selection`` chose (and the pair of its two best columns)."""
    if not selection.features:
        return ()
    return leak_alerts(dataset, list(selection.features), folds=folds, seed=seed)


def check_drop(columns, names) -> list[str]:
    """The ``--drop`` columns, each a column of the table (else a ParameterError naming the columns)."""
    cols = [str(c).strip() for c in columns or ()]
    unknown = [c for c in cols if c not in set(names)]
    if unknown:
        raise ParameterError(f"--drop names no column {', '.join(map(repr, unknown))}; the columns are "
                             f"{', '.join(map(str, names))}")
    return cols


def dataset_alerts(encoded, raw=None) -> tuple[Alert, ...]:
    """Leak alerts first, then data alerts, of ``encoded`` (its codes: what a selector sees); a column filled in for
    one class only is found on ``raw`` (the missing values are gone from the codes' view) and replaces a
    near-perfect alert on the same column (the more specific reason)."""
    found = list(data_alerts(encoded))
    if raw is not None and getattr(encoded, "task", "binary") != "regression":
        names = set(encoded.feature_names)
        named = {a.columns[0] for a in found if a.severity == "leak" and not a.kind.startswith("near-perfect")}
        extra = [a for a in one_class_alerts(raw) if a.columns[0] in names and a.columns[0] not in named]
        said = {a.columns[0] for a in extra}
        found = extra + [a for a in found if not (a.kind == "near-perfect" and a.columns[0] in said)]
    return tuple(sorted(found, key=lambda a: a.severity != "leak"))


__all__ = ["ASSOCIATED", "IMBALANCE", "PERFECT", "Alert", "associated_pairs", "check_drop", "code_alerts",
           "data_alerts", "dataset_alerts", "leak_alerts", "one_class_alerts", "perfect_alerts", "selection_alerts"]
