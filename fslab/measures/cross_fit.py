"""The cross-fitted evaluator: held-out estimates of any table measure, at about the plug-in's counting cost.

``measure.on(source, estimate="cross-fitted", folds=F, seed=s)`` gives this evaluator. It counts a derived
sample of the same rows whose class index is ``fold * L + y`` (folds: :func:`fslab.counting.folds.assign_folds`,
i.e. :func:`fslab.row_hash.folds` over a safe number of folds), so every batched table the engines produce, fast or
plain, holds the counts of every fold at once; a table of shape (..., cells, F * L) is split into training (all
other folds) and test counts and scored by the measure's ``held_out`` function (see :mod:`fslab.measures._folds`
for the definition and the formulas).

**Safe folds.** F is the number asked, lowered to the row count of the smallest class present (a note in
``notes`` says so), so every fold holds a row of every class; a class with a single row is refused
(:class:`~fslab.counting.folds.TooFewRowsError`); a real-valued target only needs no empty fold. No held-out value
is ever ``nan``.

**Count-only sources (SQL, Dask): the seam.** A source whose rows stay in an engine declares
:class:`FoldCounting`, one method ``folded(n_folds, seed)``, and the evaluator then never sees a row. Contract:

- ``source.table([])`` gives the class counts (one cell, shape (1, L)); from them the evaluator computes the safe
  F with :func:`~fslab.counting.folds.fold_count` (every class in every fold; on ``task == "regression"`` no
  empty fold, from :func:`~fslab.counting.folds.fold_sizes`), so the refusal and the note are the same on every
  engine, and
  calls ``source.folded(F, seed)`` with ``2 <= F <= 20`` and ``0 <= seed < 2**63``.
- ``folded(F, seed)`` returns a count-only source of the same rows and features (same ``feature_names``,
  ``arities``, ``task``, ``target``, ``is_sample`` True) whose ``labels`` are ``np.tile(labels, F)`` and whose
  ``table(J)`` / ``extension_tables(J, candidates)`` return the counts of (cell, ``fold * L + y``), shapes
  (cells, F * L) and (candidates, cells, F * L), cells numbered exactly as the source's own tables number them.
  ``fold`` is :func:`fslab.row_hash.folds` of the class codes y (0..L-1, the source's ``labels`` order) with the
  rows in the source's row order (the order that ranks a row within its class: SQL ``row_number() OVER
  (PARTITION BY y ORDER BY row_id) - 1``; Dask per-partition class counts plus a running sum), computed in the
  engine: ``(j % F + row_hash(seed, y, j // F)) % F``.
- The evaluator counts nothing else: the rows of each (fold, class) are read off ``folded(...).table([])``.
  The held-out values then equal the in-memory ones for the same rows (``tests/test_folds_seam.py`` holds a
  reference implementation on an in-memory sample to this equality).

Why the fast engine's merging of pure cells stays exact: a cell pure in (fold, class) has rows in one fold
only, so for that fold it is unseen in training (the prior's rule, the same for the merged cell) and for
every other fold it has no test rows; merging such cells changes no held-out loss. Measures whose held-out
loss adds up over cells (0-1, cost-sensitive, balanced, log-loss, MI: ``spec.held_out_cells``) are summed straight
from the engine's mixed-cell counts, as their plug-in reducers are, with every pure row costing the loss of
the prior's rule, and from the occupied cells of batched tables elsewhere; F-beta, AUC and the squared error go
through their whole-table ``held_out`` functions.

**The row path** (issue 35.2; same values, less work where the engine's dense (cell, fold x class, value) counts
outgrow the rows: many classes, deep steps): the rows of a cell of J that lies in one fold keep their prior's loss
under any refinement, and the rows of a class-pure cell of a class that a pure cell and the prior's rule both get
right (0-1: the prior's class) keep loss 0, so both are left out once (:meth:`CrossFittedEvaluator._active`); the
others give one key (candidate, cell of J, X_j, fold x class) per candidate, sorted once per batch
(:meth:`CrossFittedEvaluator._row_extensions`). Log-loss and MI score every sorted entry by one formula
(``HeldOutCells.run_loss``); the decision losses sort their parts into kinds (one fold, class-pure, mixed).
"""

from __future__ import annotations

from typing import Protocol, cast, runtime_checkable

import numpy as np

from ..counting.dense import FastCounter
from ..counting.engines import counter_of
from ..counting.folds import assign_folds, check_estimate, check_seed, fold_count, split
from ..errors import ParameterError
from ..tables import CodedSource, JointTable, TableSource, readonly
from .evaluator import FAST_SHARE, TableEvaluator

ROW_KEYS = 1 << 20  # keys (row, candidate) per sorted batch of the row path (8 MiB of int64, ~10 such arrays)
ROW_RULE = 2  # the row path from (cells x fold x class x values) > ROW_RULE x its rows on (crossover 1.5-3)
# sparse counts are scored from their non-zero entries (``HeldOutCells.entry_loss``: log-loss, MI) where
# ENTRY_SHARE x entries + 2 x (cell, fold) groups <= the dense (cell, fold, class) layout (:func:`_entries_pay`)
ENTRY_SHARE = 8
CACHE_BYTES = 1 << 20  # the dense held-out rule runs on chunks of features whose counts fill about this (L2 2 MiB)


def _entries_pay(size: int, n_labels: int, nonzero: int | np.ndarray) -> bool:
    """Whether the entry form beats the dense one on ``size`` counts of (cell, fold, class), ``nonzero`` of them
    non-zero (or the counts: counted only when the answer depends on them): each entry costs about ENTRY_SHARE
    dense ones, and the entry form still lays out (cell, fold) arrays, 1 / L of the counts (so never on 2 classes).
    Measured on the engine's blocks (CPU, interleaved): optdigits (10 classes) at 0.9 % non-zero 3x cheaper, at
    12.6 % even; Gisette-shaped (2 classes) dearer at every density (1.1-1.9x at 5-26 %)."""
    room = size - 2 * size // max(n_labels, 1)
    if room <= 0:
        return False
    return ENTRY_SHARE * int(np.count_nonzero(nonzero) if isinstance(nonzero, np.ndarray) else nonzero) <= room


def fold_source(source, folds: np.ndarray, n_folds: int):
    """The same rows (codes shared, not copied) with class index ``fold * L + y`` and labels tiled per fold."""
    n_labels = len(source.labels)
    if counter_of(source) == "sparse":   # counted from its non-zeros whatever the classes
        return source.replace(y=folds * n_labels + source.y, labels=np.tile(source.labels, n_folds),
                              class_names=None, task="multiclass")
    derived = object.__new__(CodedSource)
    derived._set(X=source.X, arities=source.arities, labels=readonly(np.tile(source.labels, n_folds)),
                 y=readonly(folds * n_labels + source.y), weights=None, feature_names=source.feature_names,
                 task=source.task, target=source.target, _memo=type(source._memo)())
    return derived


@runtime_checkable
class FoldCounting(Protocol):
    """A count-only source that counts by (fold, class, cell) in its engine: see the module docstring's contract."""

    @property
    def is_sample(self) -> bool: ...

    def folded(self, n_folds: int, seed: int) -> TableSource: ...


def can_hold_out(source) -> bool:
    """True for a sample whose rows are here to split into folds, or a count-only source that counts folds in its
    engine (:class:`FoldCounting`); False for an exact Distribution."""
    return counter_of(source) == "sparse" or (isinstance(source, CodedSource) and source.is_sample) or (
        isinstance(source, FoldCounting) and bool(source.is_sample))


def require_sample(source, what: str = "the cross-fitted estimate") -> None:
    """Refuse a source without rows to hold out (an exact Distribution, a count-only source without
    :class:`FoldCounting`) with a ParameterError."""
    if not can_hold_out(source):
        raise ParameterError(f"{what} needs observed rows to hold out; a {type(source).__name__} "
                             + ("is an exact law: its plug-in values are exact (use estimate='plug-in')"
                                if isinstance(source, CodedSource) else
                                "gives only count tables: load the rows with Dataset.from_frame / from_arrays"))


def _class_names(source):
    names = getattr(source, "class_names", None)   # an encoded dataset's names; labels otherwise
    return names if names is not None and len(names) == len(source.labels) else source.labels


def _stratified(source) -> bool:
    """Folds need every class in every fold, except on a real-valued target (each value its own class)."""
    return getattr(source, "task", None) != "regression"


def usable_folds(source, folds: int, seed=0) -> tuple[int, tuple[str, ...]]:
    """(F, notes): the folds a cross-fitted estimate on ``source`` uses when ``folds`` are asked with split ``seed``
    (:func:`~fslab.counting.folds.fold_count` on its class counts: rows here, or one count of the engine); a
    :class:`~fslab.counting.folds.TooFewRowsError` when a class has a single row (a real-valued target: when
    the rows cannot fill 2 folds)."""
    require_sample(source)
    if counter_of(source) in ("dense", "sparse"):   # rows here
        assert source.y is not None   # require_sample: a sample
        counts = np.bincount(source.y, minlength=len(source.labels))
    else:
        counts = np.asarray(source.table([]).counts, dtype=np.float64).sum(axis=0)
    return fold_count(counts, check_estimate("cross-fitted", folds)[1], _class_names(source), seed=check_seed(seed),
                      stratified=_stratified(source))


class CrossFittedEvaluator(TableEvaluator):
    """C_cf(J) of a table measure (``spec.held_out``) on a sample: see the module docstring.

    ``folds`` (2 .. 20) and ``seed`` fix the stratified split (or ``folds`` gives each row's fold; ``seed`` is then
    None); ``original`` is the source as given; ``n_folds`` the folds used (fewer than asked on small classes, said
    in ``notes``), ``fold_of_row`` each row's fold (None on a count-only source: its engine assigns them).
    """

    estimate = "cross-fitted"

    def __init__(self, measure, source, engine: str = "auto", folds: int = 5, seed=0):
        _, folds = check_estimate("cross-fitted", folds)
        require_sample(source)
        if measure.spec.held_out is None:
            raise ParameterError(f"{measure.spec.label} has no cross-fitted estimate; use estimate='plug-in'")
        measure.check_labels(source.labels)
        self.original = source
        self.fold_of_row: np.ndarray | None
        if counter_of(source) in ("dense", "sparse"):   # rows here
            assert source.y is not None   # require_sample: a sample
            fold_of_row, self.n_folds, self.notes = assign_folds(source.y, folds, seed, _class_names(source),
                                                                 stratified=_stratified(source))
            self.seed = None if isinstance(folds, np.ndarray) else check_seed(seed)
            self.fold_of_row = readonly(fold_of_row)
            derived = fold_source(source, self.fold_of_row, self.n_folds)
            self._rows = np.bincount(derived.y, minlength=self.n_folds * len(source.labels)).astype(np.float64)
        else:   # count-only: the engine assigns the folds and counts by (fold, class, cell)
            if isinstance(folds, np.ndarray):
                raise ParameterError("fold indices per row need the rows here; a count-only source takes a number of "
                                     "folds")
            self.n_folds, self.notes = usable_folds(source, folds, seed)
            self.seed, self.fold_of_row = check_seed(seed), None
            derived = cast(FoldCounting, source).folded(self.n_folds, self.seed)
            self._rows = np.asarray(derived.table([]).counts, dtype=np.float64).sum(axis=0)
        self._rows = self._rows.reshape(self.n_folds, len(source.labels))
        super().__init__(measure, derived, engine)
        self._zero: np.ndarray | None = None
        self._free = np.zeros(0, dtype=bool)   # classes whose class-pure part with training rows loses nothing
        self._act: dict[tuple[int, ...], tuple] = {}

    def _check_labels(self) -> None:
        pass   # checked on the original labels (the derived source tiles them per fold)

    @property
    def mixed_cells(self):
        # the sparse engine sums plug-in reducers its own way: held-out values come from its batched tables there
        return None if counter_of(self.source) == "sparse" else self.measure.spec.held_out_cells

    def _fold_rows(self) -> np.ndarray:
        """Rows of every (test fold, class): (F, L)."""
        return self._rows

    def _finish(self, cells, rule: np.ndarray, rows: np.ndarray, prior_loss: np.ndarray) -> np.ndarray:
        """Signed fold mean of per-fold values (F, B) (``cells.finish`` against the prior alone first)."""
        if cells.finish is not None:
            rule = cells.finish(rule, (rows * prior_loss).sum(axis=1)[:, None])
        return self.sign * rule.mean(axis=0)

    def _from_mixed_cells(self, cells, subset, candidates: np.ndarray) -> np.ndarray:
        """Per fold: the mixed cells' shares of the held-out loss (``cells.cell_loss``) plus every pure row's share
        under the prior's rule (``cells.prior_loss``); then ``cells.finish`` and the fold mean."""
        counter = cast(FastCounter, self.counter)  # only the dense engine merges pure cells for held-out losses
        rows = self._fold_rows()
        F, L = rows.shape
        sums, mixed = np.zeros((F, counter.n)), np.zeros((F, L))
        for block in counter.mixed_count_blocks([int(j) for j in subset]):
            test = block.reshape((block.shape[0], F, L) + block.shape[2:])
            if cells.entry_loss is not None and _entries_pay(block.size, L, block):
                sums += self._entry_shares(cells, block)
            else:
                # features in chunks whose counts and the rule's temporaries stay in cache (Gisette-shaped MI:
                # 1.5x less time than whole 16 MB blocks); every feature's share is computed as before
                width = max(1, CACHE_BYTES // (8 * max(test[..., 0].size, 1)))
                for s in range(0, block.shape[-1], width):
                    part = test[..., s:s + width]
                    train = part.sum(axis=1, keepdims=True) - part
                    sums[:, s:s + width] += cells.cell_loss(train, part, rows, self._params).sum(axis=(0, 2))
            mixed += test[..., 0].sum(axis=(0, 3))   # the mixed rows of each (fold, class), read off feature 0
        prior_loss = cells.prior_loss(rows, self._params)
        rule = sums[:, candidates] + ((rows - mixed) * prior_loss).sum(axis=1)[:, None]
        return self._finish(cells, rule, rows, prior_loss)

    def _entry_shares(self, cells, block: np.ndarray) -> np.ndarray:
        """Per (fold, feature) sums (F, n) of ``cells.entry_loss`` over a block (C, F * L, A, n) of the engine's
        counts, read in its memory order: only the non-zero entries are scored."""
        rows = self._fold_rows()
        F, L = rows.shape
        C, _, A, n = block.shape
        perm = tuple(int(i) for i in np.argsort([-st for st in block.strides], kind="stable"))
        view = block.transpose(perm)
        flat = view.reshape(-1)   # a view when the block is contiguous in some order (the engine's blocks are)
        at = np.flatnonzero(flat)
        where = np.unravel_index(at, view.shape)
        c, q, a, j = (where[perm.index(axis)] for axis in range(4))
        fold, cls = np.divmod(q, L)
        share = cells.entry_loss((j * C + c) * A + a, fold, cls, flat[at], n * C * A, rows, self._params)
        return share.reshape(n, C * A, F).sum(axis=1).T

    def extensions(self, subset, candidates) -> np.ndarray:
        cells = self.mixed_cells
        candidates = np.asarray(candidates, dtype=np.int64)
        if cells is None or not self.has_rows or self.engine != "auto" or not self._rows_pay(cells, subset, candidates):
            return super().extensions(subset, candidates)
        return self._row_extensions(cells, list(subset), candidates)

    def _rows_pay(self, cells, subset, candidates: np.ndarray) -> bool:
        """The row path (:meth:`_row_extensions`) where the counts the other path lays out per candidate (cells of
        J x fold x class x values: the engine's mixed cells, or the plain tables' cells where the engine would not
        serve the step) exceed ROW_RULE times the rows the row path counts (:meth:`_active`; deep steps, many
        classes; bench/README.md, issue 35.2). Those rows are among the other path's (every row, or the engine's
        mixed rows), so a layout under a quarter of that bound keeps the other path without finding them."""
        counter = self.counter
        key = tuple(int(j) for j in subset)
        if (isinstance(counter, FastCounter) and FAST_SHARE * candidates.size >= self.source.n_features
                and self._fast_pays(subset)):
            state = counter._state(key)
            n_cells, n_rows = state.n_cells, state.rows.size
        else:
            n_cells, n_rows = self.cells(key)[1], self.source.n_rows
        width = int(self.source.arities[candidates].max()) if candidates.size else 1
        layout = n_cells * len(self.source.labels) * width
        # a loss whose class-pure parts cost something (log-loss, MI) scores every entry (``run_loss``): 2x the
        # threshold (Gisette-shaped MIGreedy, layout / active rows 2.5, 4.0, 5.8, 7.8 at steps 7-10: the engine
        # 0.32, 0.46, 0.59, 0.62 s, the rows 0.38, 0.44, 0.42, 0.42 s; optdigits: the rows from step 3 on)
        self._zero_loss_classes(cells)
        rule = ROW_RULE * (1 if self._free.all() else 2)
        if 4 * layout <= rule * max(n_rows, 1):
            return False
        return layout > rule * max(self._active(cells, key)[0].size, 1)

    def _zero_loss_classes(self, cells) -> np.ndarray:
        """(L,) bool: classes l whose class-pure cells lose nothing now or under any refinement. A part of such a
        cell either has training rows (all of class l: the rule of a pure-l cell) or not (the prior's rule), so
        both losses of a class-l row must be 0 in every fold: ``prior_loss`` and the loss of a pure-l cell, checked
        on one training row (a decision rule's choice on a pure cell does not depend on its count; 0-1 and balanced:
        the prior's class; log-loss and MI: none, their smoothed probability stays below 1)."""
        if self._zero is None:
            rows = self._fold_rows()
            F, L = rows.shape
            pure = np.zeros((L, F, L))
            pure[np.arange(L), :, np.arange(L)] = 1.0
            seen = np.asarray(cells.cell_loss(pure, pure, rows, self._params))          # (L, F)
            unseen = np.asarray(cells.prior_loss(rows, self._params)).T                  # (L, F)
            self._zero = ((seen == 0) & (unseen == 0)).all(axis=1)
            self._free = (seen == 0).all(axis=1)
        return self._zero

    def _pure_shares(self, cells, cls: np.ndarray, trained: np.ndarray, tested: np.ndarray,
                     fold: np.ndarray) -> np.ndarray:
        """Held-out shares of class-pure parts spread over folds: a part of class ``cls`` with ``trained`` training
        and ``tested`` test rows in fold ``fold`` (one entry each). A held-out loss adds up over the test rows under
        the rule fitted on the training rows, so the share is ``tested`` times the share of one test row:
        ``cell_loss`` on one pure table per distinct (class, training rows), every fold at once (a table of the
        pairs seen, no sort)."""
        rows = self._fold_rows()
        F, L = rows.shape
        t = trained.astype(np.int64)
        T = int(t.max()) + 1
        key = cls * T + t
        seen = np.zeros(L * T, dtype=bool)
        seen[key] = True
        uniq = np.flatnonzero(seen)
        u_cls, u_train = np.divmod(uniq, T)
        train, test = np.zeros((uniq.size, F, L)), np.zeros((uniq.size, F, L))
        train[np.arange(uniq.size), :, u_cls] = u_train[:, None]
        test[np.arange(uniq.size), :, u_cls] = 1.0
        one = np.asarray(cells.cell_loss(train, test, rows, self._params))      # (distinct, F): one test row
        return tested * one[(np.cumsum(seen) - 1)[key], fold]

    def _active(self, cells, subset: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
        """(active rows, their dense cell of J, the cells' number, the dropped rows' loss per fold (F,)).

        Dropped: the rows of a cell of J whose rows lie in ONE fold f (every part of it is unseen in training for
        f and empty in every other test fold, so each row keeps the prior's loss ``prior_loss[f, y]`` under any
        refinement), and the rows of a class-pure cell of a class in :meth:`_zero_loss_classes` (loss 0 for
        good). Exact: the held-out value of every extension of J is unchanged."""
        hit = self._act.get(subset)
        if hit is not None:
            return hit
        base, n_base = self.cells(subset)
        rows = self._fold_rows()
        F, L = rows.shape
        q = self.source.y
        fold, y = q // L, q % L
        n = np.bincount(base, minlength=n_base).astype(np.float64)

        def one_value(v):   # per cell: all rows share the value v (n sum v^2 == (sum v)^2, exact in float64)
            s1 = np.bincount(base, weights=v + 1.0, minlength=n_base)
            return n * np.bincount(base, weights=(v + 1.0) ** 2, minlength=n_base) == s1 * s1, s1

        fold_pure, _ = one_value(fold)
        class_pure, s1 = one_value(y)
        zero = self._zero_loss_classes(cells)
        cell_class = np.rint(s1 / np.maximum(n, 1.0)).astype(np.int64) - 1
        drop_cell = fold_pure | (class_pure & zero[np.clip(cell_class, 0, L - 1)])
        drop = drop_cell[base]
        fp = fold_pure[base]
        prior = np.asarray(cells.prior_loss(rows, self._params))
        const = np.bincount(fold[fp], weights=prior[fold[fp], y[fp]], minlength=F)
        act = np.flatnonzero(~drop)
        kept = np.flatnonzero(~drop_cell)
        relabel = np.full(n_base, -1, dtype=np.int64)
        relabel[kept] = np.arange(kept.size)
        out = (act, relabel[base[act]], int(kept.size), const)
        self._act[subset] = out
        while len(self._act) > 2:   # a greedy step asks one J; the next step its extension
            self._act.pop(next(iter(self._act)))
        return out

    def _row_extensions(self, cells, subset, candidates: np.ndarray) -> np.ndarray:
        """C_cf(J + {j}) for every candidate j from the rows, for a loss that adds up over cells.

        Per batch of candidates, every active row (:meth:`_active`) gives one key (candidate, cell of J, X_j,
        fold x class); one sort turns them into the occupied (part, fold, class) counts. A part whose rows lie in
        one fold costs its rows' ``prior_loss`` (unseen in training); only the parts spread over folds are laid out
        as (parts, F, L) counts for ``cell_loss``; a measure with ``run_loss`` (log-loss, MI) scores the sorted
        entries as they are (issue 35.2: Gisette-shaped MIGreedy's deep steps 1.4x less time than the kinds of
        parts). Work: rows x candidates, never cells x F x L x values."""
        rows = self._fold_rows()
        F, L = rows.shape
        act, cell, C, const = self._active(cells, tuple(int(j) for j in subset))
        prior = np.asarray(cells.prior_loss(rows, self._params))
        src = self.source
        q = src.y[act].astype(np.int64)
        A = int(src.arities[candidates].max()) if candidates.size else 1
        # key bits, low to high: fold x class (qb), value (ab), cell of J (cb), candidate: shifts, no divisions
        qb, ab, cb = (max(int(x) - 1, 0).bit_length() for x in (F * L, A, max(C, 1)))
        fold_of, class_of = np.divmod(np.arange(1 << qb), L)
        room = 62 - (cb + ab + qb)   # bits left for the candidate in an int64 key
        if room < 1:
            return super().extensions(subset, candidates)
        step = min(max(1, ROW_KEYS // max(act.size, 1)), 1 << min(room, 40))
        # uint32 keys where a batch's candidates fit in the bits left (half the bytes to sort and scan)
        kind = np.uint32 if cb + ab + qb + max(step - 1, 0).bit_length() <= 32 else np.int64
        low = ((cell << (ab + qb)) | q).astype(kind)
        # the active rows' codes, one contiguous row per feature (a batch's gather reads whole rows)
        codes = np.ascontiguousarray(src.X[act].T) if act.size else src.X[:0].T
        self._zero_loss_classes(cells)
        free, prior_flat = self._free, prior.ravel()
        rule = np.empty((F, candidates.size))
        for s0 in range(0, candidates.size, step):
            part = candidates[s0:s0 + step]
            B = part.size
            acc = np.zeros(B * F)
            if act.size:
                key = codes[part].astype(kind) << kind(qb)
                key |= low
                key |= np.left_shift(np.arange(B, dtype=kind), kind(cb + ab + qb))[:, None]
                key = np.sort(key, axis=None)
                start = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
                count = np.diff(np.append(start, key.size)).astype(np.float64)
                entry = key[start]
                sub, eq = entry >> kind(qb), (entry & kind((1 << qb) - 1)).astype(np.intp)
                ef, el = fold_of[eq], class_of[eq]
                first = np.concatenate(([True], sub[1:] != sub[:-1]))
                sid = np.cumsum(first) - 1                               # part of each entry
                sstart = np.flatnonzero(first)
                b_of = (sub[sstart] >> kind(cb + ab)).astype(np.intp)
                at = b_of[sid] * F + ef                                  # (candidate, fold) of each entry
                if cells.run_loss is not None:   # log-loss, MI: a share per entry, whatever the part's kind
                    acc += np.bincount(at, weights=cells.run_loss(sid, ef, el, count, sstart.size, rows,
                                                                  self._params), minlength=B * F)
                    rule[:, s0:s0 + B] = acc.reshape(B, F).T + const[:, None]
                    continue
                send = np.append(sstart[1:], sub.size) - 1
                spread = ef[sstart] != ef[send]                          # entries sort by (part, fold, class)
                split = spread[sid]
                acc += np.bincount(at, weights=count * prior_flat[eq] * ~split, minlength=B * F)
                # class-pure parts: no class change between consecutive entries of the part (running sums of
                # whole numbers: exact, and cheaper than reductions per part)
                change = np.cumsum(np.concatenate(([0], (el[1:] != el[:-1]) & ~first[1:])))
                pure = change[send] == change[sstart]
                # a class-pure part spread over folds: every fold with test rows has training rows, all of its class,
                # so its loss in fold f is 0 for a class of ``free`` (a pure cell's rule gets it right: 0-1 and
                # balanced, every class), else a function of (class, training rows, test rows, f) only: ``cell_loss``
                # once per distinct tuple (the same arithmetic as a whole layout)
                pe = np.zeros(0, dtype=np.intp) if free.all() else np.flatnonzero(split & pure[sid] & ~free[el])
                if pe.size:
                    running = np.cumsum(count)
                    size = running[send] - running[sstart] + count[sstart]       # rows of each part
                    acc += np.bincount(at[pe], weights=self._pure_shares(
                        cells, el[pe], size[sid[pe]] - count[pe], count[pe], ef[pe]), minlength=B * F)
                many = np.flatnonzero(spread & ~pure)
                if many.size:
                    # the entries of those parts: contiguous runs sstart .. send, gathered without a pass over all
                    width = send[many] - sstart[many] + 1
                    d = np.repeat(np.arange(many.size), width)
                    pick = np.arange(d.size) + np.repeat(sstart[many] - (np.cumsum(width) - width), width)
                    n_pick = count[pick]
                    test = np.zeros(many.size * F * L)
                    test[(d * F + ef[pick]) * L + el[pick]] = n_pick
                    test = test.reshape(many.size, F, L)
                    total = np.bincount(d * L + el[pick], weights=n_pick, minlength=many.size * L)
                    train = total.reshape(many.size, 1, L) - test
                    share = np.asarray(cells.cell_loss(train, test, rows, self._params))    # (parts, F)
                    acc += np.bincount((b_of[many][:, None] * F + np.arange(F)).ravel(), weights=share.ravel(),
                                       minlength=B * F)
            rule[:, s0:s0 + B] = acc.reshape(B, F).T + const[:, None]
        return self._finish(cells, rule, rows, prior)

    def pair_criteria(self, counts: np.ndarray) -> np.ndarray:
        """C({f_p, j_p}) for every pair p from the engine's pair counts (P, a, F * L, A) of (X_f = u, fold x class,
        X_j = v) (:meth:`FastCounter.pair_key_counts` on the derived source): :meth:`table_criteria` of the pairs'
        (u, v) tables, from the non-zero entries straight from the counts where the measure has an entry form and
        they are sparse (:func:`_entries_pay`), without laying the tables out."""
        cells = self.measure.spec.held_out_cells
        P, a, FL, A = counts.shape
        rows = self._fold_rows()
        F, L = rows.shape
        if cells is None:
            return np.atleast_1d(self.table_criteria(JointTable(
                counts.transpose(0, 1, 3, 2).reshape(P, a * A, FL), self.source.labels)))
        if cells.entry_loss is None or not _entries_pay(counts.size, L, counts):
            # the dense rule on the counts as they lie, (P a, F, L, A) (an empty cell's share is 0): no transposed
            # copy, table check or gather of occupied cells (optdigits' held-out CMIM pairs 1.6x less time)
            test = counts.reshape(P * a, F, L, A)
            share = cells.cell_loss(test.sum(axis=1, keepdims=True) - test, test, rows, self._params)
            return self._finish(cells, share.reshape(P, a, F, A).sum(axis=(1, 3)).T, rows,
                                cells.prior_loss(rows, self._params))
        flat = counts.reshape(-1)
        at = np.flatnonzero(flat)
        p_u, q, v = np.unravel_index(at, (P * a, FL, A))
        fold, cls = np.divmod(q, L)
        share = cells.entry_loss(p_u * A + v, fold, cls, flat[at], P * a * A, rows, self._params)
        return self._finish(cells, share.reshape(P, a * A, F).sum(axis=1).T, rows, cells.prior_loss(rows, self._params))

    def table_criteria(self, table: JointTable) -> np.ndarray:
        cells = self.measure.spec.held_out_cells
        if cells is None:   # F-beta, AUC, squared: the measure's held-out function on whole tables
            train, test = split(table.counts, self.n_folds)
            per_fold = self.measure.spec.held_out(train, test, self.original.labels, **self._params)
            return self.sign * np.asarray(per_fold, dtype=np.float64).mean(axis=-1)
        return self._occupied_criteria(cells, table.counts)

    def _occupied_criteria(self, cells, counts: np.ndarray) -> np.ndarray:
        """A loss that adds up over cells, from the occupied cells of every table only (batched tables are
        mostly empty cells: padded values, deep subsets): shares summed per (table, fold) by ``np.bincount``."""
        rows = self._fold_rows()
        F, L = rows.shape
        batch = counts.shape[:-2]
        flat = counts.reshape(-1, counts.shape[-2], counts.shape[-1])
        n_tables = flat.shape[0]
        if cells.entry_loss is not None and _entries_pay(flat.size, L, flat):   # log-loss, MI
            which, cell, q = np.nonzero(flat)
            fold, cls = np.divmod(q, L)
            share = cells.entry_loss(which * flat.shape[1] + cell, fold, cls, flat[which, cell, q],
                                     n_tables * flat.shape[1], rows, self._params)
            rule = share.reshape(n_tables, flat.shape[1], F).sum(axis=1).T
            out = self._finish(cells, rule, rows, cells.prior_loss(rows, self._params))
            return out.reshape(batch) if batch else out[0]
        which, cell = np.nonzero(flat.sum(axis=-1) > 0)
        test = flat[which, cell].reshape(-1, F, L)
        train = test.sum(axis=1, keepdims=True) - test
        share = cells.cell_loss(train, test, rows, self._params)              # (occupied cells, F)
        index = (which[:, None] * F + np.arange(F)).ravel()
        rule = np.bincount(index, weights=share.ravel(), minlength=n_tables * F).reshape(n_tables, F).T
        out = self._finish(cells, rule, rows, cells.prior_loss(rows, self._params))
        return out.reshape(batch) if batch else out[0]
