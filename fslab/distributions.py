"""Exact joint distributions of discrete features and a class: a TableSource by marginalisation."""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence

import numpy as np

from .encoded import EncodedDataset
from .errors import DataError, ParameterError
from .tables import CodedSource


class Distribution(CodedSource):
    """Exact joint law of (X, Y) on finitely many states.

    ``states`` (C x n ints): the feature vectors with mass; ``probs`` (C x L):
    ``probs[c, l] = Pr(X = states[c], Y = labels[l])``, normalised here to sum to 1; ``labels`` the
    values of Y (default 0..L-1; real values for the squared-error measure). The table of a subset J
    is the marginal of (X_J, Y), computed by summing ``probs`` over states with equal X_J.
    """

    def __init__(self, states, probs, feature_names=None, labels=None, arities=None):
        states = np.asarray(states)
        probs = np.asarray(probs, dtype=np.float64)
        if states.ndim != 2 or probs.ndim != 2 or states.shape[0] != probs.shape[0]:
            raise DataError(
                f"states (C x n) and probs (C x L) need the same number of rows; got {states.shape} and {probs.shape}"
            )
        if not np.all(np.isfinite(probs)) or np.any(probs < 0):
            raise DataError("probabilities must be finite and non-negative")
        total = probs.sum()
        if total <= 0:
            raise DataError("the probabilities sum to 0; give at least one positive entry")
        if labels is None:
            labels = np.arange(probs.shape[1])
        if arities is None:
            arities = states.max(axis=0) + 1 if states.size else np.ones(states.shape[1], dtype=np.int64)
        super().__init__(states, arities, labels, weights=probs / total, feature_names=feature_names)

    @property
    def states(self) -> np.ndarray:
        return self.X

    @property
    def probs(self) -> np.ndarray:
        return self.weights

    @classmethod
    def naive_bayes(cls, prior, conditionals, feature_names=None, labels=None) -> Distribution:
        """Class-conditionally independent features: p(x, y) = p(y) * prod_j p(x_j | y).

        ``prior`` (L,); ``conditionals[j]`` (L x a_j) with row l the law of X_j given Y = labels[l].
        """
        prior = np.asarray(prior, dtype=np.float64)
        conds = [np.asarray(c, dtype=np.float64) for c in conditionals]
        for j, c in enumerate(conds):
            if c.ndim != 2 or c.shape[0] != prior.size:
                raise DataError(f"conditional of feature {j} needs shape (classes, values); got {c.shape}")
            if np.any(c < 0) or not np.allclose(c.sum(axis=1), 1.0):
                raise DataError(f"each row of the conditional of feature {j} must be a probability vector")
        if np.any(prior < 0) or not np.isclose(prior.sum(), 1.0):
            raise DataError("the class prior must be a probability vector")
        arities = [c.shape[1] for c in conds]
        states = np.array(list(itertools.product(*[range(a) for a in arities])), dtype=np.int64)
        probs = np.tile(prior, (len(states), 1))
        for j, c in enumerate(conds):
            probs *= c[:, states[:, j]].T
        return cls(states, probs, feature_names=feature_names, labels=labels, arities=arities)

    def sample(self, m: int, seed=None) -> EncodedDataset:
        """Draw m iid rows (X, Y) from the distribution as an encoded dataset."""
        if int(m) < 1:
            raise ParameterError(f"m must be a positive number of rows; got {m}")
        rng = np.random.default_rng(seed)
        flat = self.probs.ravel()
        draws = rng.choice(flat.size, size=int(m), p=flat / flat.sum())
        rows, ys = np.divmod(draws, self.probs.shape[1])
        return EncodedDataset(self.states[rows], ys, labels=self.labels, feature_names=self.feature_names,
                              arities=self.arities, target="Y")

    def to_json(self) -> str:
        """Serialise to JSON (states, probs, labels, feature names, arities)."""
        return json.dumps({
            "feature_names": list(self.feature_names),
            "labels": self.labels.tolist(),
            "arities": self.arities.tolist(),
            "states": self.states.tolist(),
            "probs": self.probs.tolist(),
        })

    @classmethod
    def from_json(cls, text: str | bytes) -> Distribution:
        """Parse the output of :meth:`to_json`; raises DataError on anything malformed."""
        try:
            data = json.loads(text)
            return cls(np.asarray(data["states"], dtype=np.int64), data["probs"],
                       feature_names=data.get("feature_names"), labels=data.get("labels"),
                       arities=data.get("arities"))
        except (ValueError, KeyError, TypeError) as err:
            if isinstance(err, DataError):
                raise
            raise DataError(f"not a valid fslab distribution JSON: {err}") from None


def example1() -> Distribution:
    """Ahmed et al., Example 1: P(Y=1)=0.3; P(X1=1|Y=1)=0.4, P(X1=1|Y=0)=0.1; P(X2=1|Y=1)=0.9, P(X2=1|Y=0)=0.4.

    MI prefers X2 (0.17 vs 0.08 bit) but X1 has the lower Bayes 0-1 error (0.25 vs 0.30).
    """
    return Distribution.naive_bayes(
        [0.7, 0.3],
        [[[0.9, 0.1], [0.6, 0.4]], [[0.6, 0.4], [0.1, 0.9]]],
        feature_names=["X1", "X2"],
    )
