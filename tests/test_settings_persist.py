"""A page's settings survive a visit to another page (Streamlit drops a widget's value when a run does not draw
it, unless the widget persists it: ``persist_state="session"``). Before, k = 3 on Select came back as 5 after a look
at the Toy page, and under load a run of another page could drop an edit made a moment before (bench/load_test)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
SETTINGS_WIDGETS = {"number_input", "selectbox", "slider", "radio", "checkbox", "multiselect", "text_input",
                    "toggle", "segmented_control", "pills", "select_slider", "text_area"}


def test_select_settings_survive_a_visit_to_the_toy_page():
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.switch_page("pages/selection.py").run()
    at.number_input(key="select.k").set_value(3).run()
    at.selectbox(key="select.selector").set_value("mi-greedy").run()
    at.switch_page("pages/toy.py").run()
    at.switch_page("pages/selection.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.number_input(key="select.k").value == 3
    assert at.selectbox(key="select.selector").value == "mi-greedy"


def test_npfs_settings_survive_a_visit_to_the_select_page():
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.switch_page("pages/npfs.py").run()
    at.number_input(key="npfs.n").set_value(40).run()
    at.switch_page("pages/selection.py").run()
    at.switch_page("pages/npfs.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.number_input(key="npfs.n").value == 40


def _keyed_widgets_without_persistence(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in SETTINGS_WIDGETS and any(k.arg == "key" for k in node.keywords)
            and not any(k.arg in ("persist_state", None) for k in node.keywords)]


# The Data page's widgets describe data being prepared: what is applied lives in ui.state.CurrentData, and a return
# to the page starts from it ("Current: ..."), not from the half-made choices of the last visit.
TRANSIENT = {"data.py"}


@pytest.mark.parametrize("path", sorted(p for p in [*ROOT.glob("pages/*.py"), *ROOT.glob("ui/*.py")]
                                        if p.name not in TRANSIENT or p.parent.name != "pages"), ids=lambda p: p.name)
def test_every_keyed_setting_persists_across_pages(path):
    assert _keyed_widgets_without_persistence(path) == [], f"{path.name}: add persist_state=\"session\""
