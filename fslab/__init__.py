"""fslab: feature-selection criteria, Bayes-optimal filters, NPFS and Bayes-risk orderings.

Plain Python (numpy, scipy, pandas, scikit-learn, plotly); never imports Streamlit.
"""

from .criteria import bayes_value, criterion
from .distributions import Distribution
from .encoded import EncodedDataset
from .errors import DataError, FslabError, ParameterError, TooLargeError, UnsupportedTargetError
from .measures import MEASURES, Measure, measure
from .tables import CodedSource, JointTable, TableSource

__all__ = [
    "MEASURES", "CodedSource", "DataError", "Distribution", "EncodedDataset", "FslabError", "JointTable",
    "Measure", "ParameterError", "TableSource", "TooLargeError", "UnsupportedTargetError",
    "bayes_value", "criterion", "measure",
]
