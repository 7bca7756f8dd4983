"""One selector, several performance measures, the same data: which feature each measure picks at each step.

The headline claim of Ahmed, Narasimhan & Agarwal (2015, Sections 1 and 3): the best features depend on the
performance measure. BayesGreedy (Algorithm 1) adds at step t the feature j maximising the Bayes criterion
C^l(J_{t-1} + {j}) = -er^{l,*} or +score^{l,*} of measure l, so each measure l has its own path J^l_1, J^l_2, ...
:func:`by_measure` runs the selector once per measure and evaluates every measure's prefix J^l_t under every
other measure l', so a disagreement can be read off as a cost: how much worse measure l' finds l's choice than
its own. Values are each measure's own terms (an error positive, lower is better; a score as is).

>>> import fslab
>>> from fslab.by_measure import by_measure
>>> view = by_measure(fslab.example1(), k=1)
>>> view.picks.loc[1, "0-1 error"], view.picks.loc[1, "mutual information"]
('X1', 'X2')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .criteria import bayes_value
from .errors import FslabError, ParameterError
from .measures import DEFAULT_FOLDS, MEASURES, measure_fits
from .selectors import SELECTORS, select
from .tables import as_source
from .terms import label as measure_label
from .terms import lower_is_better

# the paper's measures (Section 3) with their records' default parameters (c = 0.25: c = 0.5 would be the 0-1 error)
DEFAULT_MEASURES: tuple[tuple[str, dict], ...] = tuple(
    (name, dict(MEASURES[name].params)) for name in ("zero-one", "cost-sensitive", "balanced", "f-beta", "auc",
                                                      "log-loss", "mi"))
_TOL = 1e-12


@dataclass(frozen=True)
class Tie:
    """Candidates a selector found equally good at one step of its path (the selectors' tie rule, DESIGN.md: the
    lowest index wins). ``names``: the tied features, the pick first (exhaustive search: the tied k-subsets, the
    pick first; backward search: the features whose removal tied); ``value``: their common value in the measure's
    own terms (an error positive)."""

    step: int
    names: tuple[str, ...]
    value: float
    kind: str = "forward"   # the selector's kind: "forward", "ranking", "backward" or "exhaustive"

    def words(self, at: str | None = None) -> str:
        """'step 1: X1, X2 and X3 tie at 0.5' (exhaustive: 'the 2-subsets {X1, X2} and {X1, X3} tie at 0');
        ``at`` replaces 'at 0.5' (several measures' values)."""
        at = at or f"at {self.value:.4g}"
        if self.kind == "exhaustive":
            return f"the {self.step}-subsets {_and([f'{{{s}}}' for s in self.names])} tie {at}"
        what = "removing " + _and(list(self.names), "or") + " ties" if self.kind == "backward" \
            else f"{_and(list(self.names))} tie"
        return f"step {self.step}: {what} {at}"

def _and(items: list[str], word: str = "and") -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {word} {items[-1]}"


def _ties(trace: pd.DataFrame, kind: str, lower: bool) -> tuple[Tie, ...]:
    """The steps of one selection's trace at which more than one candidate tied with the pick (its ``tied`` rows;
    the chosen one first), with their value in the measure's own terms."""
    if trace.empty or "tied" not in trace:
        return ()
    tied = trace[trace["tied"].astype(bool)]
    out = []
    for step, rows in tied.groupby("step", sort=True):
        if len(rows) > 1:
            rows = rows.sort_values("chosen", ascending=False, kind="stable")
            value = float(rows["value"].iloc[0])
            out.append(Tie(int(step) if kind != "exhaustive" else len(rows["subset"].iloc[0]),
                           tuple(str(n) for n in rows["name"]), -value if lower else value, kind))
    return tuple(out)


@dataclass(frozen=True, eq=False)
class ByMeasure:
    """The paths of one selector under several measures.

    ``picks``: index step t = 1..k, one column per measure label, the name of the feature that measure adds at t.
    ``features``: the same with feature indices.
    ``cross``: one row per (chosen_by, step, evaluated_by): ``value`` = the Bayes value under ``evaluated_by`` of
    the first t features ``chosen_by`` picked (own terms), ``best`` = no other measure's prefix of that step does
    better under ``evaluated_by``, ``regret`` = how much worse than the best prefix of that step (>= 0).
    ``measures``: label -> (name, params); ``skipped``: label -> why a measure was left out.
    ``ties``: label -> the :class:`Tie` s along that measure's path (an empty tuple when every pick was alone), from
    each selection's trace: a pick among equals is said, never hidden (XOR: every single feature errs 0.5).
    """

    selector: str
    k: int
    picks: pd.DataFrame
    features: pd.DataFrame
    cross: pd.DataFrame
    measures: dict[str, tuple[str, dict]]
    skipped: dict[str, str]
    estimate: str = "plug-in"   # of every value: "plug-in" (in-sample) or "cross-fitted" (held out)
    ties: dict[str, tuple[Tie, ...]] = field(default_factory=dict)

    @property
    def labels(self) -> list[str]:
        return list(self.picks.columns)

    def tie_words(self, step: int | None = None) -> str:
        """Every tie in words, once for all the measures that met it: 'step 1: X1, X2 and X3 tie under the 0-1
        error at 0.5 and AUC at 0.5; ...' (only ``step``'s when given), "" when no pick was tied."""
        groups: dict[Tie, list[str]] = {}  # the first measure's tie, the measures (with values) that met it
        for lab, ties in self.ties.items():
            for tie in ties:
                if step is None or tie.step == step:
                    first = next((g for g in groups if (g.step, g.names, g.kind) == (tie.step, tie.names, tie.kind)),
                                 tie)
                    groups.setdefault(first, []).append(f"{lab} at {tie.value:.4g}")
        return "; ".join(tie.words("under " + _and(under)) for tie, under in groups.items())

    def agree(self) -> pd.Series:
        """Per step: True when every measure added the same feature."""
        return self.picks.nunique(axis=1) == 1

    def same_set(self) -> pd.Series:
        """Per step: True when every measure's first t features form the same set (orders may differ)."""
        sets = [{frozenset(self.features[c].iloc[:t]) for c in self.features} for t in range(1, len(self.features) + 1)]
        return pd.Series([len(s) == 1 for s in sets], index=self.picks.index)

    def table(self, step: int) -> pd.DataFrame:
        """Rows: the first ``step`` features each measure chose; columns: their value under every measure."""
        part = self.cross[self.cross["step"] == step]
        out = part.pivot(index="chosen_by", columns="evaluated_by", values="value")
        return out.reindex(index=self.labels, columns=self.labels)

    def best(self, step: int) -> pd.DataFrame:
        """Same shape as :meth:`table`: True where the row's prefix is (one of) the best under the column."""
        part = self.cross[self.cross["step"] == step]
        return part.pivot(index="chosen_by", columns="evaluated_by", values="best").reindex(
            index=self.labels, columns=self.labels)


def _measure_list(measures) -> list[tuple[str, dict]]:
    out = []
    for item in measures:
        name, params = (item, {}) if isinstance(item, str) else (item[0], dict(item[1]))
        if name not in MEASURES:
            raise ParameterError(f"unknown measure '{name}'; choose from: {', '.join(MEASURES)}")
        out.append((name, params))
    return out


def by_measure(source, k: int, measures: Sequence[str | tuple[str, dict]] = DEFAULT_MEASURES,
               selector: str = "bayes-greedy", *, estimate: str = "plug-in", folds: int = DEFAULT_FOLDS,
               seed=0) -> ByMeasure:
    """Run ``selector`` with each measure for k steps and evaluate every measure's prefixes under every measure.

    ``measures``: names, or (name, params) pairs. Measures that do not fit the target (a binary-only measure on a
    multiclass target) are left out and listed in ``skipped``. ``selector`` must use the measure (BayesGreedy,
    BayesScore, exhaustive, backward, ...); MI-family selectors have their own criterion and would give the
    same path under every measure. ``estimate``, ``folds``, ``seed``: the estimate of every criterion, the
    selections' and the cross-evaluations' alike (``select``'s); ``ByMeasure.estimate`` records it.
    """
    spec = SELECTORS.get(selector)
    if spec is None:
        raise ParameterError(f"unknown selector '{selector}'; choose one of: {', '.join(SELECTORS)}")
    if not spec.uses_measure or spec.fixed_measure:
        raise ParameterError(f"{spec.label} does not take a performance measure, so every measure would give the "
                             "same features; choose BayesGreedy, BayesScore, exhaustive or backward search")
    source = as_source(source)  # a raw Dataset becomes its coded table source
    n = int(source.n_features)
    if not 1 <= int(k) <= n:
        raise ParameterError(f"k must be between 1 and the number of features ({n}); got {k}")
    k = int(k)
    how = {"estimate": estimate, "folds": folds, "seed": seed}
    chosen: dict[str, tuple[str, dict]] = {}
    skipped: dict[str, str] = {}
    paths: dict[str, list[int]] = {}
    ties: dict[str, tuple[Tie, ...]] = {}
    for name, params in _measure_list(measures):
        lab = measure_label(name, params)
        if not measure_fits(source, name, params):
            skipped[lab] = "does not fit this target"
            continue
        try:
            sel = select(source, k, selector, measure=name, **how, **params)
        except FslabError as err:
            skipped[lab] = str(err)
            continue
        chosen[lab] = (name, params)
        paths[lab] = [int(j) for j in sel.features]
        ties[lab] = _ties(sel.trace, spec.kind, lower_is_better(name))
    if not chosen:
        raise ParameterError("none of the chosen measures fits this target: " + "; ".join(
            f"{lab}: {why}" for lab, why in skipped.items()))
    steps = pd.Index(np.arange(1, k + 1), name="step")
    names = list(source.feature_names)
    features = pd.DataFrame({lab: path for lab, path in paths.items()}, index=steps)
    picks = features.map(lambda j: names[j])
    rows = []
    for t in steps:
        for by, (ev_name, ev_params) in chosen.items():
            values = np.array([bayes_value(source, paths[row][:t], ev_name, **how, **ev_params) for row in chosen])
            crit = -values if lower_is_better(ev_name) else values
            top = crit.max()
            for row, value, c in zip(chosen, values, crit, strict=True):
                rows.append({"chosen_by": row, "step": int(t), "feature": names[paths[row][t - 1]],
                             "evaluated_by": by, "value": float(value),
                             "best": bool(c >= top - _TOL * max(1.0, abs(top))), "regret": float(top - c)})
    cross = pd.DataFrame(rows, columns=["chosen_by", "step", "feature", "evaluated_by", "value", "best", "regret"])
    return ByMeasure(selector=selector, k=k, picks=picks, features=features, cross=cross, measures=chosen,
                     skipped=skipped, estimate=estimate, ties=ties)
