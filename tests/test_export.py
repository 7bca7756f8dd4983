import io

import pandas as pd

from fslab.export import escape_cell, safe_csv


def test_formula_like_text_is_escaped_and_numbers_are_not():
    frame = pd.DataFrame({"=name": ["=SUM(A1)", "+1", "-x", "@me", "plain"], "value": [-1.5, 2, 3, 4, 5]})
    back = pd.read_csv(io.BytesIO(safe_csv(frame)))
    assert list(back.columns) == ["'=name", "value"]
    assert back["'=name"].tolist() == ["'=SUM(A1)", "'+1", "'-x", "'@me", "plain"]
    assert back["value"].tolist() == [-1.5, 2, 3, 4, 5]
    assert escape_cell(-3) == -3 and escape_cell(True) is True
