"""fslab: feature-selection criteria, Bayes-optimal filters, NPFS and Bayes-risk orderings.

Plain Python (numpy, scipy, pandas, scikit-learn, plotly); never imports Streamlit.

>>> import fslab
>>> data = fslab.load_sample("mushroom")                       # the Bayes paper's encoding
>>> sel = fslab.select(data, k=5, selector="bayes-greedy", measure="zero-one")
>>> sel.names, sel.trace.head()                                # picks, and every candidate's value per step
>>> fslab.npfs(data, "jmi", k=5, n_bootstraps=100, seed=0).relevant
"""

from .cost import WorkLimitError
from .criteria import bayes_value, criterion
from .data.column_types import TYPES as COLUMN_TYPES
from .data.column_types import ColumnTypeError
from .data.dask_read import from_dask
from .data.data_checks import (
    BinaryFileError,
    DataLimitError,
    DuplicateColumnError,
    EmptyFileError,
    InfiniteValueError,
    MalformedFileError,
    NoHeaderError,
    TargetClassError,
    UnknownTargetError,
)
from .data.dataset import Dataset, Limits, read_csv, read_table
from .data.distributed import DaskSource
from .data.distributions import Distribution, example1, from_joint_frame, joint_frame
from .data.encoded import EncodedDataset
from .data.registry import SourceKind, UnknownSourceError, open_source, register_source, unregister_source
from .data.samples import SAMPLES, load_sample
from .data.sparse import SparseDataset
from .data.sparse_io import read_sparse, read_svmlight
from .data.sql_read import from_sql
from .data.sql_source import SqlSource
from .data.synthetic import digits_in_noise, uniform_dataset
from .errors import DataError, FslabError, ParameterError, TooLargeError, UnsupportedTargetError
from .export import fslab_version
from .limits import NotEnoughMemoryError, server_limits
from .measures import MEASURES, Measure, MeasureSpec, measure, supported_measures
from .npfs.procedure import NPFSCancelled, NPFSResult, check_base_selector, npfs, npfs_threshold
from .npfs.stability import kuncheva_consistency, nogueira_stability
from .pena_nilsson.minimal import (
    backward_search,
    check_assumptions,
    markov_boundary,
    minimal_optimal,
    one_shot,
    strongly_relevant,
)
from .pena_nilsson.orderings import distribution_from_ordering, greedy_bad_ordering, random_valid_ordering, subset_risks
from .pena_nilsson.toy import PRESETS, preset
from .selectors import SELECTORS, Selection, SelectionCancelled, SelectorSpec, prefix_criteria, select
from .tables import CodedSource, JointTable, TableSource

# Loaded on first use: scikit-learn takes about two seconds to import, and the app's first page needs none of it.
_FINITE = "pena_nilsson.finite"
_LAZY = {"FeatureSelector": "evaluate", "INDUCERS": _FINITE, "fbs": _FINITE, "fos": _FINITE}


__version__ = fslab_version()


def __getattr__(name: str):
    if name == "LIMITS":  # the server's limits (DESIGN.md's name): server_limits(), read on use
        return server_limits()
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'fslab' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "INDUCERS", "LIMITS", "MEASURES", "PRESETS", "SAMPLES", "SELECTORS",
    "BinaryFileError", "CodedSource", "DataError", "DataLimitError", "Dataset", "Distribution", "DuplicateColumnError",
    "EmptyFileError", "EncodedDataset", "FeatureSelector", "FslabError", "InfiniteValueError", "JointTable", "Limits",
    "MalformedFileError", "Measure", "MeasureSpec", "NPFSCancelled", "NPFSResult", "NoHeaderError", "ParameterError",
    "Selection", "SelectionCancelled", "SelectorSpec", "WorkLimitError", "NotEnoughMemoryError", "TableSource",
    "TargetClassError", "TooLargeError", "UnknownTargetError",
    "UnsupportedTargetError", "COLUMN_TYPES", "ColumnTypeError",
    "server_limits",
    "backward_search", "bayes_value", "check_assumptions", "criterion", "digits_in_noise", "distribution_from_ordering",
    "example1", "fbs", "fos", "from_joint_frame", "greedy_bad_ordering", "joint_frame", "kuncheva_consistency",
    "load_sample", "markov_boundary", "measure", "minimal_optimal", "nogueira_stability", "npfs", "npfs_threshold",
    "one_shot", "prefix_criteria", "preset", "random_valid_ordering", "read_csv", "read_table", "select",
    "strongly_relevant", "subset_risks", "supported_measures", "uniform_dataset", "check_base_selector",
    "SparseDataset", "read_sparse", "read_svmlight", "__version__", "from_sql", "SqlSource", "from_dask", "DaskSource",
    "SourceKind", "UnknownSourceError", "open_source", "register_source", "unregister_source",
]
