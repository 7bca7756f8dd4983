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


def test_provenance_lines_file_stem_and_version():
    import io

    import pandas as pd

    from fslab.export import csv_with_provenance, file_stem, fslab_version, provenance

    record = provenance("my data.csv", "sha256:" + "0" * 64, "diagnosis", "M", "quantile, 4 bins", "f-beta",
                        {"beta": 2.0}, selector="bayes-greedy", k=5)
    assert record["fslab_version"] == fslab_version() != ""
    assert record["measure_params"] == {"beta": 2.0} and record["k"] == 5
    text = csv_with_provenance(pd.DataFrame({"name": ["=x", "b"], "v": [1, 2]}), record).decode()
    assert text.splitlines()[0] == "# data: my data.csv" and '# measure_params: {"beta": 2.0}' in text
    back = pd.read_csv(io.StringIO(text), comment="#")
    assert back["name"].tolist() == ["'=x", "b"]  # formula cells still escaped
    assert file_stem("my data.csv", "bayes-greedy", "F-beta (beta=2.0)", "k5") == \
        "fslab_my-data.csv_bayes-greedy_F-beta-beta=2.0_k5"
