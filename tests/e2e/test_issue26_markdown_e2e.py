"""Issue 26, item 2 in a real browser: a link whose file= carries Markdown links, an image and bare web addresses
shows them as text: no request leaves for the payload's host, no <a href> or <img> points outside the app."""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

from playwright.sync_api import expect

from tests.conftest import ARTIFACTS, wait_idle, wait_settled

FILE = ("[click me](http://evil.example/phish) ![x](http://evil.example/pixel.png) http://evil.example/raw "
        "www.evil.example me@evil.example <http://evil.example/a>")


def test_a_links_payload_is_text_in_the_browser(page, streamlit_url):
    pg = page
    requests: list[str] = []
    listen = lambda r: requests.append(r.url)  # noqa: E731
    pg.on("request", listen)
    try:
        query = urlencode({"file": FILE, "sha256": "0" * 64, "target": "y"})
        pg.goto(f"{streamlit_url}/selection?{query}")
        wait_idle(pg)
        main = pg.locator('[data-testid="stMain"]')
        expect(main.get_by_role("heading", name="This link needs its data file")).to_be_visible()
        uploader = main.locator('[data-testid="stFileUploader"]')
        expect(uploader).to_contain_text("click me")
        expect(uploader.locator('[data-testid="stFileUploaderDropzoneInput"]')).to_have_count(1)
        wait_settled(pg)
        ARTIFACTS.mkdir(exist_ok=True)
        pg.screenshot(path=str(ARTIFACTS / "issue26-link-payload.png"))
        app_host = urlsplit(streamlit_url).netloc
        hrefs = pg.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
        srcs = pg.eval_on_selector_all("img[src]", "els => els.map(e => e.src)")
        assert [h for h in hrefs if urlsplit(h).netloc not in (app_host, "")] == []
        assert [s for s in srcs if urlsplit(s).netloc not in (app_host, "")] == []
        assert [u for u in requests if urlsplit(u).netloc == "evil.example"] == []
        assert "me@evil.example" in main.inner_text().replace("\u2060", "")  # shown as typed
    finally:
        pg.remove_listener("request", listen)
