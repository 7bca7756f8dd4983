"""Real browser: load the Bayes paper's Example 1 preset, see MI and the 0-1 error pick different features,
then open the Orderings page and its Hasse diagram (greedy path and k-optimal rings drawn)."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.conftest import goto_page, screenshot, wait_idle


def test_example1_preset_then_hasse_diagram(page):
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

    goto_page(page, "Orderings")
    expect(main.get_by_text("Bayes-risk orderings").first).to_be_visible()
    page.get_by_role("tab", name="Subsets and Hasse diagram").click()
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
    page.get_by_role("tab", name="Minimal-optimal S* (BS, OS)").click()  # only the open tab runs
    wait_idle(page)
    expect(main.locator('[data-testid="stMetric"]').first).to_contain_text("BS")
    page.get_by_role("tab", name="On a sample (FBS, FOS)").click()
    expect(main.get_by_text("FBS: keeps").first).to_be_visible()
    main.get_by_text("FBS: keeps").first.scroll_into_view_if_needed()
    page.mouse.wheel(0, -250)
    page.wait_for_timeout(300)
    screenshot(page, "orderings-fbs")


def test_toy_convergence_legend_shows_selector_names(page):
    goto_page(page, "Toy distribution")
    main = page.locator('[data-testid="stMain"]')
    chart = main.locator('[data-testid="stPlotlyChart"]').nth(1)
    chart.locator("g.legend").wait_for()
    expect(chart.locator("g.legend")).to_contain_text("BayesGreedy")
    expect(main.locator('[data-testid="stMultiSelect"]').nth(1)).to_contain_text("MIGreedy")
    main.get_by_text("How much data does plug-in selection need?").scroll_into_view_if_needed()
    screenshot(page, "toy-convergence")
