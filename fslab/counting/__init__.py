"""The counting floor: every engine that turns codes into count tables, below the measures and the data layer.

- :mod:`.dense`: :class:`~.dense.FastCounter`, the in-memory engine over row codes (bit planes, bincount keys);
- :mod:`.sparse`: :class:`~.sparse.SparseCounter`, a sparse matrix counted from its non-zeros;
- :mod:`.removal`: one-pass backward-elimination tables (C(kept minus j) for every j);
- :mod:`.dask_kernels`: the per-partition kernels of the Dask source; :mod:`.sql_count`: folds and bootstrap
  weights written as SQL;
- :mod:`.folds`: the cross-fitted estimate's folds, one definition for every engine;
- :mod:`.engines`: which engine serves a source (bounds, and the counter a source names).

Measures (``fslab.measures``) and sources (``fslab.data``) both build on this package; neither imports the other.
"""
