"""Real browser, issue 22: a messy table as an analyst exports it (IDs, dates, "6,243" amounts, a 250-level ZIP
code), uploaded and selected with no setting touched: held out, the planted signal, and a verdict that can say no."""

from __future__ import annotations

from playwright.sync_api import expect

from fslab.data import messy
from tests.conftest import choose, goto_page, screenshot, wait_idle


def _upload_loans(page, tmp_path) -> None:
    path = tmp_path / "loans.csv"
    path.write_bytes(messy.to_csv_bytes(messy.loans()))
    goto_page(page, "Data")
    page.get_by_text("Upload a CSV").click()
    wait_idle(page)
    page.get_by_test_id("stMain").locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    wait_idle(page)
    choose(page, "Target column", "default")
    page.get_by_role("button", name="Use this dataset").click()
    wait_idle(page)


def test_an_upload_is_held_out_and_the_many_level_codes_lose(page, tmp_path):
    _upload_loans(page, tmp_path)
    goto_page(page, "Select")
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("Held out (cross-fitted, 5 folds)")).to_be_visible()
    selected = main.locator('[data-testid="stAlert"]').filter(has_text="Selected:").first
    expect(selected).to_contain_text("grade")
    expect(selected).not_to_contain_text("zip_prefix")
    expect(selected).not_to_contain_text("employer")
    main.get_by_text("How this is computed").click()   # why k starts where it does: folded below the result
    expect(main.get_by_text("footnote 3's stopping rule", exact=False)).to_be_visible()
    page.set_viewport_size({"width": 1400, "height": 2600})
    wait_idle(page)
    screenshot(page, "select-upload-held-out")
    # the papers' in-sample plug-in, one click away: it fits the ZIP codes and employers, and the verdict says so
    main.get_by_text("In-sample (plug-in, as in the papers)").click()
    wait_idle(page)
    expect(main.locator('[data-testid="stAlert"]').filter(has_text="Selected:").first).to_contain_text("employer")
    verdict = main.locator('[data-testid="stAlert"]').filter(has_text="Does not hold up")
    expect(verdict).to_be_visible()
    verdict.scroll_into_view_if_needed()
    screenshot(page, "select-upload-plug-in-red")
