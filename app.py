"""fslab: explore feature-selection criteria. Entry point: navigation and the shared sidebar only."""

import streamlit as st

from ui import state
from ui.cache import ensure_default_dataset
from ui.source import current_distribution

st.set_page_config(page_title="fslab", page_icon=":material/filter_alt:", layout="wide")

ensure_default_dataset()
current_distribution()

pages = {
    "Start": [
        st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
        st.Page("pages/data.py", title="Data", icon=":material/table:"),
    ],
    "Select": [
        st.Page("pages/selection.py", title="Select", icon=":material/checklist:"),
        st.Page("pages/compare.py", title="Compare", icon=":material/compare_arrows:"),
        st.Page("pages/npfs.py", title="NPFS", icon=":material/grid_on:"),
    ],
    "Theory": [
        st.Page("pages/toy.py", title="Toy distribution", icon=":material/casino:"),
        st.Page("pages/orderings.py", title="Orderings", icon=":material/account_tree:"),
    ],
}
nav = st.navigation(pages)

with st.sidebar:
    ds_name, encoded = state.get_dataset()
    dist_name, _ = state.get_distribution()
    if encoded is not None:
        st.caption(f"**Dataset:** {ds_name}  \n{encoded.n_rows:,} rows x {encoded.n_features} features")
    st.caption(f"**Toy distribution:** {dist_name}")

nav.run()
