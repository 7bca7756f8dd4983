"""Orderings page helpers: cached subset risks, Theorem 1 constructions, BS/OS and FBS/FOS runs.

Sources are cached by a fingerprint of their content (the JSON of a distribution, a hash of a sample's
codes), passed next to the unhashed object, so two sessions with different data never share an entry.
"""

from __future__ import annotations

import re
from contextlib import nullcontext

import pandas as pd
import streamlit as st

from fslab.cost import check, finite_cost, lattice_cost, minimal_cost, needs_confirmation
from fslab.data.distributions import Distribution
from fslab.data.encoded import EncodedDataset
from fslab.errors import FslabError, ParameterError
from fslab.measures import measure as get_measure
from fslab.measures import supported_measures
from fslab.pena_nilsson.finite import fbs, fos
from fslab.pena_nilsson.minimal import backward_search, markov_boundary, minimal_optimal, one_shot, strongly_relevant
from fslab.pena_nilsson.orderings import (
    check_enumerable,
    check_ordering,
    distribution_from_ordering,
    greedy_bad_ordering,
    greedy_gaps,
    greedy_path,
    k_optimal,
    max_lattice_features,
    random_valid_ordering,
    subset_label,
    subset_risks,
)
from fslab.plots.orderings import value_decimals
from fslab.recipe import TABS as RECIPE_TABS
from fslab.selectors import select

from . import heavy, theme
from .cache import BOUNDED
from .compare import token
from .source import current_distribution

fingerprint = token  # the pages key lattices and widgets by content (one digest for every cache key)
# the page's tabs: short enough that all four show on a 1024 px projector, in presentation mode too
TABS = RECIPE_TABS["orderings"]  # declared once in fslab.recipe: a link's tab= names one of them


@st.cache_data(**BOUNDED, show_spinner="Evaluating every subset...")
def lattice(key: str, _source, measure: str) -> dict:
    """Subset table, greedy path, k-optimal subsets and per-k gaps for one source and measure."""
    cells = getattr(_source, "n_rows", 0) or len(getattr(_source, "states", ()))
    cost = check(lattice_cost(_source))  # fslab.cost: over the work or memory limit, refused before any work
    with heavy.heavy_slot() if heavy.is_heavy_lattice(_source.n_features, cells) or needs_confirmation(cost) \
            else nullcontext():
        risks = subset_risks(_source, measure)
    best = k_optimal(risks)
    return {"risks": risks, "greedy": greedy_path(risks), "optimal": [s for s, _ in best.values()],
            "gaps": greedy_gaps(risks)}


@st.cache_data(**BOUNDED, show_spinner="Running BS and OS...")
def minimal(key: str, _source) -> dict:
    """BS, OS, exhaustive S*, strongly relevant features and the Markov boundary (Pena and Nilsson, Section 4)."""
    check_enumerable(_source.n_features, max_lattice_features())  # S* and the Markov boundary enumerate subsets
    cost = check(minimal_cost(_source))
    names = _source.feature_names
    with heavy.heavy_slot() if needs_confirmation(cost) else nullcontext():
        return {"bs": backward_search(_source), "os": one_shot(_source),
                "s_star": subset_label(minimal_optimal(_source), names),
                "strong": subset_label(strongly_relevant(_source), names),
                "markov": subset_label(markov_boundary(_source), names)}


@st.cache_data(**BOUNDED, show_spinner="Training the inducer on each candidate subset...", show_time=True)
def finite(key: str, _data, inducer: str, estimator: str, tau: float, folds: int, seed: int) -> dict:
    cost = check(finite_cost(_data, folds, estimator))
    with heavy.heavy_slot() if needs_confirmation(cost) else nullcontext():
        return {"fbs": fbs(_data, inducer, estimator, tau, folds, seed),
                "fos": fos(_data, inducer, estimator, tau, folds, seed)}


@st.cache_data(**BOUNDED, show_spinner=False)
def sample(dist_json: str, m: int, seed: int):
    return Distribution.from_json(dist_json).sample(m, seed)


# --- wide datasets: study at most max_lattice_features() of their features ------------------------------------

@st.cache_data(**BOUNDED, show_spinner=False)
def top_features(key: str, _source, k: int) -> list[str]:
    """The k features with the largest single-feature criterion (mutual information when the target allows
    it, else the first supported measure): a sensible default for restricting a wide dataset."""
    name = "mi" if "mi" in supported_measures(_source) else supported_measures(_source)[0]
    crit = get_measure(name).on(_source).extensions((), range(_source.n_features))
    best = sorted(range(_source.n_features), key=lambda j: (-crit[j], j))[:k]
    return [_source.feature_names[j] for j in sorted(best)]


def restrict(source: EncodedDataset, names: list[str]) -> EncodedDataset:
    """The same sample with only the named feature columns (in the dataset's order)."""
    return source.keep_features([j for j, f in enumerate(source.feature_names) if f in set(names)])


GAP_HEADERS = {"k": "size k", "greedy": "greedy's subset", "greedy_value": "greedy's value",
               "optimal": "best k-subset", "optimal_value": "best value", "n_optimal": "tied best subsets",
               "ties": "which tie", "gap": "gap (greedy's loss)"}


def gap_table(gaps: pd.DataFrame) -> pd.DataFrame:
    """greedy_gaps with readable column headers."""
    return gaps.rename(columns=GAP_HEADERS)


def show_gaps(gaps: pd.DataFrame) -> None:
    """``gap_table`` as a static table, its values with the Hasse diagram's one number of decimals (value_decimals):
    a data grid made the page's click slower to settle (issue 34.5)."""
    theme.table(gap_table(gaps), digits=value_decimals(gaps[["greedy_value", "optimal_value"]]))


# --- Theorem 1 orderings as editable text: one subset per line, best (lowest risk) first ---------------

def format_ordering(ordering, names) -> str:
    return "\n".join(" ".join(names[j] for j in s) if s else "∅" for s in ordering)


def parse_ordering(text: str, names) -> list[tuple[int, ...]]:
    """Lines such as 'X1 X3' (or 'X1, X3', '{X1, X3}'); '∅', '{}' or 'empty' is the empty set."""
    index = {name: j for j, name in enumerate(names)}
    out = []
    for number, line in enumerate(text.strip().splitlines(), start=1):
        tokens = [t for t in re.split(r"[\s,{}]+", line.strip()) if t]
        if not tokens or tokens in (["∅"], ["empty"], ["{}"]):
            out.append(())
            continue
        unknown = [t for t in tokens if t not in index]
        if unknown:
            raise ParameterError(f"line {number} ('{line.strip()}') names unknown feature(s) {unknown}; "
                                 f"use {', '.join(names)} or ∅")
        out.append(tuple(sorted(index[t] for t in tokens)))
    return check_ordering(out, names)  # names the missing or repeated subsets


def initial_ordering(mode: str, n: int, seed: int) -> list[tuple[int, ...]]:
    if mode == "make greedy bad":
        return greedy_bad_ordering(n)
    return random_valid_ordering(n, seed)


@st.cache_data(**BOUNDED, show_spinner=False)
def construct(ordering: tuple[tuple[int, ...], ...], arities: tuple[int, ...], alpha: float,
              spread: float) -> Distribution:
    """Theorem 1's distribution; ``spread`` > 1 widens the step after the best pair (greedy-bad demos)."""
    gaps = [1.0] * (len(ordering) - 1)
    pairs = [i for i, s in enumerate(ordering) if len(s) == 2]
    if spread != 1.0 and pairs:
        gaps[pairs[0]] = float(spread)
    return distribution_from_ordering(ordering, arities=arities, alpha=alpha, gaps=gaps)


def steps_table(steps: pd.DataFrame) -> pd.DataFrame:
    """Decision rows for display (booleans as words; risks rounded to 12 decimals, so a rounding error such as
    1e-16 shows as 0)."""
    out = steps.copy()
    out["removed"] = out["removed"].map({True: "removed", False: "kept"})
    numbers = out.select_dtypes("number").columns
    out[numbers] = out[numbers].round(12) + 0.0  # + 0.0: -0.0 becomes 0.0
    return out


def exact_eta() -> float | None:
    """Theorem 8's eta of the session's toy distribution (None when it cannot be enumerated here)."""
    _, dist = current_distribution()
    if dist is None or dist.n_features > max_lattice_features():
        return None
    try:
        return float(minimal(f"distribution:{fingerprint(dist)}", dist)["bs"].eta)
    except FslabError:
        return None


@st.cache_data(**BOUNDED, show_spinner=False)
def greedy_path_of(key: str, _source, measure: str) -> list[tuple[int, ...]]:
    """BayesGreedy's path under ``measure`` through the whole lattice: ∅, {a}, {a, b}, ... (sorted tuples, as the
    lattice's subsets). With the mutual information it is MIGreedy's path (Ahmed et al., Example 5)."""
    order = select(_source, _source.n_features, "bayes-greedy", measure=measure).features
    return [tuple(sorted(order[:t])) for t in range(len(order) + 1)]
