"""Side-by-side comparison: Example 1 disagreement, exact optimality, overlap metrics by hand, binning grid."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fslab.binning import DEFAULT_BINNINGS, binning_sensitivity
from fslab.compare import DEFAULT_SELECTORS, compare_selectors, jaccard, overlap_matrix, rank_correlation, step_grid
from fslab.data import Dataset
from fslab.data.distributions import example1
from fslab.errors import ParameterError
from fslab.plots.compare import step_grid_figure


def test_example1_sampled_bayes_greedy_and_mi_greedy_disagree_on_the_first_feature():
    """Ahmed et al., Example 1, sampled (20,000 rows): the Bayes 0-1 criterion picks X1 (er = 0.25 < 0.30),
    MI picks X2 (I = 0.17 > 0.08 bit). The panel's grid and disagreement table show it, with values within
    sampling error (sd of a plug-in error ~ sqrt(.25 * .75 / 20000) = 0.003)."""
    cmp = compare_selectors(example1().sample(20_000, seed=3), 1)
    grid = cmp.grid()
    assert grid.loc["X1", "bayes-greedy"] == 1 and math.isnan(grid.loc["X1", "mi-greedy"])
    assert grid.loc["X2", "mi-greedy"] == 1 and math.isnan(grid.loc["X2", "bayes-greedy"])
    dis = cmp.disagreements().set_index("name")
    assert set(dis.index) == {"X1", "X2"}
    assert dis.loc["X1", "bayes_value"] == pytest.approx(0.25, abs=0.015)
    assert dis.loc["X2", "bayes_value"] == pytest.approx(0.30, abs=0.015)
    assert dis.loc["X1", "mi_bits"] == pytest.approx(0.0819, abs=0.01)
    assert dis.loc["X2", "mi_bits"] == pytest.approx(0.1724, abs=0.01)
    assert "bayes-greedy" in dis.loc["X1", "picked_by"] and "mi-greedy" in dis.loc["X2", "picked_by"]
    pair = cmp.overlap().set_index(["selector_a", "selector_b"]).loc[("bayes-greedy", "mi-greedy")]
    assert pair["jaccard"] == 0.0 and pair["rank_correlation"] == -1.0


def test_exact_distribution_marks_the_k_optimal_subset():
    """Example 1 exact, k = 1: the optimal subset is {X1} (0-1 error 0.25); BayesGreedy and BayesScore find it,
    the MI-family selectors (X2, error 0.30) do not."""
    cmp = compare_selectors(example1(), 1, DEFAULT_SELECTORS)
    assert cmp.optimal == (0,) and cmp.optimal_value == pytest.approx(0.25)
    found = dict(zip(cmp.subsets["selector"], cmp.subsets["optimal"], strict=True))
    assert found["bayes-greedy"] and found["bayes-score"]
    assert not found["mi-greedy"] and not found["mrmr"] and not found["jmi"]
    assert cmp.subsets.set_index("selector").loc["mi-greedy", "bayes_value"] == pytest.approx(0.30)


def test_no_exhaustive_on_a_sample_unless_asked():
    sample = example1().sample(2_000, seed=0)
    assert compare_selectors(sample, 1, ("bayes-greedy",)).optimal is None
    assert compare_selectors(sample, 1, ("bayes-greedy",), exact=True).optimal == (0,)


def test_jaccard_by_hand():
    assert jaccard([0, 1, 2], [1, 2, 3]) == 0.5  # {1, 2} of {0, 1, 2, 3}
    assert jaccard([4], [4]) == 1.0 and jaccard([0], [1]) == 0.0


def test_rank_correlation_by_hand():
    """A = [0, 1, 2], B = [1, 2, 3]: ranks over {0, 1, 2, 3} are A (1, 2, 3, 4), B (4, 1, 2, 3)
    (not picked = k + 1 = 4). Pairs with feature 0 are discordant (3), the others concordant (3): tau = 0.
    A = [0, 1], B = [0, 2]: A (1, 2, 3), B (1, 3, 2): 2 concordant, 1 discordant, no ties: tau = 1/3."""
    assert rank_correlation([0, 1, 2], [1, 2, 3]) == pytest.approx(0.0)
    assert rank_correlation([0, 1], [0, 2]) == pytest.approx(1 / 3)
    assert rank_correlation([0, 1, 2], [0, 1, 2]) == pytest.approx(1.0)
    assert rank_correlation([0, 1, 2], [2, 1, 0]) == pytest.approx(-1.0)
    assert rank_correlation([5], [5]) == 1.0 and rank_correlation([0], [1]) == -1.0


def test_step_grid_by_hand():
    """a picks X3 then X1; b picks X1 then X2. Rows by earliest step then index: X1, X3, X2."""
    grid = step_grid({"a": [2, 0], "b": [0, 1]}, ["X1", "X2", "X3"])
    assert list(grid.index) == ["X1", "X3", "X2"]
    assert grid.loc["X1"].tolist() == [2.0, 1.0]
    assert grid.loc["X3", "a"] == 1.0 and math.isnan(grid.loc["X3", "b"])
    assert math.isnan(grid.loc["X2", "a"]) and grid.loc["X2", "b"] == 2.0



def _luminance(colour: str) -> float:
    """Relative luminance (0 black .. 1 white) of 'rgb(r, g, b)', WCAG weights without gamma (enough here)."""
    r, g, b = (int(v) / 255 for v in colour.removeprefix("rgb(").rstrip(")").split(","))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


@pytest.mark.parametrize("steps", [1, 2, 5, 15])
def test_step_grid_figure_has_one_distinct_colour_per_step_and_integer_ticks(steps):
    """z = 1..steps on [zmin, zmax] = [0.5, steps + 0.5]: step s falls in band s of the colorscale, every band
    is flat, bands differ, none is near-white (a blank cell is white), and the legend ticks are 1, 2, ..."""
    grid = step_grid({"a": list(range(steps)), "b": [0]}, [f"X{j}" for j in range(steps)])
    heat = step_grid_figure(grid).data[0]
    assert (heat.zmin, heat.zmax) == (0.5, steps + 0.5)
    scale = [(float(pos), colour) for pos, colour in heat.colorscale]
    colours = [scale[2 * i][1] for i in range(steps)]
    for s in range(1, steps + 1):
        pos = (s - heat.zmin) / (heat.zmax - heat.zmin)  # where step s lands on the scale: mid-band
        band = [c for lo, c in scale if lo <= pos][-1]
        assert band == colours[s - 1] and scale[2 * s - 1][1] == colours[s - 1]
    assert len(set(colours)) == steps
    assert max(_luminance(c) for c in colours) < 0.85
    assert list(heat.colorbar.tickvals) == list(range(1, steps + 1))
    assert all(float(t) == int(t) for t in heat.colorbar.tickvals)


orders = st.lists(st.integers(0, 9), min_size=1, max_size=5, unique=True)


@pytest.mark.slow  # 0.31 s measured (inner loop: unit and not slow)
@given(orders, orders)
def test_overlap_properties(a, b):
    j, t = jaccard(a, b), rank_correlation(a, b)
    assert 0.0 <= j <= 1.0 and j == jaccard(b, a)
    assert (j == 1.0) == (set(a) == set(b))
    assert math.isnan(t) or (-1.0 - 1e-12 <= t <= 1.0 + 1e-12)
    assert (math.isnan(t) and math.isnan(rank_correlation(b, a))) or t == pytest.approx(rank_correlation(b, a))
    assert rank_correlation(a, a) == pytest.approx(1.0)
    m = overlap_matrix({"a": a, "b": b})
    assert m.loc["a", "a"] == 1.0 and m.loc["a", "b"] == m.loc["b", "a"]


def _mixed_dataset(m: int = 600) -> Dataset:
    rng = np.random.default_rng(0)
    real = rng.normal(size=(m, 3))
    binary = rng.integers(0, 2, m)
    y = (real[:, 0] + 0.5 * real[:, 1] + 0.3 * rng.normal(size=m) > 0).astype(int)
    return Dataset.from_arrays(np.c_[real, binary], y, feature_names=["r1", "r2", "r3", "b"])


def test_binning_grid_shape_and_numeric_columns():
    res = binning_sensitivity(_mixed_dataset(), 2)
    labels = ["mean-std", "quantile-3", "quantile-5", "quantile-10", "uniform-3", "uniform-5", "uniform-10"]
    assert list(res.selections) == labels and len(DEFAULT_BINNINGS) == 7
    grid = res.grid()
    assert list(grid.columns) == labels
    assert (grid.notna().sum(axis=0) == 2).all()  # k = 2 picks per binning
    assert set(res.numeric) == {"r1", "r2", "r3"}  # the binary column keeps its codes under every binning
    assert res.jaccard_matrix().shape == (7, 7)
    assert "r1" in res.stable()  # the strongest signal is picked whatever the binning
    assert len(res.overlap()) == 21  # 7 choose 2 pairs


def test_binning_needs_the_raw_dataset():
    with pytest.raises(ParameterError, match="raw Dataset"):
        binning_sensitivity(_mixed_dataset().discretize(), 2)


def test_no_selector_is_an_error():
    with pytest.raises(ParameterError, match="at least one selector"):
        compare_selectors(example1(), 1, ())


def test_measure_parameters_reach_only_the_selectors_that_use_a_measure():
    """Cost-sensitive with c = 0.25 (Example 3): the Bayes error of a feature is sum_x min((1-c) p(x,1), c p(x,0)).
    Example 1, X1: x=0: min(.75 * .18, .25 * .63) = .135; x=1: min(.75 * .12, .25 * .07) = .0175; total .1525.
    X2: x=0: min(.75 * .03, .25 * .42) = .0225; x=1: min(.75 * .27, .25 * .28) = .07; total .0925.
    So at c = 0.25 BayesGreedy agrees with MI on X2; the MI selectors ran without the c they do not take."""
    cmp = compare_selectors(example1(), 1, ("bayes-greedy", "mi-greedy", "mrmr", "fisher"), "cost-sensitive", c=0.25)
    assert cmp.features.set_index("name")["bayes_value"]["X2"] == pytest.approx(0.0925)
    assert cmp.grid().loc["X2"].tolist() == [1.0] * 4 and cmp.disagreements().empty
    assert cmp.optimal == (1,) and cmp.measure_params == {"c": 0.25}


def test_step_grid_title_sits_above_the_turned_column_labels():
    """The selector names on top are turned 45 degrees and the top margin holds them below the title (at 1024 px
    the title was written over them when plotly widened the margin itself): the margin grows with the longest name."""
    short = step_grid_figure(step_grid({"mrmr": [0], "jmi": [1]}, ["X0", "X1"]))
    long = step_grid_figure(step_grid({"mrmr": [0], "mi-score": [1]}, ["X0", "X1"]))
    assert short.layout.xaxis.side == "top" and short.layout.xaxis.tickangle == -45
    assert short.layout.title.text == "Step at which each selector picked each feature"
    assert long.layout.margin.t - short.layout.margin.t == 7 * (len("MIScore (MIM)") - len("mRMR"))   # 16 px text
    assert long.layout.height - short.layout.height == long.layout.margin.t - short.layout.margin.t


def _titanic_like(m: int = 240) -> Dataset:
    """pclass (1, 2, 3; an integer no binning touches) decides y up to noise; cabin is a code per row (240 levels);
    fare is real-valued noise (the column the binnings move). 30 % positives."""
    rng = np.random.default_rng(7)
    pclass = rng.integers(1, 4, m)
    y = np.where(rng.random(m) < 0.85, pclass == 1, rng.random(m) < 0.3).astype(int)
    frame = pd.DataFrame({"pclass": pclass, "cabin": [f"C{i:03d}" for i in range(m)], "fare": rng.normal(30, 9, m),
                          "survived": y})
    return Dataset.from_frame(frame, "survived", near_unique="keep")


def test_binning_reruns_select_with_the_estimate_of_the_pick_they_check():
    """Plug-in, cabin (one row per code) has in-sample error 0 and wins every binning's rerun, so pclass is picked
    under 0 of 7 binnings: a 3-valued integer no binning touches would look binning-dependent. Held out, every cabin
    code of a validation fold is unseen in training (the prior's error), and pclass wins all 7."""
    data = _titanic_like()
    plug = binning_sensitivity(data, 1, "bayes-greedy", "balanced")
    held = binning_sensitivity(data, 1, "bayes-greedy", "balanced", estimate="cross-fitted")
    names = list(held.feature_names)
    assert {tuple(s) for s in plug.selections.values()} == {(names.index("cabin"),)}
    assert {tuple(s) for s in held.selections.values()} == {(names.index("pclass"),)}
    assert held.numeric == ("fare",) and held.stable() == ["pclass"]
    assert plug.estimate == "plug-in" and held.estimate == "cross-fitted"
    assert held.estimate_label == "held-out (5-fold cross-fitted)"
    with pytest.raises(ParameterError, match="estimate must be one of"):
        binning_sensitivity(data, 1, estimate="held-out")
