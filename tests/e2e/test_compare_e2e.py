"""Real browser: the Compare page on Mushroom, 0-1 error, k up to 5, three selectors; the curves render."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.conftest import goto_page, screenshot, wait_idle, wait_settled


def test_compare_overlaps_and_learning_curves_render(page):
    """The default view (Mushroom): the step grid, the overlap charts at 1400 and 1024 px
    (:func:`_overlaps_side_by_side_then_stacked`), then learning curves for three selectors, k up to 5. (Two tests
    that each opened Compare on the default view in a new session, merged: every check and screenshot kept.)"""
    goto_page(page, "Compare")
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("Compare selectors").first).to_be_visible()
    # the side-by-side grid is drawn on the first visit (plotly heatmap svg)
    grid = page.locator('[data-testid="stPlotlyChart"]').first
    grid.locator("g.hm, .heatmaplayer, image").first.wait_for()
    ticks = [t for t in grid.locator("g.colorbar text").all_text_contents() if t != "step"]
    assert ticks == [str(s) for s in range(1, 6)]  # k = 5: one legend entry per step, integers
    grid.scroll_into_view_if_needed()
    screenshot(page, "compare-side")
    _overlaps_side_by_side_then_stacked(page)
    page.mouse.wheel(0, -5000)  # back to the top, where the tabs are
    page.get_by_role("tab", name="Learning curves").click()
    panel = page.locator('[data-testid="stTabPanel"]:visible')
    # keep three of the four default selectors: remove Fisher score
    panel.locator('[data-testid="stMultiSelect"]').first.get_by_role("button", name="Remove Fisher score").click()
    wait_idle(page)
    slider = panel.locator('[data-testid="stSlider"]').first
    slider.get_by_role("slider").focus()
    for _ in range(3):  # default k up to 8 -> 5
        page.keyboard.press("ArrowLeft")
    wait_idle(page)
    expect(slider.get_by_text("5", exact=True)).to_be_visible()
    panel.get_by_role("button", name="Compute learning curves").click()
    wait_idle(page)
    chart = panel.locator('[data-testid="stPlotlyChart"]').first
    chart.locator("g.scatterlayer g.trace").first.wait_for()
    expect(chart.locator("g.scatterlayer g.trace")).to_have_count(3)
    expect(chart.locator(".gtitle")).to_contain_text("Test 0-1 error with RBF SVM")
    expect(chart.locator("g.legend")).to_contain_text("BayesGreedy")
    chart.scroll_into_view_if_needed()
    screenshot(page, "compare-page")


def test_compare_on_example1_shows_the_disagreement(page):
    """Toy distribution (Example 1, n = 2): default k = 1, BayesGreedy picks X1 and MIGreedy X2; the step grid
    uses one solid colour per step and an integer legend."""
    goto_page(page, "Compare")
    main = page.locator('[data-testid="stMain"]')
    main.get_by_text("Toy distribution:").first.click()
    wait_idle(page)
    expect(main.get_by_text("k = 1,").first).to_be_visible()
    expect(main.get_by_text("Where they disagree, and why.").first).to_be_visible()
    grid = page.locator('[data-testid="stPlotlyChart"]').first
    grid.locator("g.hm, .heatmaplayer, image").first.wait_for()
    grid.locator("g.colorbar text").first.wait_for()
    ticks = [t for t in grid.locator("g.colorbar text").all_text_contents() if t != "step"]
    assert ticks and all(t.isdigit() for t in ticks)  # integer steps, no 1.5 / 2.5
    grid.scroll_into_view_if_needed()
    screenshot(page, "compare-example1")


def _overlap_boxes(page):
    charts = page.locator('[data-testid="stPlotlyChart"]').filter(has=page.locator(".gtitle"))
    jaccard = charts.filter(has_text="Jaccard overlap").first
    tau = charts.filter(has_text="Kendall tau-b").first
    jaccard.locator("g.hm, image").first.wait_for()
    tau.locator("g.hm, image").first.wait_for()
    return jaccard.bounding_box(), tau.bounding_box()


def _overlaps_side_by_side_then_stacked(page) -> None:
    """Mushroom, 7 selectors: at 1400 px the Jaccard and Kendall charts share a row; at 1024 px (sidebar open) each
    takes the full width, one under the other, so their cell numbers stay readable; download labels are whole.
    Back to 1400 x 1000 at the end."""
    page.locator('[data-testid="stExpander"]').filter(has_text="How much do the selections overlap").click()
    wait_idle(page)
    jaccard, tau = _overlap_boxes(page)
    assert abs(jaccard["y"] - tau["y"]) < 2 and tau["x"] > jaccard["x"] + jaccard["width"] - 2
    page.set_viewport_size({"width": 1024, "height": 768})
    wait_settled(page)  # the grid reflows and plotly redraws at the new width
    jaccard, tau = _overlap_boxes(page)
    assert tau["y"] >= jaccard["y"] + jaccard["height"] - 2 and tau["width"] > 500
    buttons = page.locator('[data-testid="stDownloadButton"]')
    whole = ("el => [el, ...el.querySelectorAll('*')].filter(e => e.clientWidth > 1 && (e.innerText || '').trim())"
             ".every(e => e.scrollWidth <= e.clientWidth + 1)")
    assert buttons.count() >= 4 and all(b.evaluate(whole) for b in buttons.all())
    page.locator('[data-testid="stPlotlyChart"]').filter(has_text="Jaccard overlap").first.scroll_into_view_if_needed()
    screenshot(page, "compare-overlaps-1024")
    page.set_viewport_size({"width": 1400, "height": 1000})
    wait_settled(page)
