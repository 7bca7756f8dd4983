"""Feature-pair tables n(X_j = u, X_f = v) for mRMR's redundancy terms, and C({f, j}) for a few candidates.

The fast engine counts them from its value indicators on samples; any other source with row codes is
counted by the source's own ``extension_tables`` with X_f in the place of the class (each row's mass split
by X_f for an exact distribution), so there is no second copy of the counting code. A source without rows
(a Dask source) gives them as its tables of (X_f, X_j, Y) summed over Y.
"""

from __future__ import annotations

import numpy as np

from ..counting.dense import FastCounter
from ..errors import ParameterError
from ..information import mutual_information
from ..tables import CodedSource, JointTable

_PAIR_ENTRIES = 1 << 21  # pair counts held at once (16 MiB of int64)


def feature_pair_counts(ev, f: int, candidates: np.ndarray) -> np.ndarray:
    """Counts n(X_j = u, X_f = v) for every candidate j: shape (B, max arity of candidates, a_f)."""
    if ev.counter is not None:  # the fast engine of a table evaluator on a sample
        return ev.counter.pair_counts(f, candidates)
    source = ev.source
    a_f = int(source.arities[f])
    if not isinstance(source, CodedSource):  # no rows here (a Dask source): (X_f, X_j, Y) tables summed over Y
        width = int(source.arities[candidates].max())
        t = source.extension_tables([f], candidates).counts.sum(axis=-1)
        if t.shape[1] != a_f * width:  # only the occupied cells came back: the values of X_j are not addressable
            raise ParameterError(f"mRMR's feature-pair tables of a {type(source).__name__} came back as occupied "
                                 "cells only (more cells than rows); load the data with Dataset.from_frame / "
                                 "from_arrays, or use JMI or CMIM")
        # contiguous like the coded path, so the MI sums run in the same order (bit-identical values)
        return np.ascontiguousarray(t.reshape(len(candidates), a_f, width).transpose(0, 2, 1))
    values = np.arange(a_f)
    if source.is_sample:
        by_f = CodedSource(source.X, source.arities, values, y=source.X[:, f])
    else:
        assert source.weights is not None  # an exact law: class weights per row
        mass = source.weights.sum(axis=1)
        by_f = CodedSource(source.X, source.arities, values,
                           weights=(source.X[:, f][:, None] == values) * mass[:, None])
    return by_f.extension_tables([], candidates).counts


def plugin_reducer(ev):
    """The plug-in mixed-cell reducer of ``ev`` when its dense fast engine can count a few columns or pairs, else
    None (a held-out evaluator's engine counts fold-classes: its values come from ``ev.extensions``)."""
    counter, reducer = ev.counter, ev.measure.spec.mixed_cells
    if ev.estimate != "plug-in" or not isinstance(counter, FastCounter) or reducer is None or not counter.merge_pure:
        return None
    return reducer


def held_out_pairs(ev) -> bool:
    """Whether ``ev`` is a cross-fitted evaluator whose dense engine counts (fold, class) indices and whose loss adds
    up over cells (``table_criteria`` then scores a pair's table from its occupied cells: 0-1, log-loss, MI, ...)."""
    return (ev.estimate != "plug-in" and isinstance(ev.counter, FastCounter)
            and getattr(ev, "mixed_cells", None) is not None)


def pair_extensions(ev, firsts: np.ndarray, seconds: np.ndarray) -> np.ndarray:
    """C({f_p, j_p}) for each pair p, as ``ev.extensions([f_p], [j_p])``: on a dense fast engine with the measure's
    plug-in reducer one count of every pair (``FastCounter.pair_key_counts``: the reducer's sum over the cells of
    (X_f, X_j), where pure cells add 0); held out (:func:`held_out_pairs`) one count of every pair by (fold, class),
    n(X_f = u, fold-class, X_j = v), scored as the pairs' tables of (u, v) cells; otherwise the candidates of each
    first feature together."""
    firsts, seconds = np.asarray(firsts, dtype=np.int64), np.asarray(seconds, dtype=np.int64)
    reducer = plugin_reducer(ev)
    if reducer is None and firsts.size and held_out_pairs(ev):
        # (P, a, F L, A) counts: the derived source's fold-classes, scored by the evaluator without a table
        return np.atleast_1d(ev.pair_criteria(ev.counter.pair_key_counts(firsts, seconds)))
    if reducer is None:
        out = np.empty(firsts.size)
        for f in np.unique(firsts):
            mine = firsts == f
            out[mine] = few_extensions(ev, int(f), seconds[mine])
        return out
    counter, params = ev.counter, dict(ev.measure.params)
    sums = np.empty(firsts.size)
    step = _pair_step(counter, counter.L)
    for p0 in range(0, firsts.size, step):  # (P, a, L, A): the cells (u, v) of each pair, by class
        counts = counter.pair_key_counts(firsts[p0:p0 + step], seconds[p0:p0 + step])
        sums[p0:p0 + step] = reducer.cell_sums(counts.transpose(1, 2, 3, 0), params, counter.nlogn)
    return ev.sign * np.atleast_1d(np.asarray(reducer.value(sums, counter.m, counter.class_sizes, params),
                                              dtype=np.float64))


def _pair_step(counter: FastCounter, L: int) -> int:
    """Pairs counted together: their counts (a x L x A each) within _PAIR_ENTRIES (JMI pairs every candidate)."""
    return max(1, _PAIR_ENTRIES // (int(counter.A) ** 2 * L))


def pair_information(ev, firsts: np.ndarray, seconds: np.ndarray) -> np.ndarray:
    """I(X_j; X_f) in bits for each pair (f, j) = (firsts[p], seconds[p]) (mRMR's redundancy terms): one count of
    every pair on a dense fast engine (``FastCounter.pair_key_counts`` without the class), otherwise the candidates
    of each first feature together (:func:`feature_pair_counts`)."""
    firsts, seconds = np.asarray(firsts, dtype=np.int64), np.asarray(seconds, dtype=np.int64)
    counter = ev.counter
    if isinstance(counter, FastCounter):
        # m I = sum n_uv ln n_uv - sum n_u ln n_u - sum n_v ln n_v + m ln m: the whole counts index the k ln k table,
        # and each feature's margin term is its value counts' (summed over the classes), once per call
        nlogn = counter.nlogn
        joint = np.empty(firsts.size)
        step = _pair_step(counter, 1)
        for p0 in range(0, firsts.size, step):
            counts = counter.pair_key_counts(firsts[p0:p0 + step], seconds[p0:p0 + step], classes=False)  # (P, a, A)
            joint[p0:p0 + step] = nlogn[counts.reshape(counts.shape[0], -1)].sum(axis=1)
        margin = nlogn[counter.marginal.sum(axis=0).astype(np.int64)].sum(axis=1)  # (n,)
        mi = joint - margin[firsts] - margin[seconds] + nlogn[counter.m]
        return np.maximum(mi, 0.0) / (counter.m * np.log(2.0))
    out = np.empty(firsts.size)
    for f in np.unique(firsts):
        mine = firsts == f
        pairs = feature_pair_counts(ev, int(f), seconds[mine])
        out[mine] = mutual_information(JointTable(pairs, np.arange(pairs.shape[-1])), unit="bits")
    return out


def few_extensions(ev, f: int, candidates: np.ndarray) -> np.ndarray:
    """C({f, j}) for candidates j, as ``ev.extensions([f], candidates)``; a dense fast engine with the measure's
    plug-in mixed-cell reducer counts only these candidates' columns (lazy CMIM brings a few candidates up to date
    at a time, where the evaluator would count every feature or fall back to per-candidate tables)."""
    counter, reducer = ev.counter, plugin_reducer(ev)
    if reducer is None:
        return ev.extensions([f], candidates)
    params = dict(ev.measure.params)
    sums = counter.cell_sums([int(f)], reducer, params, features=np.asarray(candidates, dtype=np.int64))
    class_counts = counter.class_sizes
    return ev.sign * np.atleast_1d(np.asarray(reducer.value(sums, counter.m, class_counts, params), dtype=np.float64))
