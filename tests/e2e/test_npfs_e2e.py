"""Real browser: run NPFS on D_uni, see the progress bar, the selection-matrix heatmap, cancel a long run."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.conftest import choose, goto_page, scaled, screenshot, wait_idle, wait_settled


def test_npfs_on_duni_heatmap_progress_and_cancel(page):
    goto_page(page, "NPFS")
    main = page.locator('[data-testid="stMain"]')
    # First visit: NPFS waits for a click (it takes seconds), then runs on Mushroom; the finished run leaves no
    # Cancel button, and every matrix row is labelled.
    expect(main.get_by_text("Press Run NPFS", exact=False)).to_be_visible()
    page.get_by_role("button", name="Run NPFS").click()
    wait_idle(page)
    expect(main.get_by_text("Relevant (")).to_be_visible(timeout=scaled(30_000))
    expect(page.get_by_role("button", name="Cancel")).to_have_count(0)
    matrix = page.locator('[data-testid="stPlotlyChart"]').first
    expect(matrix.locator("g.ytick")).to_have_count(116)
    page.set_viewport_size({"width": 1400, "height": 2000})  # the matrix is 1618 px tall: see all of it
    matrix.scroll_into_view_if_needed()
    wait_settled(page)
    screenshot(page, "npfs-mushroom-matrix")
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.get_by_role("button", name="Load D_uni (the paper's synthetic data)").click()
    wait_idle(page)
    expect(main.get_by_text("Relevant (5): X1, X2, X3, X4, X5")).to_be_visible()

    heatmap = page.locator('[data-testid="stPlotlyChart"]').first
    heatmap.locator("g.heatmaplayer image, g.heatmaplayer path").first.wait_for()  # plotly.js drew the heatmap
    expect(heatmap.locator(".gtitle")).to_contain_text("Selection matrix: 25 features x 100 bootstraps")

    # A long run: the progress bar shows the remaining time; then cancel it. MIGreedy resamples every bootstrap
    # (5,000 take seconds); JMI's bootstraps are counted as row weights, 4,000 of them before a click on Cancel lands.
    choose(page, "Base selector", "MIGreedy")
    n_input = page.get_by_role("spinbutton", name="n (bootstraps)")
    n_input.fill("5000")
    n_input.press("Enter")
    wait_idle(page)
    page.get_by_role("button", name="Run NPFS").click()
    progress = page.locator('[data-testid="stProgress"]')
    expect(progress).to_be_visible(timeout=scaled(20_000))
    expect(main.get_by_text("s left")).to_be_visible(timeout=scaled(20_000))
    screenshot(page, "npfs-progress")
    page.get_by_role("button", name="Cancel").click()
    wait_idle(page)
    expect(main.get_by_text("Run cancelled after")).to_be_visible()
    expect(page.get_by_role("button", name="Cancel")).to_have_count(0)

    # Back to JMI and n = 100: the memoised run is shown again, with its heatmap.
    choose(page, "Base selector", "JMI")
    n_input.fill("100")
    n_input.press("Enter")
    wait_idle(page)
    expect(main.get_by_text("Relevant (5): X1, X2, X3, X4, X5")).to_be_visible()
    heatmap.scroll_into_view_if_needed()
    wait_settled(page)
    screenshot(page, "npfs-page")
    # in the same session (it opened NPFS in a new one of its own: merged, every check and screenshot kept)
    _k_box_gets_its_k_back_after_a_two_feature_sample(page)


def _k_box_gets_its_k_back_after_a_two_feature_sample(page):
    """Issue 16 item 4: NPFS on D_uni (k = 10); a 2-feature sample of the toy distribution caps k at K - 1 = 1; D_uni
    again: the box shows 10 beside the result for k = 10 (it kept 1, and this button then ran NPFS with k = 1)."""
    main = page.locator('[data-testid="stMain"]')
    load = page.get_by_role("button", name="Load D_uni (the paper's synthetic data)")
    load.click()
    wait_idle(page)
    expect(main.get_by_text("Relevant (5): X1, X2, X3, X4, X5")).to_be_visible()
    k_box = page.get_by_role("spinbutton", name="k (features per bootstrap)")
    expect(k_box).to_have_value("10")
    goto_page(page, "Toy distribution")
    page.get_by_role("button", name="Sample m rows and use them as the dataset").click()
    wait_idle(page)
    goto_page(page, "NPFS")
    expect(k_box).to_have_value("1")
    load.click()
    wait_idle(page)
    expect(k_box).to_have_value("10")
    expect(main.get_by_text("Relevant (5): X1, X2, X3, X4, X5")).to_be_visible()
    expect(main.get_by_text("The settings changed")).to_have_count(0)
    screenshot(page, "npfs-k-back")
