"""Issue 26, item 3 in a real browser: a teacher's NPFS view, before Run, is in the link and in the share box's
link to copy; a student opening that link gets the same settings (not the page's defaults)."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qsl, urlsplit

from playwright.sync_api import expect

from tests.conftest import ARTIFACTS, download_recipe, goto_page, new_session, wait_idle


def test_an_npfs_link_copied_before_run_keeps_its_settings(page, streamlit_url):
    goto_page(page, "NPFS")
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("Press Run NPFS", exact=False)).to_be_visible()
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("Share this view").click()
    # first draw: the recipe already holds the page's defaults
    first = json.loads(download_recipe(page, sidebar).read_text())
    assert {"selector", "k", "n", "alpha", "seed"} <= set(first["choices"]), first
    k_box = main.locator('[data-testid="stNumberInput"]').filter(has_text="k (features").locator("input")
    k_box.fill("4")
    k_box.press("Enter")
    wait_idle(page)
    page.wait_for_function("() => location.search.includes('k=4')")
    query = dict(parse_qsl(urlsplit(page.url).query))
    assert query["k"] == "4" and {"selector", "n", "alpha", "seed", "fraction"} <= set(query)

    code = sidebar.locator(".st-key-share_link a")   # the link to copy: its text is its address
    expect(code).to_have_attribute("href", re.compile(r"/npfs\?.*\bk=4\b"))
    shown = code.get_attribute("href")
    assert shown.startswith(streamlit_url + "/npfs?") and code.inner_text().strip() == shown, shown
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "issue26-npfs-link-before-run.png"))
    code.scroll_into_view_if_needed()
    sidebar.screenshot(path=str(ARTIFACTS / "issue26-share-box-link.png"))
    recipe = json.loads(download_recipe(page, sidebar).read_text())  # the same settings as the link
    assert recipe["page"] == "npfs" and recipe["choices"]["k"] == 4 and "selector" in recipe["choices"]

    teacher = page.locator('[data-testid="stMain"]').get_by_role("combobox", name="Base selector").input_value()
    student = page   # a new visitor's session in the same tab (nothing kept: tests.conftest.new_session)
    new_session(student, shown)
    box = student.locator('[data-testid="stMain"] [data-testid="stNumberInput"]').filter(
        has_text="k (features").locator("input")
    expect(box).to_have_value("4")
    expect(student.locator('[data-testid="stMain"]').get_by_role("combobox", name="Base selector")).to_have_value(
        teacher)
