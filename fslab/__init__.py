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
from .data import LIMITS, Dataset, Limits, read_csv, read_table
from .data_checks import (
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
from .distributions import Distribution, example1, from_joint_frame, joint_frame
from .encoded import EncodedDataset
from .errors import DataError, FslabError, ParameterError, TooLargeError, UnsupportedTargetError
from .limits import NotEnoughMemoryError
from .measures import MEASURES, Measure, MeasureSpec, measure, supported_measures
from .minimal import backward_search, check_assumptions, markov_boundary, minimal_optimal, one_shot, strongly_relevant
from .npfs import NPFSCancelled, NPFSResult, check_base_selector, npfs, npfs_threshold
from .orderings import distribution_from_ordering, greedy_bad_ordering, random_valid_ordering, subset_risks
from .samples import SAMPLES, load_sample
from .selectors import SELECTORS, Selection, SelectionCancelled, SelectorSpec, prefix_criteria, select
from .stability import kuncheva_consistency, nogueira_stability
from .synthetic import digits_in_noise, uniform_dataset
from .tables import CodedSource, JointTable, TableSource
from .toy import PRESETS, preset

# Loaded on first use: scikit-learn takes about two seconds to import, and the app's first page needs none of it.
_LAZY = {"FeatureSelector": "evaluate", "INDUCERS": "finite", "fbs": "finite", "fos": "finite"}


def __getattr__(name: str):
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
    "UnsupportedTargetError",
    "backward_search", "bayes_value", "check_assumptions", "criterion", "digits_in_noise", "distribution_from_ordering",
    "example1", "fbs", "fos", "from_joint_frame", "greedy_bad_ordering", "joint_frame", "kuncheva_consistency",
    "load_sample", "markov_boundary", "measure", "minimal_optimal", "nogueira_stability", "npfs", "npfs_threshold",
    "one_shot", "prefix_criteria", "preset", "random_valid_ordering", "read_csv", "read_table", "select",
    "strongly_relevant", "subset_risks", "supported_measures", "uniform_dataset", "check_base_selector",
]
