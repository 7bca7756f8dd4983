"""Real browser: pick shipped samples on the Home page and see them become the current dataset."""

from __future__ import annotations

from playwright.sync_api import expect

from fslab.data.samples import SAMPLES
from tests.conftest import choose, open_home, screenshot


def _pick_sample(page, name: str) -> None:
    choose(page, "Sample data set", f"{name}: {SAMPLES[name].title}")


def test_home_page_loads_adult_and_a_generated_sample(page):
    open_home(page)
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("Current dataset: mushroom (sample) (8,124 rows x 116 features)")).to_be_visible()
    # Adult: the largest file (48,842 x 123 a9a indicators, pooled a9a + a9a.t), with its citation and licence.
    _pick_sample(page, "adult")
    expect(main.get_by_text("Current dataset: adult (sample) (48,842 rows x 123 features)")).to_be_visible()
    expect(main.get_by_text("positive rate 0.239", exact=False)).to_be_visible()
    expect(main.get_by_text("Becker, B. & Kohavi, R. (1996)", exact=False)).to_be_visible()
    expect(main.get_by_text("Licence: CC BY 4.0", exact=False)).to_be_visible()
    expect(page.get_by_role("alert").filter(has_text="Traceback")).to_have_count(0)
    screenshot(page, "home-sample-adult")
    # A generator registered in SAMPLES: optdigits images in 16 x 16 noise (NPFS Section IV).
    _pick_sample(page, "digits-in-noise")
    expect(main.get_by_text("Current dataset: digits-in-noise (sample) (5,620 rows x 256 features)")).to_be_visible()
    screenshot(page, "home-sample-digits-in-noise")
