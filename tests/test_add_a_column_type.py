"""Adding a column type is one record in one file (issue 36.3): a "duration" type ("3h 20m", "45m", "2h" ->
minutes) registered with fslab.data.parse_rules.register reaches the typing of Dataset.from_frame (inferred and
asked for), the plan's words, column_types= checks, recipes and the command line's --column-type. (The Data page's
"Read it as" list: tests/test_add_a_column_type_app.py.)"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from fslab.data import COLUMN_TYPES, Dataset
from fslab.data import parse_rules as pr
from fslab.data.plan import ColumnTypeError

# the whole extension: a portable pattern (hours and minutes, or minutes alone) and its conversion to minutes
DURATION = pr.ColumnKind(
    "duration", "durations", "minutes",
    (pr.ParseRule("duration-hm", "duration", r"(?i)^(\d{1,4})\s*h(?:\s*(\d{1,2})\s*m)?$|^(\d{1,4})\s*m$",
                  ("hours", "minutes", "minutes alone"), "3h 20m -> 200 minutes"),),
    lambda rule, g: (pd.to_numeric(g[0], errors="coerce").fillna(0) * 60 + pd.to_numeric(g[1], errors="coerce")
                     .fillna(0) + pd.to_numeric(g[2], errors="coerce").fillna(0))
    .where(g[0].notna() | g[2].notna()).to_numpy(np.float64))

TEXTS = ["3h 20m", "45m", "2h", "1h 5m", "10m", "0h 30m"] * 5   # 30 rows
MINUTES = [200.0, 45.0, 120.0, 65.0, 10.0, 30.0] * 5


@pytest.fixture
def duration():
    pr.register(DURATION)
    try:
        yield
    finally:
        pr.unregister("duration")


def _frame(texts=TEXTS) -> pd.DataFrame:
    return pd.DataFrame({"wait": texts, "y": ["a", "b"] * (len(texts) // 2)})


def test_a_registered_type_is_inferred_and_said(duration):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = Dataset.from_frame(_frame(), "y")
    assert data.features["wait"].tolist() == MINUTES
    plan = data.plan.column("wait")
    assert (plan.type, plan.rule, plan.unit) == ("duration", "duration-hm", "minutes")
    assert "'wait' read as durations (10 .. 200 minutes), binned as numbers." in data.plan.describe()
    assert "duration" in COLUMN_TYPES and list(COLUMN_TYPES).index("duration") < list(COLUMN_TYPES).index("category")


def test_asked_for_it_reads_every_value_or_names_the_bad_row(duration):
    texts = [*TEXTS[:-1], "soon"]
    with pytest.raises(ColumnTypeError, match="data row 30 holds 'soon', which does not read as durations"):
        Dataset.from_frame(_frame(texts), "y", column_types={"wait": "duration"})
    with warnings.catch_warnings():   # inferred: 29 of 30 rows read (96.7 %), the 30th becomes missing and is said
        warnings.simplefilter("ignore")
        data = Dataset.from_frame(_frame(texts), "y")
    assert np.isnan(data.features["wait"].iloc[-1])
    assert any("1 value(s) that do not read as durations became missing" in m for m in data.plan.describe())


def test_recipes_and_the_command_line_accept_it(duration):
    from fslab.cli.sources import parse_column_types
    from fslab.recipe import Recipe, RecipeError

    recipe = Recipe("select", {"file": "waits.csv", "sha256": "0" * 64, "types": ["wait=duration"]})
    assert Recipe.from_json(recipe.to_json()) == recipe
    assert parse_column_types(["wait=duration"]) == {"wait": "duration"}
    pr.unregister("duration")
    with pytest.raises(RecipeError, match="type among"):
        Recipe("select", {"file": "waits.csv", "sha256": "0" * 64, "types": ["wait=duration"]})


def test_without_it_the_column_stays_text():
    assert "duration" not in COLUMN_TYPES
    data = Dataset.from_frame(_frame(), "y")
    assert data.plan.column("wait").type == "text"


def test_the_sql_reader_says_it_reads_built_in_types_only(duration):
    """The SQL reader mirrors the built-in rules (fslab.data.parse_rules.RULES) in the engine; a registered rule
    asked of it is a ColumnTypeError that says so, not a KeyError."""
    with pytest.raises(ColumnTypeError, match="the SQL reader knows the built-in types only"):
        pr.BY_NAME["duration-hm"]
    with pytest.raises(KeyError):
        pr.BY_NAME["no-such-rule"]
    assert pr.rule_named("duration-hm").kind == "duration" and "duration-hm" not in pr.BY_NAME
