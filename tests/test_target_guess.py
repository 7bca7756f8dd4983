"""fslab.target_guess: the target column and the ID-like columns of a new table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fslab.data.target_guess import guess_target, id_like_columns


def test_conventional_name_wins_over_position():
    frame = pd.DataFrame({"id": range(30), "diagnosis": ["M", "B"] * 15, "radius": np.linspace(1, 2, 30)})
    guess = guess_target(frame)
    assert guess.column == "diagnosis" and "named like a target" in guess.reason


def test_preference_order_and_case():
    frame = pd.DataFrame({"Label": [0, 1] * 10, "CLASS": [1, 2, 3, 4] * 5, "x": range(20)})
    assert guess_target(frame).column == "CLASS"  # 'class' comes before 'label' in the conventional list


def test_named_column_with_too_many_values_is_not_a_class():
    frame = pd.DataFrame({"y": np.linspace(0, 1, 50), "grp": ["a", "b", "c"] * 16 + ["a", "b"], "z": range(50)})
    guess = guess_target(frame)
    assert guess.column == "grp" and "last column with few distinct values" in guess.reason


def test_no_low_cardinality_column_falls_back_to_the_last():
    frame = pd.DataFrame({"a": np.linspace(0, 1, 30), "b": np.linspace(1, 2, 30)})
    guess = guess_target(frame)
    assert guess.column == "b" and "real-valued target" in guess.reason
    with pytest.raises(ValueError):
        guess_target(pd.DataFrame())


def test_id_like_columns_are_integers_or_text_all_distinct():
    m = 20
    frame = pd.DataFrame({"row": range(m), "code": [f"P{i:03d}" for i in range(m)], "height": np.linspace(1, 2, m),
                          "whole_floats": np.arange(m, dtype=float), "y": [0, 1] * 10, "dup": [1] * m})
    assert id_like_columns(frame, "y") == ["row", "code", "whole_floats"]
    assert id_like_columns(frame, "row") == ["code", "whole_floats"]  # never the target
    assert id_like_columns(frame.head(5)) == []  # too few rows to mean anything
