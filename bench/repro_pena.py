"""Ledger rows of Peña & Nilsson: Theorem 1 (and its consequence for greedy search), Example 1, BS / OS
(Tables 1-2, Theorems 5-6) and FBS / FOS (Theorem 8). The paper has no experiments: each row checks a
computable statement on exact distributions, or on samples for the finite-sample theorem."""

from __future__ import annotations

import itertools

import numpy as np
from repro_common import Protocol
from repro_rules import judge

from fslab.data.distributions import Distribution
from fslab.pena_nilsson.finite import fbs, fos
from fslab.pena_nilsson.minimal import backward_search, minimal_optimal, one_shot, strongly_relevant
from fslab.pena_nilsson.orderings import (
    distribution_from_ordering,
    follows_ordering,
    greedy_bad_distribution,
    greedy_gaps,
    random_valid_ordering,
    subset_risks,
)
from fslab.pena_nilsson.toy import pena_nilsson_example1, random_dirichlet, s_star_vs_markov_boundary
from fslab.reproduction import Row

PAPER = "pena"


def judged(row_id: str, numbers: dict, **fields) -> Row:
    """A Row whose verdict and rule text come from bench/repro_rules.py applied to ``numbers``."""
    verdict, rule = judge(row_id, numbers)
    return Row(row_id, PAPER, verdict=verdict, rule=rule, numbers=numbers, **fields)


def theorem1(p: Protocol) -> Row:
    rng = np.random.default_rng(p.seed)
    cases = [(2, None), (3, None), (3, [3, 2, 4]), (4, None)]
    done, held = 0, 0
    for n, arities in cases:
        for _ in range(10):
            ordering = random_valid_ordering(n, seed=int(rng.integers(2**31)))
            dist = distribution_from_ordering(ordering, arities=arities)
            held += follows_ordering(dist, ordering)
            done += 1
    return judged("p-thm1", {"held": int(held), "done": done}, item="Theorem 1 (every monotone ordering is possible)",
                  claim="For any ordering of the 2^n subsets compatible with monotonicity there is a distribution "
                        "whose Bayes risks follow it strictly, whatever the (finite) sample spaces.",
                  ours=f"{held} of {done} random valid orderings (n = 2, 3, 4; also arities 3, 2, 4) reproduced "
                       "exactly by the proof's construction",
                  why="fslab.orderings.distribution_from_ordering follows the proof's equations (1)-(4).",
                  scale="exact distributions (the paper has no experiments)",
               link="orderings?dist=greedy-bad&measure=zero-one",
               figure={"kind": "bars", "x": ["orderings tried", "followed"], "series": {"count": [done, held]}})


def theorem1_greedy(p: Protocol) -> Row:
    spreads = (2.0, 10.0, 100.0)
    gaps = []
    for s in spreads:
        g = greedy_gaps(subset_risks(greedy_bad_distribution(3, spread=s)))
        row = g[g["k"] == 2].iloc[0]
        gaps.append(float(row["greedy_value"]) / max(float(row["optimal_value"]), 1e-15))
    return judged("p-thm1-greedy", {"ratios": gaps}, item="Section 3 (k-optimal needs exhaustive search)",
                  claim="A non-exhaustive search (e.g. greedy) can miss the best subset of size k and do arbitrarily "
                        "badly.",
                  ours="greedy's pair has Bayes risk " + ", ".join(f"{g:.1f}x" for g in gaps)
                  + f" the optimal pair's for construction spreads {', '.join(f'{s:g}' for s in spreads)}",
                  why="The Theorem 1 construction of an ordering whose best single feature belongs to the worst pairs.",
                  scale="exact distributions",
               link="orderings?dist=greedy-bad&measure=zero-one",
               figure={"kind": "bars", "x": [f"spread {s:g}" for s in spreads], "y": "greedy / optimal risk, k = 2",
                       "series": {"ratio": gaps}})


def example1(p: Protocol) -> Row:
    d = pena_nilsson_example1()
    strong, s_star = strongly_relevant(d), minimal_optimal(d)
    return judged("p-ex1", {"strong": [int(j) for j in strong], "s_star": [int(j) for j in s_star]},
                  item="Example 1 (strongly relevant but not in S*)",
                  claim="With p(Y = 0 | x) = x / 3, X is strongly relevant but S* is empty: the Bayes classifier is "
                        "always 1.",
                  ours=f"strongly relevant: {list(strong)}; S*: {list(s_star)}",
                  why="Exact computation on the example's distribution (p(x) = 1/2).", scale="exact",
               link="orderings?dist=pena-nilsson-example-1&measure=zero-one",
               figure={"kind": "table", "columns": ["set", "features"],
                       "rows": [["strongly relevant", str(list(strong))], ["S* (exhaustive)", str(list(s_star))]]})


def _law(rng) -> Distribution:
    """Uniform binary X1..X4; eta = e(x1, x2) + d (2 x3 - 1), X4 independent of Y. X3 is in S* only when its
    shift d moves eta across 1/2 somewhere, so S* ranges over subsets of {X1, X2, X3}."""
    states = np.array(list(itertools.product((0, 1), repeat=4)), dtype=np.int64)
    eta = rng.uniform(0.05, 0.95, 4)[states[:, 0] * 2 + states[:, 1]] + rng.uniform(0.01, 0.2) * (2 * states[:, 2] - 1)
    eta = np.clip(eta, 0.01, 0.99)
    return Distribution(states, np.column_stack([1 - eta, eta]) / len(states))


def bs_os(p: Protocol) -> Row:
    rng = np.random.default_rng(p.seed)
    dists = ([random_dirichlet(4, 2, concentration=c, seed=p.seed + i) for i, c in enumerate([0.3, 1.0, 3.0] * 3)]
             + [_law(rng) for _ in range(30)] + [s_star_vs_markov_boundary()])
    same, sizes = 0, []
    for d in dists:
        star = minimal_optimal(d)
        same += backward_search(d).selected == star == one_shot(d).selected
        sizes.append(len(star))
    return judged("p-bs-os", {"same": int(same), "n": len(dists)}, item="Tables 1-2, Theorems 5-6 (BS and OS find S*)",
                  claim="Under p(x) > 0 and a unique Bayes decision, backward search (BS) and the one-shot rule (OS: "
                        "X_i in S* iff R(not X_i) != R(X)) both return the minimal-optimal S*.",
                  ours=f"BS = OS = exhaustive S* on {same} of {len(dists)} distributions (sizes of S*: "
                       f"{', '.join(f'{k}: {sizes.count(k)}' for k in sorted(set(sizes)))})",
                  why="9 random positive Dirichlet laws over 4 binary features (concentrations 0.3, 1, 3; S* is "
                      "usually all four), 30 laws where X3 shifts the posterior by a random amount and X4 is "
                      "independent of Y (so S* varies), and the S*-vs-Markov-boundary preset.",
                  scale="exact distributions",
               link="orderings?dist=s-star-vs-markov&measure=zero-one",
               figure={"kind": "bars", "x": [str(k) for k in sorted(set(sizes))], "y": "distributions",
                       "series": {"|S*|": [sizes.count(k) for k in sorted(set(sizes))]}})


def fbs_fos(p: Protocol) -> Row:
    d = s_star_vs_markov_boundary()
    target = (0, 1)
    rates = {"FBS": [], "FOS": []}
    for m in p.fbs_sizes:
        hits = {"FBS": 0, "FOS": 0}
        for r in range(p.fbs_repeats):
            sample = d.sample(m, seed=p.seed + 1000 * r + m)
            hits["FBS"] += fbs(sample, inducer="tree", estimator="holdout", tau=0.05, seed=r).selected == target
            hits["FOS"] += fos(sample, inducer="tree", estimator="holdout", tau=0.05, seed=r).selected == target
        for k in rates:
            rates[k].append(hits[k] / p.fbs_repeats)
    return judged("p-fbs-fos", {"sizes": list(p.fbs_sizes), "rates": rates},
                  item="Theorem 8 (FBS and FOS are consistent)",
                  claim="With a universally consistent inducer, a consistent risk estimate and tau in (0, eta), FBS "
                        "and FOS return S* with probability tending to 1 as the sample grows.",
                  ours="; ".join(f"{k}: " + ", ".join(f"m={m} {v:.0%}" for m, v in zip(p.fbs_sizes, rates[k],
                                                                                     strict=True)) for k in rates),
                  why=f"S* = {{X1, X2}}, {p.fbs_repeats} samples per m. Preset S*-vs-Markov (eta = 0.10), tau = "
                      "0.05, decision tree on half the rows, error counted on the other half.",
                  scale=f"m in {list(p.fbs_sizes)}, {p.fbs_repeats} samples each (the paper has no experiments)",
               link="orderings?dist=s-star-vs-markov&measure=zero-one",
               figure={"kind": "curves", "y": "share of samples returning S*", "x": "sample size m",
                       "panels": [{"title": "S* = {X1, X2}", "k": list(p.fbs_sizes), "series": rates}]})


def rows(p: Protocol):
    return [("p-thm1", lambda: [theorem1(p)]), ("p-thm1-greedy", lambda: [theorem1_greedy(p)]),
            ("p-ex1", lambda: [example1(p)]), ("p-bs-os", lambda: [bs_os(p)]), ("p-fbs-fos", lambda: [fbs_fos(p)])]
