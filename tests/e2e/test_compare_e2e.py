"""Real browser: the Compare page on Mushroom, 0-1 error, k up to 5, three selectors; the curves render."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.conftest import goto_page, screenshot, wait_idle


def test_compare_learning_curves_render(page):
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
