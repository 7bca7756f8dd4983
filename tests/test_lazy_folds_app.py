"""A folded section draws nothing until it is opened, and everything once it is (issue 34.5, eighth session): the
sections folded this session held a fifth to a third of their page's elements on every click (Select's "Which k?":
its formula alone 285 elements in the browser). AppTest opens a fold the way the browser does, through the
expander's key in Session State; the fold stays open over the next runs."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow


def _drawn(app) -> tuple[list[str], set[str]]:
    """The formulas (``st.latex`` bodies) and the widget keys the last run drew."""
    widgets = {node.key for node in _walk(app.main) if getattr(node, "key", None)}
    return [f.body for f in app.latex], widgets


def _walk(block):
    for child in getattr(block, "children", {}).values():
        yield child
        yield from _walk(child)


def test_select_which_k_draws_its_formula_and_controls_only_when_opened():
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    app.switch_page("pages/selection.py").run()
    assert not app.exception, [e.value for e in app.exception]
    assert any(h.value == "Which k?" for h in app.subheader)  # the section's heading stays on the page
    formulas, widgets = _drawn(app)
    assert not any(r"\Delta_t" in f for f in formulas)
    assert not widgets & {"select.kperm", "select.kboot", "select.kalpha", "select.ksuggest"}

    app.session_state["select.which_k"] = True  # the reader opens the fold
    app.run()
    formulas, widgets = _drawn(app)
    assert sum(r"\Delta_t" in f for f in formulas) == 1  # the permutation test's p-value
    assert {"select.kperm", "select.kboot", "select.kalpha", "select.ksuggest"} <= widgets
    app.number_input(key="select.k").set_value(4).run()  # another click: the fold stays open
    assert {"select.kperm", "select.ksuggest"} <= _drawn(app)[1]
