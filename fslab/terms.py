"""Each measure in its own terms: an error as a positive number (lower is better), a score as is.

Selectors maximise the criterion C(J) = -error or +score (Ahmed et al., eq. (3)); that sign convention belongs
in the formula only. Everything a user reads (charts, tables, exports) shows the measure's own value, the
Bayes quantity er*(J) or score*(J), with its direction.
"""

from __future__ import annotations

import numpy as np

from .measures import MEASURES
from .measures.base import shown


def lower_is_better(measure: str) -> bool:
    """True for an error (0-1, cost-sensitive, balanced, log-loss, squared), False for a score."""
    return not MEASURES[measure].greater_is_better


def own_terms(criterion, measure: str):
    """The measure's own value from the criterion C: -C for an error, C for a score (arrays or scalars)."""
    values = np.asarray(criterion, dtype=np.float64)
    out = -values if lower_is_better(measure) else values
    return float(out) if out.ndim == 0 else out


def direction(measure: str) -> str:
    """'lower is better' or 'higher is better'."""
    return "lower is better" if lower_is_better(measure) else "higher is better"


def label(measure: str, params: dict | None = None) -> str:
    """The measure's name with its parameters, e.g. 'cost-sensitive error (c=0.25)', 'cost-sensitive error
    (c=0,1,2;1,0,1;4,1,0)' (a cost matrix, row y = the true class)."""
    extra = ", ".join(f"{k}={shown(v)}" for k, v in (params or {}).items())
    return f"{MEASURES[measure].label} ({extra})" if extra else MEASURES[measure].label


def titled(measure: str, params: dict | None = None) -> str:
    """'0-1 error (lower is better)', 'AUC (beta=...) (higher is better)': an axis or column title."""
    return f"{label(measure, params)}, {direction(measure)}"
