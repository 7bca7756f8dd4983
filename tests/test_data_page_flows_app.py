"""Issue 33.3-33.4 in the app, each page opened through app.py (tests/test_alerts_app.App): a target guess that is
not sure leaves the box empty and computes nothing; a real-valued target is split at its median and Select runs on
the two classes; an upload survives a visit to another page, which says it is loaded but not in use and applies it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.test_alerts_app import CURRENT, App, upload

pytestmark = pytest.mark.slow


@pytest.fixture
def app(tmp_path) -> App:
    return App(tmp_path)


def unsure_csv() -> bytes:
    """No column named like a target, two three-valued columns: guess_target asks (sure=False)."""
    rng = np.random.default_rng(1)
    return pd.DataFrame({"a": rng.integers(0, 3, 120), "b": rng.normal(size=120), "c": rng.integers(0, 3, 120)}
                        ).to_csv(index=False).encode()


def numeric_csv() -> bytes:
    """progression: 120 distinct real values driven by x (a real-valued target)."""
    rng = np.random.default_rng(2)
    x = rng.integers(0, 3, 120)
    return pd.DataFrame({"x": x, "noise": rng.integers(0, 2, 120), "progression": 100 + 20 * x + rng.normal(0, 5, 120)}
                        ).to_csv(index=False).encode()


def test_unsure_target_starts_empty_and_nothing_is_computed(app):
    at = upload(app, "table.csv", unsure_csv())
    assert at.selectbox(key="data_target").value is None
    assert any("Choose the column to predict" in i.value and "best guess" in i.value for i in at.info)
    assert not at.dataframe and not at.get("plotly_chart") and not at.button   # no summary, chart or "Use"
    assert at.session_state[CURRENT].name == "mushroom (sample)"
    at.selectbox(key="data_target").set_value("c")
    at = app.run()
    assert at.button(key="data_use") and any("read as" in d.value.columns for d in at.dataframe)


def test_numeric_target_split_at_the_median_then_select(app):
    at = upload(app, "disease.csv", numeric_csv())
    assert at.selectbox(key="data_target").value is None   # 120 values and no target name: asked
    at.selectbox(key="data_target").set_value("progression")
    at = app.run()
    assert at.radio(key="data_split").value == "numeric"
    assert any("Histogram of the target" in c.value for c in at.caption)
    at.radio(key="data_split").set_value("quantiles")
    at = app.run()
    assert any("split into 3 quantile classes" in c.value for c in at.caption)
    at.radio(key="data_split").set_value("threshold")
    at = app.run()
    assert any("Dashed: where the values were cut" in c.value for c in at.caption)
    median = float(np.median(pd.read_csv(__import__("io").BytesIO(numeric_csv()))["progression"]))
    assert at.number_input(key="data_threshold").value == pytest.approx(median)
    assert any("(the median)" in c.value for c in at.caption)
    at = app.go("pages/home.py")
    at = app.go("pages/data.py")   # the split chosen survives a visit to another page, as the upload does
    assert at.radio(key="data_split").value == "threshold" and any("(the median)" in c.value for c in at.caption)
    at.button(key="data_use").click()
    at = app.run()
    current = at.session_state[CURRENT]
    assert current.raw.task == "binary" and current.raw.positive.startswith("progression > ")
    assert int(current.encoded.y.sum()) == 60 and current.spec["target_split"] == "median"
    assert "split at the median" in current.name
    at = app.go("pages/selection.py")
    picked = " ".join(d.value.to_string() for d in [*at.dataframe, *at.table])  # Select's tables are static
    assert "x" in picked.split()   # Select ran on the two classes and picked the driving column


def test_an_unsure_uploads_chosen_target_survives_a_page_switch(app):
    at = upload(app, "table.csv", unsure_csv())
    at.selectbox(key="data_target").set_value("c")
    app.run()
    at = app.go("pages/scores.py")
    assert any("**table.csv** is loaded but not in use" in i.value for i in at.info)
    at = app.go("pages/data.py")
    assert at.selectbox(key="data_target").value == "c"


def test_an_upload_survives_a_page_switch_and_is_offered_elsewhere(app):
    data = numeric_csv().replace(b"progression", b"outcome")
    at = upload(app, "kept.csv", data)
    target = at.selectbox(key="data_target").value
    at = app.go("pages/selection.py")
    assert any("**kept.csv** is loaded but not in use" in i.value for i in at.info)
    at = app.go("pages/data.py")
    assert at.radio(key="data_source").value == "upload"
    assert any("uploaded earlier in this session" in c.value for c in at.caption)
    assert at.selectbox(key="data_target").value == target
    at = app.go("pages/compare.py")
    at.button(key="pending_use").click()
    at = app.run()
    assert at.session_state[CURRENT].spec["file"] == "kept.csv"
    assert not any("not in use" in i.value for i in at.info)
