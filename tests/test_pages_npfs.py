"""AppTest of the NPFS page and of the "Which k?" panel (ui/k_suggestion.py)."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from fslab.data.samples import load_sample
from ui import state

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def _titles(at) -> list[str]:
    return [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]


@pytest.fixture
def npfs_page():
    """The NPFS page opened on the default dataset (Mushroom), nothing run yet (a first visit waits for the click)."""
    at = AppTest.from_file(APP, default_timeout=90).run()
    at.switch_page("pages/npfs.py").run()
    return at


@pytest.fixture
def npfs_ran(npfs_page):
    """The NPFS page after one press of Run NPFS with n = 20 bootstraps of JMI, k = 10 on Mushroom: enough for
    relevant features (zeta = 5 of 20 for p0 = 10/116), a fifth of the default 100."""
    at = npfs_page
    at.number_input(key="npfs.n").set_value(20).run()
    at.button(key="npfs.run").click().run()
    return at


def test_first_visit_waits_for_a_click_and_says_what_it_will_run():
    at = AppTest.from_file(APP, default_timeout=90).run()
    at.switch_page("pages/npfs.py").run()
    assert not at.exception and not at.metric
    assert any("Press **Run NPFS**" in i.value and "100 runs of JMI with k = 10" in i.value for i in at.info)


def test_a_configured_dask_scheduler_is_named_on_the_page(monkeypatch):
    """FSLAB_DASK_SCHEDULER is read when the page runs (not at import) and the page says where NPFS will run."""
    at = AppTest.from_file(APP, default_timeout=90).run()
    at.switch_page("pages/npfs.py").run()
    assert not any("Dask cluster" in i.value for i in at.info)
    with socket.socket() as listener:  # a scheduler answers at the address: the page checks before naming it
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        address = f"tcp://127.0.0.1:{listener.getsockname()[1]}"

        def greet() -> None:  # what a Dask scheduler sends unasked: its handshake's length, a little-endian uint64
            conn, _ = listener.accept()
            with conn:
                conn.sendall((200).to_bytes(8, "little"))

        answering = threading.Thread(target=greet, daemon=True)
        answering.start()
        monkeypatch.setenv("FSLAB_DASK_SCHEDULER", address)
        at.run()
        answering.join(timeout=10)
    assert any(f"Dask cluster at {address}" in i.value for i in at.info)


def test_defaults_follow_the_select_page_and_k_star_goes_back():
    at = AppTest.from_file(APP, default_timeout=90).run()
    at.switch_page("pages/selection.py").run()
    at.selectbox(key="select.measure").set_value("balanced").run()
    at.number_input(key="select.k").set_value(3).run()
    at.switch_page("pages/npfs.py").run()
    assert at.selectbox(key="npfs.selector").value == "bayes-greedy"
    assert at.selectbox(key="npfs.measure").value == "balanced" and at.number_input(key="npfs.k").value == 3
    at.number_input(key="npfs.n").set_value(20).run()
    at.button(key="npfs.run").click().run()
    k_star = int(at.metric[0].value)
    assert k_star >= 1
    at.button(key="npfs.use_kstar").click().run()
    assert not at.exception and at.session_state["select.k"] == k_star
    assert at.number_input(key="select.k").value == k_star  # the Select page opened with k = k*


def test_k_box_gets_its_k_back_after_a_small_dataset(npfs_ran):
    """Issue 16 item 4 (the k box showed 1 beside a result for k = 10): a run on Mushroom with k = 10, then a data set
    of 2 features (k capped at K - 1 = 1), then Mushroom again. The cap was not the user's wish: the box shows 10
    again, the k of the result on screen. A k the user types is kept the same way."""
    from fslab.data.distributions import example1

    at = npfs_ran
    mushroom = at.session_state[state.CURRENT]
    state.install(at.session_state, state.CurrentData(example1().sample(300, 0), "Example 1 (300 rows)"))
    at.run()
    box = at.number_input(key="npfs.k")
    assert box.value == 1 and box.max == 1 and not at.exception
    state.install(at.session_state, mushroom)
    at.run()
    assert at.number_input(key="npfs.k").value == 10
    assert at.metric[0].delta.endswith("vs k = 10") and not any("settings changed" in i.value for i in at.info)
    at.number_input(key="npfs.k").set_value(7).run()                        # typed: wanted from now on
    state.install(at.session_state, state.CurrentData(example1().sample(300, 0), "Example 1 (300 rows)"))
    at.run()
    state.install(at.session_state, mushroom)
    at.switch_page("pages/home.py").run()
    at.switch_page("pages/npfs.py").run()                                   # a page switch drops widget state
    assert at.number_input(key="npfs.k").value == 7 and not at.exception


def test_run_on_the_default_dataset(npfs_ran):
    at = npfs_ran
    assert not at.exception and not at.error
    assert at.metric[0].label == "k* (relevant features)"
    assert at.success[0].value.startswith("Relevant (")
    titles = _titles(at)
    assert any(t.startswith("Selection matrix:") for t in titles)
    assert "How often each feature was selected" in titles
    assert "Relevant features as bootstraps accumulate" in titles
    assert len(at.get("download_button")) == 3
    at.session_state["npfs.how"] = True  # the test's formulas are folded, drawn when opened (issue 34.5)
    at.run()
    assert len(at.latex) >= 3


def test_duni_button_reproduces_the_paper(npfs_page):
    at = npfs_page
    at.button(key="npfs.load_uniform").click().run()
    assert not at.exception
    assert at.metric[0].value == "5" and at.metric[1].value == "52"  # k*, zeta = Binomial(100, .4) 0.99-quantile
    assert at.success[0].value == "Relevant (5): **X1**, **X2**, **X3**, **X4**, **X5**"
    assert "Selection matrix: 25 features x 100 bootstraps" in _titles(at)
    # changing a setting without pressing Run keeps the last result on screen, with a note
    at.number_input(key="npfs.k").set_value(3).run()
    assert any("The settings changed" in i.value for i in at.info)
    at.button(key="npfs.run").click().run()
    assert at.metric[2].value == "0.120"  # p0 = 3/25


def test_image_data_shows_relevant_pixels():
    at = AppTest.from_file(APP, default_timeout=90).run()
    encoded = load_sample("semeion").discretize()
    state.install(at.session_state, state.CurrentData(encoded.subsample(list(range(400))), "semeion (sample)"))
    at.switch_page("pages/npfs.py").run()
    at.number_input(key="npfs.n").set_value(10).run()
    at.button(key="npfs.run").click().run()
    assert not at.exception and not at.error
    assert any(t.startswith("Relevant pixels") for t in _titles(at))


def test_bad_settings_show_an_error_not_a_traceback(npfs_page):
    """optdigits has ten classes: binary-only measures are not offered (the cost-sensitive error is, with a 10 x 10
    cost matrix), and Precision greedy (whose measure is fixed to the binary precision) is refused with a message
    instead of a traceback."""
    at = npfs_page
    optdigits = load_sample("optdigits").discretize().subsample(list(range(300)))
    state.install(at.session_state, state.CurrentData(optdigits, "optdigits (sample)"))
    at.run()
    at.selectbox(key="npfs.selector").set_value("bayes-greedy").run()
    assert at.selectbox(key="npfs.measure").options == ["0-1 error", "cost-sensitive error", "balanced error",
                                                        "log-loss", "squared error", "mutual information"]
    at.selectbox(key="npfs.selector").set_value("precision-greedy").run()
    assert not at.exception
    assert at.error and "does not fit this multiclass target" in at.error[0].value
    assert not at.metric


def _panel(kind: str):
    from fslab.data.synthetic import uniform_dataset
    from ui.k_suggestion import render_k_suggestion

    source = uniform_dataset().discretize(method="uniform", bins=3)
    render_k_suggestion(kind, source, "bayes-greedy", "zero-one", {}, 7, "t")


def test_k_suggestion_panel():
    at = AppTest.from_function(_panel, args=("dataset",), default_timeout=90).run()
    assert not at.exception and not at.metric
    at.button(key="t.ksuggest").click().run()
    assert not at.exception
    assert at.metric[0].value == "5"  # the permutation test stops after X1..X5 (D_uni, k* = 5)
    assert at.metric[1].value == "5"  # NPFS with k=7, 30 bootstraps: X1..X5
    assert _titles(at)[0].startswith("Is each greedy step better than chance?")


def test_k_suggestion_panel_on_a_distribution():
    at = AppTest.from_function(_panel, args=("distribution",), default_timeout=30).run()
    assert not at.exception and at.info and not at.button


def test_downloads_escape_formula_cells():
    """Feature names such as '=cmd' or '-1' must not become spreadsheet formulas in the exported CSV files."""
    import numpy as np

    from fslab.npfs.result import NPFSResult
    from ui.npfs import downloads

    m = np.array([[1, 1, 0], [0, 0, 1], [1, 1, 1]], dtype=bool)
    result = NPFSResult.from_matrix(m, p0=2 / 3, alpha=0.05, feature_names=["=cmd()", "-1", "@x"])
    files = downloads(result)
    matrix_csv = files["npfs_matrix.csv"][0].decode()
    features_csv = files["npfs_features.csv"][0].decode()
    for text in (matrix_csv, features_csv):
        assert "'=cmd()" in text and "'-1" in text and "'@x" in text
        assert "\n=cmd" not in text and ",=cmd" not in text
    assert json.loads(files["npfs_result.json"][0])["feature_names"] == ["=cmd()", "-1", "@x"]


def test_warns_when_no_feature_can_be_relevant(npfs_page):
    """K=116 (mushroom), k=115, n=100: P(Z = n | H0) = (115/116)^100 = 0.42 > alpha, so the page says so."""
    at = npfs_page
    at.number_input(key="npfs.k").set_value(115).run()
    assert any("no feature can be relevant" in w.value for w in at.warning)


def test_cancel_button_only_while_running(npfs_ran):
    """The run went to the end: the progress bar and its Cancel button are gone."""
    at = npfs_ran
    assert at.metric[0].label == "k* (relevant features)"
    assert not [b for b in at.button if b.key == "npfs.cancel"]
    assert not at.get("progress")


def test_matrix_caption_matches_the_colours_and_labels(npfs_ran):
    captions = [c.value for c in npfs_ran.caption if c.value.startswith("The paper's Fig. 1")]
    assert "orange = selected, dark brown = not" in captions[0]
    assert "Every row is labelled." in captions[0]  # Mushroom: 116 rows
    fig = json.loads(npfs_ran.get("plotly_chart")[0].proto.spec)
    assert len(fig["layout"]["yaxis"]["tickvals"]) == 116


def test_slow_selectors_are_not_offered(npfs_page):
    options = npfs_page.selectbox(key="npfs.selector").options
    assert "BayesGreedy" in options and "JMI" in options
    assert "Backward elimination" not in options and "Exhaustive (best k-subset)" not in options


def _regression_data():
    """Like QA's regression.csv: price = x1 + small noise (200 distinct real values), x2 and x3 pure noise."""
    import numpy as np
    import pandas as pd

    from fslab.data import Dataset

    rng = np.random.default_rng(0)
    x1 = rng.normal(size=200)
    frame = pd.DataFrame({"x1": x1, "x2": rng.normal(size=200), "x3": rng.integers(0, 2, 200),
                          "price": x1 + rng.normal(0, 0.1, 200)})
    return Dataset.from_frame(frame, "price").discretize()


def _regression(at):
    state.install(at.session_state, state.CurrentData(_regression_data(), "regression.csv"))


def test_real_valued_target_refuses_mi_selectors_and_offers_only_squared(npfs_page):
    """QA's regression.csv: price = f(x1) + noise, 200 distinct values. JMI would treat them as 200 classes; the page
    refuses it, and BayesGreedy offers only the squared error, with which x1 is the one relevant feature."""
    at = npfs_page
    at.selectbox(key="npfs.selector").set_value("bayes-greedy").run()
    at.selectbox(key="npfs.measure").set_value("auc").run()   # a binary-only measure chosen on Mushroom
    _regression(at)
    at.selectbox(key="npfs.selector").set_value("jmi").run()
    assert not at.exception
    assert at.error and "real-valued target 'price'" in at.error[0].value and "squared error" in at.error[0].value
    assert not at.metric and not at.get("plotly_chart")
    at.selectbox(key="npfs.selector").set_value("bayes-greedy").run()
    assert at.selectbox(key="npfs.measure").options == ["squared error"]
    assert at.selectbox(key="npfs.measure").value == "squared"
    at.number_input(key="npfs.k").set_value(1).run()
    at.button(key="npfs.run").click().run()
    assert not at.exception and not at.error
    assert at.success[0].value == "Relevant (1): **x1**"


def _backward_panel():
    from fslab.data.synthetic import uniform_dataset
    from ui.k_suggestion import render_k_suggestion

    source = uniform_dataset().discretize(method="uniform", bins=3)
    render_k_suggestion("dataset", source, "backward", "zero-one", {}, 3, "t")


def test_k_suggestion_panel_skips_npfs_for_backward():
    """Backward would be rerun on every bootstrap: the panel runs only the permutation test for it."""
    at = AppTest.from_function(_backward_panel, default_timeout=90).run()
    assert not at.exception and not [n for n in at.number_input if n.key == "t.kboot"]
    assert any("NPFS is not run" in c.value for c in at.caption)
    at.button(key="t.ksuggest").click().run()
    assert not at.exception and len(at.metric) == 1
    assert at.metric[0].label == "permutation test: significant steps"


def _regression_panel():
    from tests.test_pages_npfs import _regression_data
    from ui.k_suggestion import render_k_suggestion

    render_k_suggestion("dataset", _regression_data(), "jmi", "squared", {}, 2, "t")


def test_k_suggestion_panel_refuses_mi_on_a_real_valued_target():
    at = AppTest.from_function(_regression_panel, default_timeout=60).run()
    assert not at.exception and not at.button
    assert "real-valued target 'price'" in at.warning[0].value


def test_npfs_offers_the_selectors_not_declared_heavy(monkeypatch):
    """ui.npfs.base_selectors reads the registry's cost_class (no list of slow kinds of its own)."""
    import dataclasses
    from types import MappingProxyType

    from fslab.selectors import SELECTORS
    from ui import npfs

    assert npfs.base_selectors() == [n for n, spec in SELECTORS.items() if spec.cost_class != "heavy"]
    assert "exhaustive" not in npfs.base_selectors() and "bayes-greedy" in npfs.base_selectors()
    heavy_jmi = dataclasses.replace(SELECTORS["jmi"], cost_class="heavy")
    monkeypatch.setattr(npfs, "SELECTORS", MappingProxyType({**SELECTORS, "jmi": heavy_jmi}))
    assert "jmi" not in npfs.base_selectors()


def test_the_result_comes_before_the_explanation(npfs_ran):
    """Issue 34.1: after Run the first result (which features are relevant) comes right after the compact controls
    and the Run button; the intro and the formulas are folded in "How NPFS decides" below it, and the long settings
    sit in a popover."""
    at = npfs_ran
    assert not at.exception
    at.session_state["npfs.how"] = True  # folded sections draw when opened (issue 34.5)
    at.run()
    order = [(type(e).__name__, getattr(e, "value", None)) for e in at.main]
    kinds = [kind for kind, _ in order]
    first_result = next(i for i, (kind, value) in enumerate(order)
                        if kind == "Success" and str(value).startswith("Relevant ("))
    intro = next(i for i, (_, value) in enumerate(order) if str(value).startswith("Neyman-Pearson feature selection"))
    formula = kinds.index("Latex")
    assert first_result < intro and first_result < formula and first_result < kinds.index("Metric")
    assert kinds.index("Expander") < intro   # the explanation is folded
    assert kinds[:first_result].count("Markdown") <= 3 and "Latex" not in kinds[:first_result]
    assert at.main.markdown[0].value.startswith("This page tests which features")   # one line to read aloud
