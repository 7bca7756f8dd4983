"""Real browser: the Scores page draws its sortable table of every feature, in-sample beside held out."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.conftest import goto_page, screenshot


def test_scores_page_shows_the_table(page):
    goto_page(page, "Scores")
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("Feature scores")).to_be_visible()
    expect(main.locator('[data-testid="stDataFrame"]').first).to_be_visible()
    expect(main.get_by_text("Tick features in the table")).to_be_visible()
    page.set_viewport_size({"width": 1400, "height": 1400})
    screenshot(page, "scores-page")
