"""The glossary (issue 33.8): every entry is a plain non-empty text of one or two sentences, and every term of art
the held-out verdicts use (fslab.robustness: plug-in, held out, prior, folds, mutual information, ...) has an
entry, looked up as the pages spell it."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from fslab import select
from fslab.data import Dataset
from fslab.robustness import NEGATIVE_MI, NEXT_STEP, holdout_check
from ui.glossary import ALIASES, GLOSSARY, lookup

# the words a newcomer would stop at, as the verdicts and captions spell them
JARGON = ("plug-in", "in-sample", "held out", "held-out", "cross-fitted", "class prior", "prior", "folds",
          "stratified", "NPFS", "mutual information", "Bayes error", "balanced error", "bootstrap")
REQUIRED = ("plug-in", "held out", "cross-fitted", "prior", "NPFS", "mutual information", "Bayes error",
            "balanced error", "k")


def test_every_entry_is_one_or_two_plain_sentences():
    assert set(REQUIRED) <= set(GLOSSARY)
    for term, text in GLOSSARY.items():
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]
        assert text.strip() and 1 <= len(sentences) <= 3 and len(text) < 400, term
        assert "$" not in text and "`" not in text, term   # plain words, no formula markup
    assert all(lookup(alias) == GLOSSARY[target] for alias, target in ALIASES.items())
    assert lookup("nothing like a term") is None


def _verdict_texts() -> str:
    rng = np.random.default_rng(0)
    n = 200
    y = rng.integers(0, 2, n)
    frame = {"signal": np.where(rng.random(n) < 0.8, y, 1 - y), "noise1": rng.integers(0, 6, n),
             "noise2": rng.integers(0, 6, n), "y": y}
    ds = Dataset.from_frame(pd.DataFrame(frame), "y").discretize()
    texts = []
    for measure in ("zero-one", "balanced"):
        for k in (1, 3):
            check = holdout_check(ds, select(ds, k, "bayes-greedy", measure), folds=5)
            texts += list(check.reasons)
    check = holdout_check(ds, select(ds, 3, "mi-greedy"), folds=5)
    return " ".join(texts + list(check.reasons) + list(NEXT_STEP.values()) + [NEGATIVE_MI])


@pytest.mark.slow
def test_the_verdicts_terms_are_in_the_glossary():
    text = _verdict_texts().lower()
    used = [term for term in JARGON if term.lower() in text]
    assert {"held-out", "folds"} <= set(used)   # the verdicts do use jargon: the check can fail
    missing = [term for term in used if lookup(term) is None]
    assert not missing, f"verdict terms without a glossary entry: {missing}"
