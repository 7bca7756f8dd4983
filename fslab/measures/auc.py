"""Bayes-optimal AUC: ranking by eta (Ahmed et al., Example 8)."""

from __future__ import annotations

import numpy as np

from ..tables import JointTable
from ._folds import binary_eta, scored_auc
from ._ranking import rank_cells
from .base import MeasureSpec


def auc_score(table: JointTable) -> np.ndarray:
    """AUC* = 1 - E[min(alpha(X,X'), alpha(X',X))] / (2 p (1-p)),  alpha(z,z') = eta(z)(1 - eta(z')).

    For a pair of cells z, z' the mass of (positive at z, negative at z') is p(z)p(z')alpha(z,z'); the
    ordering by eta misranks the smaller of alpha(z,z'), alpha(z',z), and for equal eta the two are
    equal and a tie counts 1/2. So the paper's formula is the AUC of scoring by eta with ties
    counted 1/2:  AUC* = sum_{groups g} P_g (N_{<g} + N_g / 2) / (p (1-p)),
    with cells sorted by eta ascending, equal eta (within 1e-12) grouped, P_g/N_g the positive/negative
    mass of group g and N_{<g} the negative mass below it (cumulative sums, vectorised over the batch).
    A table with one class has no pairs to rank: AUC* = 1/2 by convention.
    Tiny table: p = [[.4, .1], [.2, .3]] (eta .2 < .6): (.1 * .2 + .3 * (.4 + .1)) / (.4 * .6) = .7083.
    """
    r = rank_cells(table, descending=False)
    # Cumulative masses at the group ends, all tables flattened together in order.
    rows, _ = np.nonzero(r.last.reshape(-1, r.last.shape[-1]))
    cp, cn = r.cum_pos[r.last], r.cum_neg[r.last]
    first = np.ones(rows.size, dtype=bool)
    first[1:] = rows[1:] != rows[:-1]
    prev_p = np.where(first, 0.0, np.roll(cp, 1))
    prev_n = np.where(first, 0.0, np.roll(cn, 1))
    # group g adds P_g (N_{<g} + N_g / 2) = P_g (cum_neg before g + cum_neg through g) / 2
    n_tables = int(np.prod(table.batch_shape, dtype=np.int64))
    num = np.bincount(rows, weights=(cp - prev_p) * (prev_n + cn), minlength=n_tables) / 2.0
    denom = (r.cum_pos[..., -1] * r.cum_neg[..., -1]).reshape(-1)
    auc = np.divide(num, denom, out=np.full_like(num, 0.5), where=denom > 0)
    return auc.reshape(table.batch_shape) if table.batch_shape else auc[0]


def held_out_auc(train: np.ndarray, test: np.ndarray, labels, **_) -> np.ndarray:
    """Held-out AUC of scoring the test rows by eta_train of their cell (the prior for an unseen cell), ties
    counted 1/2, per fold."""
    eta = binary_eta(train)[0]
    return scored_auc(eta, test)


SPEC = MeasureSpec(
    name="auc",
    label="AUC",
    func=auc_score,
    greater_is_better=True,
    formula=(r"\begin{aligned}C^{\mathrm{Bayes,AUC}}_D(J) &= 1 - \frac{\mathbf{E}\big[\min\big(\alpha_J(X_J,X'_J),"
             r"\,\alpha_J(X'_J,X_J)\big)\big]}{2p(1-p)},\\ \alpha_J(z,z') &= \eta_J(z)\,(1-\eta_J(z'))"
             r"\end{aligned}"),
    reference="Ahmed et al., Example 8",
    held_out=held_out_auc,
)
