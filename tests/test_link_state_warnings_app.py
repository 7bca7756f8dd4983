"""A link's values reach the widgets without Streamlit's "set via the Session State API" warning (issue 34.3, 34.5):
a widget given a default (``value=``, ``index=``) whose key a link, a recipe or another page's plan wrote into
Session State logs that warning with a stack on a real server (the e2e server logs held it for ``orderings.source``,
``compare.k`` and ``npfs.n``). Streamlit checks it only under a runtime, which AppTest has not, so its check is
called here on every widget: a widget whose key holds a value set through Session State must come without a default
(``ui.state.widget_default``)."""

from __future__ import annotations

import pytest
from streamlit.elements.lib import policies
from streamlit.runtime.state import get_session_state

from tests.test_share_app import open_page  # noqa: F401  (the fixture: a fresh session opening a page's link)

pytestmark = pytest.mark.slow


@pytest.fixture
def doubled(monkeypatch):
    """The keys of widgets drawn with a default while their key held a value set through Session State."""
    found: list[str] = []
    check = policies.check_session_state_rules

    def recording(default_value, key, writes_allowed=True):
        if key is not None and default_value is not None and get_session_state().is_new_state_value(key):
            found.append(key)
        return check(default_value, key, writes_allowed)

    monkeypatch.setattr(policies, "check_session_state_rules", recording)
    return found


@pytest.mark.parametrize(("page", "query"), [
    ("pages/orderings.py", {"source": "dataset", "data": "mushroom"}),
    ("pages/compare.py", {"k": "3", "data": "mushroom"}),
    ("pages/npfs.py", {"n": "20", "alpha": "0.05", "seed": "3", "fraction": "0.5", "data": "mushroom"}),
    ("pages/selection.py", {"measure": "cost-sensitive", "c": "0.3", "s": "2", "use_s": "true", "data": "mushroom"}),
])
def test_a_link_sets_its_widgets_without_a_second_default(open_page, doubled, page, query):  # noqa: F811
    at = open_page(page, query)
    assert not doubled, doubled
    shown = {w.key: w.value for kind in ("number_input", "slider", "select_slider", "radio")
             for w in at.get(kind) if getattr(w, "key", None)}
    prefix = {"selection": "select"}.get(page.split("/")[1].removesuffix(".py"), page.split("/")[1][:-3])
    for name, text in query.items():  # the link's values are the widgets' values
        key = f"{prefix}.{name}"
        if key in shown:
            assert str(shown[key]).lower() == text, (key, shown[key])
