"""Issue 26, item 1 through the app: the "Data, selected columns (CSV)" export of an upload with hostile names goes
back into the Data page as an upload and loads (its escaped target is a column the page can pick)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from fslab import Dataset, select
from fslab.export import csv_with_provenance, escape_cell
from tests.conftest import ROOT
from ui.selection import selected_data


def test_the_data_export_uploads_again_on_the_data_page():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({'x,=HYPERLINK("http://evil.example")': rng.choice(["\r=1+2", "\t=1", "ok"], 80),
                          "@at": rng.integers(0, 3, 80), "plain": rng.integers(0, 2, 80),
                          "target": rng.choice(["=yes", "no"], 80)})
    ds = Dataset.from_frame(frame, "target")
    enc = ds.discretize()
    result = select(enc, 2, "bayes-greedy", "zero-one")
    data = csv_with_provenance(selected_data(enc, result, ds), {"data": "x"})

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page("pages/data.py").run()
    at.radio(key="data_source").set_value("upload").run()
    at.file_uploader(key="data_upload").set_value(("fslab_x_data.csv", data, "text/csv")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    at.selectbox(key="data_target").set_value("target").run()
    assert not at.error
    at.button(key="data_use").click().run()
    assert not at.exception
    loaded = at.session_state["fslab.current_data"].encoded
    assert loaded.n_rows == 80
    assert set(loaded.feature_names) <= {escape_cell(c) for c in frame.columns}
