"""Issue 34, done-when: a teacher's walk at 1024 x 768 with presentation mode switched on once (Home, the tour's
four steps, Toy with the XOR preset, Orderings, Select, NPFS after Run, By measure, Compare, Scores, Papers), moving
only by the app's own navigation (the page bar's previous / next links, the tour's buttons). On each page: the sidebar
stays folded, nothing scrolls the page sideways and no data grid scrolls its columns sideways, no chart text is under
14 px, and the page's first result (a chart, a table or a verdict) starts within the first 768 px, under the page's
read-aloud line and compact controls (NPFS: after Run). Presentation mode (issue 26, item 5) grows the text to
19 px, on the tour's page too; each tour step's title stays on one line, its caption clear of the top bar and its
point (the verdict, the chart, the NPFS button) on the first screen. Screenshots and the figures in artifacts/
(projector-walk.json)."""

from __future__ import annotations

import json
import shutil

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from tests.conftest import ARTIFACTS, scaled, wait_idle, wait_settled

WIDTH, HEIGHT = 1024, 768
# the smallest font of the text of every drawn chart (plotly writes each text's size into its style attribute)
_CHART_FONTS = """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"] svg text')]
  .filter(t => t.textContent.trim() && t.getBoundingClientRect().width > 0)
  .map(t => parseFloat(getComputedStyle(t).fontSize))"""
# where the page's first result (a chart, a table or a verdict) starts, in px from the top of the page
_RESULT_TOP = """() => { const r = document.querySelector('[data-testid="stMain"]').querySelector(
  '[data-testid="stPlotlyChart"], [data-testid="stDataFrame"], [data-testid="stTable"],'
  + ' [data-testid="stAlertContentSuccess"]');
  return r ? Math.round(r.getBoundingClientRect().top + window.scrollY) : null; }"""
_OVERFLOW = "() => document.querySelector('[data-testid=\"stMain\"]').scrollWidth - window.innerWidth"
# px a visible data grid's columns run past its width (the grid's own scroller: its columns would scroll sideways)
_GRID_OVERFLOW = """() => Math.max(0, ...[...document.querySelectorAll('[data-testid="stMain"] .dvn-scroller')]
  .filter(e => e.getBoundingClientRect().width > 0).map(e => e.scrollWidth - e.clientWidth))"""


_PRESENTING = "getComputedStyle(document.documentElement).fontSize === '19px'"

# the lines an element's text takes (distinct tops of its text's boxes)
_LINES = ("e => { const r = document.createRange(); r.selectNodeContents(e); "
          "return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size; }")


def _sidebar_right(pg) -> float:
    box = pg.locator('[data-testid="stSidebar"]').bounding_box()
    return 0.0 if box is None else max(0.0, box["x"] + box["width"])


def _check(pg, name: str, found: dict, result: bool = True) -> None:
    """The view's figures once it has settled; ``result``: the page shows a result (its first one is waited for: a
    run's elements can reach the page after the run's end is signalled; one that never comes is reported as None)."""
    if result:
        try:
            pg.wait_for_function(f"({_RESULT_TOP})() !== null", timeout=scaled(15_000))
        except PlaywrightTimeoutError:
            pass   # the assertions below name the page
    wait_idle(pg)   # and a run still going (a page switch's) is over
    wait_settled(pg)
    pg.screenshot(path=str(ARTIFACTS / f"projector-{name}.png"))
    fonts = pg.evaluate(_CHART_FONTS)
    found[name] = {"sidebar": _sidebar_right(pg), "overflow": pg.evaluate(_OVERFLOW),
                   "grid_overflow": pg.evaluate(_GRID_OVERFLOW), "min_chart_font": min(fonts, default=None),
                   "result_top": pg.evaluate(_RESULT_TOP)}


def _tour_step(pg, step: int, found: dict) -> None:
    """Issue 26, item 5 on tour step ``step``: its title's lines, whether its caption clears the top bar, where its
    point starts (px); the step's screenshot under issue 26's name too."""
    main = pg.locator('[data-testid="stMain"]')
    header = main.locator("h2").first
    expect(header).to_be_visible()
    found["title_lines"] = header.evaluate(_LINES)
    bar = pg.locator('[data-testid="stHeader"]').bounding_box()
    caption = main.get_by_text(f"Example 1 tour · step {step} of 4").bounding_box()
    found["caption_clear"] = caption["y"] >= bar["y"] + bar["height"] - 1
    point = (main.locator('[data-testid="stAlertContentSuccess"]').first if step == 1 else
             main.locator('[data-testid="stPlotlyChart"]').first if step in (2, 3) else
             main.get_by_role("button", name="Load D_uni and open NPFS"))
    point.wait_for()
    found["point_top"] = point.bounding_box()["y"]
    shutil.copyfile(ARTIFACTS / f"projector-tour{step}.png", ARTIFACTS / f"issue26-present-1024x768-step{step}.png")


def _next(pg) -> None:
    pg.locator(".st-key-page_bar [data-testid=stPageLink]").last.click()
    wait_idle(pg)


def test_a_teachers_walk_at_1024_x_768(page, streamlit_url):
    pg = page
    pg.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    pg.set_default_timeout(scaled(120_000))
    ARTIFACTS.mkdir(exist_ok=True)
    found: dict[str, dict] = {}
    main = pg.locator('[data-testid="stMain"]')
    try:
        pg.goto(streamlit_url)
        wait_idle(pg)
        pg.locator('[data-testid="stSidebar"]').get_by_text("Presentation mode").click()  # once, as a teacher
        wait_idle(pg)
        pg.wait_for_function(_PRESENTING, timeout=scaled(10_000))   # the text grows
        _check(pg, "home", found)
        main.get_by_role("button", name="Start the Example 1 tour").click()
        wait_idle(pg)
        pg.wait_for_function(_PRESENTING, timeout=scaled(10_000))   # and stays grown on the tour's page
        for step in range(1, 5):
            _check(pg, f"tour{step}", found, result=step < 4)   # the last step's point is a button
            _tour_step(pg, step, found[f"tour{step}"])
            if step < 4:
                main.get_by_role("button", name="Next").click()
                wait_idle(pg)
        for name in ("data", "select", "by_measure", "compare", "scores"):  # the page bar's next links
            _next(pg)
            if name in ("select", "by_measure", "compare", "scores"):
                _check(pg, name, found)
        _next(pg)  # NPFS
        main.get_by_role("button", name="Run NPFS").click()
        # a few seconds of bootstraps: a run still going after a minute (idle machine; scaled) is a hang, reported
        # with what the page shows and the server's threads (tests.conftest.stuck_report) instead of waiting on
        wait_idle(pg, timeout=60_000)
        _check(pg, "npfs", found)
        _next(pg)  # Toy
        main.locator('[data-testid="stSelectbox"]').filter(has_text="Preset").click()
        pg.get_by_role("option", name="XOR of two features (plus a noise feature)").click()
        wait_idle(pg)
        loaded = main.get_by_text("Current distribution: XOR of two features")
        clicks = 0
        while clicks < 2 and not loaded.count():  # a click landing while the selectbox's rerun redraws is lost
            main.get_by_role("button", name="Load preset").click()
            wait_idle(pg)
            clicks += 1
        expect(loaded).to_be_visible()
        _check(pg, "toy", found)
        found["toy"]["load_clicks"] = clicks
        _next(pg)
        _check(pg, "orderings", found)
        _next(pg)
        _check(pg, "papers", found)
    finally:
        (ARTIFACTS / "projector-walk.json").write_text(json.dumps(found, indent=1))
    assert all(v["sidebar"] < 60 for v in found.values()), found
    assert all(v["overflow"] <= 0 for v in found.values()), found
    assert all(v["min_chart_font"] is None or v["min_chart_font"] >= 14 for v in found.values()), found
    assert all(v["grid_overflow"] <= 0 for v in found.values()), found
    tour = [v for n, v in found.items() if n.startswith("tour")]
    assert len(tour) == 4 and all(v["title_lines"] == 1 and v["caption_clear"] for v in tour), tour
    assert all(v["point_top"] < HEIGHT - 60 for v in tour), tour   # each step's point on the first screen
    # the tour's last step is its NPFS button: no result to place
    assert all(v["result_top"] is not None and v["result_top"] <= HEIGHT for n, v in found.items() if n != "tour4"), \
        found
