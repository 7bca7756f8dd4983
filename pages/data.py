import streamlit as st

st.title("data")
