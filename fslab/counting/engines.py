"""Which counting engine serves a source: the bounds every path (in memory, Dask partitions) shares."""

from __future__ import annotations

MAX_FAST_ARITY = 16     # always fast up to this many values per feature; beyond it (up to WIDE_FAST_ARITY) only
WIDE_FAST_ARITY = 64    # while the engine's value indicators (rows x features x (values-1) float32) fit in
INDICATOR_BYTES = 256 << 20
MAX_FAST_CLASSES = 16  # the Dask kernels' limit (fslab.data.distributed)
# The in-memory engine's: its count arrays grow with L^2 (a real-valued target with 1,000s of values takes plain
# tables); 128 holds 20 classes x 5 folds held out (class index fold * L + y; issue 35.2).
MAX_ENGINE_CLASSES = 128
ENGINE_CELLS_PER_ROW = 4  # beyond MAX_FAST_CLASSES: the engine while its count cells per feature are at most 4 a row


def counter_of(source) -> str | None:
    """The counter a source names (its ``counter`` attribute): ``"dense"`` for row codes in memory
    (:class:`fslab.tables.CodedSource` and its datasets), ``"sparse"`` for a sparse matrix counted from its non-zeros
    (:class:`fslab.data.sparse.SparseDataset`); None for a count-only source (SQL, Dask: they count in their engine)."""
    return getattr(source, "counter", None)


def fits_fast(source) -> bool:
    """Small arities always; up to WIDE_FAST_ARITY values while the value indicators fit INDICATOR_BYTES."""
    arity = int(source.arities.max())
    indicator = source.n_rows * source.n_features * (arity - 1) * 4
    return arity <= MAX_FAST_ARITY or (arity <= WIDE_FAST_ARITY and indicator <= INDICATOR_BYTES)


__all__ = ["ENGINE_CELLS_PER_ROW", "INDICATOR_BYTES", "MAX_ENGINE_CLASSES", "MAX_FAST_ARITY", "MAX_FAST_CLASSES",
           "WIDE_FAST_ARITY", "counter_of", "fits_fast"]
