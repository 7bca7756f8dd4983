"""Scorers that plug into the shared loop: subset criteria (exact or s-variate), MI-family gains, fixed scores.

A subset criterion C(J) comes from the one evaluator of (source, measure) (``measure.on(source)``): the
Bayes criterion of a measure (Ahmed et al., eq. (3): -error or +score) or the mutual information
I(X_J; Y) in bits (MIGreedy and the MI-family gains use ``measure("mi")``).
"""

from __future__ import annotations

import itertools
from math import comb

import numpy as np

from ..counting.dense import FastCounter
from ..errors import ParameterError
from ..measures import Evaluator
from ._counting import held_out_pairs, pair_extensions, pair_information, plugin_reducer
from ._loop import Hooks
from .ties import ties_with

_LAZY_BATCH = 8  # lazy CMIM: candidates brought up to date together at first (doubling while more are open)
_LAZY_DEPTH = 16  # lazy CMIM: features of J folded into a candidate per round (its bound is checked between rounds)
# where pairs are counted by popcounts (few values and classes), fewer features of J a round and more candidates pay
# (interleaved, load 11: CMIM 2,000 x 5,000 at 4 levels 55 -> 39 ms, Gisette-shaped 34 -> 30 ms, mRMR 58 -> 54 and
# 32 -> 29 ms; Adult and 30 classes x 2 levels equal); on the key path 16 deep stays best (digits-in-noise 92 vs 94,
# optdigits 27 vs 29, 20 classes x 5 levels 22 vs 24 ms)
_LAZY_BITS_BATCH, _LAZY_BITS_DEPTH = 16, 4
_LAZY_MIN_FEATURES = 256
_LAZY_MIN_PAIRS = 16
# mRMR's bound prunes less (late gains are negative, so noise columns stay open): lazy from 2^17 codes on (optdigits
# 5,620 x 64: 24.5 -> 19.3 ms; 1,000 x 64, 17 levels: 10.8 ms in full against 16.6 lazy)
_LAZY_MRMR_CELLS = 1 << 17
# JMI counts a step as pairs when each needs at most this many popcount rows ((a_f - 1) x classes x (A - 1)): Adult
# (9,765 x 123, k = 15) 16.9 -> 10.2 ms; Gisette-shaped's 8 rows a pair are cheaper through the engine (179 vs 335 ms)
_PAIR_ROWS = 4
# and wherever pairs take 2-byte keys (a bincount a pair over every row, no gathered rows; interleaved, load 11-13:
# digits-in-noise 490 -> 398 ms, optdigits 61 -> 38 ms, 1,000 x 64 at 17 levels 18.6 -> 13.7 ms, 1,000,000 x 64 at 8
# levels 2.03 -> 1.55 s; 20 classes x 5 levels 156 vs 161 ms)


class SubsetScorer:
    """Algorithm 1 (Ahmed et al.): the value of candidate j is C(J u {j}) (forward) or C(J \\ {j}) (backward)."""

    def __init__(self, ev: Evaluator, backward: bool = False):
        self.ev, self.backward = ev, backward
        self.chosen: list[int] = []
        self.members = np.full(ev.source.n_features, backward, dtype=bool)

    def evaluate(self, candidates: np.ndarray) -> np.ndarray:
        if not self.backward:
            return self.ev.extensions(self.chosen, candidates)
        kept = np.flatnonzero(self.members)
        return self.ev.removals(kept)[np.searchsorted(kept, candidates)]

    def commit(self, j: int) -> None:
        self.chosen.append(j)
        self.members[j] = not self.backward


class SVariateScorer:
    """s-variate approximation (Ahmed et al., Section 3.2): C(J) ~ mean of C(A) over all A in J with |A| = s.

    Forward, incrementally: sum_{|A|=s, A in J+{j}} C(A) = S_J + acc[j], where acc[j] sums C(B + {j}) over
    the (s-1)-subsets B of J. Adding f extends acc by C(B' + {f, j}) over the (s-2)-subsets B' of J: one
    batched table per B' (for s = 2, the pairwise tables of f, computed once per run). Sets of at most s
    features use the exact criterion (the average over their single s-subset, or no approximation needed).
    Backward supports s = 2 through the matrix of all pairwise criteria.
    """

    def __init__(self, ev: Evaluator, s: int, backward: bool = False, hooks: Hooks | None = None):
        self.ev, self.s, self.backward, self.hooks = ev, s, backward, hooks or Hooks()
        n = ev.source.n_features
        self.chosen: list[int] = []
        self.members = np.full(n, backward, dtype=bool)
        self.total = 0.0  # S_J
        self.acc = np.zeros(n)
        if backward:
            if s != 2:
                raise ParameterError(f"backward elimination supports the bivariate approximation s=2; got s={s}")
            self.pairs = self._pair_matrix()
            self.row = self.pairs.sum(axis=1)  # sum of C({i, j}) over i in J, J = all features
            self.total = self.pairs.sum() / 2
        elif s == 1:  # acc[j] sums C(B + {j}) over the single empty subset B: C({j})
            self.acc = ev.extensions([], np.arange(n))

    def _pair_matrix(self) -> np.ndarray:
        n = self.ev.source.n_features
        pairs = np.zeros((n, n))
        for i in range(n - 1):
            self.hooks.check()
            others = np.arange(i + 1, n)
            pairs[i, others] = self.ev.extensions([i], others)
        return pairs + pairs.T

    def evaluate(self, candidates: np.ndarray) -> np.ndarray:
        if self.backward:
            size = int(self.members.sum()) - 1
            if size <= self.s:
                kept = np.flatnonzero(self.members)
                return self.ev.removals(kept)[np.searchsorted(kept, candidates)]
            return (self.total - self.row[candidates]) / comb(size, self.s)
        size = len(self.chosen) + 1
        if size <= self.s:
            return self.ev.extensions(self.chosen, candidates)
        return (self.total + self.acc[candidates]) / comb(size, self.s)

    def commit(self, f: int) -> None:
        if self.backward:
            self.members[f] = False
            self.total -= self.row[f]
            self.row -= self.pairs[:, f]
            return
        self.total += self.acc[f]
        others = np.flatnonzero(~self.members)
        others = others[others != f]
        if others.size and self.s >= 2:
            for rest in itertools.combinations(self.chosen, self.s - 2):
                self.hooks.check()  # C(t, s-2) tables per step: a long step stays interruptible
                self.acc[others] += self.ev.extensions(list(rest) + [f], others)
        self.chosen.append(f)
        self.members[f] = True


def _lazy_pays(ev: Evaluator, n: int, reducer: bool = True, min_cells: int = 0) -> bool:
    """Lazy bounds pay wherever the dense engine counts a round's pairs at once (``FastCounter.pair_key_counts``:
    popcounts on few values, one bincount on many), from _LAZY_MIN_PAIRS features and ``min_cells`` codes on;
    otherwise (few-candidate counts per feature of J) beyond _LAZY_MIN_FEATURES. ``reducer``: the gains need the
    measure's plug-in reducer (CMIM's I(Xj, Xi; Y); mRMR's I(Xj; Xi) does not)."""
    counter = ev.counter
    if isinstance(counter, FastCounter) and (not reducer or plugin_reducer(ev) is not None or held_out_pairs(ev)):
        return n >= _LAZY_MIN_PAIRS and counter.m * counter.n >= min_cells
    return n > _LAZY_MIN_FEATURES


class PairGainScorer:
    """MI-family gains over two-way tables (Brown et al.'s unification; FEAST's criteria), one subclass per
    criterion: ``_gain(candidates)`` once J is non-empty (every gain is I(Xj;Y) while J is empty) and ``_fold(f,
    others)``, which counts only the new feature f's pairs with the remaining candidates after each pick.

    Lazy evaluation (Fleuret's fast CMIM; the same bound serves mRMR): where a criterion's partial value over the
    first features of J only falls as more are folded in, it bounds the gain from above (``_bound``). Each step then
    brings candidates up to date in order of their bound, a batch at a time (doubling), up to _LAZY_DEPTH features
    of J each per round (_LAZY_BITS_* where pairs are counted by popcounts) and every pair of a round in one count
    (``_fold_pairs``), until every candidate not up to date has a bound below the tie threshold of the best exact
    gain (``ties.ties_with``): the winner and the number tied are those of the full evaluation, ties included. The
    trace shows the exact gain of every candidate brought up to date and the bound (at least the gain) of the others.
    ``lazy=False`` counts every pair every step; the default (None) is lazy where that pays (``_lazy_pays``)."""

    lazy = False

    def __init__(self, ev: Evaluator, lazy: bool | None = None):
        self.ev = ev
        n = ev.source.n_features
        self.relevance = ev.extensions([], np.arange(n))
        self.members = np.zeros(n, dtype=bool)
        self.size = 0
        self.chosen: list[int] = []
        self.seen = np.zeros(n, dtype=np.int64)  # lazy: features of J folded into candidate j (the first seen[j])
        bits = isinstance(ev.counter, FastCounter) and ev.counter.pairs_by_popcount()
        self.batch, self.depth = (_LAZY_BITS_BATCH, _LAZY_BITS_DEPTH) if bits else (_LAZY_BATCH, _LAZY_DEPTH)

    def evaluate(self, candidates: np.ndarray) -> np.ndarray:
        if self.size == 0:
            return self.relevance[candidates]
        if self.lazy:
            self._bring_up_to_date(np.asarray(candidates, dtype=np.int64))
        return self._gain(candidates)

    def commit(self, f: int) -> None:
        self.members[f] = True
        self.size += 1
        self.chosen.append(f)
        if not self.lazy:
            others = np.flatnonzero(~self.members)
            if others.size:
                self._fold(f, others)

    def _gain(self, candidates: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _fold(self, f: int, others: np.ndarray) -> None:
        raise NotImplementedError

    def _fold_pairs(self, fs: np.ndarray, js: np.ndarray) -> None:
        raise NotImplementedError  # only criteria with a lazy bound

    def _bring_up_to_date(self, candidates: np.ndarray) -> None:
        """Fold the missing features of J into the candidates whose bound may still reach the best exact gain."""
        t = self.size
        chosen = np.asarray(self.chosen, dtype=np.int64)
        batch, depth, seen = self.batch, self.depth, self.seen
        while True:
            bound = self._gain(candidates)
            done = seen[candidates]
            exact = done == t
            if exact.any():
                best = bound[exact].max()
                still = ties_with(bound, best)
                still &= ~exact
                open_, bound, done = candidates[still], bound[still], done[still]
            else:  # the step's first round: every candidate is open
                open_ = candidates
            if open_.size == 0:
                return
            if open_.size > batch:  # the highest bounds first (the lowest index among equal bounds; open_ is sorted)
                kth = np.partition(bound, open_.size - batch)[open_.size - batch]  # the batch-th highest bound
                pick = bound > kth
                pick[np.flatnonzero(bound == kth)[:batch - int(pick.sum())]] = True
                open_, done = open_[pick], done[pick]
            batch *= 2
            stop = np.minimum(done + depth, t)
            size = stop - done
            if (size == size[0]).all() and (done == done[0]).all():  # one run of J for every candidate (common)
                fs, js = np.tile(chosen[int(done[0]):int(stop[0])], open_.size), np.repeat(open_, int(size[0]))
            else:
                js = np.repeat(open_, size)
                fs = chosen[np.repeat(done - (np.cumsum(size) - size), size) + np.arange(int(size.sum()))]
            self._fold_pairs(fs, js)
            seen[open_] = stop

class MRMRScorer(PairGainScorer):
    """mrmr: I(Xj;Y) - (1/|J|) sum_{i in J} I(Xj;Xi) (Peng et al. 2005, difference form). Lazy: I(Xj;Xi) >= 0, so
    the sum over the first features of J bounds the gain from above."""

    def __init__(self, ev: Evaluator, lazy: bool | None = None):
        super().__init__(ev)
        self.acc = np.zeros(self.members.size)
        self.lazy = (_lazy_pays(ev, self.members.size, reducer=False, min_cells=_LAZY_MRMR_CELLS) if lazy is None
                     else bool(lazy))

    def _gain(self, candidates: np.ndarray) -> np.ndarray:
        return self.relevance[candidates] - self.acc[candidates] / self.size

    def _fold(self, f: int, others: np.ndarray) -> None:
        self.acc[others] += pair_information(self.ev, np.full(others.size, f), others)

    def _fold_pairs(self, fs: np.ndarray, js: np.ndarray) -> None:
        np.add.at(self.acc, js, pair_information(self.ev, fs, js))


class JMIScorer(PairGainScorer):
    """jmi: sum_{i in J} I(Xj,Xi;Y) (Yang & Moody 1999)."""

    def __init__(self, ev: Evaluator):
        super().__init__(ev)
        self.acc = np.zeros(self.members.size)

    def _gain(self, candidates: np.ndarray) -> np.ndarray:
        return self.acc[candidates]

    def _fold(self, f: int, others: np.ndarray) -> None:
        counter = self.ev.counter
        if isinstance(counter, FastCounter) and plugin_reducer(self.ev) is not None and (
                (int(counter.arities[f]) - 1) * counter.pair_class_rows() * (counter.A - 1) <= _PAIR_ROWS
                or counter.pair_counting() == "short"):
            # binary columns, few classes: a popcount row or two a pair; many values or classes: a 2-byte key a row;
            # both without the engine's per-step states (held out, the pairs' (fold, class) counts cost the engine's
            # time: optdigits JMI 0.30 s either way)
            self.acc[others] += pair_extensions(self.ev, np.full(others.size, f), others)
        else:
            self.acc[others] += self.ev.extensions([f], others)


class CMIMScorer(PairGainScorer):
    """cmim: min(I(Xj;Y), min_{i in J} I(Xj;Y|Xi)) (Fleuret 2004; the min starts at I(Xj;Y) as in his fast CMIM
    and FEAST, so a feature that only helps jointly is not ranked above its own relevance). Lazy (Fleuret's fast
    CMIM): the partial minimum over the first features of J bounds the gain from above."""

    def __init__(self, ev: Evaluator, lazy: bool | None = None):
        super().__init__(ev)
        self.acc = self.relevance.copy()
        self.lazy = _lazy_pays(ev, self.members.size) if lazy is None else bool(lazy)

    def _gain(self, candidates: np.ndarray) -> np.ndarray:
        return self.acc[candidates]

    def _fold(self, f: int, others: np.ndarray) -> None:
        self.acc[others] = np.minimum(self.acc[others], self.ev.extensions([f], others) - self.relevance[f])

    def _fold_pairs(self, fs: np.ndarray, js: np.ndarray) -> None:
        np.minimum.at(self.acc, js, pair_extensions(self.ev, fs, js) - self.relevance[fs])


MI_GAINS = {"mrmr": MRMRScorer, "jmi": JMIScorer, "cmim": CMIMScorer}


def MIGainScorer(ev: Evaluator, kind: str, lazy: bool | None = None) -> PairGainScorer:  # noqa: N802 (a class once)
    """The pair-gain scorer of ``kind`` (:data:`MI_GAINS`); ``lazy`` for CMIM and mRMR (JMI has no bound)."""
    if kind not in MI_GAINS:
        raise ParameterError(f"unknown MI gain '{kind}'; choose one of: {', '.join(MI_GAINS)}")
    return MI_GAINS[kind](ev) if kind == "jmi" else MI_GAINS[kind](ev, lazy)


class FixedScorer:
    """Ranking: every feature has one score, independent of J (BayesScore, MIScore, Fisher score)."""

    def __init__(self, scores: np.ndarray):
        self.scores = np.asarray(scores, dtype=np.float64)

    def evaluate(self, candidates: np.ndarray) -> np.ndarray:
        return self.scores[candidates]

    def commit(self, j: int) -> None:
        pass
