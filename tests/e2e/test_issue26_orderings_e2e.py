"""Issue 26, item 6 in a real browser: the Minimal S* tiles show their whole answer (no "{X1, X2, X..."), at
1400 x 1000 and, in the same session, on a 1024 x 768 projector."""

from __future__ import annotations

from urllib.parse import urlencode

from playwright.sync_api import expect

from tests.conftest import ARTIFACTS, wait_idle

# the tiles whose text runs past their box (an ellipsis or a cut: scrollWidth beyond clientWidth)
_CUT = "els => els.map(e => [e.innerText, e.scrollWidth > e.clientWidth + 1]).filter(([t, c]) => c)"

_TWO_FRAMES = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


def test_minimal_tiles_are_not_cut(page, streamlit_url):
    pg = page
    ARTIFACTS.mkdir(exist_ok=True)
    pg.goto(f"{streamlit_url}/orderings?{urlencode({'dist': 's-star-vs-markov', 'tab': 'Minimal S* (BS, OS)'})}")
    wait_idle(pg)
    values = pg.locator('[data-testid="stMain"] [data-testid="stMetricValue"]')
    expect(values).to_have_count(5)
    for width, height in ((1400, 1000), (1024, 768)):
        pg.set_viewport_size({"width": width, "height": height})
        pg.evaluate(_TWO_FRAMES)   # resize observers and the redraw they start have run
        assert values.evaluate_all(_CUT) == [], (width, height)
        texts = values.all_inner_texts()
        assert all("..." not in t and "…" not in t for t in texts), (width, height, texts)
        values.first.scroll_into_view_if_needed()
        pg.screenshot(path=str(ARTIFACTS / f"issue26-orderings-minimal-{width}x{height}.png"))
