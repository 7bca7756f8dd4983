"""Real browser: a Select view on the Splice sample (balanced error, k = 5) travels as a downloaded recipe and as
the link in the address bar, each opened by a new visitor (a new session with nothing in it); each
page's link opened at once as the first requests to a freshly started server (cold links); a link made on an
uploaded file asks for that file."""

from __future__ import annotations

import hashlib
import json
import re
import time
from urllib.parse import parse_qsl, urlencode, urlsplit

from playwright.sync_api import expect

from fslab.measures import MEASURES
from fslab.recipe import Recipe
from tests.conftest import ARTIFACTS, ROOT, choose, goto_page, new_session, running_streamlit, scaled, wait_idle

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


def test_a_select_view_travels_as_recipe_and_as_link(page, streamlit_url, tmp_path):
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
    wait_idle(page)  # the box open and the page's run over: the button's file is the one the run left
    expect(sidebar.get_by_role("button", name="Download recipe (JSON)")).to_be_visible()
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

    fresh = linked = page   # each a new visitor's session in the same tab (nothing kept: tests.conftest.new_session)
    new_session(fresh, streamlit_url)  # a new session: mushroom, default choices
    open_share_box(fresh).locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(recipe_path))
    wait_idle(fresh)
    expect(fresh.get_by_role("combobox", name="Measure")).to_have_value("balanced error", timeout=scaled(60_000))
    assert selected_text(fresh) == expected
    expect(fresh).to_have_url(re.compile(r"/selection\?.*data=splice"))  # arrives after the run: wait

    new_session(linked, link)
    expect(linked.get_by_role("combobox", name="Measure")).to_have_value("balanced error", timeout=scaled(60_000))
    expect(linked.locator('[data-testid="stSidebar"]').get_by_text("splice (sample)")).to_be_visible(
        timeout=scaled(60_000))
    assert selected_text(linked) == expected


# --- cold links: the first request a freshly started server gets is a page's share link --------------------

def fresh_server():
    """A new `streamlit run app.py` process (nothing opened yet); yields its base URL. The health check runs no
    script: the link a test opens is the first script run."""
    return running_streamlit(ARTIFACTS / f"streamlit-cold-{time.monotonic_ns()}.log")


def label(measure: str) -> str:
    return MEASURES[measure].label


XOR = "XOR of two features (plus a noise feature)"
# (url path, query, text the sidebar shows, (combobox or spinbutton name, value) the linked view shows)
COLD_LINKS = [
    ("selection", {"data": "splice", "selector": "bayes-greedy", "measure": "balanced", "k": "5"},
     "splice (sample)", ("combobox", "Measure", label("balanced"))),
    ("compare", {"data": "waveform", "measure": "f-beta", "beta": "2.0", "k": "3", "selectors": "jmi,mrmr"},
     "waveform (sample)", ("combobox", "Measure", label("f-beta"))),
    ("npfs", {"data": "uniform", "method": "uniform", "bins": "3", "selector": "mi-score", "k": "5", "n": "20",
              "alpha": "0.05", "seed": "3", "fraction": "0.5"},
     "uniform (sample; uniform, 3 bins)", ("spinbutton", "n (bootstraps)", "20")),
    ("toy", {"dist": "xor", "pick_k": "2"}, XOR, None),
    ("orderings", {"dist": "xor", "source": "distribution", "measure": "balanced"}, XOR,
     ("combobox", "Measure", label("balanced"))),
]


def test_share_links_work_as_the_first_requests_after_the_server_starts(browser):
    """Streamlit runs a page of pages/ without app.py while its legacy-pages flag is still set (until some
    session has run app.py's st.navigation); ui/entry.py reruns such a run through app.py. Every page's link is
    opened at once on a freshly started server, as a class opens the teacher's links right after it starts: the
    first is the server's first request, the others start before any session has run app.py, and only the first
    imports ``ui`` (the check is made on each run: with the import-time check alone, 1 of 4 such sessions showed the
    raw page). Each session gets its page's view, with app.py's titled navigation and the link written back."""
    with fresh_server() as url:
        contexts = [browser.new_context(viewport={"width": 1400, "height": 1000}) for _ in COLD_LINKS]
        try:
            pages = [ctx.new_page() for ctx in contexts]
            for pg, (path, query, _, _) in zip(pages, COLD_LINKS, strict=True):
                pg.set_default_timeout(scaled(90_000))
                pg.goto(f"{url}/{path}?{urlencode(query)}", wait_until="commit")
            for pg, (path, query, sidebar_text, widget) in zip(pages, COLD_LINKS, strict=True):
                sidebar = pg.locator('[data-testid="stSidebar"]')
                expect(sidebar.get_by_text("Share this view")).to_be_visible(timeout=scaled(120_000))  # run over
                wait_idle(pg)
                nav = sidebar.locator('[data-testid="stSidebarNavLink"]')
                expect(nav.filter(has_text="Toy distribution")).to_have_count(1)   # app.py's navigation, titled
                expect(nav.filter(has_text="app")).to_have_count(0)                # not the raw file names
                expect(sidebar.get_by_text(sidebar_text)).to_be_visible()
                if widget is not None:
                    role, name, value = widget
                    expect(pg.get_by_role(role, name=name)).to_have_value(value)
                assert f"/{path}?" in pg.url
                assert query.items() <= dict(parse_qsl(urlsplit(pg.url).query)).items()  # app.py wrote it back
                expect(pg.locator('[data-testid="stException"]')).to_have_count(0)
                pg.screenshot(path=str(ARTIFACTS / f"cold-link-{path}.png"))
        finally:
            for ctx in contexts:
                ctx.close()


# --- a link made on an uploaded file asks for the file ----------------------------------------------------------

def test_a_link_on_an_uploaded_file_asks_for_that_file(page, streamlit_url):
    patients = ROOT / "tests" / "fixtures" / "patients.csv"
    data = {"file": "patients.csv", "sha256": hashlib.sha256(patients.read_bytes()).hexdigest(), "target": "outcome"}
    link = f"{streamlit_url}/selection?{urlencode(Recipe('select', data, None, {'k': 2}).to_query())}"
    pg = page
    new_session(pg, link)
    main = pg.locator('[data-testid="stMain"]')
    expect(main.get_by_role("heading", name="This link needs its data file")).to_be_visible()
    expect(main.get_by_text("Nothing has been computed on other data")).to_be_visible()
    expect(main.get_by_text("Selected:")).to_have_count(0)
    pg.screenshot(path=str(ARTIFACTS / "link-asks-for-file.png"))
    main.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(patients))
    wait_idle(pg)
    expect(main.get_by_text("Selected:")).to_be_visible()
    expect(pg.locator('[data-testid="stSidebar"]').get_by_text("patients.csv (outcome)")).to_be_visible()
    expect(main.get_by_role("heading", name="This link needs its data file")).to_have_count(0)
    assert "file=patients.csv" in pg.url
    wait_idle(pg)
    pg.screenshot(path=str(ARTIFACTS / "link-file-given.png"))

