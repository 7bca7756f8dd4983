"""The data layer: reading tables, checking them, discretising, and the sources selectors count on.

``csv_io`` (bounded CSV reading), ``column_types`` (dates, percentages, units, yes/no and near-unique columns read
as a person reads them; ``messy`` generates such tables for tests), ``data_checks`` (the refusals, one error class
each; outliers that stretch the bins), ``column_stats`` and
``discretize`` (codes and bins), ``target_guess``, ``target`` (encoding a target column), ``dataset``
(``Dataset``: a frame and its target), ``encoded`` (``EncodedDataset``: integer codes, a ``CodedSource``),
``distributions`` (exact laws, also a source), ``shipped`` (reading the shipped files), ``samples`` and
``synthetic`` (shipped and generated data), ``safe_json``, ``distributed`` (the Dask source; running jobs on a
cluster is :mod:`fslab.cluster`).

``fslab.data`` re-exports what the former module ``fslab/data.py`` exported, so ``from fslab.data import
Dataset`` keeps working.
"""

from .dataset import *  # noqa: F403
from .dataset import __all__  # noqa: F401
