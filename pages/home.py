import streamlit as st

st.title("home")
