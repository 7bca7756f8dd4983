"""Real browser: the Compare page on Mushroom, 0-1 error, k up to 5, three selectors; the curves render."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.conftest import goto_page, screenshot, wait_idle


def test_compare_learning_curves_render(page):
    goto_page(page, "Compare")
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("Compare selectors").first).to_be_visible()
    # the side-by-side grid is drawn on the first visit (plotly heatmap svg)
    page.locator('[data-testid="stPlotlyChart"]').first.locator("g.hm, .heatmaplayer, image").first.wait_for()

    screenshot(page, "compare-side")
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
