"""Issue 34.2: ties are said wherever a pick is named (Toy, Orderings), an XOR of order r opens at k = r, and the
Toy header describes the law that is loaded."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import fslab
from fslab.convergence import criterion_picks
from fslab.pena_nilsson.orderings import greedy_gaps, tied_labels
from fslab.pena_nilsson.toy import PRESETS, is_class_conditionally_independent, law_formula, xor_distribution

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def test_xor_of_order_3_over_4_features_ties_every_singleton():
    picks = criterion_picks(xor_distribution(4, 3, 0.0), 1, measures=["zero-one", "mi"]).set_index(
        ["measure", "selector"])
    # every single feature of an order-3 XOR leaves Y a fair coin: error 1/2, information 0
    assert picks.at[("0-1 error", "exhaustive"), "value"] == pytest.approx(0.5)
    assert picks.at[("0-1 error", "exhaustive"), "ties"] == "X1 / X2 / X3 / X4"
    assert picks.at[("0-1 error", "bayes-greedy"), "ties"] == "step 1: X1, X2, X3, X4 tie"
    assert picks.at[("mutual information", "bayes-greedy"), "ties"] == "step 1: X1, X2, X3, X4 tie"


def test_xor_at_its_order_has_one_optimum_and_greedy_ties_on_the_way():
    picks = criterion_picks(xor_distribution(4, 3, 0.0), 3, measures=["zero-one"]).set_index("selector")
    assert picks.at["exhaustive", "picks"] == "X1, X2, X3" and picks.at["exhaustive", "ties"] == ""
    # step 2: after X1 every pair is still a fair coin, so X2, X3 and X4 tie
    assert picks.at["bayes-greedy", "ties"] == "step 1: X1, X2, X3, X4 tie; step 2: X2, X3, X4 tie"


def test_example_1_has_no_tie_to_report():
    picks = criterion_picks(fslab.example1(), 1, measures=["zero-one", "mi"])
    assert (picks["ties"] == "").all() and picks["picks"].tolist() == ["X1", "X1", "X2", "X2"]


def test_orderings_gap_table_names_the_tied_best_subsets():
    gaps = greedy_gaps(fslab.subset_risks(xor_distribution(4, 3, 0.0))).set_index("k")
    assert gaps.at[1, "ties"] == "{X1}, {X2}, {X3} and {X4}" and gaps.at[1, "n_optimal"] == 4
    assert gaps.at[2, "ties"] == "{X1, X2}, {X1, X3}, {X1, X4}, {X2, X3}, {X2, X4} and {X3, X4}"
    assert gaps.at[3, "ties"] == "" and gaps.at[3, "optimal"] == "{X1, X2, X3}"
    assert tied_labels([f"{{X{j}}}" for j in range(1, 10)]) == "{X1}, {X2}, {X3}, {X4}, {X5}, {X6} and 3 more"


def test_the_header_describes_the_law_loaded():
    assert is_class_conditionally_independent(fslab.example1())
    assert not is_class_conditionally_independent(xor_distribution(4, 3, 0.0))
    assert not is_class_conditionally_independent(PRESETS["greedy-bad"].factory())
    # a naive-Bayes law on a grid with one state's mass missing is not of that form
    nb = fslab.Distribution.naive_bayes([0.5, 0.5], [[[0.5, 0.5], [0.5, 0.5]], [[0.9, 0.1], [0.2, 0.8]]])
    assert is_class_conditionally_independent(nb)
    words, latex = law_formula(xor_distribution(3, 2, 0.0))
    assert "not class-conditionally independent" in words and r"\prod" not in latex


@pytest.mark.slow
def test_toy_page_says_the_tie_and_opens_xor_at_its_order():
    at = AppTest.from_file(APP, default_timeout=90).run()
    at.switch_page("pages/toy.py").run()
    at.session_state["toy.builder"] = "Generators"
    at.run()
    at.radio(key="toy.generator").set_value("XOR interaction").run()
    at.number_input(key="toy.xor_n").set_value(4).run()
    at.number_input(key="toy.xor_order").set_value(3).run()
    at.button(key="toy.generate").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.number_input(key="toy.pick_k").value == 3 and at.session_state["toy.conv_k"] == 3
    text = " ".join(m.value for m in at.markdown)
    assert "not class-conditionally independent" in text
    assert "best 3-subset is **X1, X2, X3**" in text
    at.number_input(key="toy.pick_k").set_value(1).run()
    text = " ".join(m.value for m in at.markdown)
    assert "best 1-subsets tie: **X1, X2, X3 and X4** all reach 0.5" in text and "one of them" in text
    table = next(d.value for d in at.table if "its Bayes value" in d.value.columns).set_index("measure")
    assert table.at["0-1 error", "tied optimal subsets"] == "X1 / X2 / X3 / X4"
