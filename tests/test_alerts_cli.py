"""fslab select prints one warning line per planted leak, with the fix; leaving the columns out silences them."""

import argparse
import json

import pytest

from fslab.cli.job import load_job_data
from fslab.cli.main import main
from tests.test_alerts import churn, loan

pytestmark = pytest.mark.slow


@pytest.fixture
def loan_csv(tmp_path):
    path = tmp_path / "loan.csv"
    loan().to_csv(path, index=False)
    return str(path)


def test_select_warns_on_each_leak(loan_csv, capsys):
    assert main(["select", loan_csv, "--target", "approve", "-q"]) == 0
    warnings = [line for line in capsys.readouterr().out.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 2
    assert any("'action' gives the class exactly" in w and "--drop action" in w for w in warnings)
    assert any("'reject' takes one value per class" in w and "--drop reject" in w for w in warnings)
    assert main(["select", loan_csv, "--target", "approve", "-q", "--column-type", "action=drop",
                 "--column-type", "reject=drop"]) == 0
    assert "warning: " not in capsys.readouterr().out


def test_select_json_lists_alerts(tmp_path, capsys):
    path = tmp_path / "churn.csv"
    churn().to_csv(path, index=False)
    assert main(["select", str(path), "--target", "churn", "-q", "--json", "--k", "2"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert [(a["kind"], a["columns"]) for a in record["alerts"]] == [("determines-target", ["cancel_reason"])]


def test_drop_option_leaves_columns_out(loan_csv):
    args = argparse.Namespace(data=loan_csv, target="approve", positive=None, method=None, bins=None,
                              column_type=None, drop=["action", "reject"], missing=None, command="select")
    loaded = load_job_data(args, None, {})
    assert "action" not in loaded.source.feature_names and "reject" not in loaded.source.feature_names
    assert "income" in loaded.source.feature_names


def test_drop_leaves_the_named_column_out(tmp_path, capsys):
    import pandas as pd

    frame = pd.DataFrame({"a": [0, 1] * 30, "b": [0, 0, 1] * 20, "y": [0, 1] * 30})
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    assert main(["select", str(path), "--target", "y", "--k", "1", "--drop", "a", "--json", "-q"]) == 0
    assert json.loads(capsys.readouterr().out)["names"] == ["b"]
