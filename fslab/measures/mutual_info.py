"""Mutual information criterion I(X_J; Y) in bits (Ahmed et al., equation (2))."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy.special import xlogy

from ..information import mutual_information
from ..tables import JointTable
from ._folds import held_out_cross_entropy
from .base import MeasureSpec, MixedCellReducer
from .log_loss import HELD_OUT_CELLS, mixed_cell_entropy


def mi_score(table: JointTable) -> np.ndarray:
    """C^MI(J) = I(X_J; Y) = sum_{x,y} p(x,y) log2(p(x,y) / (p(x) p(y))), in bits.

    Example 1: 0.0819 bit for X1 and 0.1724 bit for X2 (printed 0.08 and 0.17). Any number of classes.
    Tiny table: p = [[.4, .1], [.2, .3]] -> H(Y) - H(Y|X) = 0.970951 - 0.846439 = 0.124511 bit.
    """
    return mutual_information(table, unit="bits")


def _mi_from_entropy_sums(sums: np.ndarray, m: int, class_counts: np.ndarray, params) -> np.ndarray:
    """I(X; Y) = H(Y) - H(Y | X) in bits, with m H(Y | X) = ``sums`` (nats)."""
    h_y = (xlogy(m, m) - xlogy(class_counts, class_counts).sum()) / m
    return np.maximum(h_y - sums / m, 0.0) / np.log(2.0)


def held_out_mi(train: np.ndarray, test: np.ndarray, labels, **_) -> np.ndarray:
    """Held-out information in bits: the test rows' cross-entropy under the training prior minus under the
    smoothed cell rule of :func:`fslab.measures.log_loss.held_out_log_loss`, / ln 2, per fold. Negative when
    the features predict held-out rows worse than the prior alone (an ID column, a many-level code)."""
    rule, prior = held_out_cross_entropy(train, test)
    return (prior - rule) / np.log(2.0)


SPEC = MeasureSpec(
    name="mi",
    label="mutual information",
    func=mi_score,
    greater_is_better=True,
    binary_only=False,
    formula=r"C^{\mathrm{MI}}_D(J) = I(X_J;Y) = \sum_{x,y} p(x,y)\log_2\frac{p(x,y)}{p(x)\,p(y)}\ \text{(bits)}",
    reference="Ahmed et al., equation (2) and Example 1",
    mixed_cells=MixedCellReducer(mixed_cell_entropy, _mi_from_entropy_sums),
    held_out=held_out_mi,
    held_out_cells=replace(HELD_OUT_CELLS, finish=lambda rule, prior: (prior - rule) / np.log(2.0)),
)
