"""Entropy, mutual information and conditional mutual information, on tables and on integer codes.

Public names (the selectors build MIM / mRMR / JMI / CMIM gains from these; nothing else is needed):

On probability / count arrays (the last axis is the distribution; leading axes are a batch):
    ``entropy_pmf(p, unit="bits")``                      H of each distribution along the last axis.
On a :class:`~fslab.tables.JointTable` of shape (..., cells, L), one value per table:
    ``class_entropy(table, unit)``                        H(Y)
    ``cell_entropy(table, unit)``                         H(X_J)
    ``conditional_entropy(table, unit)``                  H(Y | X_J)   (log-loss = this in nats)
    ``mutual_information(table, unit)``                   I(X_J; Y)    (Ahmed et al., equation (2))
On 3-way count arrays ``counts[..., z, x, y]``:
    ``conditional_mutual_information_counts(c, unit)``   I(X; Y | Z)
On integer codes (vectors of length m, or (m, B) matrices: one column per candidate, batched):
    ``entropy_codes(x, weights=None, unit)``              H(X) per column
    ``mutual_information_codes(x, y, weights=None, unit)``            I(X; Y) per column of x
    ``conditional_mutual_information_codes(x, y, z, weights=None, unit)``  I(X; Y | Z) per column
    ``joint_codes(a, b)``                                  one code per row for the pair (a, b)

``unit`` is ``"bits"`` (log base 2, the default; DESIGN.md reports MI in bits as the paper's Example 1)
or ``"nats"`` (natural log; Example 5's log-loss). ``weights`` gives each row a mass (an exact
distribution's rows); without it every row counts once (a sample's plug-in estimate: counts / m).
Zero-probability entries contribute nothing (0 log 0 = 0), so padded or unseen cells are harmless.
"""

from __future__ import annotations

import numpy as np
from scipy.special import entr

from .errors import ParameterError
from .tables import JointTable

_UNITS = {"bits": np.log(2.0), "nats": 1.0}
_CHUNK_CODES = 1 << 22  # entries of one (rows x columns) code matrix in the batched counts


def _scale(unit: str) -> float:
    try:
        return _UNITS[unit]
    except KeyError:
        raise ParameterError(f"unit must be 'bits' or 'nats'; got {unit!r}") from None


# numpy reductions over a short last axis (the L classes) or the middle (cells) axis are several
# times slower than a matmul with a ones vector or a loop over the few columns; these are hot paths.
def _sum_classes(a: np.ndarray) -> np.ndarray:
    """a.sum(axis=-1) for (..., cells, L)."""
    return a @ np.ones(a.shape[-1])


def _sum_cells(a: np.ndarray) -> np.ndarray:
    """a.sum(axis=-2) for (..., cells, L)."""
    return np.ones(a.shape[-2]) @ a


def _max_classes(a: np.ndarray) -> np.ndarray:
    """a.max(axis=-1) for (..., cells, L)."""
    out = a[..., 0].copy()
    for col in range(1, a.shape[-1]):
        np.maximum(out, a[..., col], out=out)
    return out


def _log_positive(a: np.ndarray) -> np.ndarray:
    """log a where a > 0, else 0 (those entries are multiplied by a zero mass)."""
    return np.log(a, out=np.zeros_like(a), where=a > 0)


def _normalise(p: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    p = np.asarray(p, dtype=np.float64)
    total = p.sum(axis=axes, keepdims=True)
    if np.any(total <= 0) or np.any(p < 0):
        raise ParameterError("a distribution needs non-negative entries with positive total mass")
    return p / total


def entropy_pmf(p, unit: str = "bits") -> np.ndarray:
    """H(P) = -sum_i p_i log p_i along the last axis (counts are normalised first)."""
    p = _normalise(p, (-1,))
    return entr(p).sum(axis=-1) / _scale(unit)


# The table quantities below use the counts form: with n_xy the table's entries, n_x, n_y its margins
# and n its total, every entropy is (sum of n log n terms) / n, e.g. H(Y|X) = (sum n_x log n_x -
# sum n_xy log n_xy) / n. It holds for counts and probabilities alike (the log n terms cancel), needs
# no normalised copy, and one log pass over the table: the hot path of BayesGreedy with log-loss.
def _xlogx(a: np.ndarray) -> np.ndarray:
    """a log a with 0 log 0 = 0."""
    return a * np.log(a + (a == 0))


def _sum_xlogx(table: JointTable) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    c = table.counts
    n_x = _sum_classes(c)
    n = n_x.sum(axis=-1)
    return (_xlogx(c).sum(axis=(-2, -1)), _xlogx(n_x).sum(axis=-1), _sum_classes(_xlogx(_sum_cells(c))), n)


def class_entropy(table: JointTable, unit: str = "bits") -> np.ndarray:
    """H(Y) of each table: (n log n - sum_y n_y log n_y) / n."""
    n_y = _sum_cells(table.counts)
    n = _sum_classes(n_y)
    return np.maximum(_xlogx(n) - _sum_classes(_xlogx(n_y)), 0.0) / n / _scale(unit)


def cell_entropy(table: JointTable, unit: str = "bits") -> np.ndarray:
    """H(X_J) of each table (entropy of the joint cell): (n log n - sum_x n_x log n_x) / n."""
    n_x = _sum_classes(table.counts)
    n = n_x.sum(axis=-1)
    return np.maximum(_xlogx(n) - _xlogx(n_x).sum(axis=-1), 0.0) / n / _scale(unit)


def conditional_entropy(table: JointTable, unit: str = "bits") -> np.ndarray:
    """H(Y | X_J) = -sum_{x,y} p(x,y) log p(y|x) = (sum_x n_x log n_x - sum_{x,y} n_xy log n_xy) / n.

    Ahmed et al., Example 5 (in nats there): the Bayes log-loss. 0 log 0 = 0, so empty cells add nothing.
    """
    joint, cells, _, n = _sum_xlogx(table)
    return np.maximum(cells - joint, 0.0) / n / _scale(unit)


def mutual_information(table: JointTable, unit: str = "bits") -> np.ndarray:
    """I(X_J; Y) = sum_{x,y} p(x,y) log(p(x,y) / (p(x) p(y))) (Ahmed et al., equation (2))
    = (sum n_xy log n_xy - sum n_x log n_x - sum n_y log n_y + n log n) / n.

    Example 1: I(X1;Y) = 0.0819 bit, I(X2;Y) = 0.1724 bit (the paper prints 0.08 and 0.17).
    """
    joint, cells, classes, n = _sum_xlogx(table)
    return np.maximum(joint - cells - classes + _xlogx(n), 0.0) / n / _scale(unit)


def conditional_mutual_information_counts(counts, unit: str = "bits") -> np.ndarray:
    """I(X; Y | Z) from counts or probabilities of shape (..., Z, X, Y).

    I(X;Y|Z) = sum p(z,x,y) log(p(z,x,y) p(z) / (p(z,x) p(z,y))); 0 when X and Y are independent given Z.
    """
    p = _normalise(counts, (-3, -2, -1))
    if p.ndim < 3:
        raise ParameterError(f"conditional MI needs counts of shape (..., Z, X, Y); got shape {p.shape}")
    logs = (_log_positive(p) + _log_positive(p.sum(axis=(-2, -1), keepdims=True))
            - _log_positive(p.sum(axis=-1, keepdims=True)) - _log_positive(p.sum(axis=-2, keepdims=True)))
    return np.maximum((p * logs).sum(axis=(-3, -2, -1)), 0.0) / _scale(unit)


# ----------------------------------------------------------------------------- integer codes

def _codes(x, name: str) -> np.ndarray:
    x = np.asarray(x)
    if not np.issubdtype(x.dtype, np.integer):
        raise ParameterError(f"{name} must hold integer codes; got dtype {x.dtype}")
    if x.ndim not in (1, 2):
        raise ParameterError(f"{name} must be a vector or an (m, B) matrix; got shape {x.shape}")
    if x.size and x.min() < 0:
        raise ParameterError(f"{name} must hold non-negative codes")
    return x.astype(np.int64, copy=False)


def _weights(weights, m: int) -> np.ndarray | None:
    if weights is None:
        return None
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (m,) or np.any(w < 0) or not np.all(np.isfinite(w)):
        raise ParameterError(f"weights need one finite non-negative mass per row ({m}); got shape {w.shape}")
    return w


def joint_codes(a, b) -> np.ndarray:
    """One code per row for the pair (a, b): ``a * (max(b) + 1) + b`` (broadcasts over columns)."""
    a, b = _codes(a, "a"), _codes(b, "b")
    width = int(b.max()) + 1 if b.size else 1
    return a * width + b


def _batched_counts(columns: list[np.ndarray], weights: np.ndarray | None) -> np.ndarray:
    """Counts of the joint codes of ``columns`` (each (m, B) or (m,)), one table per column: (B, *sizes).

    Columns are counted in chunks so the (m x chunk) code matrix stays within _CHUNK_CODES entries.
    """
    rows = {c.shape[0] for c in columns}
    if len(rows) != 1:
        raise ParameterError(f"all code arrays need the same number of rows; got {sorted(rows)}")
    widths = {c.shape[1] for c in columns if c.ndim == 2}
    if len(widths) > 1:
        raise ParameterError(f"(m, B) code matrices need the same B; got {sorted(widths)}")
    m, width = rows.pop(), widths.pop() if widths else 1
    sizes = [int(c.max()) + 1 if c.size else 1 for c in columns]
    cells = int(np.prod(sizes))
    chunk = max(1, _CHUNK_CODES // max(m, 1))
    parts = []
    for start in range(0, width, chunk):
        stop = min(width, start + chunk)
        flat = np.zeros((m, stop - start), dtype=np.int64)
        for c, size in zip(columns, sizes, strict=True):
            flat *= size
            flat += c[:, start:stop] if c.ndim == 2 else c[:, None]
        flat += np.arange(stop - start, dtype=np.int64) * cells
        w = None if weights is None else np.repeat(weights, stop - start)
        parts.append(np.bincount(flat.ravel(), weights=w, minlength=(stop - start) * cells))
    return np.concatenate(parts).astype(np.float64).reshape(width, *sizes)


def _squeeze(out: np.ndarray, *arrays: np.ndarray) -> np.ndarray | float:
    return float(out[0]) if all(a.ndim == 1 for a in arrays) else out


def entropy_codes(x, weights=None, unit: str = "bits"):
    """H(X) of integer codes (plug-in: counts / m, or the row weights); one value per column of x."""
    x = _codes(x, "x")
    c = _batched_counts([x], _weights(weights, x.shape[0]))
    return _squeeze(entropy_pmf(c, unit), x)


def mutual_information_codes(x, y, weights=None, unit: str = "bits"):
    """I(X; Y) of integer codes; x may be (m, B) to get one value per column (batched bincount)."""
    x, y = _codes(x, "x"), _codes(y, "y")
    c = _batched_counts([x, y], _weights(weights, x.shape[0]))
    return _squeeze(mutual_information(JointTable(c, np.arange(c.shape[-1])), unit), x, y)


def conditional_mutual_information_codes(x, y, z, weights=None, unit: str = "bits"):
    """I(X; Y | Z) of integer codes; any of x, y, z may be (m, B) for one value per column."""
    x, y, z = _codes(x, "x"), _codes(y, "y"), _codes(z, "z")
    c = _batched_counts([z, x, y], _weights(weights, x.shape[0]))
    return _squeeze(conditional_mutual_information_counts(c, unit), x, y, z)
