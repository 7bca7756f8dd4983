"""The outlier sentence on every path: a SQL engine (``from_sql``) and Dask (``from_dask``) say memory's words, word for
word, for the same table and binning (``Dataset.from_frame(...).discretize(method).notes``), from what the engines
count (exact order statistics for the quartiles, one count of the rows beyond the fences)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import fslab
from fslab.data.data_checks import outlier_words
from tests import sql_engines
from tests.sql_engines import ENGINES, load

engine, postgres_server = sql_engines.engine, sql_engines.postgres_server   # the engines' fixtures
pytestmark = [
    pytest.mark.filterwarnings("ignore:The 'future.infer_string' option is deprecated"),
    pytest.mark.filterwarnings("ignore:fetch_arrow_table\\(\\) is deprecated"),
]

METHODS = ("auto", "mean-std", "uniform", "quantile")
# tenure: 1..40 three times with one 6 replaced by 9999 (tests/test_outlier_notes.py works it by hand): Q1 = 11,
# Q3 = 31, fences [-49, 91]; 119 of 120 rows in the middle mean-std bin (99%); quantile bins at most 42 rows (35%)
TENURE = ("Column 'tenure' has 1 outlier(s) (9999; beyond [Q1 - 3 IQR, Q3 + 3 IQR] = [-49, 91]): three mean-std bins "
          "put 99% of the rows in one bin, so robust bins (auto) give it 3 quantile bins, with at most 35% in one. Fix "
          "the values if they are errors.")
# visits: 102 zeros, 1..17 and 500 (19 distinct whole numbers: binned). Q1 = Q3 = 0, so the 18 non-zero rows are
# beyond [0, 0]; mean 653 / 120 = 5.44, sigma = sqrt((251,785 - 120 x 5.44^2) / 119) = 45.7, edges -40.2 and 51.1
# leave every row but 500 in the middle bin (119 / 120 = 99%); both quantile edges are 0 (tied, merged): 100% in one
VISITS = ("Column 'visits' has 18 outlier(s) (1, 2, 3, ...; beyond [Q1 - 3 IQR, Q3 + 3 IQR] = [0, 0]): three "
          "mean-std bins put 99% of the rows in one bin, and 3 quantile bins would not spread them (many rows share "
          "one value: 100% in one), so robust bins (auto) keep mean-std bins. Fix the values if they are errors.")


def export(m: int = 120) -> pd.DataFrame:
    """A table as analysts export it: a planted outlier (tenure), a normal column (income, 6 missing), a skewed
    whole-number column (visits), a lognormal amount with missing values and two planted spikes (spend), a text
    column and a yes/no target."""
    rng = np.random.default_rng(3)
    tenure = np.tile(np.arange(1, 41), 3).astype(float)
    tenure[5] = 9999
    income = np.round(rng.normal(50_000, 8_000, m))
    income[rng.choice(m, 6, replace=False)] = np.nan
    visits = rng.permutation(np.r_[np.zeros(102, dtype=np.int64), np.arange(1, 18), 500])
    spend = np.round(rng.lognormal(3, 0.5, m), 2)
    spend[[7, 70]] = [25_000.0, 31_000.5]
    spend[rng.choice(m, 9, replace=False)] = np.nan
    return pd.DataFrame({"tenure": tenure, "income": income, "visits": visits, "spend": spend,
                         "region": rng.choice(["north", "south", "east"], m), "t": rng.choice(["yes", "no"], m)})


def memory(frame: pd.DataFrame, method: str) -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        notes = fslab.Dataset.from_frame(frame, "t").discretize(method).notes
    return [n for n in notes if "outlier(s)" in n]


def said(notes) -> list[str]:
    return [n for n in notes if "outlier(s)" in n]


def test_the_words_are_one_function_worked_by_hand():
    """tenure's numbers (above) give memory's sentence; 5 far rows with 2 distinct values still say ", ..."."""
    assert outlier_words("tenure", 1, [9999.0], -49.0, 91.0, "auto", 3, 119 / 120, 42 / 120) == \
        ("outliers: quantile bins", TENURE)
    flag, words = outlier_words("x", 5, np.array([7, 8]), 0.0, 1.0, "mean-std", 3, 0.95, 0.5)
    assert flag == "outliers: use quantile bins"
    assert words.startswith("Column 'x' has 5 outlier(s) (7, 8, ...; beyond [Q1 - 3 IQR, Q3 + 3 IQR] = [0, 1]) that "
                            "stretch the bins: three mean-std bins put 95% of the rows in one bin. Quantile bins (or "
                            "robust bins, auto) would put at most 50% in one")


def test_memory_says_the_hand_worked_sentences():
    notes = memory(export(), "auto")
    assert notes[0] == TENURE and VISITS in notes


pytest.importorskip("ibis")


@pytest.mark.slow   # four from_sql reads of one table: 1-4 s
@pytest.mark.parametrize("engine", ENGINES, indirect=True)
def test_a_sql_engine_says_memorys_outlier_sentences(engine):
    frame = export()
    table = load(engine, "export", frame)
    for method in METHODS:
        src = fslab.from_sql(table, "t", method=method, row_id="row_id")
        assert said(src.notes) == memory(frame, method), method
        if method == "auto":
            assert TENURE in src.notes and VISITS in src.notes
        src.close()


@pytest.mark.slow   # four reads on Dask's synchronous scheduler: 1-3 s
def test_dask_says_memorys_outlier_sentences():
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    frame = export()
    with dask.config.set(scheduler="synchronous"):
        for method in METHODS:
            src = fslab.from_dask(dd.from_pandas(frame, npartitions=3), "t", method=method)
            assert said(src.notes) == memory(frame, method), method
    assert said(src.notes) == []   # quantile bins are not stretched by outliers


@pytest.mark.cli
@pytest.mark.slow   # the command line reads the table in DuckDB: about 1 s
def test_the_command_line_says_them_with_sql(capsys, tmp_path):
    import json

    from fslab.cli import main

    frame = export()
    path = tmp_path / "export.csv"
    frame.to_csv(path, index=False)
    assert main(["select", str(path), "--target", "t", "--k", "1", "--sql", "--json", "-q"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert said(notes) == memory(pd.read_csv(path), "auto") and TENURE in notes
