"""The cost-sensitive error's K x K cost matrix on a target with more than two classes (issue 33.5).

The binary cost c (a slider) becomes a grid C[y, k]: the cost of predicting class k when the truth is y, with the
target's classes as row and column names (``fslab.measures.cost_sensitive``: the Bayes rule predicts
argmin_k sum_y C[y, k] p(y | x)). It starts at 0 on the diagonal and 1 off it, the 0-1 error.

State: ``<key>`` holds the matrix as a list of rows (what :func:`ui.share.current_choices` puts in a link or a
recipe, and what a link puts back); ``<key>.grid`` is the data editor's own state (its edits over that matrix).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import streamlit as st

from fslab.data.discretize import value_name
from fslab.errors import FslabError
from fslab.measures import MEASURES, supported_measures
from fslab.recipe import MATRIX_PARAMS

GRID = ".grid"   # the editor's key: "<key>.grid"
MEASURE = "cost-sensitive"


def default_matrix(K: int) -> list[list[float]]:
    """0 on the diagonal (a right answer costs nothing) and 1 off it: every mistake costs the same (the 0-1 error)."""
    return (1.0 - np.eye(K)).tolist()


def class_label(value) -> str:
    """A class as the grid names it: a number as it reads (the integer classes of a target stored as floats, 1.0, are
    "1"; 2.5 stays "2.5"), anything else as its text."""
    if isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool | np.bool_):
        return value_name(float(value))
    return str(value)


def takes_matrix(name: str, classes: Sequence | None) -> bool:
    """True when the parameter ``name`` is asked as a matrix: a matrix parameter (c) on more than two classes."""
    return name in MATRIX_PARAMS and classes is not None and len(classes) > 2


def offered_measures(source) -> list[str]:
    """The measures a page that asks for a cost matrix offers: :func:`fslab.measures.supported_measures`, plus the
    cost-sensitive error on a target with more than two classes (its c is then the grid's matrix), registry order."""
    fitting = set(supported_measures(source))
    many = getattr(source, "task", None) != "regression" and len(np.asarray(source.labels)) > 2
    return [name for name in MEASURES if name in fitting or (many and name == MEASURE)]


def check_matrix(values, K: int) -> tuple[list[list[float]] | None, str | None]:
    """(the K x K matrix as floats, None), or (None, what is wrong in words): every cell a finite number >= 0."""
    frame = pd.DataFrame(values)
    C = frame.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64)
    if C.shape != (K, K):
        return None, f"The cost matrix must be {K} x {K} (one row and one column per class); it is " \
                     f"{C.shape[0]} x {C.shape[1] if C.ndim == 2 else 0}."
    bad = np.argwhere(~np.isfinite(C) | (C < 0))
    if bad.size:
        rows, cols = frame.index, frame.columns
        cells = ", ".join(f"true {rows[y]} / predicted {cols[k]}" for y, k in bad[:5])
        return None, f"Every cost must be a number of at least 0; fix {cells}."
    matrix = C.tolist()
    try:
        MEASURES[MEASURE].check({"c": matrix})   # the library's own rule, so the run cannot refuse it
    except FslabError as err:
        return None, str(err)
    return matrix, None


def cost_matrix_input(container, classes: Sequence, key: str) -> tuple[tuple[float, ...], ...]:
    """An editable K x K grid of costs (rows: the true class y; columns: the prediction k), under ``key``; returns
    the matrix as a tuple of rows (hashable: it enters the pages' result keys). Stops the page with a message when a
    cell is not a cost; says when a right answer costs something (allowed) or every cost is 0."""
    labels = [class_label(c) for c in classes]
    K = len(labels)
    stored = st.session_state.get(key)
    if not (isinstance(stored, list) and len(stored) == K and all(isinstance(r, list | tuple) and len(r) == K
                                                                  for r in stored)):
        if isinstance(stored, list | tuple) and stored:
            container.info(f"The cost matrix given is {len(stored)} x {len(stored)}, but this target has {K} classes: "
                           "starting again from 0 on the diagonal and 1 elsewhere.")
        stored = default_matrix(K)
        st.session_state.pop(key + GRID, None)   # edits made on another matrix do not apply to this one
    frame = pd.DataFrame(stored, index=pd.Index(labels, name="true class"), columns=labels, dtype=np.float64)
    config = {c: st.column_config.NumberColumn(c, min_value=0.0, format="%g", required=True,
                                                help=f"the cost of predicting {c}") for c in labels}
    container.markdown("**Cost matrix** C[y, k]: the cost of predicting the column's class when the row's is true")
    edited = container.data_editor(frame, key=key + GRID, num_rows="fixed", column_config=config)
    matrix, problem = check_matrix(edited, K)
    if matrix is None:
        container.error(f"{problem} The cost-sensitive error is computed once every cell holds a cost.")
        st.stop()
    st.session_state[key] = matrix
    C = np.asarray(matrix)
    notes = ["The Bayes rule predicts the class with the smallest expected cost, argmin_k sum_y C[y, k] p(y | x); "
             "0 on the diagonal and 1 elsewhere is the 0-1 error."]
    if not C.any():
        notes.append("Every cost is 0: every subset of features costs 0, so no feature can be preferred.")
    elif np.diag(C).any():
        costly = [labels[i] for i in np.flatnonzero(np.diag(C))]
        notes.append(f"A right answer costs something for {', '.join(costly)} (the diagonal): allowed, though costs "
                     "usually put 0 there.")
    container.caption(" ".join(notes))
    return tuple(tuple(row) for row in matrix)


__all__ = ["GRID", "check_matrix", "class_label", "cost_matrix_input", "default_matrix", "offered_measures",
           "takes_matrix"]
