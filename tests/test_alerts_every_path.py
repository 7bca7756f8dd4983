"""The leak alerts of a selection are the same in memory, in a SQL engine and on Dask (code_alerts counts each
column with the class in the source's own engine when the codes are not in memory). Before, --sql and Dask printed
no leak warning for a column that restates the target."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fslab
from fslab.alerts import code_alerts


def _table(n: int = 600) -> pd.DataFrame:
    rng = np.random.default_rng(2)
    y = rng.random(n) < 0.4
    return pd.DataFrame({"noise": rng.integers(0, 4, n), "refund_flag": np.where(y, "R", "N"),
                         "signal": np.where(rng.random(n) < 0.8, y, rng.random(n) < 0.5).astype(int),
                         "churned": np.where(y, "yes", "no")})


@pytest.mark.slow  # a DuckDB table and a Dask graph: ~1 s
def test_the_same_leak_alerts_in_memory_in_sql_and_on_dask(tmp_path):
    import dask.dataframe as dd

    frame = _table()
    frame.to_csv(tmp_path / "t.csv", index=False)
    memory = fslab.Dataset.from_frame(frame, target="churned", positive="yes").discretize()
    sql = fslab.from_sql(str(tmp_path / "t.csv"), "churned", positive="yes")
    dask = fslab.Dataset.from_dask(dd.from_pandas(frame, npartitions=2), target="churned", positive="yes")
    want = code_alerts(memory)
    assert [(a.kind, a.columns) for a in want] == [("function-of-target", ("refund_flag",))]
    for source in (sql, dask):
        assert source.feature_names == memory.feature_names
        assert code_alerts(source) == want
        assert code_alerts(source, [0, 2]) == ()          # the columns asked for only
        picked = fslab.select(source, 2, "jmi")
        assert [a.columns for a in picked.alerts] == [("refund_flag",)]
