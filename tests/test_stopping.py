"""fslab.stopping: footnote 3's stopping rule for an unknown k (Ahmed et al.), with hand-derived numbers."""

from __future__ import annotations

import pytest

from fslab.errors import ParameterError
from fslab.pena_nilsson.toy import preset
from fslab.stopping import select_until_gain_below, steps_to_keep


def test_steps_to_keep_by_hand():
    # C(J_0..J_4) = -0.50, -0.30, -0.20, -0.15, -0.14: gains 0.20, 0.10, 0.05, 0.01.
    values = [-0.50, -0.30, -0.20, -0.15, -0.14]
    assert steps_to_keep(values, 0.02) == (3, 4)   # step 4 gains 0.01 < 0.02: keep the 3 before it
    assert steps_to_keep(values, 0.06) == (2, 3)   # step 3 gains 0.05 < 0.06
    assert steps_to_keep(values, 0.25) == (0, 1)   # even the first feature gains too little
    assert steps_to_keep(values, 0.0) == (4, None)  # every step gains something: keep all
    # a step that gains nothing is never kept, even at tol = 0 (issue 33.2): step 2 gains 0 -> k = 1
    assert steps_to_keep([-0.3, -0.2, -0.2], 0.0) == (1, 2)
    assert steps_to_keep([-0.3, -0.2, -0.2 + 1e-15], 0.0) == (1, 2)   # float noise is no gain either
    assert steps_to_keep([-0.3, -0.2, -0.1999], 0.0) == (2, None)      # 1e-4 is a gain
    assert steps_to_keep([-0.3, -0.2, -0.2], 1e-9) == (1, 2)  # ... but is below any positive tolerance


def test_example1_zero_one_by_hand():
    # Ahmed et al. Example 1, cells (x1, x2): p(., Y=0), p(., Y=1) = (0,0) .378 .018, (0,1) .252 .162,
    # (1,0) .042 .012, (1,1) .028 .108. Bayes 0-1 errors: empty set min(P(Y=0), P(Y=1)) = 0.30;
    # X1: min(.63, .18) + min(.07, .12) = 0.25; {X1, X2}: .018 + .162 + .012 + .028 = 0.22.
    # BayesGreedy picks X1 then X2; gains 0.05 and 0.03.
    d = preset("bayes-example-1")
    r = select_until_gain_below(d, tol=0.04)
    assert r.values == pytest.approx((-0.30, -0.25, -0.22))
    assert r.gains == pytest.approx((0.05, 0.03))
    assert (r.k, r.features, r.stopped_at) == (1, (0,), 2)
    assert select_until_gain_below(d, tol=0.06).k == 0
    full = select_until_gain_below(d, tol=0.02)
    assert (full.k, full.features, full.stopped_at) == (2, (0, 1), None)
    assert "keep all 2" in full.summary()


def test_mi_greedy_starts_from_zero_information():
    # I(X2;Y) = 0.1724 bit is the first step (Example 1); the empty set carries 0 bit.
    r = select_until_gain_below(preset("bayes-example-1"), tol=0.1, selector="mi-greedy")
    assert r.values[0] == 0.0 and r.features == (1,) and r.k == 1


def test_a_rule_of_no_feature_keeps_the_first_step():
    """Precision / recall's conjunction rule (approach 2) has C = -inf with no feature: the first step gains +inf
    and is kept; the rule then stops at the first step that gains too little (it used to refuse: 'values must be
    finite'). By hand: C = -inf, -0.27, -0.51 -> gains inf, -0.24: keep 1, stop at step 2."""
    import math

    import numpy as np

    import fslab

    inf = float("inf")
    assert steps_to_keep([-inf, -0.27, -0.51], 0.0) == (1, 2)
    assert steps_to_keep([-inf, -0.27, -0.26], 0.0) == (2, None)
    with pytest.raises(ParameterError, match="may be -inf"):
        steps_to_keep([-inf, -inf, -0.5], 0.0)
    with pytest.raises(ParameterError):
        steps_to_keep([inf, -0.5], 0.0)
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (400, 3))
    y = np.where(rng.random(400) < 0.9, X[:, 0], 1 - X[:, 0])
    r = select_until_gain_below(fslab.Dataset.from_arrays(X, y), 0.0, measure="precision", approach=2)
    assert r.values[0] == -inf and math.isinf(r.gains[0]) and (r.k, r.features, r.stopped_at) == (1, (0,), 2)


@pytest.mark.slow   # imports ui (its preload): out of the inner loop
def test_the_gains_chart_draws_an_infinite_first_gain_as_a_note():
    from fslab.stopping import StoppingResult
    from ui.stopping import gains_figure

    inf = float("inf")
    r = StoppingResult(k=1, features=(0,), names=("X1",), values=(-inf, -0.27, -0.51), gains=(inf, -0.24), tol=0.0,
                       stopped_at=2)
    fig = gains_figure(r, "precision")
    assert fig.data[0].y == (None, -0.24) and any("always kept" in a.text for a in fig.layout.annotations)
    fig.to_json()   # the figure still serialises (no infinite bar height)


def test_bad_arguments_say_what_to_do():
    d = preset("bayes-example-1")
    with pytest.raises(ParameterError, match="greedy selector"):
        select_until_gain_below(d, 0.01, selector="mrmr")
    with pytest.raises(ParameterError, match="tol must be"):
        steps_to_keep([0.0, 1.0], -1)
    with pytest.raises(ParameterError, match="k_max"):
        select_until_gain_below(d, 0.01, k_max=5)


def test_select_page_helper_runs_on_request():
    from streamlit.testing.v1 import AppTest

    def app():
        from fslab.pena_nilsson.toy import preset
        from ui.stopping import render_stopping_rule

        render_stopping_rule(preset("bayes-example-1"), "bayes-greedy", "zero-one", {}, 1, key="t")

    at = AppTest.from_function(app, default_timeout=30).run()
    assert not at.exception and not at.number_input  # folded: nothing drawn until opened (issue 34.5)
    at.session_state["t.stop_open"] = True
    at.run()
    assert not at.exception and not any("k = " in m.value for m in at.markdown)  # nothing runs unasked
    at.number_input(key="t.stop_tol").set_value(0.04)
    at.button(key="t.stop_run").click().run()
    assert not at.exception
    # gains 0.05 then 0.03 (test_example1_zero_one_by_hand): the second is below 0.04, so one feature is kept
    assert any(m.value.startswith("**k = 1**") for m in at.markdown)
