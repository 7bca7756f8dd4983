import streamlit as st

st.title("npfs")
