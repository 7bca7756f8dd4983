"""A folded section draws nothing until it is opened, and everything once it is (issue 34.5, eighth session): the
sections folded this session held a fifth to a third of their page's elements on every click (Select's "Which k?":
its formula alone 285 elements in the browser). AppTest opens a fold the way the browser does, through the
expander's key in Session State; the fold stays open over the next runs."""

from __future__ import annotations

import json

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


def _codes(app) -> list:
    """The Data page's table of every feature's codes."""
    return [d for d in app.dataframe if {"feature", "codes", "values"} <= set(d.value.columns)]


def test_data_coding_rule_draws_its_formula_and_codes_only_when_opened():
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    app.switch_page("pages/data.py").run()  # Mushroom, the paper's coding (mean-std for numbers)
    assert not app.exception, [e.value for e in app.exception]
    assert any(h.value == "How the features are coded" for h in app.subheader)
    assert not any(r"\mu" in f for f in _drawn(app)[0]) and not _codes(app)

    app.session_state["data.coding_open"] = True
    app.run()
    assert sum(r"\mu" in f for f in _drawn(app)[0]) == 1  # the mean-std rule
    codes = _codes(app)
    assert len(codes) == 1 and len(codes[0].value) == 116  # one row per feature of the one-hot Mushroom


def test_orderings_draws_the_hasse_diagram_and_folds_its_other_two_charts():
    """Example 1's lattice: the Hasse diagram and the gap table on arrival; the ordering and gap charts (the same
    values) only when opened."""
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    app.switch_page("pages/orderings.py").run()
    assert not app.exception, [e.value for e in app.exception]
    assert _titles(app) == ["Subset lattice coloured by 0-1 error"]
    assert any("size k" in d.value.columns for d in app.table)  # greedy against the best, per k, in numbers

    app.session_state["orderings.views_open"] = True
    app.run()
    assert _titles(app) == ["Subset lattice coloured by 0-1 error", "All subsets ordered by 0-1 error",
                            "Greedy forward search vs the best subset of each size"]


def _titles(app) -> list[str]:
    return [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in app.get("plotly_chart")]
