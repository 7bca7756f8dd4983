import streamlit as st

st.title("orderings")
