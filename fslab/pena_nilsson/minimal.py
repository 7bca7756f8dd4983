"""The minimal-optimal subset S* on a known distribution (Pena and Nilsson, Section 4).

S* is the smallest subset with the Bayes risk of all features. Under the assumptions p(x) > 0 and a
unique most probable class for every x, S* is unique (Theorem 4), backward search finds it (BS,
Table 1, Theorem 5) and so does the one-shot test X_i ∈ S* iff R(¬X_i) != R(X) (OS, Table 2,
Theorem 6). Beside it: the strongly relevant features (p(Y|¬X_i) != p(Y|X), Kohavi and John) and
the Markov boundary (the minimal M with p(Y|M) = p(Y|X)), which can be larger (Example 1).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..measures import measure
from ..tables import as_source
from .orderings import check_enumerable, subset_label, subset_risks

TOL = 1e-10  # risks equal within this (exact risks are sums of a few floats)


@dataclass(frozen=True)
class Assumptions:
    """Pena-Nilsson's assumptions: p(x) > 0 for every state and p(Y|x) with a single maximum."""

    n_states: int
    n_zero_states: int
    n_tied_states: int

    @property
    def positive(self) -> bool:
        return self.n_zero_states == 0

    @property
    def unique_max(self) -> bool:
        return self.n_tied_states == 0

    @property
    def hold(self) -> bool:
        return self.positive and self.unique_max

    def messages(self) -> list[str]:
        """Plain sentences on what holds and what fails."""
        out = [f"p(x) > 0 for all {self.n_states} states" if self.positive else
               f"p(x) = 0 for {self.n_zero_states} of {self.n_states} states: positivity fails, "
               "so S* may not be unique and BS/OS are not guaranteed"]
        out.append("p(Y|x) has a single maximum in every state" if self.unique_max else
                   f"{self.n_tied_states} states have a tie for the most probable class: "
                   "the Bayes classifier is not unique there")
        return out


def check_assumptions(source, tol: float = 1e-12) -> Assumptions:
    """Count states with p(x) = 0 (over the full product of the arities) and states with tied top classes."""
    source = as_source(source)
    p = source.table(range(source.n_features)).probabilities()
    n_states = math.prod(int(a) for a in source.arities)  # exact: a float product overflows on wide data
    px = p.sum(axis=1)
    occupied = p[px > 0]
    if occupied.shape[1] < 2:  # one class: nothing can tie
        return Assumptions(n_states, n_states - int(np.sum(px > 0)), 0)
    top2 = np.sort(occupied, axis=1)[:, -2:]
    tied = int(np.sum(top2[:, 1] - top2[:, 0] <= tol * np.maximum(top2[:, 1], 1e-300)))
    return Assumptions(n_states, n_states - int(np.sum(px > 0)), tied)


@dataclass(frozen=True)
class MinimalResult:
    """Output of BS or OS: the selected subset and every check ``R(T) = R(S)?`` made on the way."""

    method: str
    selected: tuple[int, ...]
    names: str
    steps: pd.DataFrame
    assumptions: Assumptions
    eta: float = field(default=float("nan"))  # smallest positive risk increase seen (Theorem 8's eta)


def _eta(steps: pd.DataFrame) -> float:
    inc = (steps["risk_without"] - steps["risk_with"]).to_numpy()
    inc = inc[inc > TOL]
    return float(inc.min()) if inc.size else 1.0  # Theorem 8 sets eta = 1 when every increase is 0


STEP_COLUMNS = ["check", "S", "feature", "risk_with", "risk_without", "removed"]


def backward_checks(names, risk: Callable[[list[int]], float],
                    removable: Callable[[float, float], bool]) -> tuple[tuple[int, ...], pd.DataFrame]:
    """BS (Table 1) for any risk: start from all features; remove the lowest-index X_i whose removal is
    ``removable(R(S), R(S \\ X_i))``, then restart from i = 1; stop when no feature can be removed.
    Shared by the exact search (R the Bayes risk, equality within a tolerance) and FBS (estimated risks,
    R(S \\ X_i) <= R(S) + tau). Returns the kept features and one row per check."""
    n = len(names)
    s, i = list(range(n)), 0
    rows: list[dict] = []
    while i < n:
        if i in s:
            with_i, without = risk(s), risk([j for j in s if j != i])
            removed = bool(removable(with_i, without))
            rows.append({"check": len(rows) + 1, "S": subset_label(s, names), "feature": names[i],
                         "risk_with": with_i, "risk_without": without, "removed": removed})
            if removed:
                s.remove(i)
                i = 0
                continue
        i += 1
    return tuple(s), pd.DataFrame(rows, columns=STEP_COLUMNS)


def one_shot_checks(names, risk: Callable[[list[int]], float],
                    removable: Callable[[float, float], bool]) -> tuple[tuple[int, ...], pd.DataFrame]:
    """OS (Table 2) for any risk: X_i is kept unless ``removable(R(X), R(¬X_i))``; n + 1 risk evaluations."""
    n = len(names)
    full = risk(list(range(n)))
    rows = []
    for i in range(n):
        without = risk([j for j in range(n) if j != i])
        rows.append({"check": i + 1, "S": subset_label(range(n), names), "feature": names[i],
                     "risk_with": full, "risk_without": without, "removed": bool(removable(full, without))})
    kept = tuple(i for i, r in enumerate(rows) if not r["removed"])
    return kept, pd.DataFrame(rows, columns=STEP_COLUMNS)


def backward_search(source, tol: float = TOL) -> MinimalResult:
    """BS (Table 1) on the exact Bayes 0-1 risk: remove X_i when R(S \\ X_i) = R(S) (within ``tol``).
    Returns S* under the assumptions (Theorem 5)."""
    source = as_source(source)
    ev = measure("zero-one").on(source)
    kept, steps = backward_checks(source.feature_names, ev.value, lambda w, wo: abs(wo - w) <= tol)
    return MinimalResult("BS", kept, subset_label(kept, source.feature_names), steps, check_assumptions(source),
                         _eta(steps))


def one_shot(source, tol: float = TOL) -> MinimalResult:
    """OS (Table 2): X_i ∈ S* iff R(¬X_i) != R(X) (Theorem 6); n risk evaluations, no search."""
    source = as_source(source)
    ev = measure("zero-one").on(source)
    kept, steps = one_shot_checks(source.feature_names, ev.value, lambda w, wo: abs(wo - w) <= tol)
    return MinimalResult("OS", kept, subset_label(kept, source.feature_names), steps, check_assumptions(source),
                         _eta(steps))


def minimal_optimal(source, tol: float = TOL) -> tuple[int, ...]:
    """S* by exhaustive search: the smallest subset (lexicographically first) with R(S) = R(X)."""
    risks = subset_risks(source, "zero-one")
    best = risks["value"].iloc[-1]  # the last row is the full set
    hits = risks[risks["value"] <= best + tol]
    return tuple(hits.sort_values(["size"], kind="stable")["subset"].iloc[0])


def _posterior_gap(source, subset, full_post: np.ndarray, occupied: np.ndarray) -> float:
    """max over occupied rows of |p(Y | x_subset) - p(Y | x)|."""
    codes, _ = source.cell_codes(sorted(subset))
    p = source.table(sorted(subset)).probabilities()
    post = p / np.maximum(p.sum(axis=1, keepdims=True), 1e-300)
    return float(np.abs(post[codes] - full_post)[occupied].max(initial=0.0))


def _full_posterior(source):
    codes, _ = source.cell_codes(range(source.n_features))
    p = source.table(range(source.n_features)).probabilities()
    px = p.sum(axis=1)
    post = p / np.maximum(px, 1e-300)[:, None]
    return post[codes], px[codes] > 0


def strongly_relevant(source, tol: float = 1e-9) -> tuple[int, ...]:
    """Features with p(Y | ¬X_i) != p(Y | X) on some state with p(x) > 0 (Kohavi and John, Def. 5)."""
    source = as_source(source)
    full_post, occupied = _full_posterior(source)
    n = source.n_features
    return tuple(i for i in range(n)
                 if _posterior_gap(source, [j for j in range(n) if j != i], full_post, occupied) > tol)


def markov_boundary(source, tol: float = 1e-9, max_features: int | None = None) -> tuple[int, ...]:
    """The smallest subset M (lexicographically first) with p(Y | M) = p(Y | X) wherever p(x) > 0
    (Pearl). With p(x) > 0 it equals the strongly relevant features (Pena and Nilsson, Section 4)."""
    source = as_source(source)
    check_enumerable(source.n_features, max_features)
    full_post, occupied = _full_posterior(source)
    for k in range(source.n_features + 1):
        for subset in itertools.combinations(range(source.n_features), k):
            if _posterior_gap(source, subset, full_post, occupied) <= tol:
                return subset
    return tuple(range(source.n_features))  # not reached: the full set always qualifies
