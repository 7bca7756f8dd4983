"""Real browser: the measures' LaTeX formulas render with KaTeX (no parse error) on the Select page.

AppTest sees only the LaTeX source; KaTeX parse errors appear in the browser alone (red ``.katex-error``).
"""

from __future__ import annotations

from playwright.sync_api import expect

from fslab.measures import MEASURES
from tests.conftest import choose, goto_page, screenshot, wait_idle


def test_measure_formulas_render(page):
    goto_page(page, "Select")
    main = page.locator('[data-testid="stMain"]')
    # the formulas do not depend on the data: on the toy distribution (Example 1, two features) each measure's
    # rerun selects in milliseconds (on the default Mushroom sample, in and out of sample: 30 s of CPU in all)
    main.get_by_text("toy distribution", exact=False).first.click()
    wait_idle(page)
    main.get_by_text("How this is computed").click()   # the formulas sit below the result, folded (issue 34.1)
    wait_idle(page)
    # the multi-line / fraction-heavy formulas (the one-line ones use the same macros)
    for name in ("precision", "recall", "balanced", "f-beta", "auc", "log-loss"):
        label = MEASURES[name].label
        choose(page, "Measure", label)
        expect(page.get_by_role("combobox", name="Measure")).to_have_value(label)
        expect(main.locator(".katex").first).to_be_visible()
        assert main.locator(".katex-error").count() == 0, f"KaTeX error in the formula of {name}"
        if name == "precision":
            main.locator(".katex").first.scroll_into_view_if_needed()
            screenshot(page, "measures-precision-formula")
