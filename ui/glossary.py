"""The words the pages use, in one or two plain sentences each, one click away on every page (app.py's sidebar).

:data:`GLOSSARY` is a plain dict (term -> text) so any page, test or export can read it; :data:`ALIASES` maps the
other spellings the pages use ("held-out", "in-sample") to their entry.
"""

from __future__ import annotations

import streamlit as st

GLOSSARY: dict[str, str] = {
    "plug-in": "A value computed from the counts of the rows it was fitted on (in-sample): the sample's own "
               "frequencies are plugged into the formula. It is optimistic: a column with many values always "
               "looks useful.",
    "held out": "Measured on rows the estimate did not see: the rows are split into folds, the counts come from "
                "the other folds and the value from this one. It says how the choice does on new rows.",
    "cross-fitted": "Held out on every row in turn: each fold is predicted from the counts of the other folds, and "
                    "the folds' results are added up, so every row is used once for checking.",
    "fold": "One of the equal parts the rows are split into for a held-out value (5 by default); stratified folds "
            "keep each class's share in every part.",
    "stratified": "Split so that every fold holds about the same share of each class as the whole table.",
    "prior": "The class shares with no feature at all: the baseline every feature has to beat (the class prior). "
             "Its error is that of always guessing the most frequent class.",
    "NPFS": "Neyman-Pearson feature selection: run a selector on many bootstrap resamples and keep the features "
            "picked more often than chance would pick them (a binomial test).",
    "mutual information": "How much knowing a feature reduces the uncertainty about the class, in bits: 0 when "
                          "they are independent. Held out it can dip below 0, which means no evidence of "
                          "information.",
    "Bayes error": "The smallest error any classifier can reach with these features: for each cell of feature "
                   "values, predict the class most rows of that cell hold.",
    "balanced error": "The mean of the per-class error rates, so every class counts the same however rare it "
                      "is; always guessing one class scores 0.5 with two classes.",
    "k": "The number of features to select. The stopping rule keeps only the steps that still improve the held-out "
         "value.",
    "leak": "A column that gives the answer away, such as the target under another name or a value recorded after "
            "the outcome; leave it out, or every selection is too good to be true.",
}
ALIASES = {"held-out": "held out", "in-sample": "plug-in", "class prior": "prior", "folds": "fold",
           "MI": "mutual information", "bootstrap": "NPFS"}


def lookup(term: str) -> str | None:
    """The glossary's text for ``term`` (any case, or one of :data:`ALIASES`), None when it has no entry."""
    key = ALIASES.get(term, term)
    return next((text for name, text in GLOSSARY.items() if name.lower() == key.lower()), None)


def show() -> None:
    """The glossary as a sidebar popover (app.py draws it on every page)."""
    with st.popover("Glossary", icon=":material/menu_book:", width="stretch"):
        st.markdown("\n".join(f"- **{term}**: {text}" for term, text in GLOSSARY.items()))
