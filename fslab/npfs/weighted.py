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

The greedy loops then follow ``fslab.selectors`` step for step (the same gains, the same tie rule: within
1e-12 relative of the best, the lowest index wins), vectorised over the batch:

    mi-score: I(X_j;Y);  jmi: sum_{i in J} I(X_j,X_i;Y);  mrmr: I(X_j;Y) - mean_{i in J} I(X_j;X_i);
    cmim: min(I(X_j;Y), min_{i in J} I(X_j;Y|X_i)),  with I(X_j;Y|X_i) = I(X_j,X_i;Y) - I(X_i;Y).

MI is the plug-in estimate (Ahmed et al., equation (2)) in bits, from counts:
(sum n_xy ln n_xy - sum n_x ln n_x - sum n_y ln n_y + n ln n) / (n ln 2), clipped at 0.
"""

from __future__ import annotations

import numpy as np

from ..tables import CodedSource

WEIGHTED_SELECTORS = frozenset({"jmi", "mrmr", "cmim", "mi-score"})
MAX_ARITY = 16
MAX_CLASSES = 16
# Use weights when the product's multiply-adds per (row, feature) stay small: L sum_j(a_j - 1) / K.
# Adult (binary features, 2 classes): 2; D_uni with 3 bins: 8; digits in noise (16 levels, 10 classes): ~2,000.
MAX_WORK_PER_CELL = 64
MAX_INDICATOR_BYTES = 1 << 29  # indicator matrices beyond this: resample instead
# CPU cost on this project's 2 shared cores (bench/bench_npfs.py): Adult, JMI k = 10: 3.3 ms per bootstrap for
# 120 M multiply-adds; D_uni (1000 x 25, 3 bins): 0.19 ms, mostly per-step overhead.
SECONDS_PER_MULTIPLY_ADD = 3e-11
SECONDS_PER_STEP = 1.5e-5
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
    """CPU seconds of n weighted bootstraps (an upper bound on the columns: every feature at ``max_arity``).

    Multiply-adds per bootstrap: L m C for the relevance counts and (k - 1) (A - 1) L m C for the pair counts,
    C = K (A - 1) indicator columns; plus a fixed cost per step.
    """
    A = max(int(max_arity), 2)
    columns = int(n_features) * (A - 1)
    per_boot = n_classes * n_rows * columns * (1 + (int(k) - 1) * (A - 1))
    return int(n_bootstraps) * (per_boot * SECONDS_PER_MULTIPLY_ADD + int(k) * SECONDS_PER_STEP)


def indicator_bytes(source) -> int:
    """Bytes of the indicator matrices built once per run: (L + 1) float32 values per row and value v >= 1."""
    return 4 * (len(source.labels) + 1) * source.X.shape[0] * int(np.maximum(np.asarray(source.arities) - 1, 0).sum())


def supports(source, selector, params: dict) -> bool:
    """True when :class:`WeightedBootstraps` gives exactly what ``select(boot, k, selector)`` gives."""
    return (isinstance(selector, str) and selector in WEIGHTED_SELECTORS and not params
            and isinstance(source, CodedSource) and source.is_sample
            and source.n_features > 0 and int(np.max(source.arities)) <= MAX_ARITY
            and len(source.labels) <= MAX_CLASSES and source.task != "regression"
            and work_per_cell(source) <= MAX_WORK_PER_CELL
            and indicator_bytes(source) <= MAX_INDICATOR_BYTES)


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
        B, K = W.shape[0], self.K
        rel_counts = self.relevance_counts(W)  # (B, L, K, A)
        relevance = _mi_bits(rel_counts.transpose(0, 2, 3, 1))  # (B, K)
        chosen = np.zeros((B, K), dtype=bool)
        acc = relevance.copy() if selector == "cmim" else np.zeros((B, K))
        rows = np.arange(B)
        for step in range(int(k)):
            if step == 0 or selector == "mi-score":
                values = relevance
            elif selector == "mrmr":
                values = relevance - acc / step
            else:
                values = acc
            f = _pick(np.where(chosen, -np.inf, values))
            chosen[rows, f] = True
            if step == k - 1 or selector == "mi-score":
                continue
            pairs = self.pair_counts(W, f, rel_counts)  # (B, K, u, v, l)
            if selector == "mrmr":
                acc += _mi_bits(pairs.sum(axis=-1))  # I(X_j; X_f): cells v, "classes" u
            else:
                joint = _mi_bits(pairs.reshape(B, K, self.A * self.A, self.L))  # I(X_j, X_f; Y)
                if selector == "jmi":
                    acc += joint
                else:
                    acc = np.minimum(acc, joint - relevance[rows, f][:, None])
        return chosen


def _pick(values: np.ndarray) -> np.ndarray:
    """Per row, the lowest index within 1e-12 * max(1, |best|) of the best (fslab.selectors' pick_best)."""
    v = np.where(np.isnan(values), -np.inf, values)
    best = v.max(axis=1, keepdims=True)
    tied = v >= best - _TIE * np.maximum(1.0, np.abs(best))
    return np.argmax(tied, axis=1)


def bootstrap_weights(seeds, n_rows: int, n_draw: int) -> np.ndarray:
    """Row multiplicities (len(seeds) x n_rows, float32) of the bootstraps drawn from ``seeds``, one stream each:
    the bincount of the same ``integers(0, n_rows, n_draw)`` draw the resampling path sorts and copies."""
    W = np.empty((len(seeds), n_rows), dtype=np.float32)
    for b, seq in enumerate(seeds):
        W[b] = np.bincount(np.random.default_rng(seq).integers(0, n_rows, size=n_draw), minlength=n_rows)
    return W


__all__ = ["MAX_INDICATOR_BYTES", "MAX_WORK_PER_CELL", "WEIGHTED_SELECTORS", "WeightedBootstraps", "bootstrap_weights",
           "indicator_bytes", "predicted_seconds", "supports", "work_per_cell"]
