"""Page-wide style: formulas never clipped on a narrow screen, a presentation mode for a 1024 x 768 projector, and
the browser told to load the chart renderer ahead of the first chart."""

from __future__ import annotations

import functools
import logging
import re
from pathlib import Path

import streamlit as st

PRESENT = "fslab.present"
CHOSEN = "fslab.present_on"
SIDEBAR = "fslab.present_sidebar"  # the presentation state the sidebar was last folded or unfolded for

# KaTeX blocks wider than the column scroll sideways instead of being cut off (1024 px screens, long formulas)
_BASE = """
.katex-display { overflow-x: auto; overflow-y: hidden; padding: 2px 0; }
@media (max-width: 1100px) { .katex-display > .katex { font-size: 1.0em; } }
"""
# presentation: everything larger and the main column full width, so the back row can read a projected 1024 x 768;
# titles stay on one line and the top padding shrinks, so a tour step fits one screen
_PRESENT = """
html { font-size: 19px; }
[data-testid="stMainBlockContainer"] { max-width: 100%; padding: 4rem 1.5rem 1rem 1.5rem; }
[data-testid="stCaptionContainer"] { font-size: 0.95rem; }
.katex-display > .katex { font-size: 1.05em; }
h1 { font-size: 2.0rem !important; line-height: 1.2 !important; padding-top: 0.5rem !important; }
h2 { font-size: 1.55rem !important; }
h3 { font-size: 1.3rem !important; }
"""
CHART_FONT = 16  # px of chart text in presentation mode (plotly's 12 px is unreadable from the back row)


def _remember() -> None:
    st.session_state[CHOSEN] = st.session_state[PRESENT]


def presenting() -> bool:
    """The sidebar's presentation mode is on."""
    return bool(st.session_state.get(CHOSEN, False))


def chart(fig):
    """``fig`` with its text at :data:`CHART_FONT` px in presentation mode (titles a little larger, and text a
    figure sized itself, such as node labels and value chips, scaled by the same factor); unchanged otherwise."""
    if not presenting():
        return fig
    scale = CHART_FONT / 12  # plotly's default text size
    fig.update_layout(font={"size": CHART_FONT}, title_font={"size": CHART_FONT + 3})
    for note in fig.layout.annotations or ():
        if note.font is not None and note.font.size:
            note.font.size = round(note.font.size * scale)
    for trace in fig.data:
        font = getattr(trace, "textfont", None)
        if font is not None and isinstance(font.size, int | float):
            font.size = round(font.size * scale)
    return fig


def style() -> None:
    """Inject the page CSS; the sidebar toggle switches presentation mode for this session.

    The choice is kept under its own key (a page switch can drop a widget's state) and handed to the toggle."""
    st.session_state[PRESENT] = st.session_state.get(CHOSEN, False)
    present = st.sidebar.toggle("Presentation mode", key=PRESENT, on_change=_remember,
                                help="Larger text, larger chart labels and full-width pages for a projector "
                                     "(1024 x 768); the sidebar folds away (the > button at the top left brings "
                                     "it back).", persist_state="session")
    if st.session_state.get(SIDEBAR, False) != present:  # switched: the sidebar (29 % of 1024 px) folds away
        st.set_page_config(initial_sidebar_state="collapsed" if present else "expanded")
        st.session_state[SIDEBAR] = present
    st.html(f"<style>{_BASE}{_PRESENT if present else ''}</style>")


# Streamlit loads plotly.js (one 4.7 MB script) the first time a session draws a Plotly chart: about 1 s of the
# browser's main thread on a 2-core machine, paid by the first page with a chart (Home -> Toy, issue 16). Once the
# page a session opened on has settled (script idle, no change for 0.4 s), the browser loads it while the reader
# reads; a page that already drew a chart has it, and the import is then free. Nothing but the file name of
# Streamlit's own bundled script enters this constant (see _chart_script).
_WARM = """<script>
(() => {
  if (window.__fslabWarm) return;
  window.__fslabWarm = true;
  const main = document.querySelector('script[src*="/static/js/index."]');
  if (!main) return;
  const url = new URL("%s", main.src).href;
  let last = performance.now();
  const seen = new MutationObserver(() => { last = performance.now(); });
  seen.observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
  const wait = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (app && app.getAttribute("data-test-script-state") === "notRunning" && performance.now() - last > 400) {
      seen.disconnect();
      import(url).catch(() => {});
    } else {
      setTimeout(wait, 200);
    }
  };
  setTimeout(wait, 200);
})();
</script>"""
_CHUNK_NAME = re.compile(r"PlotlyChart\.[A-Za-z0-9_-]+\.js")


@functools.cache
def _chart_script() -> str | None:
    """The file name of Streamlit's bundled Plotly renderer (hashed per release), or None if not found (logged once:
    tests/test_streamlit_internals.py fails on such a Streamlit; charts still work, only the early load is lost)."""
    folder = Path(st.__file__).parent / "static" / "static" / "js"
    names = sorted(p.name for p in folder.glob("PlotlyChart.*.js") if _CHUNK_NAME.fullmatch(p.name))
    if not names:
        logging.getLogger(__name__).warning("fslab: no PlotlyChart.*.js in %s (this Streamlit renamed its chart "
                                            "bundle); the chart renderer is not loaded ahead of the first chart",
                                            folder)
    return names[0] if names else None


def warm_charts() -> None:
    """Have the browser load the chart renderer once the first page has settled (see _WARM); nothing if this
    Streamlit has no such file."""
    name = _chart_script()
    if name is not None:
        st.sidebar.html(_WARM % name, unsafe_allow_javascript=True)
