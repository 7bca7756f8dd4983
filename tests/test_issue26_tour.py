"""Issue 26, item 6: the tour puts back the toy distribution it found (at its last step, or on a button that
leaves the tour), and says so."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from fslab.pena_nilsson.toy import PRESETS
from tests.conftest import ROOT

NAME = "fslab.distribution_name"


def _with_xor_then_tour() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()  # Home, with the tour's button
    at.session_state[NAME] = PRESETS["xor"].label
    at.session_state["fslab.distribution"] = PRESETS["xor"].factory()
    at.button(key="home.tour").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_tour_gives_the_distribution_back_at_its_last_step():
    at = _with_xor_then_tour()
    assert at.session_state[NAME] == "Bayes paper, Example 1"
    assert any("XOR" in c.value and "comes back" in c.value for c in at.caption)
    for _ in range(3):
        at.button(key="tour.next").click().run()
    assert at.session_state[NAME] == PRESETS["xor"].label
    assert any("is back" in i.value and "XOR" in i.value for i in at.info)
    at.button(key="tour.prev").click().run()  # the examples again, and back again at the end
    assert at.session_state[NAME] == PRESETS["greedy-bad"].label
    at.button(key="tour.next").click().run()
    assert at.session_state[NAME] == PRESETS["xor"].label


def test_the_put_back_button_leaves_the_tour_with_the_distribution():
    at = _with_xor_then_tour()
    at.button(key="tour.restore").click().run()
    assert not at.exception
    assert at.session_state[NAME] == PRESETS["xor"].label
    assert at.title[0].value == "Toy distribution"
