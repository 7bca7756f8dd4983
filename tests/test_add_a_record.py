"""Adding a measure or a selector is one record (issue 25.1): registering a toy measure (with a parameter) and a toy
selector makes them appear, with no other edit, in the library, the cost model, links and recipes, the command
line's choices and every page that offers measures or selectors (AppTest).

Before, a measure with a parameter touched up to 11 files (ui/share.py MEASURE_PARAMS, fslab/curves.py,
ui/by_measure.py, pages/by_measure.py, ...) and a selector fell through to another selector's cost model.
"""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

import fslab
from fslab import cost, measures, recipe, selectors
from fslab.measures import MeasureSpec, Param
from fslab.measures.empirical import zero_one_rate
from fslab.measures.zero_one import held_out_zero_one, zero_one_error
from fslab.selectors import SELECTORS, SelectorSpec, Work
from tests.conftest import ROOT

MEASURE, SELECTOR = "toy-weighted", "toy-greedy"
LABEL, SELECTOR_LABEL = "Toy weighted 0-1", "ToyGreedy"


def _toy_work(n: int, k: int, s: int | None) -> Work:
    return Work(tables=7 * n, passes=3, depth=1, candidates=n)


TOY_MEASURE = MeasureSpec(
    MEASURE, LABEL, lambda table, w=1.0: w * zero_one_error(table), False, r"w\,\mathrm{er}^{0\text{-}1,*}",
    "a test record", parameters={"w": Param(1.0, "weight w of every error", low=0.5, high=2.0, step=0.5)},
    held_out=lambda train, test, labels, w=1.0, **_: w * held_out_zero_one(train, test, labels),
    empirical=lambda y, pred, proba=None, *, w: w * zero_one_rate(y, pred))
TOY_SELECTOR = SelectorSpec(SELECTOR, SELECTOR_LABEL, "forward", True, "a test record", r"j_t = \arg\max_j C",
                            scorer=SELECTORS["bayes-greedy"].scorer, work=_toy_work)


@pytest.fixture
def toy_records():
    measures.register(TOY_MEASURE)
    selectors.register(TOY_SELECTOR)
    try:
        yield
    finally:
        measures.unregister(MEASURE)
        selectors.unregister(SELECTOR)


def test_the_library_runs_them(toy_records):
    data = fslab.load_sample("mushroom").discretize()
    plain = fslab.select(data, 2, "bayes-greedy", measure="zero-one")
    toy = fslab.select(data, 2, SELECTOR, measure=MEASURE, w=2.0)
    assert list(toy.features) == list(plain.features)  # w x the 0-1 error: the same path
    assert fslab.criterion(data, list(toy.features), fslab.measure(MEASURE, w=2.0)) == pytest.approx(
        2 * fslab.criterion(data, list(plain.features), "zero-one"))


def test_learning_curves_score_the_test_sample_with_its_parameter(toy_records):
    """The record's test-sample scorer with the parameter given: w = 2 doubles every test value of w = 1."""
    from fslab.curves import learning_curves

    data = fslab.load_sample("mushroom").discretize()
    runs = [learning_curves(data, [SELECTOR, "mi-greedy"], MEASURE, 2, measure_params={"w": w}, learner="naive-bayes",
                            n_splits=1, subsample=400, seed=0).scores["value"].to_numpy() for w in (1.0, 2.0)]
    assert runs[0].max() > 0 and runs[1] == pytest.approx(2 * runs[0])


def test_npfs_knows_a_registered_class_counting_selector():
    from dataclasses import replace

    from fslab.npfs.procedure import CLASS_SELECTORS

    selectors.register(replace(TOY_SELECTOR, name="toy-counting", counts_classes=True))
    try:
        assert "toy-counting" in CLASS_SELECTORS and SELECTOR not in CLASS_SELECTORS
    finally:
        selectors.unregister("toy-counting")
    assert "toy-counting" not in CLASS_SELECTORS and "jmi" in CLASS_SELECTORS


def test_the_cost_model_reads_the_selectors_work(toy_records):
    data = fslab.load_sample("mushroom").discretize()
    predicted = cost.select_cost(data, 3, SELECTOR, MEASURE)
    assert (predicted.tables, predicted.passes) == (7 * data.n_features, 3)
    assert SELECTOR_LABEL in predicted.job


def test_links_and_recipes_carry_them(toy_records):
    for page, choices in [("select", {"selector": SELECTOR, "measure": MEASURE, "w": 1.5}),
                          ("npfs", {"selector": SELECTOR, "measure": MEASURE, "w": 0.5}),
                          ("by_measure", {"selector": SELECTOR, "measures": ["zero-one", MEASURE], "w": 2.0}),
                          ("compare", {"selectors": ["bayes-greedy", SELECTOR], "measure": MEASURE, "w": 1.0})]:
        made = recipe.Recipe(page, {"sample": "mushroom"}, None, choices)
        assert recipe.Recipe.from_query(page, made.to_query()) == made
        assert recipe.Recipe.from_json(made.to_json()) == made
    with pytest.raises(recipe.RecipeError, match="'w' must be between 0.5 and 2.0"):
        recipe.Recipe("select", None, None, {"measure": MEASURE, "w": 3.0})


def test_the_command_line_offers_and_runs_them(toy_records, tmp_path, capsys):
    from fslab.cli.main import build_parser, main

    args = build_parser().parse_args(["select", "mushroom", "--selector", SELECTOR, "--measure", MEASURE])
    assert (args.selector, args.measure) == (SELECTOR, MEASURE)
    path = tmp_path / "toy.json"  # a recipe carries the parameter
    path.write_text(recipe.Recipe("select", {"sample": "mushroom"}, None,
                                  {"selector": SELECTOR, "measure": MEASURE, "w": 2.0, "k": 2}).to_json())
    assert main(["select", "--recipe", str(path), "--json", "-q"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["selector"], out["measure"], out["params"], out["names"]) == (
        SELECTOR, MEASURE, {"w": 2.0}, ["odor=none", "stalk-root=club"])
    # the parameter is an option too, read from its record, and range-checked as in the app
    assert main(["select", "mushroom", "--selector", SELECTOR, "--measure", MEASURE, "--w", "2", "--k", "2",
                 "--json", "-q"]) == 0
    assert json.loads(capsys.readouterr().out)["params"] == {"w": 2.0}
    assert main(["select", "mushroom", "--selector", SELECTOR, "--measure", MEASURE, "--w", "3", "-q"]) == 1
    assert "--w must be between 0.5 and 2.0" in capsys.readouterr().err


def _options(widget) -> list[str]:
    return list(widget.options)


@pytest.fixture
def app(toy_records):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.run()
    return at


def _open(at, page: str):
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_every_page_offers_them(app):
    at = _open(app, "pages/selection.py")
    assert SELECTOR_LABEL in _options(at.selectbox(key="select.selector"))
    at.selectbox(key="select.selector").set_value(SELECTOR).run()
    assert LABEL in _options(at.selectbox(key="select.measure"))
    at.selectbox(key="select.measure").set_value(MEASURE).run()
    assert not at.exception and not at.error, [e.value for e in [*at.exception, *at.error]]
    assert at.slider(key="select.w").value == 1.0   # the parameter's widget, from its Param record

    at = _open(app, "pages/npfs.py")
    assert SELECTOR_LABEL in _options(at.selectbox(key="npfs.selector"))
    assert LABEL in _options(at.selectbox(key="npfs.measure"))

    at = _open(app, "pages/by_measure.py")
    assert SELECTOR_LABEL in _options(at.selectbox(key="bym.selector"))
    assert LABEL in _options(at.multiselect(key="bym.measures"))
    # By measure opens on Select's choice (ui.page_plan: the toy measure chosen there), so its w is live; it is
    # disabled only while no chosen measure takes w
    chosen = at.multiselect(key="bym.measures").value
    assert at.slider(key="bym.w").disabled == (MEASURE not in chosen)

    at = _open(app, "pages/compare.py")
    assert LABEL in _options(at.selectbox(key="compare.measure"))
    assert SELECTOR_LABEL in _options(at.multiselect(key="compare.selectors"))

    at = _open(app, "pages/scores.py")
    assert LABEL in _options(at.multiselect(key="scores.measures"))

    at = _open(app, "pages/orderings.py")
    assert LABEL in _options(at.selectbox(key="orderings.measure"))
