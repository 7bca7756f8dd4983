"""Issue 26, item 2: text from outside (a link's file=, file, column and class names) reaches Markdown escaped,
web addresses included: GitHub-flavoured Markdown turns http://..., www.x.y and me@x.y into live links even
after backslash escapes, so md() breaks them with an invisible word joiner."""

from __future__ import annotations

import re

import pytest

from tests.test_share_app import open_page  # noqa: F401  (the fixture)
from ui.text import md

PAYLOADS = ["[click me](http://evil.example/phish)", "![x](http://evil.example/pixel.png)",
            "http://evil.example/raw", "HTTPS://evil.example", "www.evil.example", "me@evil.example",
            "<http://evil.example/a>", "mailto:me@evil.example"]
FILE = " ".join(PAYLOADS)
# what GitHub-flavoured Markdown's autolink literals look for in the rendered text (mdast-util-gfm-autolink-literal)
AUTOLINK = re.compile(r"https?://|www\.|[-.\w+]@[-\w]", re.IGNORECASE)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_md_leaves_no_autolink_and_no_link_syntax(payload):
    shown = md(payload)
    unescaped = re.sub(r"\\(.)", r"\1", shown)  # the text Markdown renders, after its escapes
    assert not AUTOLINK.search(unescaped), shown
    assert not re.search(r"(?<!\\)\]\(|(?<!\\)!\[|(?<!\\)<[A-Za-z]", shown)
    assert unescaped.replace("\u2060", "") == payload     # the reader still sees every character


def test_ordinary_names_are_untouched():
    for name in ("odor=none", "stalk_root", "a (b), c.", "k <= 2", "wdbc.csv"):
        assert md(name).replace("\\", "") == name and "\u2060" not in md(name)


def test_a_links_file_name_is_escaped_in_the_upload_label(open_page):  # noqa: F811
    at = open_page("pages/selection.py", {"file": FILE, "sha256": "0" * 64, "target": "y"})
    assert at.title[0].value == "This link needs its data file"
    labels = [u.label for u in at.get("file_uploader")]
    texts = labels + [m.value for m in at.markdown]
    joined = " ".join(texts)
    assert "click me" in joined
    for text in texts:
        unescaped = re.sub(r"\\(.)", r"\1", text)
        assert not AUTOLINK.search(unescaped), text
        assert not re.search(r"(?<!\\)\]\(|(?<!\\)!\[", text), text
