"""NPFS bootstraps counted with row weights: many bootstraps of the MI-family selectors at once.

A bootstrap draws n_draw rows with replacement; all that a count-based selector sees of it is the multiplicity
w_r of each row r (a multinomial vector, the bincount of the drawn rows). Every count the MI-family selectors
need is a weighted sum over the ORIGINAL encoded rows, so no resampled data set is built:

    n_b(Y = l, X_j = v)              = sum_r w_br [y_r = l] [X_rj = v]
    n_b(X_f = u, Y = l, X_j = v)     = sum_r w_br [X_rf = u] [y_r = l] [X_rj = v]

For a batch of B bootstraps both are one dense matrix product W @ VY or G @ VY, with VY (m x L sum_j (a_j - 1))
the 0/1 indicators of (class l, value v >= 1) built once, W the weights (one row per bootstrap) and G the
weights times [X_rf = u] (one row per bootstrap and value u >= 1 of its newest feature f_b). The value 0
(and u = 0) follows by subtraction from the margins. The products are exact: whole numbers below 2^24 in float32.

The product's cost grows with (A - 1) L per row and indicator column, so many levels and many classes (digits in
noise: 17 levels, 10 classes) use :class:`CountedBootstraps` instead: one bootstrap at a time, its distinct rows r
(w_r > 0) and one weighted ``np.bincount`` per step over every candidate at once,

    n_b(X_f = u, X_j = v, Y = l) = sum_r w_r [code_rj = ((j A + u) A + v) L + l],

m' K additions per step (m' the distinct rows) whatever the arities, and a k ln k look-up per table cell.
:func:`engine` takes the engine of the lower predicted cost.

The greedy loops then follow ``fslab.selectors`` step for step (the same gains, the same tie rule: within
1e-12 relative of the best, the lowest index wins), vectorised over the batch:

    mi-score: I(X_j;Y);  jmi: sum_{i in J} I(X_j,X_i;Y);  mrmr: I(X_j;Y) - mean_{i in J} I(X_j;X_i);
    cmim: min(I(X_j;Y), min_{i in J} I(X_j;Y|X_i)),  with I(X_j;Y|X_i) = I(X_j,X_i;Y) - I(X_i;Y).

MI is the plug-in estimate (Ahmed et al., equation (2)) in bits, from counts:
(sum n_xy ln n_xy - sum n_x ln n_x - sum n_y ln n_y + n ln n) / (n ln 2), clipped at 0.
"""

from __future__ import annotations

import numpy as np

from ..counting.dense import nlogn_table
from ..tables import CodedSource
from .result import PICKED, TIED_PICK

WEIGHTED_SELECTORS = frozenset({"jmi", "mrmr", "cmim", "mi-score"})
MAX_ARITY = 16  # the product engine's bounds; the direct engine takes any arity and class count
MAX_CLASSES = 16
# Products when the product's multiply-adds per (row, feature) stay small: L sum_j(a_j - 1) / K.
# Adult (binary features, 2 classes): 2; D_uni with 3 bins: 8; digits in noise (16 levels, 10 classes): ~2,000.
MAX_WORK_PER_CELL = 64
MAX_INDICATOR_BYTES = 1 << 29  # indicator matrices beyond this: resample instead
# CPU cost on this project's 2 shared cores (bench/bench_npfs.py): Adult, JMI k = 10: 3.3 ms per bootstrap for
# 120 M multiply-adds; D_uni (1000 x 25, 3 bins): 0.19 ms, mostly per-step overhead.
SECONDS_PER_MULTIPLY_ADD = 3e-11
SECONDS_PER_STEP = 1.5e-5
# The direct engine on digits in noise (5,620 x 256, 17 levels, 10 classes; load 5.6): 2.75 ms per step for the
# bincount of ~3,550 distinct rows x 256 features and the k ln k sums of 740 K table cells, in cache-sized blocks.
SECONDS_PER_COUNTED_ENTRY = 1.5e-9
SECONDS_PER_TABLE_CELL = 1.9e-9
MAX_TABLE_CELLS = 1 << 22  # table cells of one feature pair (A_u A_v L): beyond this, resample
BLOCK_CELLS = 1 << 16  # table cells of one bincount (a block of features)
BLOCK_ENTRIES = 1 << 17  # codes of one bincount (a block of features x distinct rows)
_TIE = 1e-12  # fslab.selectors' TIE_TOLERANCE (DESIGN.md)
_BATCH_BYTES = 64 << 20  # bound on each batch's group matrix and count arrays
_LN2 = np.log(2.0)


def _xlogx(a: np.ndarray) -> np.ndarray:
    return a * np.log(a + (a == 0))


def _mi_bits(counts: np.ndarray) -> np.ndarray:
    """Plug-in I(X;Y) in bits of tables (..., cells, classes): reduces the last two axes."""
    n = counts.sum(axis=(-2, -1))
    value = (_xlogx(counts).sum(axis=(-2, -1)) - _xlogx(counts.sum(axis=-1)).sum(axis=-1)
             - _xlogx(counts.sum(axis=-2)).sum(axis=-1) + _xlogx(n))
    return np.maximum(value, 0.0) / np.where(n > 0, n, 1.0) / _LN2


def work_per_cell(source) -> float:
    """Multiply-adds of the weighted product per (row, feature) and bootstrap step (see MAX_WORK_PER_CELL)."""
    arities = np.asarray(source.arities)
    A = int(arities.max()) if arities.size else 1
    return max(A - 1, 1) * len(source.labels) * float(np.maximum(arities - 1, 0).sum()) / max(arities.size, 1)


def predicted_seconds(n_rows: int, n_features: int, max_arity: int, n_classes: int, k: int,
                      n_bootstraps: int) -> float:
    """CPU seconds of n weighted bootstraps with the cheaper engine (an upper bound on the columns: every feature at
    ``max_arity``).

    Products: L m C multiply-adds for the relevance counts and (k - 1) (A - 1) L m C for the pair counts,
    C = K (A - 1) indicator columns. Direct counts: k bincounts of 0.632 m x K entries (a bootstrap's distinct rows)
    into K A^2 L cells. Plus a fixed cost per step.
    """
    A, K, L, k, n = max(int(max_arity), 2), int(n_features), int(n_classes), int(k), int(n_bootstraps)
    per_boot = L * int(n_rows) * K * (A - 1) * (1 + (k - 1) * (A - 1))
    product = per_boot * SECONDS_PER_MULTIPLY_ADD
    counted = k * (0.632 * int(n_rows) * K * SECONDS_PER_COUNTED_ENTRY + K * A * A * L * SECONDS_PER_TABLE_CELL)
    return n * (min(product, counted) + k * SECONDS_PER_STEP)


def indicator_bytes(source) -> int:
    """Bytes of the indicator matrices built once per run: (L + 1) float32 values per row and value v >= 1."""
    return 4 * (len(source.labels) + 1) * source.X.shape[0] * int(np.maximum(np.asarray(source.arities) - 1, 0).sum())


def _products_fit(source) -> bool:
    return (int(np.max(source.arities)) <= MAX_ARITY and len(source.labels) <= MAX_CLASSES
            and work_per_cell(source) <= MAX_WORK_PER_CELL and indicator_bytes(source) <= MAX_INDICATOR_BYTES)


def _counting_fits(source) -> bool:
    A = max(int(np.max(source.arities)), 1)
    return A * A * len(source.labels) <= MAX_TABLE_CELLS


def supports(source, selector, params: dict) -> bool:
    """True when :func:`engine` gives exactly what ``select(boot, k, selector)`` gives."""
    return (isinstance(selector, str) and selector in WEIGHTED_SELECTORS and not params
            and isinstance(source, CodedSource) and source.is_sample
            and source.n_features > 0 and source.task != "regression"
            and (_products_fit(source) or _counting_fits(source)))


def engine(source) -> WeightedBootstraps | CountedBootstraps:
    """The engine of the lower predicted cost for ``source`` (one of them fits when :func:`supports` holds)."""
    if not _products_fit(source):
        return CountedBootstraps(source)
    if not _counting_fits(source):
        return WeightedBootstraps(source)
    a = np.asarray(source.arities)
    A, L, (m, K) = max(int(a.max()), 2), len(source.labels), np.shape(source.X)
    product = L * m * float(np.maximum(a - 1, 0).sum()) * (A - 1) * SECONDS_PER_MULTIPLY_ADD
    counted = 0.632 * m * K * SECONDS_PER_COUNTED_ENTRY + K * A * A * L * SECONDS_PER_TABLE_CELL
    return WeightedBootstraps(source) if product <= counted else CountedBootstraps(source)


class WeightedBootstraps:
    """Counts and greedy MI-family selections for batches of row-weight vectors over one encoded sample."""

    def __init__(self, source):
        X = np.asarray(source.X)
        self.m, self.K = X.shape
        self.arities = np.asarray(source.arities, dtype=np.int64)
        self.A = int(self.arities.max())
        self.L = len(source.labels)
        self.X, self.y = X, np.asarray(source.y, dtype=np.int64)
        self.col_feature = np.repeat(np.arange(self.K), np.maximum(self.arities - 1, 0))
        self.col_value = np.concatenate([np.arange(1, a) for a in self.arities]) if self.col_feature.size else \
            np.zeros(0, dtype=np.int64)
        V = X[:, self.col_feature] == self.col_value  # (m, C) indicators of the values v >= 1
        self.VT = np.ascontiguousarray(V.T, dtype=np.float32)  # (C, m): rows [X_f = u], gathered per bootstrap
        Y = self.y[:, None] == np.arange(self.L)
        self.Y = Y.astype(np.float32)  # (m, L)
        self.VY = (Y[:, :, None] & V[:, None, :]).reshape(self.m, -1).astype(np.float32)  # (m, L C): [y=l][X_j=v]
        self.col_of = np.full((self.K, self.A), -1, dtype=np.int64)  # column of (feature f, value u >= 1) in V
        self.col_of[self.col_feature, self.col_value] = np.arange(self.col_feature.size)

    def batch_size(self) -> int:
        """Bootstraps per product, so that the group matrix and the count arrays stay within _BATCH_BYTES."""
        per = max(4 * (self.A - 1) * self.m, 8 * self.A * self.A * self.L * self.K * 3)
        return int(max(1, min(256, _BATCH_BYTES // max(per, 1))))

    def _full(self, upper: np.ndarray, totals: np.ndarray) -> np.ndarray:
        """(..., C) counts of the values v >= 1 and (...) totals -> (..., K, A) counts of every value."""
        out = np.zeros(upper.shape[:-1] + (self.K, self.A))
        out[..., self.col_feature, self.col_value] = upper
        out[..., 0] = totals[..., None] - out[..., 1:].sum(axis=-1)
        return out

    def relevance_counts(self, W: np.ndarray) -> np.ndarray:
        """n_b(Y = l, X_j = v): (B, L, K, A) from weights W (B, m)."""
        upper = (W @ self.VY).astype(np.float64).reshape(W.shape[0], self.L, -1)
        return self._full(upper, (W @ self.Y).astype(np.float64))

    def pair_counts(self, W: np.ndarray, f: np.ndarray, rel: np.ndarray) -> np.ndarray:
        """n_b(X_f = u, X_j = v, Y = l) for each bootstrap's feature f_b: (B, K, A_u, A_v, L)."""
        B, A, L = W.shape[0], self.A, self.L
        cols = self.col_of[f][:, 1:]  # (B, A-1): column of (f_b, u >= 1), -1 beyond f_b's arity
        G = np.take(self.VT, np.maximum(cols, 0).ravel(), axis=0)  # rows (b, u >= 1): [X_r,f_b = u] ...
        G.reshape(B, A - 1, self.m)[...] *= W[:, None, :]  # ... times w_br, in place
        G[cols.ravel() < 0] = 0.0
        upper = (G @ self.VY).astype(np.float64).reshape(B, A - 1, L, -1)
        totals = (G @ self.Y).astype(np.float64).reshape(B, A - 1, L)
        part = self._full(upper, totals)  # (B, A-1, L, K, A): u >= 1
        out = np.empty((B, A, L, self.K, A))
        out[:, 1:] = part
        out[:, 0] = rel - part.sum(axis=1)  # u = 0: the class-value margins minus the other values of X_f
        return out.transpose(0, 3, 1, 4, 2)  # (B, K, u, v, l)

    def select(self, W: np.ndarray, k: int, selector: str) -> np.ndarray:
        """(B, K) bool: the k features ``selector`` picks on each weighted bootstrap (rows of W)."""
        W = np.asarray(W, dtype=np.float32)
        B = W.shape[0]
        rel_counts = self.relevance_counts(W)  # (B, L, K, A)

        def pair_mi(f: np.ndarray) -> np.ndarray:
            pairs = self.pair_counts(W, f, rel_counts)  # (B, K, u, v, l)
            if selector == "mrmr":
                return _mi_bits(pairs.sum(axis=-1))  # I(X_j; X_f): cells v, "classes" u
            return _mi_bits(pairs.reshape(B, self.K, self.A * self.A, self.L))  # I(X_j, X_f; Y)

        return _greedy(_mi_bits(rel_counts.transpose(0, 2, 3, 1)), pair_mi, k, selector)


class CountedBootstraps:
    """Greedy MI-family selections of weighted bootstraps, each counted directly (any arity and class count).

    Per bootstrap: its distinct rows and their weights, the codes X_rj L + j A_u A L of those rows (feature-major,
    built once), and per step one weighted bincount per block of features of ((j A + u) A + v) L + l.
    """

    def __init__(self, source):
        X = np.asarray(source.X)
        self.m, self.K = X.shape
        self.A = max(int(np.max(source.arities)), 1)
        self.L = len(source.labels)
        # codes in the smallest unsigned type (an int64 code matrix would make each bootstrap's copy 8x larger)
        self.X = X.astype(np.uint8 if self.A <= 256 else np.uint16, copy=False)
        self.y = np.asarray(source.y, dtype=np.int64)
        self.cells = self.A * self.A * self.L  # cells (l, u, v) of one pair table
        self.nlogn = nlogn_table(self.m)

    def batch_size(self) -> int:
        """Bootstraps per call of :meth:`select` (each is counted on its own; a batch only spaces the progress)."""
        return 64

    def select(self, W: np.ndarray, k: int, selector: str) -> np.ndarray:
        """(B, K) bool: the k features ``selector`` picks on each weighted bootstrap (rows of W)."""
        return np.concatenate([self._select_one(w, k, selector) for w in np.asarray(W)], axis=0)

    def _select_one(self, w: np.ndarray, k: int, selector: str) -> np.ndarray:
        K, A, L, cells = self.K, self.A, self.L, self.cells
        rows = np.flatnonzero(w)
        weights, y = w[rows].astype(np.float64), self.y[rows]
        XT = np.ascontiguousarray(self.X[rows].T)  # (K, m'): the bootstrap's distinct rows, feature-major
        # Blocks of features whose codes, weights and tables stay in cache: every pass of a step runs on a block.
        per_block = max(1, min(BLOCK_CELLS // cells, BLOCK_ENTRIES // max(rows.size, 1), K))
        offsets = (np.arange(per_block, dtype=np.int64) * cells)[:, None]  # table j's cells (l, u, v) start here
        tiled = np.tile(weights, per_block)
        codes = np.empty((per_block, rows.size), dtype=np.int64)
        n = float(weights.sum())
        class_counts = np.bincount(y, weights=weights, minlength=L)
        constant = self.nlogn[int(n)] - _sum_nlogn(self.nlogn, class_counts[None, :])[0]  # n ln n - sum n_l ln n_l

        def sums(g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            """Per feature j, sum c ln c over the cells (l, u, v) and over (u, v) of its table with the rows'
            g = l A^2 + u A."""
            joint, pair = np.empty(K), np.empty(K)
            for s in range(0, K, per_block):
                e = min(s + per_block, K)
                block = np.add(XT[s:e], g, out=codes[:e - s])
                block += offsets[:e - s]
                t = np.bincount(block.ravel(), weights=tiled[:block.size], minlength=(e - s) * cells)
                t = t.reshape(e - s, L, A * A)
                joint[s:e] = _sum_nlogn(self.nlogn, t.reshape(e - s, -1))
                pair[s:e] = _sum_nlogn(self.nlogn, t.sum(axis=1))
            return joint, pair

        rel, v_terms = sums(y * (A * A))  # u = 0 for every row: the (l, v) tables and sum_v n_v ln n_v
        relevance = np.maximum(rel - v_terms + constant, 0.0) / n / _LN2

        def pair_mi(chosen: np.ndarray) -> np.ndarray:
            f = int(chosen[0])
            joint, pair = sums(y * (A * A) + XT[f] * np.int64(A))
            if selector == "mrmr":  # I(X_j; X_f) = (sum n_uv ln n_uv - sum n_u ln n_u - sum n_v ln n_v + n ln n) / n
                mi = pair - v_terms - v_terms[f] + self.nlogn[int(n)]
            else:  # I(X_j, X_f; Y) = (sum n_luv ln n_luv - sum n_uv ln n_uv - sum n_l ln n_l + n ln n) / n
                mi = joint - pair + constant
            return (np.maximum(mi, 0.0) / n / _LN2)[None, :]

        return _greedy(relevance[None, :], pair_mi, k, selector)


def _sum_nlogn(table: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Per row of ``counts`` (whole numbers), the sum of c ln c, from the look-up ``table``."""
    return np.take(table, counts.astype(np.intp)).sum(axis=1)


def _greedy(relevance: np.ndarray, pair_mi, k: int, selector: str) -> np.ndarray:
    """The selectors' greedy loop over a batch: ``relevance`` (B, K) is I(X_j;Y); ``pair_mi(f)`` gives (B, K)
    I(X_j;X_f) for mrmr, I(X_j,X_f;Y) otherwise, f the feature each bootstrap picked last. Returns (B, K) int8
    codes: PICKED, or TIED_PICK for a pick made by the tie rule among several tied candidates (not counted)."""
    B, K = relevance.shape
    chosen = np.zeros((B, K), dtype=np.int8)   # 0 not picked, PICKED, TIED_PICK (see fslab.npfs.result)
    acc = relevance.copy() if selector == "cmim" else np.zeros((B, K))
    rows = np.arange(B)
    for step in range(int(k)):
        if step == 0 or selector == "mi-score":
            values = relevance
        elif selector == "mrmr":
            values = relevance - acc / step
        else:
            values = acc
        f, tied = _pick(np.where(chosen > 0, -np.inf, values))
        chosen[rows, f] = np.where(tied, TIED_PICK, PICKED)
        if step == k - 1 or selector == "mi-score":
            continue
        mi = pair_mi(f)
        if selector in ("mrmr", "jmi"):
            acc += mi
        else:
            acc = np.minimum(acc, mi - relevance[rows, f][:, None])
    return chosen


def _pick(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the lowest index within 1e-12 * max(1, |best|) of the best (fslab.selectors' pick_best), and
    whether other candidates tied with it (the pick then comes from the tie rule alone)."""
    v = np.where(np.isnan(values), -np.inf, values)
    best = v.max(axis=1, keepdims=True)
    tied = v >= best - _TIE * np.maximum(1.0, np.abs(best))
    return np.argmax(tied, axis=1), tied.sum(axis=1) > 1


def bootstrap_weights(seeds, n_rows: int, n_draw: int) -> np.ndarray:
    """Row multiplicities (len(seeds) x n_rows, float32) of the bootstraps drawn from ``seeds``, one stream each:
    the bincount of the same ``integers(0, n_rows, n_draw)`` draw the resampling path sorts and copies."""
    W = np.empty((len(seeds), n_rows), dtype=np.float32)
    for b, seq in enumerate(seeds):
        W[b] = np.bincount(np.random.default_rng(seq).integers(0, n_rows, size=n_draw), minlength=n_rows)
    return W


__all__ = ["MAX_INDICATOR_BYTES", "MAX_WORK_PER_CELL", "WEIGHTED_SELECTORS", "CountedBootstraps", "WeightedBootstraps",
           "bootstrap_weights", "engine", "indicator_bytes", "predicted_seconds", "supports", "work_per_cell"]
