"""Real browser: pick the Splice sample on the Data page, then on Select: balanced error, BayesGreedy, k = 5."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.conftest import choose, goto_page, scaled, screenshot, wait_idle, wait_settled


def test_select_page_trace_renders(page):
    goto_page(page, "Data")
    choose(page, "Sample data set", "Splice-junction DNA sequences (N vs EI/IE)")
    page.get_by_role("button", name="Use this dataset").click()
    wait_idle(page)

    goto_page(page, "Select")
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("Dataset: splice", exact=False).first).to_be_visible()
    measure_box = page.locator('[data-testid="stSelectbox"]').filter(has_text="Measure")
    measure_box.click()
    page.get_by_role("option").filter(has_text="alanced").first.click()
    wait_idle(page)
    expect(page.get_by_role("combobox", name="Selector")).to_have_value("BayesGreedy")
    expect(page.get_by_role("combobox", name="Measure")).to_have_value("balanced error")
    expect(page.locator('[data-testid="stNumberInput"]').filter(has_text="k (features").locator("input")
           ).to_have_value("5")

    chart = page.locator('[data-testid="stPlotlyChart"]').first
    chart.locator("g.scatterlayer g.trace").first.wait_for()
    expect(chart.locator("g.scatterlayer g.trace")).to_have_count(4)   # the run in both estimates + 2 overlays
    expect(chart.locator("g.legend")).to_contain_text("MIGreedy")
    expect(chart.locator(".ytitle")).to_contain_text("balanced error")
    expect(main.get_by_text("Selected:").first).to_be_visible()
    heatmap = page.locator('[data-testid="stPlotlyChart"]').nth(1)
    heatmap.locator("g.hm, image").first.wait_for()
    chart.scroll_into_view_if_needed()
    screenshot(page, "select-page")
    heatmap.scroll_into_view_if_needed()
    screenshot(page, "select-heatmap")


def test_default_heatmap_robustness_1024_and_backward_on_example1(page):
    """Mushroom default (BayesGreedy 0-1, k = 5): the heatmap labels all 60 shown columns; "Does this pick hold up?"
    runs by itself (predicted under a second) and shows one row per chosen feature with its NPFS frequency, the
    test's verdict and the binnings that pick it; the same view at 1024 x 768 (:func:`_labels_at_1024`); then
    Example 1 with backward (k = 2 = n) renders the full set and its note instead of failing. (Two tests that
    each opened Select on the default view in a new session, merged: every check and screenshot kept.)"""
    goto_page(page, "Select")
    main = page.locator('[data-testid="stMain"]')
    heatmap = page.locator('[data-testid="stPlotlyChart"]').nth(1)
    heatmap.locator("g.hm, image").first.wait_for()
    expect(heatmap.locator("g.xtick")).to_have_count(60)
    expect(heatmap.locator("g.ytick")).to_have_count(5)
    heatmap.scroll_into_view_if_needed()
    screenshot(page, "select-heatmap-mushroom")

    heading = main.get_by_role("heading", name="Does this pick hold up?")
    heading.wait_for()
    caption = main.get_by_text("NPFS frequency z/n", exact=False).first
    expect(caption).to_be_visible()
    expect(caption).to_contain_text("equation (3)")
    heading.scroll_into_view_if_needed()
    expect(main.locator('[data-testid="stTable"]').last).to_be_visible()  # static tables (issue 34.5)
    expect(main.get_by_text("binning cannot change the pick", exact=False).first).to_be_visible()
    screenshot(page, "select-robustness")

    _labels_at_1024(page)
    page.set_viewport_size({"width": 1400, "height": 1000})   # Example 1 at 1400 x 1000 (presentation mode on)
    page.mouse.wheel(0, -5000)

    main.get_by_text("toy distribution", exact=False).first.click()
    wait_idle(page)
    choose(page, "Selector", "Backward elimination")
    expect(main.get_by_text("removes nothing", exact=False).first).to_be_visible()
    # the k box shows the k actually used: Example 1 has 2 features, so the remembered k = 5 became 2
    expect(page.locator('[data-testid="stNumberInput"]').filter(has_text="k (features").locator("input")
           ).to_have_value("2")
    expect(main.get_by_text("Selected:").first).to_be_visible()
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)
    page.locator('[data-testid="stPlotlyChart"]').first.scroll_into_view_if_needed()
    screenshot(page, "select-backward-example1")


# every element that shows text is as wide as its text (an ellipsis would make scrollWidth > clientWidth); the
# screen-reader-only span of a checkbox (1 px wide, no text) is not a label
NOT_CUT = ("el => [el, ...el.querySelectorAll('*')].filter(e => e.clientWidth > 1 && (e.innerText || '').trim())"
           ".every(e => e.scrollWidth <= e.clientWidth + 1)")


def _labels_at_1024(page) -> None:
    """A 1024 x 768 window (sidebar open), Mushroom default: plotly labels as many heatmap columns as fit and no two
    labels overprint; every download button and the s-variate checkbox show their whole label (no ellipsis); in
    presentation mode too (left on)."""
    page.set_viewport_size({"width": 1024, "height": 768})
    wait_settled(page)   # plotly redraws the heatmap at the new width
    heatmap = page.locator('[data-testid="stPlotlyChart"]').nth(1)
    heatmap.locator("g.hm, image").first.wait_for()
    spans = sorted(heatmap.locator("g.xtick text").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect()).map(r => [r.left, r.right])"))
    assert 10 <= len(spans) <= 60
    assert all(left[1] <= right[0] + 0.5 for left, right in zip(spans, spans[1:], strict=False)), spans
    heatmap.scroll_into_view_if_needed()
    screenshot(page, "select-heatmap-1024")
    buttons = page.locator('[data-testid="stMain"] [data-testid="stDownloadButton"]')
    expect(buttons.filter(has_text="Data, selected columns (CSV)")).to_have_count(1)
    assert buttons.count() >= 5 and all(button.evaluate(NOT_CUT) for button in buttons.all())
    checkbox = page.locator('[data-testid="stCheckbox"]').filter(has_text="s-variate")
    assert checkbox.evaluate(NOT_CUT)
    page.get_by_text("Presentation mode").click()  # 19 px text: the label wraps instead of being cut
    wait_idle(page)
    page.wait_for_function("getComputedStyle(document.documentElement).fontSize === '19px'", timeout=scaled(10_000))
    assert checkbox.evaluate(NOT_CUT) and all(button.evaluate(NOT_CUT) for button in buttons.all())
    heatmap.scroll_into_view_if_needed()
    screenshot(page, "select-heatmap-1024-presentation")
    buttons.first.scroll_into_view_if_needed()
    screenshot(page, "select-downloads-1024-presentation")
