import streamlit as st

st.title("selection")
