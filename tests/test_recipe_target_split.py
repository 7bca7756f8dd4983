"""A recipe or link carries a numeric target's split (the Data page's 'target_split' descriptor field) and replays
it: the same classes as Dataset.from_frame(target_split=...) on the same file."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from fslab import Dataset
from fslab.data.target import parse_split
from fslab.recipe import Recipe, RecipeError, load_table, sha256_hex


def _file() -> bytes:
    rng = np.random.default_rng(3)
    a = rng.integers(0, 3, 90)
    frame = pd.DataFrame({"a": a, "b": rng.integers(0, 4, 90), "y": 10 * a + rng.normal(0, 3, 90).round(2)})
    return frame.to_csv(index=False).encode()


@pytest.mark.parametrize("split", ["median", "12.5", "q3"])
def test_a_split_travels_in_recipe_and_link_and_replays(split):
    raw = _file()
    data = {"file": "progress.csv", "sha256": sha256_hex(raw), "target": "y", "target_split": split}
    recipe = Recipe("select", data, None, {})
    assert Recipe.from_json(recipe.to_json()).data["target_split"] == split
    query = recipe.to_query()
    assert query["target_split"] == split
    assert Recipe.from_query("select", query).data == recipe.data
    replayed = load_table(recipe.data, raw)
    want = Dataset.from_frame(pd.read_csv(io.BytesIO(raw)), "y", target_split=parse_split(split))
    assert replayed.encoded_target.class_names == want.encoded_target.class_names
    assert np.array_equal(replayed.y, want.y) and len(set(replayed.y.tolist())) == (3 if split == "q3" else 2)


def test_a_bad_split_is_a_recipe_error():
    for bad in ("q9", "often", 12):
        with pytest.raises(RecipeError, match="target_split"):
            Recipe("select", {"sample": "mushroom", "target_split": bad}, None, {})
