"""Fuzz: the work a share link implies is predicted and checked before anything runs (issue 18, "Also").

Any link text for the Select, NPFS, Compare and Orderings pages, on the shipped samples, goes the way a link goes
through the command line's ``--recipe`` (the same recipe, job defaults and cost model as the app's guard): it
parses to a recipe or gives one :class:`RecipeError`; the recipe resolves to a job or one ``FslabError``; and the
job's predicted cost (:func:`fslab.cost.job_cost`) either fits the work and memory limits or is refused with one
message naming the limit, before any selection runs. Nothing else may escape.
"""

from __future__ import annotations

import functools

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from fslab import cost, limits
from fslab.cli import job as cli_job
from fslab.cli.main import build_parser
from fslab.data.samples import load_sample
from fslab.errors import FslabError
from fslab.measures import MEASURES
from fslab.recipe import Recipe, RecipeError
from fslab.selectors import SELECTORS

COMMANDS = {"select": "select", "npfs": "npfs", "compare": "compare", "orderings": "lattice"}
SAMPLES = ("mushroom", "adult", "splice", "basehock")


@functools.cache
def _sample(name: str):
    return load_sample(name)


def numbers():
    """k, n, s values as a link may spell them: small, at the edges, huge, negative, or not numbers at all."""
    return st.one_of(st.integers(-3, 300).map(str), st.integers(1, 6).map(str), st.integers(0, 10**7).map(str),
                     st.sampled_from(["", "1e9", "5.0", "0x10", "k", "５"]), st.text(max_size=6))


def choice_texts(page: str):
    names = {
        "select": {"selector": st.sampled_from([*SELECTORS, "nope"]), "measure": st.sampled_from([*MEASURES, "?"]),
                   "k": numbers(), "use_s": st.sampled_from(["true", "false", "1"]), "s": numbers()},
        "npfs": {"selector": st.sampled_from([*SELECTORS, "nope"]), "measure": st.sampled_from([*MEASURES, "?"]),
                 "k": numbers(), "n": numbers(), "fraction": st.sampled_from(["0.5", "1", "2", "x"])},
        "compare": {"k": numbers(), "selectors": st.lists(st.sampled_from([*SELECTORS, "x"]), max_size=4).map(",".join),
                    "measure": st.sampled_from([*MEASURES, "?"])},
        "orderings": {"measure": st.sampled_from([*MEASURES, "?"]), "source": st.sampled_from(["dataset", "x"])},
    }[page]
    return st.fixed_dictionaries({}, optional=names)


@st.composite
def links(draw):
    page = draw(st.sampled_from(sorted(COMMANDS)))
    query = {"data": draw(st.sampled_from(SAMPLES))} | draw(choice_texts(page))
    return page, query


@pytest.fixture(autouse=True)
def shared_samples(monkeypatch):
    """Each sample is read once for the whole fuzz (the recipe path re-reads it otherwise)."""
    monkeypatch.setattr("fslab.recipe.load_sample", _sample)


@pytest.mark.slow  # 1.74 s measured (inner loop: unit and not slow)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(links())
def test_a_link_is_a_view_within_the_limits_or_one_message(tmp_path_factory, link):
    page, query = link
    try:
        recipe = Recipe.from_query(page, query)
    except RecipeError as err:
        assert str(err) and "Traceback" not in str(err)
        event("link refused")
        return
    path = tmp_path_factory.mktemp("recipe") / "recipe.json"
    path.write_text(recipe.to_json())
    args = build_parser().parse_args([COMMANDS[page], "--recipe", str(path)])
    try:
        job = cli_job.resolve(args)
    except FslabError as err:  # a choice that does not fit this data: one message
        assert str(err)
        event("job refused")
        return
    predicted = cost.job_cost(job)
    try:
        cost.preflight(predicted)
    except cost.WorkLimitError as err:
        message = str(err)
        assert "limit" in message and "Nothing was run" in message or predicted.refusal, message
        event("work refused")
        return
    event("within the limits")
    server = limits.server_limits()
    assert predicted.refusal is None
    assert predicted.work <= server.max_work and predicted.bytes <= server.max_job_mb * limits.MB


ISSUE_LINKS = [
    ("select", {"data": "adult", "selector": "bayes-greedy", "k": "123", "use_s": "true", "s": "6"}),
    ("select", {"data": "splice", "selector": "bayes-greedy", "k": "60", "use_s": "true", "s": "6"}),
    ("select", {"data": "adult", "selector": "exhaustive", "k": "121"}),
    ("npfs", {"data": "adult", "selector": "bayes-greedy", "k": "10", "n": "5000"}),
    ("npfs", {"data": "basehock", "selector": "jmi", "k": "40", "n": "5000"}),
]


@pytest.mark.slow  # 0.61 s measured (inner loop: unit and not slow)
@pytest.mark.parametrize("page, query", ISSUE_LINKS)
def test_the_issues_unbounded_links_are_refused_before_work(page, query):
    with pytest.raises(cost.WorkLimitError):
        _check(page, query)


def test_a_legal_link_fits():
    """The property is not vacuous: a small link's job is within the limits."""
    _, small = _check("select", {"data": "mushroom", "selector": "jmi", "k": "3"})
    assert small.work <= limits.server_limits().max_work


def _check(page: str, query: dict):
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "recipe.json"
        path.write_text(Recipe.from_query(page, query).to_json())
        job = cli_job.resolve(build_parser().parse_args([COMMANDS[page], "--recipe", str(path)]))
    predicted = cost.job_cost(job)
    return cost.preflight(predicted), predicted
