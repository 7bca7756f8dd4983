"""Real browser: a Select view on the Splice sample (balanced error, k = 5) travels as a downloaded recipe and as
the link in the address bar, each opened in a fresh browser context (a new session with nothing in it)."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from tests.conftest import ARTIFACTS, choose, goto_page, wait_idle

SPLICE = "Splice-junction DNA sequences (N vs EI/IE)"


def selected_text(page) -> str:
    alerts = page.locator('[data-testid="stMain"] [data-testid="stAlertContentSuccess"]')
    alert = alerts.filter(has_text="Selected:").first
    alert.wait_for()
    return alert.inner_text()


def open_share_box(page):
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("Share this view").click()
    return sidebar


def fresh_page(browser, url: str):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = ctx.new_page()
    pg.set_default_timeout(60_000)
    pg.goto(url)
    wait_idle(pg)
    return ctx, pg


def test_a_select_view_travels_as_recipe_and_as_link(page, browser, streamlit_url, tmp_path):
    goto_page(page, "Data")
    choose(page, "Sample data set", SPLICE)
    page.get_by_role("button", name="Use this dataset").click()
    wait_idle(page)
    goto_page(page, "Select")
    choose(page, "Measure", "balanced error")
    k_box = page.locator('[data-testid="stNumberInput"]').filter(has_text="k (features").locator("input")
    expect(k_box).to_have_value("5")
    expected = selected_text(page)
    link = page.url
    assert "/selection?" in link and "data=splice" in link and "measure=balanced" in link and "k=5" in link

    sidebar = open_share_box(page)
    with page.expect_download() as download:
        sidebar.get_by_role("button", name="Download recipe (JSON)").click()
    assert download.value.suggested_filename == "fslab-select-recipe.json"
    recipe_path = tmp_path / "fslab-select-recipe.json"
    download.value.save_as(recipe_path)
    recipe = json.loads(recipe_path.read_text())
    assert recipe["page"] == "select" and recipe["data"] == {"sample": "splice"}
    assert recipe["choices"]["measure"] == "balanced" and recipe["choices"]["k"] == 5
    ARTIFACTS.mkdir(exist_ok=True)
    sidebar.screenshot(path=str(ARTIFACTS / "share-sidebar.png"))

    ctx, fresh = fresh_page(browser, streamlit_url)  # a new session: mushroom, default choices
    try:
        open_share_box(fresh).locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
            str(recipe_path))
        wait_idle(fresh)
        expect(fresh.get_by_role("combobox", name="Measure")).to_have_value("balanced error", timeout=60_000)
        assert selected_text(fresh) == expected
        assert "/selection?" in fresh.url and "data=splice" in fresh.url
    finally:
        ctx.close()

    ctx, linked = fresh_page(browser, link)
    try:
        expect(linked.get_by_role("combobox", name="Measure")).to_have_value("balanced error", timeout=60_000)
        expect(linked.locator('[data-testid="stSidebar"]').get_by_text("splice (sample)")).to_be_visible(timeout=60_000)
        assert selected_text(linked) == expected
    finally:
        ctx.close()
