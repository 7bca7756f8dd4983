"""The data layer: reading tables, checking them, discretising, and the sources selectors count on.

``plan`` (the one record of how a table is read, left out, coded and estimated: mergeable summaries -> ``decide``
-> ``apply``/``code``, the same on every engine), ``parse_rules`` (the one table of parse rules, portable to SQL),
``csv_io`` (bounded CSV reading), ``column_types`` (dates, percentages, units, yes/no and near-unique columns read
as a person reads them; ``messy`` generates such tables for tests), ``data_checks`` (the refusals, one error class
each; outliers that stretch the bins), ``column_stats`` and
``discretize`` (codes and bins), ``target_guess``, ``target`` (encoding a target column), ``dataset``
(``Dataset``: a frame and its target), ``encoded`` (``EncodedDataset``: integer codes, a ``CodedSource``),
``distributions`` (exact laws, also a source), ``shipped`` (reading the shipped files), ``samples`` and
``synthetic`` (shipped and generated data), ``safe_json``, ``distributed``/``dask_read`` (the Dask source; running
jobs on a cluster is :mod:`fslab.cluster`), ``sql_read``/``sql_source`` (the SQL source: the plan's statistics,
parsing, folds and bootstrap weights computed in the engine).

``fslab.data`` re-exports what the former module ``fslab/data.py`` exported, so ``from fslab.data import
Dataset`` keeps working.
"""

from .dataset import *  # noqa: F403
from .dataset import __all__  # noqa: F401
