"""Issue 26, item 5 in a real browser: presentation mode on a 1024 x 768 projector grows the text to 19 px (also on
the page the tour opens), folds the sidebar away, keeps titles on one line and shows each tour step's point (its
verdict or chart) on the first screen; screenshots of every step in artifacts/."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.conftest import ARTIFACTS, scaled, wait_idle

_PRESENTING = "getComputedStyle(document.documentElement).fontSize === '19px'"
# the sidebar's right edge (0 when it is not drawn) under 60 px
_FOLDED = """() => { const s = document.querySelector('[data-testid="stSidebar"]');
  const r = s ? s.getBoundingClientRect() : null; return !r || r.width === 0 || r.right < 60; }"""


def test_presentation_mode_fits_a_1024_x_768_projector(browser, streamlit_url):
    ctx = browser.new_context(viewport={"width": 1024, "height": 768})
    pg = ctx.new_page()
    pg.set_default_timeout(60_000)
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        pg.goto(streamlit_url)
        wait_idle(pg)
        pg.locator('[data-testid="stSidebar"]').get_by_text("Presentation mode").click()
        wait_idle(pg)
        pg.wait_for_function(_PRESENTING, timeout=scaled(10_000))   # the text grows
        pg.wait_for_function(_FOLDED, timeout=scaled(10_000))       # the sidebar's fold animation is over
        pg.get_by_role("button", name="Start the Example 1 tour").click()
        wait_idle(pg)
        pg.wait_for_function(_PRESENTING, timeout=scaled(10_000))   # and stays grown on the tour's page
        main = pg.locator('[data-testid="stMain"]')
        for step in range(4):
            pg.wait_for_timeout(500)
            header = main.locator("h2").first
            expect(header).to_be_visible()
            pg.screenshot(path=str(ARTIFACTS / f"issue26-present-1024x768-step{step + 1}.png"))
            lines = header.evaluate("e => { const r = document.createRange(); r.selectNodeContents(e); "
                                    "return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size; }")
            assert lines == 1, header.inner_text()  # the title stays on one line
            caption = main.get_by_text(f"Example 1 tour · step {step + 1} of 4")
            bar = pg.locator('[data-testid="stHeader"]').bounding_box()
            assert caption.bounding_box()["y"] >= bar["y"] + bar["height"] - 1  # not under the top bar
            point = (main.locator('[data-testid="stAlertContentSuccess"]').first if step == 0 else
                     main.locator('[data-testid="stPlotlyChart"]').first if step in (1, 2) else
                     main.get_by_role("button", name="Load D_uni and open NPFS"))
            point.wait_for()
            top = point.bounding_box()["y"]
            pg.screenshot(path=str(ARTIFACTS / f"issue26-present-1024x768-step{step + 1}.png"))
            assert top < 768 - 60, (step, top)  # the step's point starts on the first screen
            if step < 3:
                main.get_by_role("button", name="Next").click()
                wait_idle(pg)
    finally:
        ctx.close()
