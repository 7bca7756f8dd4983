"""Issue 36.3 in the app: a column type registered with fslab.data.parse_rules.register is in the Data page's
"Read it as" list, and choosing it for a column of an upload types that column with it, in the capped worker
process that reads uploads (a worker forked before the registration gets the registered types with each job:
fslab.data.upload.WithKinds). The type is in tests/column_kinds.py: the worker imports its module to unpickle it."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from fslab.data import COLUMN_TYPES
from fslab.data import parse_rules as pr
from fslab.data.upload import WithKinds, read_upload, registered_kinds
from tests.column_kinds import DURATION
from ui.state import CURRENT

APP = str(Path(__file__).resolve().parents[1] / "app.py")
pytestmark = pytest.mark.slow

WAITS = ["3h 20m", "45m", "2h", "1h 5m", "10m", "0h 30m"] * 5   # 30 rows: 200, 45, 120, 65, 10, 30 minutes
CSV = pd.DataFrame({"wait": WAITS, "x": [0, 1, 1] * 10, "y": ["a", "b"] * 15}).to_csv(index=False).encode()


@pytest.fixture
def duration():
    pr.register(DURATION)
    try:
        yield
    finally:
        pr.unregister("duration")


def _summary(at: AppTest) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if "read as" in d.value.columns).set_index("column")


def test_a_registered_type_is_offered_and_applied(duration):
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.switch_page("pages/data.py").run()
    at.radio(key="data_source").set_value("upload").run()
    at.file_uploader(key="data_upload").set_value(("waits.csv", CSV, "text/csv")).run()
    at.selectbox(key="data_target").set_value("y").run()
    assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
    assert _summary(at).loc["wait", "read as"] == "category"   # not inferred: 6 text levels
    at.selectbox(key="data_type_column").set_value("wait").run()
    kinds = at.selectbox(key="data_type_value")
    assert kinds.options[-3:] == ["durations, in minutes", "categories (text levels)", "left out (not a feature)"]
    kinds.set_value("duration").run()
    assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
    assert _summary(at).loc["wait", "read as"].startswith("duration")
    assert any("Your types: **wait** as durations, in minutes" in c.value for c in at.caption)
    at.button(key="data_use").click().run()
    current = at.session_state[CURRENT]
    assert "types wait=duration" in current.name
    assert current.raw.features["wait"].tolist() == [200.0, 45.0, 120.0, 65.0, 10.0, 30.0] * 5
    assert current.encoded.plan.column("wait").type == "duration"


def test_the_types_list_follows_the_registry():
    from ui.data import page_types, type_label

    assert "duration" not in page_types() and "duration" not in COLUMN_TYPES
    pr.register(DURATION)
    try:
        assert page_types().index("duration") < page_types().index("category")
        assert type_label("duration") == "durations, in minutes" and type_label("date") == "date or timestamp"
        assert registered_kinds() == (DURATION,)
        job = pickle.loads(pickle.dumps(WithKinds(read_upload, registered_kinds())))   # as the worker gets it
        assert job.__name__ == "read_upload" and job.kinds[0].name == "duration"   # errors name the job
    finally:
        pr.unregister("duration")
    assert "duration" not in page_types()


def test_a_kind_that_cannot_travel_to_the_worker_is_named():
    from fslab.data.parse_rules import ColumnTypeError

    rule = pr.ParseRule("lazy-x", "lazy", r"^x(\d)$", ("n",), "x1 -> 1", inferred=False)
    pr.register(pr.ColumnKind("lazy", "lazies", "units", (rule,),
                              lambda rule, g: pd.to_numeric(g[0], errors="coerce").to_numpy(np.float64)))
    try:
        with pytest.raises(ColumnTypeError, match="column type 'lazy' .*not a lambda"):
            registered_kinds()
    finally:
        pr.unregister("lazy")
