"""Issue 34.3: a Select link made with a selector that does not use the measure (MIGreedy) still carries the
measure Select judges its picks by, and opens on it."""

from __future__ import annotations

import pytest

from tests.test_share_app import open_page, rerun  # noqa: F401  (open_page: a fixture)

pytestmark = pytest.mark.slow


def test_a_select_link_with_mi_greedy_carries_its_measure(open_page):  # noqa: F811
    at = open_page("pages/selection.py", {"data": "mushroom", "selector": "mi-greedy", "measure": "balanced",
                                          "k": "3"})
    assert at.session_state["select.selector"] == "mi-greedy" and at.session_state["select.measure"] == "balanced"
    assert at.query_params["measure"] == "balanced"  # written back: the receiver's curves are the balanced error's
    at.selectbox(key="select.measure").set_value("cost-sensitive")
    rerun(at)
    assert at.query_params["measure"] == "cost-sensitive" and at.query_params["selector"] == "mi-greedy"
