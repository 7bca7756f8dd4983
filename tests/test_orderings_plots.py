"""Figure builders for orderings and toy distributions: the right traces with the right data."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fslab.convergence import optimum_rate
from fslab.data.distributions import example1
from fslab.pena_nilsson.minimal import backward_search
from fslab.pena_nilsson.orderings import greedy_gaps, greedy_path, k_optimal, subset_risks
from fslab.pena_nilsson.toy import preset, random_dirichlet
from fslab.plots.orderings import decisions_figure, gap_figure, hasse_figure, ordering_figure, value_decimals
from fslab.plots.toy import convergence_figure, joint_figure


def test_hasse_figure_draws_edges_greedy_path_and_rings():
    risks = subset_risks(preset("greedy-bad"))
    fig = hasse_figure(risks, greedy_path(risks), [s for s, _ in k_optimal(risks).values()])
    names = [t.name for t in fig.data]
    assert names[:2] == ["S ⊂ S + j", "greedy path"] and names[-1] == "k-optimal (exhaustive)"
    edges = fig.data[0]
    assert sum(v is None for v in edges.x) == 12  # 3 features: 12 cover relations in the cube
    greedy = fig.data[1]
    assert list(greedy.y) == [0, 1, 2, 3]
    assert "{X2, X3}" in _chips(fig, "subset")
    assert "0-1 error" in fig.layout.title.text


def test_hasse_figure_skips_edges_and_labels_for_many_features():
    risks = subset_risks(random_dirichlet(7, 2, seed=0))
    fig = hasse_figure(risks, greedy_path(risks))
    # no edges and no name labels for 128 nodes; the values are printed along the greedy path only
    assert [t.name for t in fig.data] == ["greedy path", "subset"] and len(fig.data[1].x) == 128
    assert not _chips(fig, "subset") and len(_chips(fig, "value")) == 8


def _chips(fig, name: str) -> list[str]:
    """Texts of the Hasse diagram's label annotations of one kind ("subset" names or "value"s)."""
    return [a.text for a in fig.layout.annotations if a.name == name]


def test_hasse_labels_sit_on_chips_clear_of_node_and_ring():
    """Tour step 2's defect: the greedy path crossed the printed values. Labels are annotations (drawn over every
    line) on a nearly opaque light chip with dark text, shifted off the node beyond the k-optimal ring."""
    risks = subset_risks(preset("greedy-bad"))
    fig = hasse_figure(risks, greedy_path(risks), [s for s, _ in k_optimal(risks).values()])
    ring = next(t for t in fig.data if t.name == "k-optimal (exhaustive)").marker.size / 2
    chips = [a for a in fig.layout.annotations if a.name in ("subset", "value")]
    assert len(chips) == 2 * len(risks)  # a name and a value for each of the 8 nodes
    for a in chips:
        assert not a.showarrow and abs(a.yshift) > ring + 8  # the chip (about 16 px high) clears the ring
        assert a.bgcolor.startswith("rgba(255,255,255,0.9") and a.font.color == "#1a1a1a"
    assert {a.yshift > 0 for a in chips if a.name == "subset"} == {True}  # names above, values below
    assert {a.yshift < 0 for a in chips if a.name == "value"} == {True}


def test_ordering_and_gap_figures():
    risks = subset_risks(example1())
    fig = ordering_figure(risks)
    assert list(fig.data[0].y) == pytest.approx([0.22, 0.25, 0.30, 0.30])  # best first
    assert [t.name for t in fig.data[1:]] == ["size 0", "size 1", "size 2"]
    fig = gap_figure(greedy_gaps(risks), "0-1 error")
    assert [t.name for t in fig.data] == ["greedy", "k-optimal"]


def test_decisions_figure_colours_and_threshold():
    steps = backward_search(preset("s-star-vs-markov")).steps
    fig = decisions_figure(steps)
    assert [t.name for t in fig.data] == ["risk with the feature", "without it: removed", "without it: kept"]
    assert len(fig.data[1].x) == 2 and len(fig.data[2].x) == 6
    fin = steps.assign(threshold=steps["risk_with"] + 0.02)
    fig = decisions_figure(fin, tau=0.02)
    assert len(fig.layout.shapes) == len(steps) and fig.layout.shapes[0].y0 == fin["threshold"].iloc[0]


def test_joint_and_convergence_figures():
    fig = joint_figure(example1())
    assert [t.name for t in fig.data] == ["p(x, Y=0)", "p(x, Y=1)"] and list(fig.data[0].x) == ["00", "01", "10", "11"]
    rates = optimum_rate(example1(), [50, 500], selectors=("bayes-greedy", "mi-greedy"), repeats=3, seed=0)
    fig = convergence_figure(rates)
    assert [t.name for t in fig.data] == ["bayes-greedy", "mi-greedy"] and "{X1}" in fig.layout.title.text
    # the log axis is ticked at the sizes run (plotly's own log ticks read "5, 2, 0.1, 5, 2")
    assert list(fig.layout.xaxis.tickvals) == [50, 500] and list(fig.layout.xaxis.ticktext) == ["50", "500"]
    assert list(fig.data[0].x) != list(fig.data[1].x)  # equal curves are offset, not drawn on top of each other
    assert isinstance(rates, pd.DataFrame)


def test_convergence_legend_uses_selector_labels():
    rates = optimum_rate(example1(), [50], selectors=("bayes-greedy", "mi-greedy"), repeats=2, seed=0)
    fig = convergence_figure(rates, {"bayes-greedy": "BayesGreedy", "mi-greedy": "MIGreedy"})
    assert [t.name for t in fig.data] == ["BayesGreedy", "MIGreedy"]
    assert "MIGreedy" in fig.data[1].hovertemplate


def test_hasse_figure_prints_values_and_a_second_path():
    """Example 1: the 0-1 greedy path goes through {X1}, MIGreedy's through {X2}; each node's value is printed."""
    risks = subset_risks(example1())
    mi = subset_risks(example1(), "mi")
    fig = hasse_figure(risks, greedy_path(risks), other=greedy_path(mi), other_label="MIGreedy path")
    names = [t.name for t in fig.data]
    assert names[1:3] == ["greedy path", "MIGreedy path"]
    # one precision for every node (0.22 was printed next to 0.08189 before): Example 1's 0-1 errors, exact
    assert sorted(_chips(fig, "value")) == ["0.220", "0.250", "0.300", "0.300"]
    assert greedy_path(risks)[1] == (0,) and greedy_path(mi)[1] == (1,)


def test_gap_figure_labels_a_perfect_subset_too():
    """On XOR the pair is perfect (0-1 error 0): its zero-height bar still carries its name and its value."""
    from fslab.pena_nilsson.toy import xor_distribution

    fig = gap_figure(greedy_gaps(subset_risks(xor_distribution())), "0-1 error")
    for trace in fig.data:
        assert trace.textposition == "outside" and trace.cliponaxis is False
        assert "%{text}" in trace.texttemplate and "%{y" in trace.texttemplate
        assert list(trace.y)[2] == pytest.approx(0.0) and list(trace.text)[2] == "{X1, X2}"


@given(st.lists(st.floats(0, 100, allow_nan=False), min_size=1, max_size=40))
def test_value_decimals_is_one_precision_that_tells_values_apart(values):
    """At least 3 decimals, at most 6; below 6, neighbouring values more than 1e-6 apart never print alike (so, as
    printing keeps the order, no two such values do)."""
    d = value_decimals(values)
    assert 3 <= d <= 6
    ordered = sorted(values)
    texts = [f"{v:.{d}f}" for v in ordered]
    assert {len(t.split(".")[1]) for t in texts} == {d}
    if d < 6:
        for a, b, ta, tb in zip(ordered, ordered[1:], texts, texts[1:], strict=False):
            assert b - a <= 1e-6 or ta != tb


def test_value_decimals_by_hand():
    assert value_decimals([0.22, 0.08189, 0.25]) == 3  # 0.220, 0.082, 0.250
    assert value_decimals([0.185, 0.19]) == 3          # colour alone cannot tell them apart; 0.185 vs 0.190 can
    assert value_decimals([0.1234, 0.1231]) == 4       # 0.123 twice at 3 decimals
    assert value_decimals([0.3, 0.1 + 0.2]) == 3       # equal up to rounding error: not a reason for more digits
    assert value_decimals([1.0, 1.0 + 1e-8]) == 6      # apart but closer than 6 decimals show: the cap
