"""Issue 34.5: the share box's link to copy is a plain Markdown link, not ``st.code`` (whose copy button pulls
Streamlit's 1.5 MB code highlighter into the browser on the first page with a share box)."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT
from tests.test_share_app import open_page  # noqa: F401  (the fixture)
from ui.share import link_markdown
from ui.warm import ELEMENTS


def test_the_link_text_escapes_markdown_and_the_target_is_the_address():
    url = "http://h:8501/select?data=my_set&k=3"
    # every ASCII punctuation mark of the text escaped: ':', '/', '?', '_', '=', '&' (so '_set' is no emphasis)
    assert link_markdown(url) == (r"[http\:\/\/h\:8501\/select\?data\=my\_set\&k\=3]"
                                  "(http://h:8501/select?data=my_set&k=3)")
    # brackets and parentheses cannot end the text or the target early; '~' cannot strike through
    assert link_markdown("http://h/a(b)~~c[d]") == r"[http\:\/\/h\/a\(b\)\~\~c\[d\]](http://h/a%28b%29~~c[d])"


def test_the_warm_up_does_not_load_the_code_highlighter():
    assert "StreamlitSyntaxHighlighter" not in ELEMENTS


def test_no_page_draws_a_code_block():
    """``st.code`` and a fenced block in Markdown both pull the highlighter: none in the app's own files."""
    files = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "ui").glob("*.py"))]
    assert len(files) > 20
    found = [f.name for f in files if re.search(r"\.code\(|`{3}", f.read_text(encoding="utf-8"))]
    assert not found, found


@pytest.mark.slow  # an AppTest run of Select through app.py (~0.3 s)
def test_the_share_box_shows_the_link_without_a_code_block(open_page):  # noqa: F811
    at = open_page("pages/selection.py", {"data": "mushroom", "k": "3"}, box=True)  # the share box opened
    assert not at.code  # no st.code anywhere: the browser would load the highlighter for it
    links = [m.value for m in at.sidebar.markdown if m.value.startswith("[")]
    # (the harness makes the page under test the default one, whose path is "/"; the browser test checks the path)
    assert len(links) == 1, links
    target = links[0].rsplit("](", 1)[1].rstrip(")")
    assert "?" in target and "k=3" in target and "data=mushroom" in target
    assert links[0] == link_markdown(target)
