"""Cached guesses of the Data page: the target column and the ID-like columns to leave out (fslab.target_guess)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from fslab.data.target_guess import TargetGuess, guess_target, id_like_columns

from .cache import BOUNDED


@st.cache_data(show_spinner=False, **BOUNDED)
def target(_frame: pd.DataFrame, frame_key: str) -> TargetGuess:
    """``frame_key`` (the upload's hash or the sample's name) stands for the unhashed frame."""
    return guess_target(_frame)


@st.cache_data(show_spinner=False, **BOUNDED)
def id_columns(_frame: pd.DataFrame, frame_key: str, target_column: str) -> list[str]:
    return id_like_columns(_frame, target_column)
