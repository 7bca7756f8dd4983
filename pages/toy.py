import streamlit as st

st.title("toy")
