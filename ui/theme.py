"""Page-wide style: formulas never clipped on a narrow screen and a presentation mode for a 1024 x 768
projector (the renderers are loaded ahead by ui/warm.py)."""

from __future__ import annotations

from collections.abc import Callable, Hashable

import streamlit as st
from pandas.io.formats.style import Styler

from .memo import recall, remember, session_memo

PRESENT = "fslab.present"
CHOSEN = "fslab.present_on"
SIDEBAR = "fslab.present_sidebar"  # the presentation state the sidebar was last folded or unfolded for

# KaTeX blocks wider than the column scroll sideways instead of being cut off (1024 px screens, long formulas); the
# share box's link (ui/share.py), one long word, wraps anywhere instead of running out of the sidebar
_BASE = """
.katex-display { overflow-x: auto; overflow-y: hidden; padding: 2px 0; }
@media (max-width: 1100px) { .katex-display > .katex { font-size: 1.0em; } }
.st-key-share_link p { overflow-wrap: anywhere; }
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
MIN_FONT = 14    # px: no chart text smaller in presentation mode (a 1024 x 768 projector, issue 34)
CHARTS = "fslab.charts"  # the session's memo of drawn figures (:func:`memo_chart`)
_CHARTS_SIZE = 16  # Select 2, NPFS 5, Compare 2, By measure 1, Orderings 3: a walk through the pages and back


def _remember() -> None:
    st.session_state[CHOSEN] = st.session_state[PRESENT]


def presenting() -> bool:
    """The sidebar's presentation mode is on."""
    return bool(st.session_state.get(CHOSEN, False))


def chart(fig):
    """``fig`` with every text readable from a projector's back row in presentation mode: the base font at
    :data:`CHART_FONT` px, titles 3 px larger, and each text a figure sized itself (tick labels, axis titles,
    legends, annotations, heatmap cell text, colour bars) scaled by the same factor and never under
    :data:`MIN_FONT` px; unchanged otherwise."""
    if not presenting():
        return fig
    scale = CHART_FONT / 12  # plotly's default text size

    def grow(font) -> None:
        if font is not None and isinstance(font.size, int | float):
            font.size = max(MIN_FONT, round(font.size * scale))

    fig.update_layout(font={"size": CHART_FONT}, title_font={"size": CHART_FONT + 3})
    grow(fig.layout.legend.font)
    for note in fig.layout.annotations or ():
        grow(note.font)
    for axis in [*fig.select_xaxes(), *fig.select_yaxes()]:
        grow(axis.tickfont)
        grow(axis.title.font)
    for trace in fig.data:
        grow(getattr(trace, "textfont", None))
        bar = getattr(trace, "colorbar", None)
        if bar is not None:
            grow(bar.tickfont)
    return fig


def memo_chart(key: Hashable, build: Callable[[], object]):
    """``chart(build())``, built once per session for ``key`` and the presentation mode: a rerun that leaves a chart's
    inputs unchanged (another widget clicked) reuses the figure instead of building and validating it again (plotly's
    validation was 0.09 s of the Select page's 0.18 s of CPU a rerun). ``key`` must name everything ``build`` reads;
    the figure is shared by the reruns, so nothing may change it after this call."""
    memo = session_memo(CHARTS)
    full = (key, presenting())
    fig = recall(memo, full)
    return fig if fig is not None else remember(memo, full, chart(build()), _CHARTS_SIZE)


def table(data, digits: int = 4) -> None:
    """A static table (``st.table``) for a projector: long cells (feature lists, headers) wrap instead of being cut
    or scrolling sideways as a data grid's columns do at 1024 px; floats shown with ``digits`` decimals. ``data``: a
    DataFrame (its index hidden) or a pandas Styler (highlighted cells kept)."""
    styler = data if isinstance(data, Styler) else data.style
    floats = styler.data.select_dtypes("float").columns
    st.table(styler.format(precision=digits).format(fixed(digits), subset=floats).hide(axis="index"))


def fixed(digits: int):
    """A float with ``digits`` decimals; a value that rounds to zero reads 0.0000, never -0.0000 (a rounding residue
    such as -1e-17 is not a negative gap)."""
    zero = f"{0.0:.{digits}f}"

    def text(value) -> str:
        out = f"{value:.{digits}f}"
        return zero if out == "-" + zero else out
    return text


def style() -> None:
    """Inject the page CSS; the sidebar toggle switches presentation mode for this session.

    The choice is kept under its own key (a page switch can drop a widget's state) and handed to the toggle."""
    st.session_state[PRESENT] = st.session_state.get(CHOSEN, False)
    present = st.sidebar.toggle("Presentation mode", key=PRESENT, on_change=_remember,
                                help="Larger text, larger chart labels and full-width pages for a projector "
                                     "(1024 x 768); the sidebar folds away (the > button at the top left brings "
                                     "it back).", persist_state="session")
    if present:  # every run: Streamlit 1.67 reopens the sidebar on a page change (streamlit#12065)
        st.set_page_config(initial_sidebar_state="collapsed")
    elif st.session_state.get(SIDEBAR, False):  # switched off: the sidebar comes back once
        st.set_page_config(initial_sidebar_state="expanded")
    st.session_state[SIDEBAR] = present
    st.html(f"<style>{_BASE}{_PRESENT if present else ''}</style>")
