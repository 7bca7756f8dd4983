"""User text in figures: plotly renders a subset of HTML (``<b>``, ``<a href>``, ``<br>``) in titles, tick labels,
hover text and legends, so names from an upload are escaped to show as the characters they are."""

from __future__ import annotations

import html


def plain(text) -> str:
    """``str(text)`` with ``& < >`` escaped: ``<b>x</b>`` shows as typed, not bold."""
    return html.escape(str(text), quote=False)


def plain_all(texts) -> list[str]:
    return [plain(t) for t in texts]
