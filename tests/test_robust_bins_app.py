"""Robust bins on the Data page (issue 33.7): an upload is binned by "robust (mean-std, quantile where outliers crowd
one bin)" by default and the page says which column got quantile bins and why; a shipped sample keeps the paper's
mean-std. The table: ``amount`` is 1..20 ten times over with four rows times 500 (196 of 200 rows, 98 %, in one
mean-std bin; quantile bins hold at most 73 rows, 36 %; tests/test_robust_bins_engines.py works it by hand)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.test_alerts_app import App, upload

pytestmark = pytest.mark.slow

SAID = ("amount: quantile bins, because mean-std bins put 98% of the rows in one bin (outliers); quantile bins put "
        "at most 36% in one.")


def glitch_csv() -> bytes:
    reps = np.tile(np.arange(1.0, 21.0), 10)
    amount = reps.copy()
    amount[[3, 50, 101, 177]] *= 500
    return pd.DataFrame({"amount": amount, "churn": np.where((reps % 7) < 3, "yes", "no")}
                        ).to_csv(index=False).encode()


def texts(at) -> str:
    return " ".join(str(e.value) for kind in ("markdown", "caption", "info", "success", "warning")
                    for e in getattr(at, kind))


def test_an_upload_gets_robust_bins_and_a_sample_keeps_mean_std(tmp_path):
    app = App(tmp_path)
    app.at.session_state["data.coding_open"] = True  # the coding rule is folded, drawn when opened (issue 34.5)
    at = upload(app, "glitch.csv", glitch_csv())
    box = at.selectbox(key="data_method")
    assert box.value == "auto" and "robust (mean-std, quantile where outliers crowd one bin)" in box.options
    assert SAID in texts(at)
    box.set_value("mean-std")   # an explicit choice wins
    at = app.run()
    assert at.selectbox(key="data_method").value == "mean-std" and SAID not in texts(at)
    at.radio(key="data_source").set_value("sample")
    at = app.run()
    assert at.selectbox(key="data_method").value == "mean-std"
