"""The held-out table's caption names the folds the check used: a class of 3 rows holds out over 3 folds, so the
caption says "fitted on 2 of 3 stratified folds", not the default's "4 of 5"."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import fslab
from fslab.data.encoded import EncodedDataset
from fslab.robustness import holdout_check


def _holdout_panel(check):
    from ui.robustness import _render_holdout

    _render_holdout(check, None)


def _small_class_check(rare: int):
    rng = np.random.default_rng(2)
    X = rng.integers(0, 3, size=(40, 3)).astype(np.uint8)
    y = np.zeros(40, dtype=int)
    y[:rare] = 1
    X[:, 0] = y
    ds = EncodedDataset(X, y, labels=np.array([0, 1]))
    return holdout_check(ds, fslab.select(ds, 2), frequency=False)


@pytest.mark.slow   # two AppTest runs: about 1.2 s
def test_the_caption_says_the_folds_used():
    for rare, said in ((3, "fitted on 2 of 3 stratified folds"), (20, "fitted on 4 of 5 stratified folds")):
        check = _small_class_check(rare)
        at = AppTest.from_function(_holdout_panel, args=(check,), default_timeout=30).run()
        assert not at.exception, [e.value for e in at.exception]
        caption = " ".join(c.value for c in at.caption)
        assert said in caption, caption
        assert "Green keeps >= 80% of the in-sample gain over no feature held out, red < 50% or none." in caption
