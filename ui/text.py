"""User text shown by Streamlit: :func:`md` makes a file, column, class or feature name display literally.

``st.markdown``, ``st.error``/``st.info``/``st.success``/``st.warning``, ``st.caption``, radio options and widget
labels read Markdown (links, images, emphasis, ``:red[...]`` directives, ``:emoji:`` shortcodes, ``$`` maths). A
column named ``[x](javascript:alert(1))`` or ``![](http://x/y.png)`` must show as those characters, not as a link
or an image fetched from elsewhere, and ``<script>`` must never be markup. Only the characters that start such
syntax are escaped, so ordinary names (``odor=none``, ``stalk_root``, ``a (b), c.``) keep their text.

Escaping is not enough for web addresses: Streamlit's Markdown (GitHub-flavoured) turns ``http://...``,
``www.x.y`` and ``me@x.y`` in the text into live links after the escapes are resolved. An invisible word joiner
(U+2060) inside ``://``, after ``www`` and before ``@`` breaks those patterns, so an address in a name shows as
its characters and is never a link.
"""

from __future__ import annotations

import re

import streamlit as st

# \ ` * [ ] # $ ~ | always; _ unless inside a word (snake_case is never emphasis); : before a non-space
# (":red[", ":smile:", "javascript:"), so "file.csv: text" keeps its colon; < where it could open a tag or an
# autolink ("<script", "</", "<http"), not in "k <= 2"; > at the start (a quote); & where it could start an entity.
_SPECIAL = re.compile(r"[\\`*\[\]#$~|]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])|:(?=\S)|<(?=[A-Za-z/!?])|^>|&(?=#?\w+;)")


# where GFM's autolink literals start: a scheme's "://" (also "mailto:"/"xmpp:" via the "@"), "www." and "x@y"
_AUTOLINK = re.compile(r"(?<=:)(?=//)|(?<=www)(?=\.)|(?=@)", re.IGNORECASE)
JOINER = "\u2060"


def md(text) -> str:
    """``str(text)`` with Markdown/HTML syntax characters backslash-escaped, web addresses defused (a word joiner,
    see the module docstring) and newlines as spaces."""
    text = _AUTOLINK.sub(JOINER, str(text).replace("\r", " ").replace("\n", " "))
    return _SPECIAL.sub(lambda m: "\\" + m.group(0), text)


# each page's first line: one sentence a student can read aloud, saying what the page shows (issue 34.4)
READ_ALOUD = {
    "home": "This page says what fslab is for: choosing features by the measure your classifier will be judged on.",
    "tour": "This tour shows in four steps why the best features depend on how the classifier is judged.",
    "data": "This page loads the data every other page uses and shows how each column is coded.",
    "select": "This page picks k features for one performance measure and shows how good the pick is after each "
              "step.",
    "by_measure": "This page runs one selector once per performance measure and shows where their picks part and "
                  "what each choice costs.",
    "compare": "This page runs several selectors on the same data and shows where their picks differ and which pick "
               "trains the better classifier.",
    "scores": "This page scores every feature on its own under several measures, in-sample and held out.",
    "npfs": "This page tests which features a selector picks more often than chance over many bootstrap samples.",
    "toy": "This page shows a small exact distribution and which features each criterion picks on it.",
    "orderings": "This page shows every subset's Bayes risk and why the best k features need exhaustive search.",
    "papers": "This page sets each claim of the papers beside the number fslab computes for it.",
}


def read_aloud(page: str) -> None:
    """The page's first line (:data:`READ_ALOUD`), written as the first Markdown of the page, under its title."""
    st.markdown(READ_ALOUD[page])
