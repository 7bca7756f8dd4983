"""from_dask on a real LocalCluster (two worker processes on 127.0.0.1, the `client` fixture) against the in-memory
default, on the tables of fslab.data.messy and an analyst's export (tests/test_dask_plan.py's): the same plan and
codes, the same count tables, the same held-out values and the same picks for BayesGreedy (balanced error, held out),
MIGreedy and JMI (issue 31, "Done when")."""

from __future__ import annotations

import numpy as np
import pytest

import fslab

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

from fslab.data.dask_read import from_dask  # noqa: E402
from tests import dask_cluster  # noqa: E402
from tests.test_dask_plan import in_memory, plan_record, tables  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.cluster]   # tests/dask_cluster.py's LocalCluster of two worker processes
dask_client = dask_cluster.dask_client   # the fixture (module-scoped `pairs` takes the session's client itself)

# the in-memory default for a user's file: held out (5 folds, seed 0)
CASES = [("bayes-greedy", {"measure": "balanced"}), ("mi-greedy", {}), ("jmi", {})]


@pytest.fixture(scope="module")
def pairs(dask_client):
    """(name, in-memory encoded dataset, DaskSource read in 3 partitions on the workers) for every table."""
    return [(name, in_memory(df, target), from_dask(dd.from_pandas(df, npartitions=3, sort=False), target))
            for name, df, target in tables()]


def test_same_plan_codes_and_tables(pairs):
    for name, enc, src in pairs:
        unknown = {c.name for c in src.plan.columns if c.n_distinct == -1}
        assert plan_record(src.plan) == plan_record(enc.plan, unknown), name
        got = src.to_encoded()
        np.testing.assert_array_equal(got.X, enc.X)
        np.testing.assert_array_equal(got.y, enc.y)
        for subset in [(), (0,), (1, 2)]:
            np.testing.assert_array_equal(src.table(subset).counts, enc.table(subset).counts)
        rest = [j for j in range(enc.n_features) if j != 0]
        np.testing.assert_array_equal(src.extension_tables([0], rest).counts, enc.extension_tables([0], rest).counts)


def test_same_held_out_values_and_picks(pairs):
    picked = {}
    for name, enc, src in pairs:
        ev = fslab.measure("balanced").on(src, estimate="cross-fitted")
        mem = fslab.measure("balanced").on(enc, estimate="cross-fitted")
        assert ev.n_folds == mem.n_folds == 5
        for subset in [(), (0,), (1, 2)]:
            assert ev.value(subset) == mem.value(subset), (name, subset)
        for selector, kw in CASES:
            got = fslab.select(src, 3, selector, estimate="cross-fitted", **kw)
            want = fslab.select(enc, 3, selector, estimate="cross-fitted", **kw)
            assert got.names == want.names, (name, selector)
            np.testing.assert_allclose(got.scores, want.scores, rtol=1e-12, atol=1e-15)
            picked[name, selector] = got.names
    # the planted signal, not the mess, comes first held out on the export
    assert picked["export", "bayes-greedy"][0] in ("rate", "amount", "plan")
