"""Contract: one number per (source, measure, subset).

For every measure in MEASURES (default and non-default parameters), on random samples and exact
distributions, bayes_value / criterion, subset_risks (the Orderings lattice and greedy path), exhaustive
search, greedy selection, convergence's picks, compare and the permutation test of ksuggest report the
same C(J) for the same J (issue 15: subset_risks and bayes_value disagreed for recall).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import fslab
from fslab.compare import compare_selectors
from fslab.convergence import criterion_picks
from fslab.criteria import bayes_value, criterion
from fslab.data.distributions import Distribution
from fslab.data.encoded import EncodedDataset
from fslab.ksuggest import permutation_k_test
from fslab.measures import MEASURES
from fslab.pena_nilsson.orderings import greedy_path, k_optimal, subset_risks
from fslab.selectors import select

CASES = [(name, {}) for name in MEASURES] + [
    ("cost-sensitive", {"c": 0.1}), ("f-beta", {"beta": 2.0}), ("precision", {"approach": 2}),
    ("recall", {"approach": 2}),
    # issue 33.5: K x K cost matrices (C[y, k] = cost of predicting k for truth y), one with a non-zero diagonal
    ("cost-sensitive", {"c": ((0.0, 1.0, 2.0), (1.0, 0.0, 1.0), (4.0, 1.0, 0.0))}),
    ("cost-sensitive", {"c": ((1.0, 2.0, 3.0), (2.0, 0.0, 1.0), (5.0, 1.0, 0.5))})]


def _sample(n_classes: int, seed: int) -> EncodedDataset:
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (500, 3))
    X[:, 2] = rng.integers(0, 3, 500)
    y = (X[:, 0] + (rng.random(500) < 0.35) * rng.integers(1, n_classes, 500)) % n_classes
    return EncodedDataset(X, y, arities=[2, 2, 3])


def _law(n_classes: int, seed: int) -> Distribution:
    rng = np.random.default_rng(seed)
    states = np.array(list(itertools.product((0, 1), (0, 1), (0, 1, 2))))
    return Distribution(states, rng.dirichlet(np.ones(12 * n_classes)).reshape(12, n_classes))


def _sources(spec, params=None):
    classes = len(np.asarray(params["c"])) if np.ndim((params or {}).get("c", 0)) else None   # a cost matrix's K
    if classes in (None, 2):
        yield "binary sample", _sample(2, 1)
        yield "binary law", _law(2, 2)
    if not spec.binary_only and (spec.name != "cost-sensitive" or classes == 3):
        yield "3-class sample", _sample(3, 3)
        yield "3-class law", _law(3, 4)


def _close(a, b, what):
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-9, atol=1e-12,
                               err_msg=what)


def test_the_issue_example_recall_lattice_equals_bayes_value():
    """Issue 15: on a 500-row random sample with three binary features, {X1, X2} under recall."""
    rng = np.random.default_rng(0)
    ds = fslab.Dataset.from_arrays(rng.integers(0, 2, (500, 3)), rng.integers(0, 2, 500))
    risks = subset_risks(ds, "recall").set_index("subset")
    assert risks.at[(0, 1), "value"] == pytest.approx(fslab.bayes_value(ds, [0, 1], "recall"), abs=1e-12)


@pytest.mark.slow  # 0.45 s measured (inner loop: unit and not slow)
@pytest.mark.parametrize(("name", "params"), CASES, ids=[f"{n}{p}" for n, p in CASES])
def test_every_report_gives_the_same_criterion_for_the_same_subset(name, params):
    spec = MEASURES[name]
    for label, src in _sources(spec, params):
        what = f"{name} {params} on {label}"
        risks = subset_risks(src, name, **params)
        crit = dict(zip(risks["subset"], risks["criterion"], strict=True))
        for J, value in zip(risks["subset"], risks["value"], strict=True):
            _close(value, bayes_value(src, J, name, **params), f"{what}: lattice vs bayes_value at {J}")
            _close(crit[J], criterion(src, J, name, **params), f"{what}: lattice vs criterion at {J}")
        n = src.n_features
        path = greedy_path(risks)
        best = k_optimal(risks)
        for k in range(1, n + 1):
            ex = select(src, k, "exhaustive", measure=name, **params)
            for J, v in zip(ex.trace["subset"], ex.trace["value"], strict=True):
                _close(v, crit[tuple(J)], f"{what}: exhaustive trace at {J}")
            assert ex.features == best[k][0], f"{what}: exhaustive vs lattice k-optimal at k={k}"
            greedy = select(src, k, "bayes-greedy", measure=name, **params)
            assert tuple(sorted(greedy.features)) == path[k], f"{what}: greedy vs lattice path at k={k}"
            for t in range(1, k + 1):
                chosen = tuple(sorted(greedy.features[:t]))
                _close(greedy.scores[t - 1], crit[chosen], f"{what}: greedy score at step {t}")
        cmp = compare_selectors(src, 2, ("bayes-greedy", "bayes-score"), name, exact=True, **params)
        for sel_name, value in zip(cmp.subsets["selector"], cmp.subsets["bayes_value"], strict=True):
            J = tuple(sorted(cmp.selections[sel_name].features))
            _close(value, risks.set_index("subset").at[J, "value"], f"{what}: compare {sel_name}")
        for j, value in cmp.features["bayes_value"].items():
            _close(value, bayes_value(src, [j], name, **params), f"{what}: compare feature {j}")
        _close(cmp.optimal_value, risks.set_index("subset").at[best[2][0], "value"], f"{what}: compare optimum")
        if src.is_sample:
            order = list(greedy.features)
            test = permutation_k_test(src, order, name, n_permutations=3, seed=0, measure_params=params)
            for t, c in zip(test.steps["step"], test.steps["criterion"], strict=True):
                _close(c, crit[tuple(sorted(order[:t]))], f"{what}: ksuggest step {t}")
        elif not params:
            picks = criterion_picks(src, 2, measures=[name], selectors=("bayes-greedy",))
            J = tuple(sorted(select(src, 2, "bayes-greedy", measure=name).features))
            _close(picks["value"].iloc[0], risks.set_index("subset").at[J, "value"], f"{what}: convergence")


def test_measure_parameters_carry_one_default_inside_their_offered_range():
    from fslab.measures import DEFAULT_C, PARAM_DEFAULTS, measure

    assert DEFAULT_C == 0.25 == PARAM_DEFAULTS["c"] == measure("cost-sensitive").params["c"]
    for spec in MEASURES.values():
        for name, p in spec.parameters.items():
            assert spec.params[name] == p.default == PARAM_DEFAULTS[name] and p.help
            if p.choices is not None:
                assert p.default in p.choices
            else:
                assert p.low <= p.default <= p.high and p.step > 0
            measure(spec.name, **{name: p.default})  # the default passes the library's own check


def test_selector_records_declare_what_the_app_needs():
    from fslab.selectors import SELECTORS

    assert {n for n, s in SELECTORS.items() if not s.returns_path} == {"exhaustive", "backward"}
    assert {n for n, s in SELECTORS.items() if s.cost_class == "heavy"} == {"exhaustive", "backward"}
    assert {n for n, s in SELECTORS.items() if s.counts_classes} == {
        "mi-greedy", "mi-score", "mrmr", "jmi", "cmim", "fisher"}
    assert all((s.scorer is None) == (s.kind == "exhaustive") for s in SELECTORS.values())
    assert all(s.uses_measure or s.criterion_measure in ("mi", None) for s in SELECTORS.values())
