"""Issue 26, item 3: a page's link holds its settings from the first draw (NPFS before Run), the app's link
loader honours column exclusions, By measure and the open tab travel in links, the share box has a link to copy,
and a receiver is told when the link was made on a custom toy distribution it cannot have."""

from __future__ import annotations

import pytest

from fslab.recipe import CHOICES, PAGES, Recipe
from tests.test_share_app import open_page, rerun  # noqa: F401  (the fixture and the helper)


@pytest.mark.slow  # 0.45 s measured (inner loop: unit and not slow)
def test_an_npfs_link_holds_the_settings_before_run(open_page):  # noqa: F811
    at = open_page("pages/npfs.py")
    assert any("Press **Run NPFS**" in i.value for i in at.info)  # the page stopped before any run
    query = dict(at.query_params)
    for name in ("selector", "k", "n", "alpha", "seed", "fraction"):
        assert name in query, (name, query)
    assert query["selector"] == at.session_state["npfs.selector"] and int(query["k"]) == at.session_state["npfs.k"]
    at.number_input(key="npfs.k").set_value(4)
    rerun(at)
    assert dict(at.query_params)["k"] == "4"


@pytest.mark.slow  # 0.43 s measured (inner loop: unit and not slow)
def test_a_link_with_excluded_columns_loads_without_them(open_page):  # noqa: F811
    at = open_page("pages/selection.py", {"data": "mushroom", "exclude": "odor=none,odor=foul", "k": "2"})
    data = at.session_state["fslab.current_data"]
    names = list(data.encoded.feature_names)
    assert "odor=none" not in names and "odor=foul" not in names and len(names) == 114
    assert data.spec["exclude"] == ["odor=none", "odor=foul"]
    assert dict(at.query_params)["exclude"] == "odor=none,odor=foul"


@pytest.mark.slow  # over 0.25 s of CPU: out of the inner loop
def test_by_measure_travels_in_a_link(open_page):  # noqa: F811
    assert "by_measure" in PAGES and {"selector", "k", "measures"} <= set(CHOICES["by_measure"])
    link = {"data": "mushroom", "source": "dataset", "selector": "bayes-greedy", "k": "3",
            "measures": "zero-one,auc"}
    at = open_page("pages/by_measure.py", link)
    assert at.session_state["bym.k"] == 3 and at.session_state["bym.measures"] == ["zero-one", "auc"]
    assert link.items() <= dict(at.query_params).items()
    at.number_input(key="bym.k").set_value(2)
    rerun(at)
    assert dict(at.query_params)["k"] == "2"


@pytest.mark.slow  # 0.28 s measured (inner loop: unit and not slow)
def test_the_open_tab_travels_in_a_link(open_page):  # noqa: F811
    at = open_page("pages/orderings.py", {"tab": "Theorem 1"})
    assert at.session_state["orderings.tab"] == "Theorem 1"
    assert dict(at.query_params)["tab"] == "Theorem 1"
    at = open_page("pages/compare.py", {"data": "mushroom", "tab": "Learning curves", "k": "2"})
    assert at.session_state["compare.tab"] == "Learning curves"
    assert dict(at.query_params)["tab"] == "Learning curves"


@pytest.mark.slow  # 0.41 s measured (inner loop: unit and not slow)
def test_a_link_made_on_a_custom_distribution_says_so(open_page):  # noqa: F811
    recipe = Recipe("toy", None, {"json": {"states": [[0], [1]], "probs": [[0.3, 0.2], [0.1, 0.4]]}}, {})
    query = recipe.to_query()
    assert query.get("dist") == "custom"
    at = open_page("pages/toy.py", query)
    warnings = " ".join(w.value for w in at.warning)
    assert "custom toy distribution" in warnings and "recipe" in warnings


def test_the_tabs_a_link_names_are_the_pages_tabs():
    import re

    from fslab.recipe import TABS
    from tests.conftest import ROOT
    from ui.orderings import TABS as ORDERINGS_TABS
    assert ORDERINGS_TABS == TABS["orderings"]
    compare = (ROOT / "pages" / "compare.py").read_text()
    labels = re.search(r'st\.tabs\(\[([^\]]*)\],\s*key="compare\.tab"', compare).group(1)
    assert tuple(re.findall(r'"([^"]+)"', labels)) == TABS["compare"]


def test_the_recipe_keeps_the_format_and_the_app_keeps_its_page_schema():
    """Issue 36.2: fslab.recipe holds what a recipe may say (pages, checks, tabs, Compare's largest k) and nothing
    of the app's pages; ui.link_pages holds each page's widget prefix, default source, bounds and offers, one record
    per page of the format, and refers to the format's numbers instead of repeating them."""
    import fslab.recipe as recipe
    from fslab.selectors import SELECTORS
    from ui.link_pages import LINK_PAGES
    from ui.pages import RECIPE_PAGES

    assert not hasattr(recipe, "LINK_PAGES") and not hasattr(recipe, "LinkPage")
    assert tuple(LINK_PAGES) == recipe.PAGES and set(RECIPE_PAGES) == set(recipe.PAGES)
    assert LINK_PAGES["by_measure"].prefix == "bym" and LINK_PAGES["npfs"].prefix == "npfs"
    assert LINK_PAGES["compare"].bounds(40) == {"k": recipe.COMPARE_MAX_K} and LINK_PAGES["compare"].bounds(6)["k"] == 6
    assert LINK_PAGES["npfs"].bounds(25) == {"k": 24} and LINK_PAGES["orderings"].tabs == recipe.TABS["orderings"]
    assert set(LINK_PAGES["compare"].choices) == set(recipe.CHOICES["compare"])
    assert not LINK_PAGES["npfs"].offers(SELECTORS["exhaustive"]) and LINK_PAGES["npfs"].offers(SELECTORS["jmi"])
