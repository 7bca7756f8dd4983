"""User text shown by Streamlit: :func:`md` makes a file, column, class or feature name display literally.

``st.markdown``, ``st.error``/``st.info``/``st.success``/``st.warning``, ``st.caption``, radio options and widget
labels read Markdown (links, images, emphasis, ``:red[...]`` directives, ``:emoji:`` shortcodes, ``$`` maths). A
column named ``[x](javascript:alert(1))`` or ``![](http://x/y.png)`` must show as those characters, not as a link
or an image fetched from elsewhere, and ``<script>`` must never be markup. Only the characters that start such
syntax are escaped, so ordinary names (``odor=none``, ``stalk_root``, ``a (b), c.``) keep their text.
"""

from __future__ import annotations

import re

# \ ` * [ ] # $ ~ | always; _ unless inside a word (snake_case is never emphasis); : before a non-space
# (":red[", ":smile:", "javascript:"), so "file.csv: text" keeps its colon; < where it could open a tag or an
# autolink ("<script", "</", "<http"), not in "k <= 2"; > at the start (a quote); & where it could start an entity.
_SPECIAL = re.compile(r"[\\`*\[\]#$~|]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])|:(?=\S)|<(?=[A-Za-z/!?])|^>|&(?=#?\w+;)")


def md(text) -> str:
    """``str(text)`` with Markdown/HTML syntax characters backslash-escaped and newlines as spaces."""
    return _SPECIAL.sub(lambda m: "\\" + m.group(0), str(text).replace("\r", " ").replace("\n", " "))
