"""Real browser: load the Bayes paper's Example 1 preset, see MI and the 0-1 error pick different features,
then open the Orderings page and its Hasse diagram (greedy path and k-optimal rings drawn)."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.conftest import goto_page, scaled, screenshot, wait_idle, wait_settled


def test_example1_preset_convergence_then_hasse_diagram(page):
    """Toy: Example 1's verdict, then the convergence study's legend (its fold draws nothing until opened), then
    Orderings' Hasse diagram. (The convergence test opened Toy in a new session of its own: merged, every check
    and screenshot kept.)"""
    goto_page(page, "Toy distribution")
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("Bayes paper, Example 1").first).to_be_visible()
    main.get_by_role("button", name="Load preset").click()
    wait_idle(page)
    expect(main.get_by_text("Current distribution: Bayes paper, Example 1")).to_be_visible()
    verdict = main.get_by_text("mutual information (MIGreedy) picks")
    expect(verdict).to_contain_text("best 1-subset is X1")
    expect(verdict).to_contain_text("picks X2")
    expect(verdict).to_contain_text("different features")
    verdict.scroll_into_view_if_needed()
    screenshot(page, "toy-page")
    # folded sections draw nothing until opened (the law's chart too, issue 34.5): the study runs only when opened
    expect(main.locator('[data-testid="stPlotlyChart"]')).to_have_count(0)
    main.get_by_text("How much data does plug-in selection need?").click()
    wait_idle(page)
    expect(main.locator('[data-testid="stPlotlyChart"]')).to_have_count(1)
    chart = main.locator('[data-testid="stPlotlyChart"]').first
    chart.locator("g.legend").wait_for()
    expect(chart.locator("g.legend")).to_contain_text("BayesGreedy")
    expect(main.locator('[data-testid="stMultiSelect"]').nth(1)).to_contain_text("MIGreedy")
    main.get_by_text("How much data does plug-in selection need?").scroll_into_view_if_needed()
    screenshot(page, "toy-convergence")

    goto_page(page, "Orderings")
    expect(main.get_by_text("Bayes-risk orderings").first).to_be_visible()
    page.get_by_role("tab", name="Hasse diagram").click()
    hasse = main.locator('[data-testid="stPlotlyChart"]').first
    hasse.locator("g.scatterlayer g.trace").first.wait_for()
    expect(hasse.locator(".gtitle")).to_contain_text("Subset lattice coloured by 0-1 error")
    expect(hasse.locator("g.legend")).to_contain_text("greedy path")
    expect(hasse.locator("g.legend")).to_contain_text("MIGreedy path")
    expect(hasse.locator("g.legend")).to_contain_text("k-optimal")
    expect(hasse.locator("text", has_text="{X1, X2}").first).to_be_visible()
    hasse.scroll_into_view_if_needed()
    screenshot(page, "toy-orderings")


def test_orderings_on_a_wide_dataset_and_fbs_tab(page):
    goto_page(page, "Orderings")
    main = page.locator('[data-testid="stMain"]')
    main.get_by_text("Dataset:").first.click()
    wait_idle(page)
    expect(main.get_by_text("too many to enumerate")).to_have_count(1)
    expect(main.locator('[data-testid="stMultiSelect"]').first).to_contain_text("odor=none")
    main.locator('[data-testid="stMultiSelect"]').first.scroll_into_view_if_needed()
    screenshot(page, "orderings-wide-dataset")
    page.get_by_role("tab", name="Minimal S* (BS, OS)").click()  # only the open tab runs
    wait_idle(page)
    expect(main.locator('[data-testid="stMetric"]').first).to_contain_text("BS")
    page.get_by_role("tab", name="Sample (FBS, FOS)").click()
    expect(main.get_by_text("FBS: keeps").first).to_be_visible()
    main.get_by_text("FBS: keeps").first.scroll_into_view_if_needed()
    page.mouse.wheel(0, -250)
    wait_settled(page)
    screenshot(page, "orderings-fbs")


def _tabs_fit(page) -> None:
    """All four Orderings tabs lie inside their tab bar: none hides behind a scroll arrow."""
    tabs = page.locator('[data-testid="stMain"]').get_by_role("tab")
    expect(tabs).to_have_count(4)
    bar = page.locator('[data-testid="stMain"]').get_by_role("tablist").first.bounding_box()
    for i in range(4):
        box = tabs.nth(i).bounding_box()
        inside = box["x"] >= bar["x"] - 1 and box["x"] + box["width"] <= bar["x"] + bar["width"] + 1
        assert inside, (i, box, bar)


def test_orderings_tabs_all_show_on_a_1024_projector(page):
    """Issue 16: at 1024 x 768 the fourth tab hid behind a scroll arrow; also in presentation mode (19 px text)."""
    page.set_viewport_size({"width": 1024, "height": 768})
    goto_page(page, "Orderings")
    _tabs_fit(page)
    screenshot(page, "orderings-tabs-1024")
    page.get_by_text("Presentation mode").click()
    wait_idle(page)
    page.wait_for_function("getComputedStyle(document.documentElement).fontSize === '19px'", timeout=scaled(10_000))
    _tabs_fit(page)
    screenshot(page, "orderings-tabs-1024-presentation")
    hasse = page.locator('[data-testid="stMain"]').locator('[data-testid="stPlotlyChart"]').first
    hasse.locator("g.annotation").first.wait_for()
    hasse.scroll_into_view_if_needed()
    screenshot(page, "orderings-hasse-1024-presentation")
