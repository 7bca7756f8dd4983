"""Issue 26, item 6 in a real browser: the Minimal S* tiles show their whole answer (no "{X1, X2, X..."), at
1400 x 1000 and on a 1024 x 768 projector."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from tests.conftest import ARTIFACTS, wait_idle


@pytest.mark.parametrize("width, height", [(1400, 1000), (1024, 768)])
def test_minimal_tiles_are_not_cut(browser, streamlit_url, width, height):
    ctx = browser.new_context(viewport={"width": width, "height": height})
    pg = ctx.new_page()
    pg.set_default_timeout(60_000)
    try:
        pg.goto(f"{streamlit_url}/orderings?{urlencode({'dist': 's-star-vs-markov', 'tab': 'Minimal S* (BS, OS)'})}")
        wait_idle(pg)
        values = pg.locator('[data-testid="stMain"] [data-testid="stMetricValue"]')
        expect(values).to_have_count(5)
        cut = values.evaluate_all("els => els.map(e => [e.innerText, e.scrollWidth > e.clientWidth + 1])"
                                  ".filter(([t, c]) => c)")
        assert cut == []
        texts = values.all_inner_texts()
        assert all("..." not in t and "…" not in t for t in texts), texts
        ARTIFACTS.mkdir(exist_ok=True)
        values.first.scroll_into_view_if_needed()
        pg.screenshot(path=str(ARTIFACTS / f"issue26-orderings-minimal-{width}x{height}.png"))
    finally:
        ctx.close()
