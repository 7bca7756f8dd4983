"""Bayes-risk orderings of feature subsets (Pena and Nilsson, Section 3).

``subset_risks`` evaluates a measure on every subset (the k-optimal problem needs exhaustive search);
``distribution_from_ordering`` is the construction in the proof of Theorem 1, which realises any
ordering of the subsets that respects monotonicity (supersets first) with strictly increasing risks.

Subsets are sorted tuples of 0-based feature indices; internally a subset is also a bit mask.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..data.distributions import Distribution
from ..errors import ParameterError, TooLargeError
from ..limits import server_limits, setting
from ..measures import Measure
from ..measures import measure as get_measure
from ..selectors._loop import run_search
from ..selectors.ties import pick_best, ranks, ties_with
from ..tables import as_source


def max_lattice_features() -> int:
    """The most features whose 2^n subsets are enumerated: the server's ``max_lattice_features``
    (``FSLAB_MAX_LATTICE_FEATURES``), read when called."""
    return server_limits().max_lattice_features


def subset_label(subset: Sequence[int], names: Sequence[str]) -> str:
    """'{X1, X3}' or '∅'."""
    return "{" + ", ".join(names[j] for j in subset) + "}" if len(subset) else "∅"


def all_subsets(n: int) -> list[tuple[int, ...]]:
    """Every subset of 0..n-1, by size then lexicographically."""
    return [s for k in range(n + 1) for s in itertools.combinations(range(n), k)]


def check_enumerable(n: int, max_features: int | None = None) -> None:
    """Raise TooLargeError when 2^n subsets are too many to enumerate (``max_features`` None: the server's)."""
    max_features = max_lattice_features() if max_features is None else int(max_features)
    if n > max_features:
        count = f"{2 ** n:,}" if n <= 40 else f"about {2.0 ** n:.2e}"
        raise TooLargeError(
            f"{n} features have 2^{n} = {count} subsets; enumerating them is limited to "
            f"{max_features} features ({2 ** max_features:,} subsets; lattice size limit: a server sets it with "
            f"{setting('max_lattice_features')}). Choose fewer features."
        )


def subset_risks(source, measure: str | Measure = "zero-one", max_features: int | None = None,
                 **params) -> pd.DataFrame:
    """The Bayes value of ``measure`` for every subset of the features.

    Columns: ``subset`` (tuple), ``names``, ``size``, ``value`` (the paper's quantity), ``criterion``
    (-error or +score, what selectors maximise) and ``rank`` (1 = best; ties share the best rank).
    Exact on a Distribution, plug-in on a sample. Raises TooLargeError beyond ``max_features`` (None: the
    server's ``max_lattice_features``).
    """
    source = as_source(source)
    m = get_measure(measure, **params)
    n = source.n_features
    check_enumerable(n, max_features)
    ev = m.on(source)
    criteria: dict[tuple[int, ...], float] = {(): ev.criterion(())}
    # One batched evaluation per prefix: C(prefix + (j,)) for every j after its last element.
    for subset in all_subsets(n):
        candidates = list(range(subset[-1] + 1 if subset else 0, n))
        if candidates:
            batch = ev.extensions(subset, candidates)
            criteria.update({subset + (j,): float(v) for j, v in zip(candidates, batch, strict=True)})
    subsets = all_subsets(n)
    crit = np.array([criteria[s] for s in subsets])
    value = ev.sign * crit
    frame = pd.DataFrame({
        "subset": subsets,
        "names": [subset_label(s, source.feature_names) for s in subsets],
        "size": [len(s) for s in subsets],
        "value": value,
        "criterion": crit,
    })
    frame["rank"] = ranks(crit)  # 1 + subsets better beyond the tie tolerance (fslab.selectors.ties)
    frame.attrs.update(measure=m.label, greater_is_better=m.greater_is_better, feature_names=source.feature_names)
    return frame


def monotonicity_violations(risks: pd.DataFrame, tol: float = 1e-10) -> pd.DataFrame:
    """Pairs (S, S + j) where the superset has a lower criterion than S (beyond ``tol``).

    Checking one-feature extensions suffices: monotonicity along every edge implies it for all pairs.
    """
    crit = dict(zip(risks["subset"], risks["criterion"], strict=True))
    n = max((len(s) for s in crit), default=0)
    rows = []
    for s, c in crit.items():
        for j in set(range(n)) - set(s):
            sup = tuple(sorted(s + (j,)))
            if crit[sup] < c - tol * max(1.0, abs(c)):
                rows.append({"subset": s, "superset": sup, "criterion": c, "superset_criterion": crit[sup]})
    return pd.DataFrame(rows, columns=["subset", "superset", "criterion", "superset_criterion"])


def is_monotone(risks: pd.DataFrame, tol: float = 1e-10) -> bool:
    """True if no superset does worse than its subsets (Pena and Nilsson, Section 1)."""
    return monotonicity_violations(risks, tol).empty


def _best(items: list[tuple[tuple[int, ...], float]]) -> tuple[tuple[int, ...], int]:
    """First item (in the given order) tied with the best (fslab.selectors.ties); and how many tied."""
    pos, n_tied = pick_best(np.array([c for _, c in items], dtype=np.float64))
    return items[pos][0], n_tied


def greedy_path(risks: pd.DataFrame) -> list[tuple[int, ...]]:
    """Forward greedy search read off the subset table: from ∅ add the feature with the best criterion
    (lowest index among ties), up to all features. ``path[k]`` is greedy's subset of size k."""
    crit = dict(zip(risks["subset"], risks["criterion"], strict=True))
    n = int(risks["size"].max())
    log = run_search(n, n, _LatticeScorer(crit))  # the selectors' own loop and tie rule
    return [tuple(sorted(log.order[:t])) for t in range(n + 1)]


class _LatticeScorer:
    """Forward greedy over a table of every subset's criterion: candidate j is worth C(J + {j})."""

    def __init__(self, crit: dict[tuple[int, ...], float]):
        self.crit = crit
        self.chosen: tuple[int, ...] = ()

    def evaluate(self, candidates: np.ndarray) -> np.ndarray:
        return np.array([self.crit[tuple(sorted(self.chosen + (int(j),)))] for j in candidates])

    def commit(self, j: int) -> None:
        self.chosen = self.chosen + (int(j),)


def k_optimal(risks: pd.DataFrame) -> dict[int, tuple[tuple[int, ...], int]]:
    """For each size k: the lexicographically first best subset and the number of tied best subsets."""
    out = {}
    for k, group in risks.groupby("size", sort=True):
        out[int(k)] = _best(list(zip(group["subset"], group["criterion"], strict=True)))
    return out


def tied_labels(labels: Sequence[str], shown: int = 6) -> str:
    """"{X1}, {X2}, {X3} and {X4}" for tied subsets; past ``shown`` of them, "... and N more"."""
    if len(labels) <= 1:
        return ""
    if len(labels) <= shown:
        return ", ".join(labels[:-1]) + f" and {labels[-1]}"
    return ", ".join(labels[:shown]) + f" and {len(labels) - shown} more"


def greedy_gaps(risks: pd.DataFrame) -> pd.DataFrame:
    """Per k: greedy's subset and value, the k-optimal subset and value, the tied best subsets by name
    (``ties``, empty when the best is unique) and the gap ``criterion(k-optimal) - criterion(greedy) >= 0``
    (Theorem 1: it can be arbitrarily large)."""
    names = risks.attrs.get("feature_names") or [f"X{j + 1}" for j in range(int(risks["size"].max()))]
    by_subset = risks.set_index("subset")
    rows = []
    for k, (s_greedy, (s_opt, n_tied)) in enumerate(zip(greedy_path(risks), k_optimal(risks).values(), strict=True)):
        rows.append({
            "k": k, "greedy": subset_label(s_greedy, names), "greedy_value": by_subset.at[s_greedy, "value"],
            "optimal": subset_label(s_opt, names), "optimal_value": by_subset.at[s_opt, "value"],
            "n_optimal": n_tied, "ties": _ties_of_size(risks, k, names) if n_tied > 1 else "",
            "gap": by_subset.at[s_opt, "criterion"] - by_subset.at[s_greedy, "criterion"],
        })
    return pd.DataFrame(rows)


def _ties_of_size(risks: pd.DataFrame, k: int, names: Sequence[str]) -> str:
    group = risks[risks["size"] == k]
    tied = ties_with(group["criterion"].to_numpy(dtype=np.float64), float(group["criterion"].max()))
    return tied_labels([subset_label(s, names) for s in group["subset"][tied]])


# --- Theorem 1 ------------------------------------------------------------------------------------

def _mask(subset: Sequence[int]) -> int:
    return sum(1 << int(j) for j in subset)


def check_ordering(ordering: Sequence[Sequence[int]], names: Sequence[str] | None = None) -> list[tuple[int, ...]]:
    """Validate an ordering S_1, ..., S_{2^n} of all subsets in which every superset comes before its
    subsets (Theorem 1: i < j whenever S_j ⊂ S_i). Returns it as sorted tuples; raises ParameterError
    naming the first subset placed before one of its supersets."""
    subsets = [tuple(sorted(int(j) for j in s)) for s in ordering]
    if names is not None:  # n is known: say which subsets are missing or repeated, by name
        _check_complete(subsets, list(names))
    n = int(round(np.log2(max(len(subsets), 1))))
    if len(subsets) != 2 ** n or n < 1:
        raise ParameterError(f"an ordering lists all 2^n subsets of n features; got {len(subsets)} entries")
    check_enumerable(n)
    names = list(names) if names is not None else [f"X{j + 1}" for j in range(n)]
    if any(j < 0 or j >= n for s in subsets for j in s) or any(len(set(s)) != len(s) for s in subsets):
        raise ParameterError(f"subsets of {n} features hold distinct indices in 0 .. {n - 1}")
    missing = set(all_subsets(n)) - set(subsets)
    if missing or len(set(subsets)) != len(subsets):
        what = f"misses {subset_label(min(missing), names)}" if missing else "lists a subset twice"
        raise ParameterError(f"the ordering must list every subset exactly once; it {what}")
    position = {s: i for i, s in enumerate(subsets)}
    for i, s in enumerate(subsets):
        for j in range(n):
            sup = tuple(sorted(s + (j,))) if j not in s else None
            if sup is not None and position[sup] > i:
                raise ParameterError(
                    f"invalid ordering: {subset_label(s, names)} (position {i + 1}) comes before its superset "
                    f"{subset_label(sup, names)} (position {position[sup] + 1}); a superset can never have a "
                    "larger Bayes risk, so it must come first"
                )
    return subsets


def _check_complete(subsets: list[tuple[int, ...]], names: list[str], shown: int = 8) -> None:
    """Raise a ParameterError naming the subsets of ``len(names)`` features that the ordering misses or repeats."""
    n = len(names)
    check_enumerable(n)
    if any(j < 0 or j >= n for s in subsets for j in s) or any(len(set(s)) != len(s) for s in subsets):
        raise ParameterError(f"subsets of {n} features hold distinct indices in 0 .. {n - 1}")
    listed = set(subsets)
    missing = [s for s in all_subsets(n) if s not in listed]
    repeated = sorted({s for s in subsets if subsets.count(s) > 1}, key=lambda s: (len(s), s))
    if not missing and not repeated:
        return

    def some(group: list[tuple[int, ...]]) -> str:
        text = ", ".join(subset_label(s, names) for s in group[:shown])
        return text + (f" and {len(group) - shown} more" if len(group) > shown else "")

    problems = ([f"misses {some(missing)}"] if missing else []) + ([f"repeats {some(repeated)}"] if repeated else [])
    raise ParameterError(
        f"an ordering of {n} features must list all 2^{n} = {2 ** n} subsets once each, one per line; yours has "
        f"{len(subsets)} line(s) and {' and '.join(problems)}"
    )


def distribution_from_ordering(ordering: Sequence[Sequence[int]], arities: Sequence[int] | np.ndarray | None = None,
                               alpha: float = 0.6, gaps: Sequence[float] | np.ndarray | None = None,
                               feature_names: Sequence[str] | None = None) -> Distribution:
    """The distribution of the proof of Pena and Nilsson's Theorem 1, with R(S_1) < ... < R(S_{2^n}).

    How we read the proof: p(X=0, Y=0) = alpha in (1/2, 1) (eq. 1), p(X=0, Y=1) = 0 (eq. 2) and
    p(x, Y=0) = 0 for x != 0 (eq. 3). Then R(S) = p(S=0, Y=1): at the cell S=0 class 0 wins (alpha >
    1/2), every other cell holds class 1 only. Group the states x != 0 by their zero set
    Z(x) = {j : x_j = 0}; with m(T) the Y=1 mass on states whose zero set is exactly T,
    R(S) = sum over T ⊇ S of m(T) (eq. 4). Going through S_2, S_3, ... in order, the masses m(T) of the
    proper supersets T ⊃ S_i are already set (they come earlier), so we set
    m(S_i) = max(R(S_{i-1}), sum_{T ⊃ S_i} m(T)) + gap_i - sum_{T ⊃ S_i} m(T) > 0, which makes
    R(S_i) = R(S_{i-1}) + gap_i at least. m(T) is spread evenly over the prod_{j ∉ T}(a_j - 1) states
    with zero set T, and all masses are finally scaled to sum to 1 - alpha (the proof's normalisation).
    Every state then has positive mass and a unique most probable class (the proof's remark after
    Theorem 5). ``gaps`` (default all 1) are the relative steps before normalisation.
    """
    subsets = check_ordering(ordering, feature_names)
    n = int(round(np.log2(len(subsets))))
    arities = np.array([2] * n if arities is None else [int(a) for a in arities], dtype=np.int64)
    if arities.shape != (n,) or arities.min() < 2:
        raise ParameterError(f"need one arity >= 2 per feature for {n} features; got {arities.tolist()}")
    if not 0.5 < alpha < 1:
        raise ParameterError(f"alpha must lie in (0.5, 1) (Theorem 1, eq. 1); got {alpha}")
    gaps = np.ones(len(subsets) - 1) if gaps is None else np.asarray(gaps, dtype=np.float64)
    if gaps.shape != (len(subsets) - 1,) or not np.all(gaps > 0):
        raise ParameterError(f"gaps need {len(subsets) - 1} positive numbers (one per step of the ordering)")
    masks = np.array([_mask(s) for s in subsets], dtype=np.int64)
    mass = np.zeros(len(subsets))  # mass[i] = m(S_i); m(S_1) = m(X) = 0 by eq. 2
    risk = 0.0
    for i in range(1, len(subsets)):
        supersets = ((masks[:i] & masks[i]) == masks[i])
        above = mass[:i][supersets].sum()
        risk = max(risk, above) + gaps[i - 1]
        mass[i] = risk - above
    mass *= (1 - alpha) / mass.sum()
    states = np.array(list(itertools.product(*[range(a) for a in arities])), dtype=np.int64)
    zero_masks = ((states == 0) * (1 << np.arange(n))).sum(axis=1)
    index_of_mask = np.full(1 << n, -1)
    index_of_mask[masks] = np.arange(len(masks))
    n_states = np.ones(1 << n, dtype=np.int64)  # number of states with a given zero set
    for mask in range(1 << n):
        n_states[mask] = np.prod([arities[j] - 1 for j in range(n) if not mask >> j & 1])
    y1 = mass[index_of_mask[zero_masks]] / n_states[zero_masks]
    y0 = np.where(zero_masks == (1 << n) - 1, alpha, 0.0)
    return Distribution(states, np.column_stack([y0, y1]), feature_names=feature_names, arities=arities)


def ordering_risks(source, ordering: Sequence[Sequence[int]]) -> np.ndarray:
    """The Bayes 0-1 risks of the subsets in ``ordering``, in that order."""
    risks = subset_risks(source).set_index("subset")["value"]
    return np.array([risks[tuple(sorted(s))] for s in ordering])


def follows_ordering(source, ordering: Sequence[Sequence[int]]) -> bool:
    """True if the risks increase strictly along ``ordering`` (what Theorem 1 promises)."""
    return bool(np.all(np.diff(ordering_risks(source, ordering)) > 0))


def random_valid_ordering(n: int, seed=None) -> list[tuple[int, ...]]:
    """A random ordering respecting monotonicity: repeatedly place a uniformly chosen subset among
    those whose supersets are all placed (a random linear extension, not uniform over all of them)."""
    top = max_lattice_features()
    if not 1 <= int(n) <= top:
        raise ParameterError(f"n must be between 1 and {top}; got {n}")
    n = int(n)
    rng = np.random.default_rng(seed)
    full = (1 << n) - 1
    placed_covers = np.zeros(1 << n, dtype=np.int64)  # how many one-larger supersets are placed
    available, order = [full], []
    while available:
        mask = available.pop(int(rng.integers(len(available))))
        order.append(mask)
        for j in range(n):
            if mask >> j & 1:
                sub = mask & ~(1 << j)
                placed_covers[sub] += 1
                if placed_covers[sub] == n - bin(sub).count("1"):
                    available.append(sub)
    return [tuple(j for j in range(n) if m >> j & 1) for m in order]


def greedy_bad_ordering(n: int = 3) -> list[tuple[int, ...]]:
    """An ordering that traps forward greedy search: X1 is the best single feature, but every subset
    of size >= 2 that contains X1 ranks below every subset of that size without it. Greedy takes X1
    first and is then stuck among the worst pairs, triples, ...; the best pair is {X2, X3}.

    Sizes are placed largest first, which always respects monotonicity.
    """
    top = max_lattice_features()
    if not 3 <= int(n) <= top:
        raise ParameterError(f"'make greedy bad' needs 3 to {top} features; got {n}")
    out = []
    for k in range(int(n), -1, -1):
        level = list(itertools.combinations(range(int(n)), k))
        key = (lambda s: (0 not in s, s)) if k == 1 else (lambda s: (0 in s, s))
        out.extend(sorted(level, key=key))
    return out


def greedy_bad_distribution(n: int = 3, spread: float = 10.0, arities: Sequence[int] | None = None) -> Distribution:
    """Theorem 1 applied to :func:`greedy_bad_ordering` with a step of ``spread`` (instead of 1) right
    after the best pair, so greedy's pair has a much larger risk than the best pair."""
    ordering = greedy_bad_ordering(n)
    gaps = np.ones(len(ordering) - 1)
    best_pair = next(i for i, s in enumerate(ordering) if len(s) == 2)
    gaps[best_pair] = float(spread)  # gaps[i] is the step from position i to i + 1
    return distribution_from_ordering(ordering, arities=arities, gaps=gaps)
