"""A toy data source in one file (issue 36.3): rows as Python dicts that fslab never holds, the way an engine keeps
them. What it shares with every other source comes from the plan (fslab.data.plan): the typing of each column, the
ID, constant and target rules from chunk summaries merged (``summarize``, ``merge``, ``decide``), each chunk read
and coded by the plan (``apply``, ``code``), and the folds of held-out estimates (``fslab.row_hash.folds``). What is
its own: counting tables by (cell, class) over its chunks, and by (cell, fold x class) for the count-only seam of
the cross-fitted evaluator (``folded``, :class:`fslab.measures.cross_fit.FoldCounting`), with each row weighed by
its Poisson weight for NPFS's bootstraps (``bootstrap``, the weights of ``fslab.row_hash.poisson_weights`` that the
Dask and SQL sources draw).

``open_rows`` is its opener for fslab.data.registry (``register_source("rows", open_rows)``, or an entry point of the
group ``fslab.sources``): DATA ``rows:path.jsonl`` on the command line, ``fslab.data.registry.open_source`` in the
library, a ``.jsonl`` upload on the Data page.

The cut points come from :func:`fslab.data.discretize.encode_frame` on the typed rows (in memory: this toy is
small); an engine whose rows do not fit computes them from global statistics, as ``from_sql`` and ``from_dask`` do
today, the one step no shared function does yet.
"""

from __future__ import annotations

import copy
import functools
import json

import numpy as np
import pandas as pd

from fslab import row_hash
from fslab.data.discretize import encode_frame
from fslab.data.encoded import EncodedDataset
from fslab.data.plan import PlanOptions, apply, code, decide, merge, summarize
from fslab.errors import DataError
from fslab.tables import JointTable


class RowsSource:
    """A count-only table source over a list of dict rows read in chunks of ``chunk`` rows (a binary text target)."""

    is_sample = True
    _weights: list[np.ndarray] | None = None   # a bootstrap view's row weights, per chunk

    def __init__(self, rows: list[dict], target: str, method: str = "mean-std", bins: int = 3, chunk: int = 100,
                 positive: str | None = None, *, _parts=None, _labels=None, _plan=None):
        if _parts is not None:   # a folded view: the same codes, class index fold * L + y
            self._parts, self.labels, self.plan = _parts, _labels, _plan
        else:
            frames = [pd.DataFrame(rows[i:i + chunk]) for i in range(0, len(rows), chunk)]
            summary = functools.reduce(merge, (summarize(f, target) for f in frames))
            plan = decide(summary, PlanOptions(positive=positive))
            if plan.target is None or plan.target.task != "binary":
                raise DataError(f"the rows source counts a binary target; {target!r} is not one: choose another "
                                "target column")
            typed = [apply(plan, f) for f in frames]
            enc = encode_frame(pd.concat(typed, ignore_index=True), method, bins)
            self.plan = plan.with_coding(enc.kinds, enc.categories, method, bins, enc.edges, enc.levels)
            positive = self.plan.target.positive
            self._parts = [(code(self.plan, t), (f[target].astype(str).str.strip() == positive).to_numpy(np.int64))
                           for t, f in zip(typed, frames, strict=True)]
            self.labels = np.arange(2)
        self.feature_names = tuple(c.name for c in self.plan.kept)
        self.arities = np.array([len(c.levels) for c in self.plan.kept], dtype=np.int64)
        self.task, self.target = "binary", self.plan.target.name

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    @property
    def n_rows(self) -> int:
        return sum(len(y) for _, y in self._parts)

    @property
    def class_names(self) -> tuple[str, ...]:
        return tuple(self.plan.target.classes)

    @property
    def notes(self) -> tuple[str, ...]:
        return tuple(self.plan.describe(estimate=False))

    def _cells(self, subset) -> list[np.ndarray]:
        """Each chunk's mixed-radix cell of ``subset`` (the cells of every chunk numbered alike)."""
        out = []
        for X, _ in self._parts:
            cell = np.zeros(X.shape[0], dtype=np.int64)
            for j in subset:
                cell = cell * self.arities[j] + X[:, j]
            out.append(cell)
        return out

    def table(self, subset) -> JointTable:
        L = len(self.labels)
        cells = int(np.prod([self.arities[j] for j in subset], dtype=np.int64)) if len(subset) else 1
        counts = np.zeros(cells * L)
        weights = self._weights or [None] * len(self._parts)
        for cell, (_, y), w in zip(self._cells(subset), self._parts, weights, strict=True):
            counts += np.bincount(cell * L + y, weights=w, minlength=cells * L)
        return JointTable(counts.reshape(cells, L), self.labels)

    def extension_tables(self, subset, candidates) -> JointTable:
        tables = [self.table([*subset, c]).counts for c in candidates]
        width = max(t.shape[0] for t in tables)
        return JointTable(np.stack([np.pad(t, ((0, width - t.shape[0]), (0, 0))) for t in tables]), self.labels)

    def folded(self, n_folds: int, seed: int) -> RowsSource:
        """The seam: folds of fslab.row_hash over the class codes in row order, class index fold * L + y."""
        y = np.concatenate([y for _, y in self._parts])
        fold = row_hash.folds(y, n_folds, seed)
        L, starts = len(self.labels), np.cumsum([0, *(len(y) for _, y in self._parts)])
        parts = [(X, fold[a:b] * L + yy) for (X, yy), a, b in zip(self._parts, starts[:-1], starts[1:], strict=True)]
        view = RowsSource([], "", _parts=parts, _labels=np.tile(self.labels, n_folds), _plan=self.plan)
        view._weights = self._weights   # a bootstrap's row counts w_i times in its own fold
        return view

    def bootstrap(self, key: int, mean: float = 1.0) -> RowsSource:
        """NPFS's seam: a view counting row i (in row order) w_i ~ Poisson(mean) times, w_i of fslab.row_hash."""
        starts = np.cumsum([0, *(len(y) for _, y in self._parts)])
        view = copy.copy(self)
        view._weights = [row_hash.poisson_weights(np.arange(a, b), key, mean)
                         for a, b in zip(starts[:-1], starts[1:], strict=True)]
        return view

    def to_encoded(self) -> EncodedDataset:
        """The rows handed over as codes, when they fit in memory: what the app's pages take (ui.state)."""
        X = np.concatenate([X for X, _ in self._parts]).astype(np.uint8)
        return EncodedDataset(X, np.concatenate([y for _, y in self._parts]), labels=self.labels,
                              feature_names=self.feature_names, arities=self.arities, target=self.target,
                              class_names=self.plan.target.classes, task=self.task,
                              categories=tuple(c.levels for c in self.plan.kept), plan=self.plan,
                              notes=self.plan.describe())


def open_rows(location: str | bytes, *, target=None, positive=None, method="auto", bins=3) -> RowsSource:
    """Rows as JSON lines.

    One object per line, counted in chunks. ``location``: a file's path, or an upload's bytes; ``target``: the last
    key of the first row by default."""
    if isinstance(location, str):
        with open(location, "rb") as fh:
            location = fh.read()
    rows = [json.loads(line) for line in location.decode("utf-8").splitlines() if line.strip()]
    if not rows or not all(isinstance(r, dict) for r in rows):
        raise ValueError("expected one JSON object per line")
    return RowsSource(rows, target if target is not None else list(rows[0])[-1], method, bins, positive=positive)
