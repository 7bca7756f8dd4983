"""Exact joint distributions of discrete features and a class: a TableSource by marginalisation.

Also the conversion to and from a "full joint table" DataFrame (one row per state) that the app
edits with ``st.data_editor``. Generators and the papers' presets (``PRESETS``) live in
:mod:`fslab.toy` and are importable from here too.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter

import numpy as np
import pandas as pd

from ..errors import DataError, ParameterError, TooLargeError
from ..limits import Limits, limits_or_server, over_limit
from ..tables import CodedSource
from . import safe_json
from .data_checks import check_size
from .encoded import EncodedDataset


class Distribution(CodedSource):
    """Exact joint law of (X, Y) on finitely many states.

    ``states`` (C x n ints): the feature vectors with mass; ``probs`` (C x L):
    ``probs[c, l] = Pr(X = states[c], Y = labels[l])``, normalised here to sum to 1; ``labels`` the
    values of Y (default 0..L-1; real values for the squared-error measure). The table of a subset J
    is the marginal of (X_J, Y), computed by summing ``probs`` over states with equal X_J. A frozen record
    (:class:`~fslab.tables.CodedSource`): derive a changed law with ``replace(probs=..., ...)``.
    """

    weights: np.ndarray  # a law: always the probabilities (``probs``)

    def __init__(self, states, probs, feature_names=None, labels=None, arities=None):
        states = np.asarray(states)
        probs = np.asarray(probs, dtype=np.float64)
        if states.ndim != 2 or probs.ndim != 2 or states.shape[0] != probs.shape[0]:
            raise DataError(
                f"states (C x n) and probs (C x L) need the same number of rows; got {states.shape} and {probs.shape}"
            )
        if not np.all(np.isfinite(probs)):
            raise DataError("probabilities must be finite numbers; found a missing or infinite entry")
        if np.any(probs < 0):
            r, c = np.argwhere(probs < 0)[0]
            raise DataError(f"probabilities must be non-negative; state {states[r].tolist()}, class {c} "
                            f"has {probs[r, c]:g}")
        total = probs.sum()
        if total <= 0:
            raise DataError("the probabilities sum to 0; give at least one positive entry")
        if labels is None:
            labels = np.arange(probs.shape[1])
        if arities is None:
            arities = states.max(axis=0) + 1 if states.size else np.ones(states.shape[1], dtype=np.int64)
        normalised = abs(total - 1.0) <= 1e-12  # so replace() rebuilds the same record (no second rounding)
        super().__init__(states, arities, labels, weights=probs if normalised else probs / total,
                         feature_names=feature_names)

    def _fields(self) -> dict:
        return {"states": self.states, "probs": self.probs, "feature_names": self.feature_names, "labels": self.labels,
                "arities": self.arities}

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
                sums = ", ".join(f"{v:.4g}" for v in c.sum(axis=1))
                raise DataError(f"each row of the conditional of feature {j} must be non-negative and sum to 1; "
                                f"the row sums are {sums}")
        if np.any(prior < 0) or not np.isclose(prior.sum(), 1.0):
            raise DataError(f"the class prior must be non-negative and sum to 1; it sums to {prior.sum():.4g}")
        arities = [c.shape[1] for c in conds]
        states = np.array(list(itertools.product(*[range(a) for a in arities])), dtype=np.int64)
        probs = np.tile(prior, (len(states), 1))
        for j, c in enumerate(conds):
            probs *= c[:, states[:, j]].T
        return cls(states, probs, feature_names=feature_names, labels=labels, arities=arities)

    def sample(self, m: int, seed=None, limits: Limits | None = None) -> EncodedDataset:
        """Draw m iid rows (X, Y) from the distribution as an encoded dataset (a table within ``limits``; None:
        the server's, :func:`fslab.limits.server_limits`)."""
        if int(m) < 1:
            raise ParameterError(f"m must be a positive number of rows; got {m}")
        check_size(int(m), self.n_features + 1, limits_or_server(limits))
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
    def from_json(cls, text: str | bytes, limits: Limits | None = None) -> Distribution:
        """Parse the output of :meth:`to_json` within ``limits`` (JSON size and depth through
        :func:`fslab.safe_json.loads`, at most ``max_states`` states; None: the server's); raises DataError on
        anything else."""
        limits = limits_or_server(limits)
        data = safe_json.loads(text, "distribution JSON", limits)
        if not isinstance(data, dict) or "states" not in data or "probs" not in data:
            raise DataError("not a valid fslab distribution JSON: it needs an object with 'states' and 'probs' "
                            "(export one from the Toy page to see the format)")
        states, probs = data["states"], data["probs"]
        if not isinstance(states, list) or not isinstance(probs, list):
            raise DataError("not a valid fslab distribution JSON: 'states' and 'probs' must be lists of rows")
        if len(states) > limits.max_states:
            raise TooLargeError(over_limit("max_states", f"the distribution has {len(states):,} states", limits))
        names, labels, arities = data.get("feature_names"), data.get("labels"), data.get("arities")
        for key, value in (("feature_names", names), ("labels", labels), ("arities", arities)):
            if value is not None and not isinstance(value, list):
                raise DataError(f"not a valid fslab distribution JSON: '{key}' must be a list")
        if names is not None:
            names = [str(n) for n in names]
            if len(set(names)) != len(names):
                raise DataError("not a valid fslab distribution JSON: 'feature_names' must be unique; "
                                f"repeated: {sorted(n for n, c in Counter(names).items() if c > 1)[:5]}")
        if arities is not None and not all(isinstance(a, int) and 0 < a <= limits.max_states for a in arities):
            raise DataError(f"not a valid fslab distribution JSON: 'arities' must be whole numbers from 1 to "
                            f"{limits.max_states:,}")
        try:
            codes = state_codes(states, limits.max_states)
            check_probabilities(probs, codes)
            return cls(codes, probs, feature_names=names, labels=labels, arities=arities)
        except (ValueError, KeyError, TypeError, OverflowError) as err:
            if isinstance(err, DataError):
                raise
            raise DataError(f"not a valid fslab distribution JSON: {err}") from None


JSON_TOLERANCE = 1e-6   # |sum of probabilities - 1| accepted in a JSON distribution (then normalised exactly)


def _bad_value(value) -> bool:
    return isinstance(value, bool) or not isinstance(value, int | float) or not float(value).is_integer() \
        or value < 0


_INVALID = "not a valid fslab distribution JSON: "


def state_codes(states: list, max_code: int) -> np.ndarray:
    """The JSON ``states`` as an int array (C x n); refuse a row that is not a list of whole numbers
    0 .. max_code - 1 or that repeats another row, naming it (numpy would silently truncate 0.5 to 0)."""
    width = None
    for r, row in enumerate(states):
        if not isinstance(row, list):
            raise DataError(f"{_INVALID}state row {r + 1} is {json.dumps(row)[:40]}, not a list of feature values")
        if width is None:
            width = len(row)
        if len(row) != width:
            raise DataError(f"{_INVALID}state row {r + 1} has {len(row)} feature values; the first row has {width}")
        bad = [v for v in row if _bad_value(v)]
        if bad:
            raise DataError(f"{_INVALID}state row {r + 1} has the value {json.dumps(bad[0])[:40]}; feature values "
                            "must be whole numbers 0, 1, 2, ... (codes of the feature's values)")
        big = [v for v in row if v >= max_code]
        if big:
            raise DataError(f"{_INVALID}feature values must be codes 0, 1, 2, ... below {max_code:,}; state row "
                            f"{r + 1} has {big[0]:,}")
    codes = np.asarray(states, dtype=np.float64).astype(np.int64) if states else np.zeros((0, 0), dtype=np.int64)
    if codes.ndim == 2 and codes.shape[0] > 1 and codes.shape[1] > 0:   # (no features: the caller says so)
        _, first, counts = np.unique(codes, axis=0, return_index=True, return_counts=True)
        if (counts > 1).any():
            dup = codes[first[np.flatnonzero(counts > 1)[0]]]
            rows = np.flatnonzero((codes == dup).all(axis=1)) + 1
            raise DataError(f"{_INVALID}state rows {', '.join(map(str, rows[:5]))} repeat the same feature values "
                            f"{dup.tolist()}; list each state once (put all its mass in one row)")
    return codes


def check_probabilities(probs: list, codes: np.ndarray) -> None:
    """Refuse JSON probabilities that are not one row of numbers per state or that do not sum to 1 within
    :data:`JSON_TOLERANCE` (a file edited by hand should say what it means; it is never rescaled silently)."""
    for r, row in enumerate(probs):
        if not isinstance(row, list) or any(isinstance(v, bool) or not isinstance(v, int | float) for v in row):
            raise DataError(f"{_INVALID}probability row {r + 1} must be a list of numbers (one per class); got "
                            f"{json.dumps(row)[:40]}")
        if any(v < 0 for v in row):
            raise DataError(f"{_INVALID}probabilities must be non-negative; probability row {r + 1} has "
                            f"{min(row):g}")
    if len(probs) != codes.shape[0]:
        raise DataError(f"{_INVALID}'probs' has {len(probs)} rows but 'states' has {codes.shape[0]}; give one row "
                        "per state")
    with np.errstate(over="ignore", invalid="ignore"):
        total = float(np.sum(np.asarray(probs, dtype=np.float64))) if probs else 0.0
    if np.isfinite(total) and total > 0 and abs(total - 1.0) > JSON_TOLERANCE:
        raise DataError(f"the probabilities sum to {total:.6g}, not 1 (tolerance {JSON_TOLERANCE:g}); fix them so "
                        "that they sum to 1 (fslab does not rescale a distribution file silently)")


def example1() -> Distribution:
    """Ahmed et al., Example 1: P(Y=1)=0.3; P(X1=1|Y=1)=0.4, P(X1=1|Y=0)=0.1; P(X2=1|Y=1)=0.9, P(X2=1|Y=0)=0.4.

    MI prefers X2 (0.17 vs 0.08 bit) but X1 has the lower Bayes 0-1 error (0.25 vs 0.30).
    """
    return Distribution.naive_bayes(
        [0.7, 0.3],
        [[[0.9, 0.1], [0.6, 0.4]], [[0.6, 0.4], [0.1, 0.9]]],
        feature_names=["X1", "X2"],
    )


# --- the full joint table as a DataFrame (what the app's data_editor shows) -----------------------

PROB_PREFIX = "P(Y="


def joint_frame(dist: Distribution) -> pd.DataFrame:
    """One row per state of the product space (zero-mass states too, so they can be edited): the
    feature columns, then one column ``P(Y=label)`` per class holding p(x, y)."""
    grid = np.array(list(itertools.product(*[range(int(a)) for a in dist.arities])), dtype=np.int64)
    full = np.zeros((len(grid), dist.probs.shape[1]))
    np.add.at(full, np.ravel_multi_index(tuple(dist.states.T), dist.arities), dist.probs)
    frame = pd.DataFrame(grid, columns=list(dist.feature_names))
    for l, label in enumerate(dist.labels.tolist()):
        frame[f"{PROB_PREFIX}{label})"] = full[:, l]
    return frame


def _parse_label(text: str):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def from_joint_frame(frame: pd.DataFrame, normalise: bool = False, tol: float = 1e-6) -> Distribution:
    """Inverse of :func:`joint_frame`. Columns named ``P(Y=...)`` are class probabilities, the others
    features (integer codes >= 0). Without ``normalise`` the entries must sum to 1 (within ``tol``)."""
    columns = [str(c) for c in frame.columns]
    prob_cols = [c for c in columns if c.startswith(PROB_PREFIX) and c.endswith(")")]
    feat_cols = [c for c in columns if c not in prob_cols]
    if len(prob_cols) < 2 or not feat_cols:
        raise DataError(f"a joint table needs feature columns and at least two '{PROB_PREFIX}label)' columns; "
                        f"got columns {columns}")
    frame = frame.set_axis(columns, axis=1)
    try:
        probs = frame[prob_cols].astype(np.float64).to_numpy()
        codes = frame[feat_cols].astype(np.float64).to_numpy()
    except (TypeError, ValueError) as err:
        raise DataError(f"every cell of the joint table must be a number: {err}") from None
    if np.isnan(probs).any() or np.isnan(codes).any():
        row = int(np.argwhere(np.isnan(probs).any(axis=1) | np.isnan(codes).any(axis=1))[0, 0])
        raise DataError(f"row {row + 1} of the joint table has an empty cell; fill it in (0 for no mass)")
    if np.any(probs < 0):
        r, c = np.argwhere(probs < 0)[0]
        raise DataError(f"row {r + 1}, column {prob_cols[c]} is {probs[r, c]:g}; probabilities cannot be negative")
    if np.any(codes < 0) or np.any(codes != np.round(codes)):
        raise DataError("feature values must be whole numbers 0, 1, 2, ...")
    states = codes.astype(np.int64)
    if len(np.unique(states, axis=0)) != len(states):
        raise DataError("the joint table lists a state twice; give each combination of feature values once")
    total = probs.sum()
    if not normalise and abs(total - 1.0) > tol:
        raise DataError(f"the probabilities sum to {total:.6g}, not 1; edit them or turn on normalisation")
    labels = [_parse_label(c[len(PROB_PREFIX):-1]) for c in prob_cols]
    return Distribution(states, probs, feature_names=feat_cols, labels=labels)

