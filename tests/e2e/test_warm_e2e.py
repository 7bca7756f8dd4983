"""Real browser: once Home has settled, the browser loads the renderers the other pages draw (ui/warm.py), so the
first visit to Toy fetches none of them after the click (issue 26: Home -> Toy loaded 35 scripts then)."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.conftest import goto_page, open_home, scaled
from ui.warm import ELEMENTS, element_scripts


def _loaded(page) -> set[str]:
    return set(page.evaluate("performance.getEntriesByType('resource').map((e) => e.name.split('/').pop())"))


def test_home_loads_the_renderers_before_the_reader_clicks(browser, streamlit_url):
    """In a new browser context: an empty cache, as a reader's first visit (a used tab has the renderers already)."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = ctx.new_page()
        page.set_default_timeout(scaled(60_000))
        page.fslab_url = streamlit_url
        _warm_then_toy(page)
    finally:
        ctx.close()


def _warm_then_toy(page) -> None:
    open_home(page)
    wanted = set(element_scripts())
    assert len(wanted) == len(ELEMENTS)  # this Streamlit has every renderer the warm-up names
    page.wait_for_function(
        "(names) => { const got = new Set(performance.getEntriesByType('resource')"
        ".map((e) => e.name.split('/').pop())); return names.every((n) => got.has(n)); }",
        arg=sorted(wanted), timeout=scaled(60_000))
    before = _loaded(page)
    assert wanted <= before
    after_click: list[str] = []
    page.on("request", lambda r: after_click.append(r.url.split("/")[-1]) if r.url.endswith(".js") else None)
    goto_page(page, "Toy distribution")   # waits until Toy's run is over (it draws no chart until a fold opens)
    expect(page.get_by_role("heading", name="Toy distribution")).to_be_visible()
    assert not wanted & set(after_click), f"fetched again after the click: {sorted(wanted & set(after_click))}"
