"""AppTest of shareable views (ui/share.py): links restore a view, the address bar follows the widgets,
recipe files restore data, distribution and choices, and a bad link or recipe gives a message, not a traceback.

AppTest (1.67) runs only the page script on every run after the first one, so app.py's restore/publish
would not run again. These tests run app.py through a small harness that makes the page under test the default
one, and :func:`rerun` asks for the main script each time: every run is then what the browser's next run of
``/<page>?<query>`` does.
"""

from __future__ import annotations

import hashlib
import json
from urllib.parse import urlencode

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst
from streamlit.testing.v1 import AppTest

from fslab.data.distributions import Distribution
from fslab.recipe import Recipe, RecipeError, load_dataset
from fslab.selectors import select
from tests.conftest import ROOT

HARNESS = """
import runpy

import streamlit as st

_page = st.Page


def _start_at(page, *args, default=False, **kwargs):
    return _page({root!r} + "/" + page, *args, default=(page == {start!r}), **kwargs)


st.Page = _start_at
try:
    runpy.run_path({app!r}, run_name="fslab_app")  # not __main__: worker processes re-import __main__
finally:
    st.Page = _page
"""
PATIENTS = ROOT / "tests" / "fixtures" / "patients.csv"


@pytest.fixture
def open_page(tmp_path):
    """A fresh session that opens a page file with a query in the URL (pages/ is linked next to the harness,
    so page paths resolve as they do next to app.py)."""
    (tmp_path / "pages").symlink_to(ROOT / "pages")

    def opener(page_file: str, query: dict | None = None, box: bool = False) -> AppTest:
        harness = tmp_path / "harness.py"
        harness.write_text(HARNESS.format(root=str(ROOT), app=str(ROOT / "app.py"), start=page_file))
        at = AppTest.from_file(str(harness), default_timeout=60)
        at.query_params.update(query or {})
        if box:  # the sidebar's share box opened (its content is drawn only then, issue 34.5)
            at.session_state["share.open"] = True
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        return at
    return opener


def rerun(at: AppTest) -> AppTest:
    """Run the app again through app.py (the harness's default page) instead of the last page alone."""
    at._finished_page_script_hash = ""  # private: AppTest would otherwise run the page without app.py
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def selected_names(at) -> list[str]:
    text = next(s.value for s in at.success if s.value.startswith("Selected:"))
    return [part.strip(" *") for part in text.removeprefix("Selected:").split(",")]


def test_a_link_opens_select_with_its_data_and_choices(open_page):
    at = open_page("pages/selection.py", {"data": "mushroom", "selector": "bayes-greedy", "measure": "balanced",
                                          "k": "3"})
    assert at.session_state["select.k"] == 3 and at.session_state["select.measure"] == "balanced"
    expected = select(load_dataset({"sample": "mushroom"}), 3, "bayes-greedy", "balanced")
    assert selected_names(at) == list(expected.names)
    assert at.query_params["k"] == "3" and at.query_params["measure"] == "balanced"


def test_a_link_carries_the_estimate(open_page):
    """Issue 22: a held-out view on a shipped sample (whose default is the papers' plug-in) opens held out."""
    at = open_page("pages/selection.py", {"data": "mushroom", "selector": "bayes-greedy", "measure": "balanced",
                                          "k": "3", "estimate": "cross-fitted"})
    assert at.radio(key="select.estimate").value == "cross-fitted"
    expected = select(load_dataset({"sample": "mushroom"}), 3, "bayes-greedy", "balanced", estimate="cross-fitted")
    assert selected_names(at) == list(expected.names)
    assert at.query_params["estimate"] == "cross-fitted"
    plain = open_page("pages/selection.py", {"data": "mushroom", "k": "3"})
    assert plain.radio(key="select.estimate").value == "plug-in"


def test_the_address_bar_follows_the_widgets(open_page):
    at = open_page("pages/selection.py", box=True)
    assert at.query_params["data"] == "mushroom" and at.query_params["k"] == "5"
    at.number_input(key="select.k").set_value(4)
    rerun(at)
    at.selectbox(key="select.measure").set_value("cost-sensitive")
    rerun(at)
    query = dict(at.query_params)
    assert query["k"] == "4" and query["measure"] == "cost-sensitive" and query["c"] == "0.25"
    assert Recipe.from_query("select", query).choices["k"] == 4
    assert [b.label for b in at.sidebar.get("download_button")] == ["Download recipe (JSON)"]


def test_a_rerun_carrying_an_older_address_keeps_the_users_edits(open_page):
    """Under load a click can reach the server with the address of an earlier run (the last run's link had not
    arrived yet); restoring that address would silently undo the click (seen in bench/load_test.py)."""
    link = {"data": "mushroom", "selector": "bayes-greedy", "measure": "balanced", "k": "3"}
    at = open_page("pages/selection.py", link)
    at.number_input(key="select.k").set_value(4)
    at.query_params.clear()
    at.query_params.update(link)  # the stale address
    rerun(at)
    assert at.session_state["select.k"] == 4
    assert len(selected_names(at)) == 4 and at.query_params["k"] == "4"


def test_a_bad_link_says_what_is_wrong_and_the_page_shows_its_defaults(open_page):
    at = open_page("pages/selection.py", {"k": "five", "selector": "bayes-greedy"})
    about_link = [w.value for w in at.warning if "link" in w.value]   # (the pick's verdict may warn too)
    assert len(about_link) == 1
    assert "This link could not be opened as it is: 'k' must be a whole number; got 'five'" in about_link[0]
    assert at.session_state["select.k"] == 5
    at = open_page("pages/compare.py", {"selectors": "jmi,__import__('os')"})
    assert "'selectors' must be one of" in at.warning[0].value


def test_a_link_to_the_toy_page_installs_its_preset(open_page):
    at = open_page("pages/toy.py", {"dist": "xor", "pick_k": "2"})
    assert at.session_state["fslab.distribution_name"] == "XOR of two features (plus a noise feature)"
    assert at.session_state["toy.pick_k"] == 2
    assert at.query_params["dist"] == "xor"
    assert at.selectbox(key="toy.preset").value == "xor"  # the picker shows the loaded preset, not Example 1


def test_a_k_larger_than_the_data_allows_is_lowered_with_a_note(open_page):
    at = open_page("pages/compare.py", {"source": "distribution", "k": "9"})
    assert at.session_state["compare.k"] == 2  # Example 1 has two features
    assert any("k = 9 is more than this data allows (2 features): using k = 2" in i.value for i in at.info)


def test_a_recipe_file_restores_data_choices_and_page(open_page):
    recipe = Recipe("select", {"sample": "adult", "method": "quantile", "bins": 4}, {"preset": "xor"},
                    {"selector": "jmi", "k": 2})
    at = open_page("pages/home.py", box=True)
    at.sidebar.file_uploader(key="share.upload").set_value(("r.json", recipe.to_json().encode(), "application/json"))
    rerun(at)
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["fslab.current_data"].name == "adult (sample; quantile, 4 bins)"
    assert at.session_state["fslab.current_data"].spec == recipe.data
    assert at.session_state["select.selector"] == "jmi" and at.session_state["select.k"] == 2
    expected = select(load_dataset(recipe.data), 2, "jmi")
    assert selected_names(at) == list(expected.names)


def test_a_recipe_with_an_uploaded_file_asks_for_that_file_and_checks_it(open_page):
    raw = PATIENTS.read_bytes()
    data = {"file": "patients.csv", "sha256": hashlib.sha256(raw).hexdigest(), "target": "outcome"}
    recipe = Recipe("select", data, None, {"k": 2, "measure": "zero-one"})
    at = open_page("pages/home.py", box=True)
    at.sidebar.file_uploader(key="share.upload").set_value(("r.json", recipe.to_json().encode(), "application/json"))
    rerun(at)
    at.sidebar.file_uploader(key="share.data_file").set_value(
        ("other.csv", raw + b"P999,1,1,no,blue,north,sick\n", "text/csv"))
    rerun(at)
    assert "other.csv is not the file the recipe was made with" in at.error[0].value
    at.sidebar.file_uploader(key="share.data_file").set_value(("patients.csv", raw, "text/csv"))
    rerun(at)
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["fslab.current_data"].spec == data
    # an upload is held out by default (issue 22); the recipe's own choices (k, measure) stand
    assert selected_names(at) == list(select(load_dataset(data, raw), 2, "bayes-greedy", estimate="cross-fitted").names)


@pytest.mark.parametrize(("text", "message"), [
    (b'{"fslab_recipe": 1, "page": "select", "choices": {"k": NaN}}', "NaN, which is not a number JSON allows"),
    (json.dumps({"fslab_recipe": 1, "page": "select", "choices": {"selector": "eval"}}).encode(),
     "'selector' must be one of"),
])
def test_a_bad_recipe_file_is_refused_with_its_reason(open_page, text, message):
    at = open_page("pages/home.py", box=True)
    at.sidebar.file_uploader(key="share.upload").set_value(("bad.json", text, "application/json"))
    rerun(at)
    assert message in at.error[0].value


LINKS = [
    ("pages/npfs.py", {"data": "uniform", "method": "uniform", "bins": "3", "selector": "mi-score", "k": "5",
                       "n": "20", "alpha": "0.05", "seed": "3", "fraction": "0.5"}),
    ("pages/orderings.py", {"dist": "xor", "source": "distribution", "measure": "balanced"}),
    ("pages/compare.py", {"data": "mushroom", "measure": "f-beta", "beta": "2.0", "k": "4", "selectors": "jmi,mrmr"}),
    ("pages/toy.py", {"dist": "greedy-bad", "pick_k": "2", "conv_measure": "zero-one", "conv_k": "2",
                      "toy_m": "500", "toy_seed": "2"}),
    ("pages/selection.py", {"data": "waveform", "positive": "(all classes)", "selector": "mi-greedy", "k": "2"}),
]


@pytest.mark.parametrize(("page_file", "query"), LINKS, ids=[p for p, _ in LINKS])
def test_every_page_opens_from_its_link_and_writes_the_same_link_back(open_page, page_file, query):
    at = open_page(page_file, query)
    assert not at.warning, [w.value for w in at.warning]
    assert query.items() <= dict(at.query_params).items()
    page = page_file.removeprefix("pages/").removesuffix(".py").replace("selection", "select")
    recipe = Recipe.from_query(page, query)
    if recipe.data is not None:
        assert at.session_state["fslab.current_data"].spec == recipe.data
    for name, value in recipe.choices.items():
        assert at.session_state[f"{page}.{name}"] == value, name


def test_the_data_and_toy_pages_record_where_the_dataset_comes_from(open_page):
    at = open_page("pages/data.py")
    at.radio(key="data_source").set_value("upload")
    rerun(at)
    raw = PATIENTS.read_bytes()
    at.file_uploader(key="data_upload").set_value(("patients.csv", raw, "text/csv"))
    rerun(at)
    at.selectbox(key="data_target").set_value("outcome")
    at.selectbox(key="data_method").set_value("quantile")
    rerun(at)
    at.button(key="data_use").click()
    rerun(at)
    spec = at.session_state["fslab.current_data"].spec
    assert spec == {"file": "patients.csv", "sha256": hashlib.sha256(raw).hexdigest(), "target": "outcome",
                    "positive": spec["positive"], "method": "quantile", "bins": 3,
                    "exclude": ["patient_id", "clinic"]}  # the Data page leaves out the ID-like column and the
    # constant one (clinic is "north" in all 60 rows: the plan leaves constant columns out, issue 33)
    assert load_dataset(spec, raw).n_rows == at.session_state["fslab.current_data"].encoded.n_rows

    at = open_page("pages/toy.py", {"dist": "xor"})
    at.number_input(key="toy.sample_m").set_value(300)
    at.number_input(key="toy.sample_seed").set_value(9)
    at.button(key="toy.sample").click()
    rerun(at)
    assert at.session_state["fslab.current_data"].spec == {"toy_sample": {"m": 300, "seed": 9}}
    assert dict(at.query_params)["toy_m"] == "300"


# --- a link made on an uploaded file asks for that file; nothing runs on other data meanwhile ------------------

def test_a_link_on_an_uploaded_file_asks_for_the_file_before_anything_runs(open_page):
    raw = PATIENTS.read_bytes()
    data = {"file": "patients.csv", "sha256": hashlib.sha256(raw).hexdigest(), "target": "outcome"}
    link = Recipe("select", data, None, {"selector": "backward", "k": 2}).to_query()
    at = open_page("pages/selection.py", link)
    assert at.title[0].value == "This link needs its data file"
    assert "patients.csv" in at.markdown[0].value and "Nothing has been computed on other data" in at.markdown[0].value
    assert not any(s.value.startswith("Selected:") for s in at.success)  # no backward run on Mushroom
    assert "select.selector" not in at.session_state and dict(at.query_params) == link  # the link stays
    at.file_uploader(key="share.link_file").set_value(("patients.csv", raw + b"P999,1,1,no,blue,north,sick\n",
                                                       "text/csv"))
    rerun(at)
    assert "patients.csv is not the file this link was made with" in at.error[0].value
    at.file_uploader(key="share.link_file").set_value(("patients.csv", raw, "text/csv"))
    rerun(at)
    assert at.session_state["fslab.current_data"].spec == data and at.session_state["select.selector"] == "backward"
    assert selected_names(at) == list(select(load_dataset(data, raw), 2, "backward", estimate="cross-fitted").names)
    assert dict(at.query_params)["file"] == "patients.csv"


def test_a_link_on_an_uploaded_file_can_be_opened_without_it(open_page):
    link = {"file": "gone.csv", "sha256": "b" * 64, "k": "2"}
    at = open_page("pages/selection.py", link)
    at.button(key="share.skip_file").click()
    rerun(at)
    assert not at.title or at.title[0].value != "This link needs its data file"
    assert at.session_state["fslab.current_data"].spec == {"sample": "mushroom"} and selected_names(at)


# --- what a link asks that this data cannot take: a visible note saying what is used instead (#18) -----------

@pytest.mark.parametrize(("page_file", "query", "note", "key", "used"), [
    ("pages/selection.py", {"data": "optdigits", "measure": "auc"},  # balanced fits K classes since issue 33.5
     "measure AUC does not fit this target with 10 classes: using 0-1 error", "select.measure", "zero-one"),
    ("pages/selection.py", {"data": "optdigits", "selector": "precision-greedy"},
     "selector Precision greedy is not offered here for this target with 10 classes: using BayesGreedy",
     "select.selector", "bayes-greedy"),
    ("pages/npfs.py", {"data": "optdigits", "selector": "bayes-greedy", "measure": "f-beta", "k": "2", "n": "5"},
     "measure F-beta does not fit this target with 10 classes: using 0-1 error", "npfs.measure", "zero-one"),
])
def test_a_link_asking_what_the_data_cannot_take_says_what_is_used_instead(open_page, page_file, query, note, key,
                                                                            used):
    at = open_page(page_file, query)
    infos = [i.value for i in at.info]
    assert any(note in i for i in infos), infos
    assert at.session_state[key] == used


def test_a_real_valued_target_with_mi_greedy_is_replaced_with_a_note(open_page):
    raw = PATIENTS.read_bytes()
    data = {"file": "patients.csv", "sha256": hashlib.sha256(raw).hexdigest(), "target": "blood_pressure"}
    at = open_page("pages/selection.py", Recipe("select", data, None, {"selector": "mi-greedy", "k": 2}).to_query())
    at.file_uploader(key="share.link_file").set_value(("patients.csv", raw, "text/csv"))
    rerun(at)
    assert any("selector MIGreedy is not offered here for this real-valued target: using BayesGreedy" in i.value
               for i in at.info), [i.value for i in at.info]
    assert at.session_state["select.selector"] == "bayes-greedy"


@pytest.mark.parametrize(("page_file", "query", "message"), [
    ("pages/compare.py", {"measure": "squared"}, "'measure' must be one of: zero-one"),
    ("pages/toy.py", {"data": "mushroom", "toy_m": "500"}, "a link names one data source"),
    ("pages/selection.py", {"k": "５"}, "'k' must be a whole number; got '５'"),
])
def test_a_link_that_cannot_be_honoured_is_refused_with_a_message(open_page, page_file, query, message):
    at = open_page(page_file, query)
    assert any(message in w.value for w in at.warning), [w.value for w in at.warning]


# --- recipes that broke a session ------------------------------------------------------------------------------

def _load_recipe(at, text: bytes) -> AppTest:
    at.sidebar.file_uploader(key="share.upload").set_value(("r.json", text, "application/json"))
    return rerun(at)


@pytest.mark.parametrize(("recipe", "message"), [
    ({"fslab_recipe": 1, "page": "compare", "choices": {"selectors": [["jmi"]]}}, "'selectors' must be one of"),
    ({"fslab_recipe": 1, "page": "toy", "distribution": {"json": {"states": [[]], "probs": [[0.5, 0.5]]}}},
     "the recipe's distribution has no features"),
])
def test_a_recipe_that_broke_a_session_is_refused(open_page, recipe, message):
    at = _load_recipe(open_page("pages/home.py", box=True), json.dumps(recipe).encode())
    assert any(message in e.value for e in at.error), [e.value for e in at.error]


def test_a_large_distribution_keeps_its_size_and_every_page_still_opens(open_page, monkeypatch, request):
    """A distribution from a recipe of 70 % of the JSON limit stays the recipe's own entry (re-serialising a
    distribution could make it several times larger); one built in the session whose JSON is over the limit is left
    out of the recipe with a note: building the session's recipe raised on every page. The limit is lowered to
    200 kB (FSLAB_MAX_JSON_BYTES; the default 2 MB with a 1.3 MB recipe: the same checks at ten times the CPU)."""
    from fslab.limits import server_limits

    monkeypatch.setenv("FSLAB_MAX_JSON_BYTES", "200000")
    server_limits.cache_clear()
    request.addfinalizer(server_limits.cache_clear)   # the next call reads the restored environment
    rng = np.random.default_rng(0)
    codes = rng.choice(16**4, size=4_000, replace=False)  # 4,000 distinct states of 4 features with 16 values
    states = (codes[:, None] // 16 ** np.arange(4)) % 16
    counts = rng.multinomial(92_000, np.full(8_000, 1 / 8_000)).reshape(4_000, 2) + 1  # they sum to 100,000
    spec = {"json": {"states": states.tolist(), "probs": [[round(c * 1e-5, 5) for c in row] for row in counts]}}
    text = json.dumps({"fslab_recipe": 1, "page": "select", "distribution": spec, "choices": {"k": 2}}).encode()
    assert 100_000 < len(text) < server_limits().max_json_bytes == 200_000
    at = _load_recipe(open_page("pages/selection.py", box=True), text)
    assert at.session_state["fslab.share.dist_memo"][1] == spec  # the recipe's own entry, not a re-serialisation
    big = Distribution(states, rng.random((4_000, 2)))  # 17-digit probabilities: about 260 kB as JSON
    assert len(big.to_json()) > 200_000
    at.session_state["fslab.distribution"] = big
    rerun(at)
    captions = [c.value for c in at.sidebar.caption]
    assert any(c.startswith(f"Not in the link nor the recipe: the toy distribution ({len(big.to_json()):,} bytes as "
                            "JSON; a recipe holds at most 200,000: FSLAB_MAX_JSON_BYTES)") for c in captions), captions
    for page in ("pages/toy.py", "pages/orderings.py"):
        at.switch_page(page)
        rerun(at)


# --- fuzzing the links of every page through the app: a view or one clear message, never an exception --------

_FUZZ_VALUES = {
    "data": ["mushroom", "waveform", "optdigits", "iris", ""], "dist": ["xor", "greedy-bad", "nope"],
    "positive": ["(all classes)", "1", "zzz"], "method": ["quantile", "kmeans"], "bins": ["2", "4", "1", "x"],
    "selector": ["bayes-greedy", "mi-score", "jmi", "precision-greedy", "fisher", "lasso", ""],
    "measure": ["zero-one", "balanced", "auc", "squared", "mi", "f-beta", "accuracy"],
    "k": ["1", "2", "3", "0", "-1", "2.5", "５", "1e3"], "source": ["dataset", "distribution", "both"],
    "c": ["0.3", "2", "nan"], "beta": ["2.0", "1e308"],
    "selectors": ["jmi,mrmr", "jmi,,", "bayes-greedy,recall-greedy"],
    "n": ["5", "1", "x"], "alpha": ["0.05", "0.02"], "seed": ["3", "-1"], "fraction": ["0.5", "0"],
    "pick_k": ["1", "2", "9"], "conv_measure": ["zero-one", "auc"], "conv_k": ["1", "7"], "use_s": ["true", "yes"],
    "s": ["2", "9"], "toy_m": ["300", "0"], "utm_source": ["mail"],
}
_FUZZ_PAGES = {"pages/selection.py": ("select", ["data", "positive", "selector", "measure", "k", "c", "source"]),
               "pages/compare.py": ("compare", ["data", "measure", "k", "selectors", "beta", "source"]),
               "pages/npfs.py": ("npfs", ["data", "selector", "measure", "k", "n", "alpha", "seed", "fraction"]),
               "pages/toy.py": ("toy", ["dist", "pick_k", "conv_measure", "conv_k", "toy_m"]),
               "pages/orderings.py": ("orderings", ["dist", "source", "measure", "method", "bins", "utm_source"])}


@settings(max_examples=20, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=hst.data())
def test_fuzz_every_pages_links_give_a_view_or_one_message(open_page, data):
    page_file = data.draw(hst.sampled_from(sorted(_FUZZ_PAGES)))
    page, names = _FUZZ_PAGES[page_file]
    chosen = data.draw(hst.lists(hst.sampled_from(names), max_size=4, unique=True))
    query = {name: data.draw(hst.sampled_from(_FUZZ_VALUES[name])) for name in chosen}
    if page == "npfs":
        query.setdefault("n", "5")  # small runs: the fuzz is about parsing, not NPFS's speed
    at = open_page(page_file, query)  # asserts no exception
    warnings = [w.value for w in at.warning if w.value.startswith("This link could not be opened")]
    assert len(warnings) <= 1
    try:
        recipe = Recipe.from_query(page, query)
    except RecipeError as err:
        assert warnings == [f"This link could not be opened as it is: {err}. The page shows the session's current "
                            "data and settings instead."] or warnings and str(err) in warnings[0]
        return
    if warnings:  # parsed, but its data could not be loaded (e.g. an unknown positive class): one message
        assert "could not be opened" in warnings[0]
        return
    notes = " ".join(i.value for i in at.info)
    for name, value in recipe.choices.items():  # each choice is what the page uses, or a note says what is
        used = at.session_state[f"{page}.{name}"] if f"{page}.{name}" in at.session_state else None
        assert used == value or name in notes or "not used" in notes or name == "measure", (name, value, used, notes)


def test_a_page_that_stops_early_still_gets_its_link_and_share_box(open_page):
    """NPFS waits for its Run button (the page ends with st.stop()): a stop ends the whole script run, so the link
    and the share box are written before the page runs."""
    query = {"data": "uniform", "method": "uniform", "bins": "3", "selector": "mi-score", "k": "5", "n": "20"}
    at = open_page("pages/npfs.py", query, box=True)
    assert [b.label for b in at.sidebar.get("download_button")] == ["Download recipe (JSON)"]
    assert query.items() <= dict(at.query_params).items()


def test_the_share_box_draws_its_content_only_when_opened(open_page):
    """Closed (every page's default), the box draws nothing but its heading, and the address bar still follows
    each run; opened, it shows the link to copy (the same address) and the recipe's download and upload."""
    at = open_page("pages/selection.py", {"k": "3"})
    assert not at.sidebar.get("download_button") and not at.sidebar.get("file_uploader")
    assert not [m for m in at.sidebar.markdown if m.value.startswith("[")]   # no link to copy
    at.number_input(key="select.k").set_value(4)
    rerun(at)
    assert at.query_params["k"] == "4" and at.query_params["data"] == "mushroom"
    at.session_state["share.open"] = True   # the reader opens the box
    rerun(at)
    assert [b.label for b in at.sidebar.get("download_button")] == ["Download recipe (JSON)"]
    assert [u.label for u in at.sidebar.get("file_uploader")] == ["Load a recipe"]
    target = next(m.value for m in at.sidebar.markdown if m.value.startswith("[")).rsplit("](", 1)[1]
    assert target.startswith("/?") and target.rstrip(")").split("?")[1] == urlencode(dict(at.query_params))
