"""Page-wide style: formulas never clipped on a narrow screen, and a presentation mode for a 1024 x 768 projector."""

from __future__ import annotations

import streamlit as st

PRESENT = "fslab.present"
CHOSEN = "fslab.present_on"

# KaTeX blocks wider than the column scroll sideways instead of being cut off (1024 px screens, long formulas)
_BASE = """
.katex-display { overflow-x: auto; overflow-y: hidden; padding: 2px 0; }
@media (max-width: 1100px) { .katex-display > .katex { font-size: 1.0em; } }
"""
# presentation: everything larger and the main column full width, so the back row can read a projected 1024 x 768
_PRESENT = """
html { font-size: 19px; }
[data-testid="stMainBlockContainer"] { max-width: 100%; padding-left: 1.5rem; padding-right: 1.5rem; }
[data-testid="stCaptionContainer"] { font-size: 0.95rem; }
.katex-display > .katex { font-size: 1.05em; }
"""


def _remember() -> None:
    st.session_state[CHOSEN] = st.session_state[PRESENT]


def style() -> None:
    """Inject the page CSS; the sidebar toggle switches presentation mode for this session.

    The choice is kept under its own key (a page switch can drop a widget's state) and handed to the toggle."""
    st.session_state[PRESENT] = st.session_state.get(CHOSEN, False)
    present = st.sidebar.toggle("Presentation mode", key=PRESENT, on_change=_remember,
                                help="Larger text and full-width pages for a projector (1024 x 768); collapse the "
                                     "sidebar with the << button at its top.")
    st.html(f"<style>{_BASE}{_PRESENT if present else ''}</style>")
