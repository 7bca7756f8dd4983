"""Issue 33.1 in the app: a planted leak is named on the Data page and above Select (drawn by app.py), and one
click leaves it out and reruns: the column is gone from the data in use, its descriptor carries ``types:
["action=drop"]`` and Select no longer picks it. Each page is opened through app.py (a harness whose default page
is rewritten between runs, as tests/test_share_app.py's), since AppTest's switch_page runs a page without app.py."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow
CURRENT = "fslab.current_data"
HARNESS = """
import runpy

import streamlit as st

_page = st.Page


def _start_at(page, *args, default=False, **kwargs):
    return _page({root!r} + "/" + page, *args, default=(page == {start!r}), **kwargs)


st.Page = _start_at
try:
    runpy.run_path({app!r}, run_name="fslab_app")
finally:
    st.Page = _page
"""


def leak_csv(n: int = 240, seed: int = 0) -> bytes:
    """income carries some signal; action codes the decision (one value per class): the leak."""
    rng = np.random.default_rng(seed)
    approve = rng.integers(0, 2, n)
    return pd.DataFrame({"income": rng.normal(50, 10, n) + 8 * approve, "region": rng.choice(list("abc"), n),
                         "action": np.where(approve == 1, "approved", "denied"), "approve": approve}
                        ).to_csv(index=False).encode()


class App:
    """One session that opens any page through app.py."""

    def __init__(self, tmp_path):
        (tmp_path / "pages").symlink_to(ROOT / "pages")
        self.harness = tmp_path / "harness.py"
        self.go("pages/home.py", first=True)

    def go(self, page: str, first: bool = False) -> AppTest:
        self.harness.write_text(HARNESS.format(root=str(ROOT), app=str(ROOT / "app.py"), start=page))
        if first:
            self.at = AppTest.from_file(str(self.harness), default_timeout=120)
        self.at._page_hash = ""   # private: run the harness (app.py), whose default page is now ``page``
        self.at._finished_page_script_hash = ""
        return self.run()

    def run(self) -> AppTest:
        self.at._finished_page_script_hash = ""
        self.at.run()
        assert not self.at.exception, [e.value for e in self.at.exception]
        return self.at


def upload(app: App, name: str, data: bytes) -> AppTest:
    at = app.go("pages/data.py")
    at.radio(key="data_source").set_value("upload")
    app.run()
    at.file_uploader(key="data_upload").set_value((name, data, "text/csv"))
    return app.run()


def leak_buttons(at: AppTest) -> list:
    return [b for b in at.button if b.label.startswith("Leave out")]


@pytest.fixture
def app(tmp_path) -> App:
    return App(tmp_path)


def test_leak_named_on_data_and_select_then_left_out(app):
    at = upload(app, "loan.csv", leak_csv())
    assert at.selectbox(key="data_target").value == "approve"
    assert any("Possible leak: **action**" in e.value and "target under another name" in e.value for e in at.error)
    assert [b.label for b in leak_buttons(at)] == ["Leave out action and rerun"]
    at.button(key="data_use").click()
    app.run()
    at = app.go("pages/selection.py")
    assert any("**action**" in e.value for e in at.error), "the leak is said above Select"
    glossary = " ".join(m.value for m in at.sidebar.markdown)
    assert "**plug-in**" in glossary and "**NPFS**" in glossary   # the glossary, one click away on every page
    assert "action" in at.session_state[CURRENT].encoded.feature_names
    leak_buttons(at)[0].click()
    at = app.run()
    current = at.session_state[CURRENT]
    assert "action" not in current.encoded.feature_names and current.spec["types"] == ["action=drop"]
    assert current.name.endswith("without action)")
    assert not leak_buttons(at) and not any("**action**" in e.value for e in at.error)
    picked = " ".join(d.value.to_string() for d in [*at.dataframe, *at.table])  # Select's tables are static
    assert "income" in picked and "action" not in picked   # Select ran on the data without the leak


def test_leave_out_on_the_data_page_before_use(app):
    at = upload(app, "loan.csv", leak_csv())
    before = at.session_state[CURRENT].name
    leak_buttons(at)[0].click()
    at = app.run()
    assert not leak_buttons(at)
    summary = next(d.value for d in at.dataframe if "read as" in d.value.columns)
    assert summary.loc[summary["column"] == "action", "read as"].tolist() == ["left out"]
    assert at.session_state[CURRENT].name == before   # not in use yet: "Use this dataset" still decides
    at.button(key="data_use").click()
    at = app.run()
    current = at.session_state[CURRENT]
    assert "action" not in current.encoded.feature_names and current.name == "loan.csv (approve = 1; without action)"


def test_data_alerts_beside_the_type_report(app):
    """A rare class (12 of 240 rows, 5 %) and a column restating another: said with their fix, no leak button."""
    rng = np.random.default_rng(3)
    n = 240
    fraud = np.r_[np.ones(12, int), np.zeros(n - 12, int)]
    city = rng.choice(list("abcd"), n)
    frame = pd.DataFrame({"amount": rng.normal(size=n), "city": city, "region": pd.Series(city).map(
        {"a": "north", "b": "south", "c": "east", "d": "west"}), "fraud": fraud})
    at = upload(app, "fraud.csv", frame.to_csv(index=False).encode())
    said = " ".join(w.value for w in at.warning if w.value.startswith("**Worth a look:**"))
    assert "Class '1' is only 5.0% of the rows" in said and "use the balanced error" in said
    assert "'city' and 'region' nearly restate each other" in said
    assert not leak_buttons(at)
