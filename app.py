"""fslab: explore feature-selection criteria. Entry point: navigation and the shared sidebar only."""

import sys

import streamlit as st

import ui as _ui  # noqa: F401  (first of ours: ui/preload.py imports every page's modules once, a session at a time)

# isort: split

from fslab.errors import FslabError
from fslab.limits import check_server_settings

st.set_page_config(page_title="fslab", page_icon=":material/filter_alt:", layout="wide")

try:  # before ui/ is imported: its modules read the limits, and a bad FSLAB_* value would break every page
    check_server_settings()
except FslabError as err:
    print(f"fslab: invalid server setting: {err}", file=sys.stderr)
    st.error(f"This server's settings are invalid, so no page can run: {str(err).replace('$', '')}. The operator "
             "fixes the environment variable and restarts the app.", icon=":material/error:")
    st.stop()

from ui import alerts_view, glossary, share, state, theme, warm  # noqa: E402
from ui.cache import ensure_default_dataset  # noqa: E402
from ui.data import unused_upload, use_pending  # noqa: E402
from ui.pages import navigation, page_bar  # noqa: E402
from ui.source import current_distribution  # noqa: E402
from ui.text import md  # noqa: E402

try:
    ensure_default_dataset()
except FslabError as err:  # a damaged shipped sample: say which file, and let the other pages run
    st.error(f"The default data set could not be loaded: {md(err)}. Pick another sample or upload a file on the "
             "Data page; the toy distribution pages work as usual.", icon=":material/error:")
current_distribution()

def pending_line() -> None:
    """An upload kept from the Data page but not in use: one line, with a button that applies it."""
    kept = unused_upload()
    if kept is None:
        return
    c1, c2 = st.columns([4, 1], vertical_alignment="center")
    c1.info(f"**{md(kept.name)}** is loaded but not in use: the pages use **{md(state.get_dataset()[0])}**.",
            icon=":material/upload_file:")
    if c2.button(f"Use {kept.name}", key="pending_use"):
        err = use_pending()
        if err:
            st.session_state[alerts_view.LEAVE_OUT_ERROR] = err
        st.rerun()


sections, recipe_pages = navigation()  # ui.pages.PAGES: every page, declared once
nav = st.navigation(sections)
shared_page = share.page_of(nav, recipe_pages)
share.restore(shared_page)  # a shared link or a loaded recipe sets data and widgets before the page draws
waiting = share.awaiting_file()  # a link made on an uploaded file: ask for that file before any page runs

with st.sidebar:
    ds_name, encoded = state.get_dataset()
    dist_name, _ = state.get_distribution()
    if encoded is not None:
        st.caption(f"**Dataset:** {md(ds_name)}  \n{encoded.n_rows:,} rows x {encoded.n_features} features")
    st.caption(f"**Toy distribution:** {md(dist_name)}")
    glossary.show()
theme.style()  # formulas scroll instead of being clipped; the sidebar's presentation-mode toggle
link_box = share.publish(shared_page, recipe_pages)  # the link and the share box, before a page that may stop
warm.warm_elements()  # the browser loads the renderers the pages use once this page has settled

if waiting:
    st.stop()
page_bar(sections, nav)  # presentation mode: previous / next page in the main column
if nav.title != "Data":
    pending_line()
alerts_view.above_page(nav.title)  # a page that selects: the current dataset's leaks, with the leave-out button
nav.run()  # a page that stops early (NPFS before Run) writes its link itself first: ui.share.stop
share.write_link(shared_page, link_box)  # values the page set on this run (first visit defaults)
