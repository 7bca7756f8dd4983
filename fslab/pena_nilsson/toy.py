"""Toy distributions: generators (random Dirichlet, XOR interactions, redundant copies) and the papers'
presets, each with one sentence on what it teaches."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
import pandas as pd

from ..data.distributions import Distribution, example1
from ..errors import DataError, ParameterError


def random_dirichlet(n_features: int = 3, arities: int | list[int] = 2, n_classes: int = 2,
                     concentration: float = 1.0, seed=None) -> Distribution:
    """p(x, y) ~ Dirichlet(concentration) over every (state, class) cell: a random positive distribution.

    Small concentrations give peaked, nearly deterministic laws; large ones nearly uniform laws.
    """
    if not 1 <= int(n_features) <= 12:
        raise ParameterError(f"n_features must be between 1 and 12; got {n_features}")
    # np.isscalar does not narrow ``int | list[int]`` for mypy: hence the two ignores
    arities = ([int(arities)] * int(n_features) if np.isscalar(arities)  # type: ignore[arg-type]
               else [int(a) for a in arities])  # type: ignore[union-attr]
    if len(arities) != int(n_features) or min(arities) < 2:
        raise ParameterError(f"need one arity >= 2 per feature; got {arities} for {n_features} features")
    if int(n_classes) < 2:
        raise ParameterError(f"n_classes must be at least 2; got {n_classes}")
    if not concentration > 0:
        raise ParameterError(f"concentration must be positive; got {concentration}")
    rng = np.random.default_rng(seed)
    states = np.array(list(itertools.product(*[range(a) for a in arities])), dtype=np.int64)
    probs = rng.dirichlet(np.full(len(states) * int(n_classes), float(concentration)))
    return Distribution(states, probs.reshape(len(states), int(n_classes)), arities=arities)


def xor_distribution(n_features: int = 3, order: int = 2, noise: float = 0.0) -> Distribution:
    """Uniform binary features; Y = X1 xor ... xor X_order, flipped with probability ``noise``.

    Any fewer than ``order`` features carry no information about Y (each alone has Bayes error 1/2);
    the first ``order`` together have error ``noise``; the rest are pure noise.
    """
    if not 1 <= int(order) <= int(n_features) <= 12:
        raise ParameterError(f"need 1 <= order <= n_features <= 12; got order={order}, n_features={n_features}")
    if not 0 <= noise < 0.5:
        raise ParameterError(f"noise must be in [0, 0.5); got {noise}")
    states = np.array(list(itertools.product((0, 1), repeat=int(n_features))), dtype=np.int64)
    parity = states[:, :int(order)].sum(axis=1) % 2
    px = 1.0 / len(states)
    probs = np.where(np.arange(2)[None, :] == parity[:, None], 1.0 - noise, noise) * px
    return Distribution(states, probs)


def with_copy(dist: Distribution, feature: int, noise: float = 0.0, name: str | None = None) -> Distribution:
    """Append a copy of ``feature``: X' = X_j with probability 1 - noise, else another value uniformly.

    With noise 0 the copy is redundant (it adds nothing once X_j is known) and p(x) > 0 fails.
    """
    if not 0 <= int(feature) < dist.n_features:
        raise ParameterError(f"feature must be in 0 .. {dist.n_features - 1}; got {feature}")
    a = int(dist.arities[feature])
    if not 0 <= noise <= 1:
        raise ParameterError(f"noise must be in [0, 1]; got {noise}")
    channel = np.full((a, a), noise / (a - 1))  # channel[v, w] = P(X' = w | X_j = v)
    np.fill_diagonal(channel, 1.0 - noise)
    reps = np.repeat(np.arange(len(dist.states)), a)
    copies = np.tile(np.arange(a), len(dist.states))
    states = np.column_stack([dist.states[reps], copies])
    probs = dist.probs[reps] * channel[dist.states[reps, feature], copies][:, None]
    keep = probs.sum(axis=1) > 0
    names = list(dist.feature_names) + [name or f"{dist.feature_names[feature]} copy"]
    return Distribution(states[keep], probs[keep], feature_names=names, labels=dist.labels,
                        arities=list(dist.arities) + [a])


# --- presets ----------------------------------------------------------------------------------------

def pena_nilsson_example1() -> Distribution:
    """Pena and Nilsson, Example 1: binary X with p(x) = 1/2 and p(Y=0 | x) = x/3.

    X changes the posterior (0 vs 1/3) but never the Bayes decision (always Y=1): X is strongly
    relevant and the Markov boundary is {X}, yet S* is empty.
    """
    return Distribution([[0], [1]], [[0.0, 0.5], [1 / 6, 1 / 3]], feature_names=["X"])


def s_star_vs_markov_boundary() -> Distribution:
    """Four uniform binary features; eta(x) = e(x1, x2) + 0.05 (2 x3 - 1) with e = .1, .2, .3, .85 on
    (x1, x2) = 00, 01, 10, 11; X4 is independent of Y. X3 moves the posterior but never crosses 1/2,
    so S* = {X1, X2} while the Markov boundary is {X1, X2, X3}. Removing X1 (X2) from {X1, X2} costs
    0.15 (0.10) in Bayes risk: the eta of Pena-Nilsson's Theorem 8 is 0.10."""
    states = np.array(list(itertools.product((0, 1), repeat=4)), dtype=np.int64)
    base = np.array([0.1, 0.2, 0.3, 0.85])[states[:, 0] * 2 + states[:, 1]]
    eta = base + 0.05 * (2 * states[:, 2] - 1)
    return Distribution(states, np.column_stack([1 - eta, eta]) / len(states))


def redundant_copies() -> Distribution:
    """Uniform Y; X1 agrees with Y 80% of the time, X2 65%; X3 is an exact copy of X1."""
    base = Distribution.naive_bayes([0.5, 0.5], [[[0.8, 0.2], [0.2, 0.8]], [[0.65, 0.35], [0.35, 0.65]]],
                                    feature_names=["X1", "X2"])
    return with_copy(base, 0, name="X3 (copy of X1)")


def _greedy_bad() -> Distribution:
    from .orderings import greedy_bad_distribution  # orderings imports distributions: import late
    return greedy_bad_distribution(3)


@dataclass(frozen=True)
class Preset:
    """A named toy distribution with the one thing it teaches."""

    label: str
    factory: Callable[[], Distribution]
    teaches: str
    reference: str


PRESETS: MappingProxyType[str, Preset] = MappingProxyType({
    "bayes-example-1": Preset(
        "Bayes paper, Example 1", example1,
        "Mutual information prefers X2 (0.17 vs 0.08 bit) but X1 has the lower Bayes 0-1 error "
        "(0.25 vs 0.30): the criterion decides which feature is 'best'.",
        "Ahmed et al., Example 1"),
    "pena-nilsson-example-1": Preset(
        "Pena-Nilsson, Example 1", pena_nilsson_example1,
        "X is strongly relevant (it moves p(Y|x)) yet the minimal-optimal subset S* is empty, "
        "because the Bayes classifier predicts Y=1 whatever x is.",
        "Pena and Nilsson, Section 4, Example 1"),
    "xor": Preset(
        "XOR of two features (plus a noise feature)", lambda: xor_distribution(3, 2, 0.0),
        "Each single feature is useless (Bayes error 1/2) while the pair X1, X2 is perfect: greedy "
        "search starts blind, and any one-feature ranking misses the pair.",
        "Classic interaction example"),
    "redundant-copies": Preset(
        "Redundant copy", redundant_copies,
        "X3 is an exact copy of X1: a ranking of single features puts the copy near the top although "
        "it adds nothing once X1 is chosen; greedy criteria conditioned on X1 skip it. An exact copy also "
        "breaks p(x) > 0, and then BS and OS disagree.",
        "Redundancy, cf. mRMR in Ahmed et al., Section 6"),
    "s-star-vs-markov": Preset(
        "S* vs Markov boundary", s_star_vs_markov_boundary,
        "X3 shifts the posterior without ever changing the Bayes decision: the Markov boundary is "
        "{X1, X2, X3} but S* = {X1, X2}; X4 is irrelevant.",
        "Pena and Nilsson, Theorem 6 and Example 1"),
    "greedy-bad": Preset(
        "Greedy made bad (Theorem 1)", _greedy_bad,
        "Built by the proof of Theorem 1 from an ordering where the best single feature belongs to "
        "the worst pairs: greedy forward search ends far from the best pair.",
        "Pena and Nilsson, Theorem 1"),
})


def preset(name: str) -> Distribution:
    """The distribution of preset ``name`` (a key of ``PRESETS``)."""
    try:
        return PRESETS[name].factory()
    except KeyError:
        raise ParameterError(f"unknown preset '{name}'; choose one of: {', '.join(PRESETS)}") from None


# --- class-conditionally independent features as one editable long table -------------------------

COND_PREFIX = "P(x|Y="


def naive_bayes_frame(prior, conditionals, feature_names=None, labels=None) -> pd.DataFrame:
    """Long table for the app's editor: one row per (feature, value) and one column ``P(x|Y=label)``
    per class holding p(X_j = value | Y = label); see :meth:`Distribution.naive_bayes`."""
    labels = list(range(len(prior))) if labels is None else list(labels)
    names = feature_names or [f"X{j + 1}" for j in range(len(conditionals))]
    rows = []
    for name, cond in zip(names, conditionals, strict=True):
        cond = np.asarray(cond, dtype=np.float64)
        for v in range(cond.shape[1]):
            rows.append({"feature": name, "value": v,
                         **{f"{COND_PREFIX}{lab})": cond[l, v] for l, lab in enumerate(labels)}})
    return pd.DataFrame(rows)


def naive_bayes_from_frame(prior, frame: pd.DataFrame) -> Distribution:
    """Inverse of :func:`naive_bayes_frame`: p(x, y) = p(y) prod_j p(x_j | y) (Ahmed et al., Example 1)."""
    cols = [str(c) for c in frame.columns]
    cond_cols = [c for c in cols if c.startswith(COND_PREFIX) and c.endswith(")")]
    if {"feature", "value"} - set(cols) or len(cond_cols) != len(prior):
        raise DataError(f"the table needs columns feature, value and one '{COND_PREFIX}label)' per class "
                        f"({len(prior)} classes); got {cols}")
    frame = frame.set_axis(cols, axis=1).dropna(how="all")
    if frame[["feature", "value"] + cond_cols].isna().any().any():
        raise DataError("the conditional table has an empty cell; fill it in")
    names, conditionals = [], []
    for name, group in frame.groupby("feature", sort=False):
        values = sorted(int(v) for v in group["value"])
        if values != list(range(len(values))) or len(values) < 2:
            raise DataError(f"feature {name} needs the values 0, 1, ..., a-1 (at least two) once each; got {values}")
        cond = group.sort_values("value")[cond_cols].to_numpy(dtype=np.float64).T
        if np.any(cond < 0):
            raise DataError(f"feature {name} has a negative probability")
        sums = cond.sum(axis=1)
        bad = np.flatnonzero(np.abs(sums - 1) > 1e-6)
        if bad.size:
            raise DataError(f"for feature {name}, {cond_cols[bad[0]]} sums to {sums[bad[0]]:.4g} over its values, "
                            "not 1")
        names.append(str(name))
        conditionals.append(cond)
    if not names:
        raise DataError("the conditional table is empty; add at least one feature")
    labels = [_label(c[len(COND_PREFIX):-1]) for c in cond_cols]
    return Distribution.naive_bayes(prior, conditionals, feature_names=names, labels=labels)


def _label(text: str):
    try:
        return int(text)
    except ValueError:
        return text


# --- which kind of law is loaded (the Toy page's header says it) ----------------------------------

def is_class_conditionally_independent(dist: Distribution, tol: float = 1e-9) -> bool:
    """Whether p(x, y) = p(y) prod_j p(x_j | y) holds for every state x and class y (the naive-Bayes form):
    the product of the law's own marginals p(x_j | y) is compared with p(x, y) on the listed states, and must
    put no mass outside them. Example 1 of Ahmed et al. is; XOR and Theorem 1's constructions are not."""
    states, probs = np.asarray(dist.states), np.asarray(dist.probs, dtype=float)
    py = probs.sum(axis=0)
    product = np.broadcast_to(py, probs.shape).copy()
    for j in range(states.shape[1]):   # one pass per feature (a handful): the table's columns, not its rows
        values, at = np.unique(states[:, j], return_inverse=True)
        joint = np.zeros((values.size, probs.shape[1]))
        np.add.at(joint, at, probs)
        product *= np.divide(joint, py, out=np.zeros_like(joint), where=py > 0)[at]
    grid = float(np.prod([np.unique(states[:, j]).size for j in range(states.shape[1])]))
    covers = len(np.unique(states, axis=0)) == grid or abs(product.sum() - 1) <= tol
    return bool(covers and np.allclose(product, probs, atol=tol, rtol=0))


def law_formula(dist: Distribution) -> tuple[str, str]:
    """(plain words, LaTeX) describing the loaded law for the Toy page's header."""
    if is_class_conditionally_independent(dist):
        return ("The features are class-conditionally independent: given the class, each feature is drawn on its own.",
                r"p(x, y) = p(y)\prod_j p(x_j \mid y)")
    return ("The features are not class-conditionally independent: p(x, y) is a full joint table (features can "
            "interact, as in XOR, or copy each other).",
            r"p(x, y) \;\ge 0,\qquad \sum_{x, y} p(x, y) = 1")
