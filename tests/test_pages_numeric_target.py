"""Issue 33.4: with a real-valued target By measure and Scores open on the squared error and show a result, not
"Choose at least one measure" (before: both opened empty, the paper's default measures all need classes).

The table: y = 3 x1 + noise (200 distinct real values), x2 and x3 noise; binned mean-std into 3 bins, x1's bins
carry y's mean, so the squared error's first pick is x1 under the plug-in and held out alike."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from fslab.data import Dataset
from tests.conftest import ROOT
from ui import state


def _regression():
    rng = np.random.default_rng(0)
    x1 = rng.normal(size=200)
    frame = pd.DataFrame({"x1": x1, "x2": rng.normal(size=200), "x3": rng.integers(0, 2, 200),
                          "y": 3 * x1 + rng.normal(0, 0.1, 200)})
    data = Dataset.from_frame(frame, "y")
    return data.discretize(), data


@pytest.fixture
def at():
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    app.run()
    encoded, raw = _regression()
    assert encoded.task == "regression"
    state.install(app.session_state, state.CurrentData(encoded, "regression.csv", raw))
    return app


def test_by_measure_opens_on_the_squared_error(at):
    at.switch_page("pages/by_measure.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.multiselect(key="bym.measures").value == ["squared"]
    assert not any("Choose at least one measure" in i.value for i in at.info)
    picks = at.table[0].value.set_index("measure")
    assert picks.loc["squared error", "step 1"] == "x1"


def test_scores_open_on_the_squared_error(at):
    at.switch_page("pages/scores.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.multiselect(key="scores.measures").value == ["squared"]
    assert not any("Choose at least one measure" in i.value for i in at.info)
    table = next(d.value for d in at.dataframe if "feature" in d.value.columns).set_index("feature")
    held = table["squared error, held-out"]
    assert held.idxmin() == "x1" and held["x1"] < held["x2"]  # x1's bins explain most of y's variance


def test_a_class_targets_measures_give_way_to_the_squared_error(at):
    """Measures chosen on a class target (Mushroom's) are not taken by a real-valued one: the boxes start again."""
    at.session_state["scores.measures"] = ["zero-one", "auc"]
    at.session_state["bym.measures"] = ["zero-one", "auc"]
    at.switch_page("pages/scores.py").run()
    assert at.multiselect(key="scores.measures").value == ["squared"]
    at.switch_page("pages/by_measure.py").run()
    assert at.multiselect(key="bym.measures").value == ["squared"]
