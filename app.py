"""fslab: explore feature-selection criteria. Entry point: navigation and the shared sidebar only."""

import streamlit as st

from ui import share, state, theme
from ui.cache import ensure_default_dataset
from ui.pages import navigation
from ui.source import current_distribution
from ui.text import md

st.set_page_config(page_title="fslab", page_icon=":material/filter_alt:", layout="wide")

ensure_default_dataset()
current_distribution()

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
theme.style()  # formulas scroll instead of being clipped; the sidebar's presentation-mode toggle
share.publish(shared_page, recipe_pages)  # the link and the share box, before a page that may end with st.stop()
theme.warm_charts()  # the browser loads the Plotly renderer once this page has settled

if waiting:
    st.stop()
nav.run()
share.write_link(shared_page)  # values the page set on this run (first visit defaults), when it did not stop
