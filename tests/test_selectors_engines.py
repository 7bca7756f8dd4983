"""The one oracle of the fast engine: select(engine="auto") == select(engine="plain").

Every selector (and s = 2 where it applies) x every measure x {binary, multiclass, real-valued target} x
{sample, exact distribution}, on hypothesis-generated data: the same features, scores and full traces,
or, where the combination is not supported, the same error in both engines.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fslab.data.distributions import Distribution
from fslab.data.encoded import EncodedDataset
from fslab.errors import FslabError, ParameterError
from fslab.measures import MEASURES
from fslab.selectors import SELECTORS, select

RUNS = [(sel, None) for sel in SELECTORS] + [("bayes-greedy", 2), ("backward", 2), ("mi-greedy", 3)]
CASES = [(sel, s, name) for sel, s in RUNS
         for name in (MEASURES if SELECTORS[sel].uses_measure and not SELECTORS[sel].fixed_measure else ["zero-one"])]
TARGETS = ("binary", "multiclass", "real")


@st.composite
def sources(draw):
    """A small sample or exact law with a binary, 3-class or real-valued (5 numeric values) target."""
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    target = draw(st.sampled_from(TARGETS))
    exact = draw(st.booleans())
    n = draw(st.integers(2, 4))
    arities = rng.integers(2, 4, n)
    n_labels = {"binary": 2, "multiclass": 3, "real": 5}[target]
    labels = np.sort(rng.normal(size=n_labels)) if target == "real" else np.arange(n_labels)
    if exact:
        states = np.array(list(itertools.product(*[range(a) for a in arities])))
        probs = rng.dirichlet(np.full(states.shape[0] * n_labels, 0.5)).reshape(-1, n_labels)
        return Distribution(states, probs, labels=labels, arities=arities)
    m = draw(st.integers(20, 150))
    X = (rng.random((m, n)) * arities).astype(int)
    y = (X[:, 0] + rng.integers(0, 2, m) * rng.integers(0, n_labels, m)) % n_labels
    y[:n_labels] = np.arange(n_labels)  # every class present
    task = {"binary": "binary", "multiclass": "multiclass", "real": "regression"}[target]
    return EncodedDataset(X, y, labels=labels, arities=arities, task=task)


def _run(src, selector, s, name, k, engine):
    try:
        return select(src, k, selector, measure=name, s=s, engine=engine)
    except FslabError as err:
        return err


@pytest.mark.slow  # 1.72 s measured (inner loop: unit and not slow)
@pytest.mark.parametrize(("selector", "s", "name"), CASES, ids=[f"{a}-s{b}-{c}" for a, b, c in CASES])
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(src=sources(), k_fraction=st.floats(0.0, 1.0))
def test_fast_engine_equals_plain_engine(selector, s, name, src, k_fraction):
    n = src.n_features
    k = 1 + int(k_fraction * (n - 1))
    if s is not None and SELECTORS[selector].kind == "backward":
        k = max(k, 1)
    auto, plain = _run(src, selector, s, name, k, "auto"), _run(src, selector, s, name, k, "plain")
    if isinstance(plain, Exception) or isinstance(auto, Exception):
        assert type(auto) is type(plain) and str(auto) == str(plain)
        return
    assert auto.features == plain.features
    np.testing.assert_allclose(auto.scores, plain.scores, rtol=1e-9, atol=1e-12)
    a, p = auto.trace, plain.trace
    assert list(a.columns) == list(p.columns)
    value_cols = ["value"]
    pd.testing.assert_frame_equal(a.drop(columns=value_cols), p.drop(columns=value_cols))
    np.testing.assert_allclose(a["value"].to_numpy(float), p["value"].to_numpy(float), rtol=1e-9, atol=1e-12)


class _TablesOnly:
    """A TableSource that exposes only the protocol (no row codes), like a partitioned (Dask) source."""

    def __init__(self, inner):
        self._inner = inner
        self.feature_names, self.arities, self.labels = inner.feature_names, inner.arities, inner.labels

    @property
    def n_features(self) -> int:
        return self._inner.n_features

    @property
    def is_sample(self) -> bool:
        return self._inner.is_sample

    def table(self, subset):
        return self._inner.table(subset)

    def extension_tables(self, subset, candidates):
        return self._inner.extension_tables(subset, candidates)


@pytest.mark.parametrize("selector",
                         ["bayes-greedy", "backward", "exhaustive", "mi-greedy", "jmi", "mrmr", "bayes-score"])
def test_a_source_with_only_the_protocol_gives_the_same_selection(selector):
    from fslab.tables import TableSource

    rng = np.random.default_rng(5)
    X = rng.integers(0, 3, (300, 5))
    ds = EncodedDataset(X, (X[:, 0] + X[:, 3] + rng.integers(0, 2, 300)) % 2)
    bare = _TablesOnly(ds)
    assert isinstance(bare, TableSource)
    a, b = select(ds, 3, selector), select(bare, 3, selector)
    assert a.features == b.features
    np.testing.assert_allclose(a.trace["value"].to_numpy(float), b.trace["value"].to_numpy(float), rtol=1e-9)


def test_mrmr_on_a_source_whose_pair_tables_come_back_as_occupied_cells_only_is_refused_clearly():
    """Ten rows of 30-valued features: (X_f, X_j) has 900 cells > 2 x rows, so only occupied cells come back."""
    rng = np.random.default_rng(2)
    X = rng.integers(0, 30, (10, 4))
    ds = EncodedDataset(X, rng.integers(0, 2, 10), arities=[30] * 4)
    select(ds, 2, "mrmr")   # rows in memory: fine
    with pytest.raises(ParameterError, match="occupied cells.*Dataset.from_frame"):
        select(_TablesOnly(ds), 2, "mrmr")


def test_criteria_that_read_rows_are_refused_on_a_source_without_rows():
    """Declared ``needs_rows`` (Fisher, precision / recall): one ParameterError, never an AttributeError."""
    from fslab.criteria import bayes_value

    rng = np.random.default_rng(5)
    X = rng.integers(0, 3, (100, 4))
    ds = EncodedDataset(X, X[:, 0] % 2)
    bare = _TablesOnly(ds)
    needing = {name for name, spec in SELECTORS.items() if spec.needs_rows}
    assert needing == {"fisher", "precision-greedy", "recall-greedy"}
    for name in needing:
        select(ds, 2, name)
        with pytest.raises(ParameterError, match="needs the rows in memory.*Dataset.from_frame / from_arrays"):
            select(bare, 2, name)
    assert {name for name, spec in MEASURES.items() if spec.needs_rows} == {"precision", "recall"}
    for name in ("precision", "recall"):
        bayes_value(ds, [0, 1], name)
        with pytest.raises(ParameterError, match="needs the rows in memory"):
            bayes_value(bare, [0, 1], name)
