"""Issue 34.4: every page starts with one line a student can read aloud, saying what the page shows: the page's
first Markdown, right under its title (ui.text.READ_ALOUD)."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT
from ui.text import READ_ALOUD

# the page file of each line (every page of ui.pages.PAGES); the Data page's line is written, not yet drawn
FILES = {"home": "pages/home.py", "tour": "pages/tour.py", "data": "pages/data.py", "select": "pages/selection.py",
         "by_measure": "pages/by_measure.py", "compare": "pages/compare.py", "scores": "pages/scores.py",
         "npfs": "pages/npfs.py", "toy": "pages/toy.py", "orderings": "pages/orderings.py", "papers": "pages/papers.py"}
NOT_YET: set[str] = set()  # every page draws its line first


def test_each_line_is_one_plain_sentence_saying_what_the_page_shows():
    from ui.pages import PAGES

    assert set(READ_ALOUD) == set(FILES) and set(FILES.values()) == {p.file for p in PAGES}
    for page, line in READ_ALOUD.items():
        assert line.startswith("This ") and line.endswith("."), (page, line)
        assert len(re.findall(r"[.!?](\s|$)", line)) == 1, (page, line)  # one sentence
        assert not re.search(r"[*_`$\[\]#]", line), (page, line)  # plain words: nothing Markdown would style
        assert len(line.split()) <= 22, (page, line)  # short enough to say in one breath


@pytest.mark.slow
def test_each_pages_first_markdown_is_its_line():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90).run()
    for page, file in FILES.items():
        if page in NOT_YET:
            continue
        at.switch_page(file).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        assert at.main.markdown[0].value == READ_ALOUD[page], page
