"""Feature-pair tables n(X_j = u, X_f = v) for mRMR's redundancy terms.

The fast engine counts them from its value indicators on samples; any other source with row codes is
counted by the source's own ``extension_tables`` with X_f in the place of the class (each row's mass split
by X_f for an exact distribution), so there is no second copy of the counting code.
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from ..tables import CodedSource


def feature_pair_counts(ev, f: int, candidates: np.ndarray) -> np.ndarray:
    """Counts n(X_j = u, X_f = v) for every candidate j: shape (B, max arity of candidates, a_f)."""
    if ev.counter is not None:  # the fast engine of a table evaluator on a sample
        return ev.counter.pair_counts(f, candidates)
    source = ev.source
    if not isinstance(source, CodedSource):
        raise ParameterError(f"mRMR's feature-pair tables need row codes (a sample or a Distribution); a "
                             f"{type(source).__name__} gives only tables of (X_J, Y): use JMI or CMIM")
    a_f = int(source.arities[f])
    values = np.arange(a_f)
    if source.is_sample:
        by_f = CodedSource(source.X, source.arities, values, y=source.X[:, f])
    else:
        mass = source.weights.sum(axis=1)
        by_f = CodedSource(source.X, source.arities, values,
                           weights=(source.X[:, f][:, None] == values) * mass[:, None])
    return by_f.extension_tables([], candidates).counts
