"""AppTest of the Home and Data pages: defaults render, samples switch, uploads set the session dataset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT

APP = str(ROOT / "app.py")
FIXTURES = ROOT / "tests" / "fixtures"
CURRENT = "fslab.current_data"  # ui.state.CURRENT: the CurrentData record


@pytest.fixture
def at() -> AppTest:
    return AppTest.from_file(APP, default_timeout=60).run()


def data_page(at: AppTest) -> AppTest:
    at.switch_page("pages/data.py").run()
    assert not at.exception
    return at


def upload(at: AppTest, name: str, data: bytes) -> AppTest:
    at.radio(key="data_source").set_value("upload").run()
    at.file_uploader(key="data_upload").set_value((name, data, "text/csv")).run()
    assert not at.exception
    return at


def test_home_default_is_mushroom(at):
    assert not at.exception
    assert at.session_state[CURRENT].name == "mushroom (sample)"
    assert at.selectbox(key="home_sample").value == "mushroom"
    assert "Current dataset: **mushroom (sample)** (8,124 rows x 116 features)" in at.success[0].value
    assert any("Ahmed, Narasimhan, Agarwal" in m.value for m in at.markdown)


def test_home_formula_and_limits_are_drawn_when_opened(at):
    """The formulas (KaTeX) and the limits table run only when their expander is opened (issue 16: first paint)."""
    assert not at.latex and not [d for d in at.dataframe if "setting" in d.value.columns]
    at.session_state["home.formula"] = True
    at.session_state["home.limits"] = True
    at.run()
    assert any(r"\arg\max_{|S|=k}" in x.value for x in at.latex) and len(at.latex) == 3
    assert any("setting" in d.value.columns for d in at.dataframe) and not at.exception


def test_every_page_has_the_browser_load_the_element_renderers_ahead(at):
    """app.py's sidebar holds one script importing Streamlit's bundled renderers (files that exist, Toy's before
    Plotly's) once the page has settled (issue 16: Home -> Toy paid ~1 s for Plotly; issue 26: 0.8 s more for the
    grid, KaTeX, the code block ...); no other text enters the script."""
    import json
    import re

    from ui.warm import _PAUSE_MS, _QUIET_MS, ELEMENTS, WARM, static_folder

    bodies = [h.proto.body for h in at.sidebar.get("html")]
    assert len(bodies) == 1
    names = json.loads(re.search(r"const urls = (\[[^\]]*\])", bodies[0]).group(1))
    assert [n.split(".")[0] for n in names] == list(ELEMENTS) and names[5].startswith("PlotlyChart.")
    assert all((static_folder() / n).is_file() for n in names)
    assert bodies[0] == WARM % (json.dumps(names), _QUIET_MS, _PAUSE_MS, _PAUSE_MS, _PAUSE_MS)
    assert 'notRunning' in bodies[0]


def test_home_sample_picker_sets_the_dataset(at):
    at.selectbox(key="home_sample").set_value("waveform").run()
    assert not at.exception and not at.error
    assert at.session_state[CURRENT].name == "waveform (sample)"
    encoded = at.session_state[CURRENT].encoded
    assert encoded.shape == (5000, 40) and encoded.positive_rate() == pytest.approx(0.331, abs=5e-4)


def test_data_page_defaults_to_the_current_sample(at):
    data_page(at)
    assert at.selectbox(key="data_sample").value == "mushroom"
    assert at.selectbox(key="data_target").value == "class"
    assert at.selectbox(key="data_positive").value == "poisonous"
    assert at.metric[0].value == "8,124" and at.metric[3].value == "0.482"
    assert "mushroom (sample)** is the current dataset" in at.success[0].value
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert spec["data"][0]["y"] == [4208, 3916]          # edible, poisonous (SOURCE.md counts)


def test_upload_then_target_and_positive_set_the_dataset(at):
    data_page(at)
    upload(at, "patients.csv", (FIXTURES / "patients.csv").read_bytes())
    assert not at.error
    assert at.selectbox(key="data_target").value == "outcome"     # named like a target, 2 values
    assert any("Guessed: 'outcome' is named like a target" in c.value for c in at.caption)
    at.selectbox(key="data_positive").set_value("sick").run()
    at.selectbox(key="data_method").set_value("quantile").run()
    at.number_input(key="data_bins").set_value(4).run()
    # the ID-like column is left out by default, with a note (it was only flagged before, and then selected), and
    # so is the constant clinic column (issue 33.2: it cannot help, yet it was picked at zero gain)
    assert at.multiselect(key="data_exclude").value == ["patient_id", "clinic"]
    assert any("patient_id" in c.value and "like an ID" in c.value for c in at.caption)
    at.button(key="data_use").click().run()
    assert not at.exception
    assert at.session_state[CURRENT].name == ("patients.csv (outcome = sick; quantile, 4 bins; "
                                              "without patient_id, clinic)")
    encoded = at.session_state[CURRENT].encoded
    assert encoded.shape == (58, 4) and not {"patient_id", "clinic"} & set(encoded.feature_names)
    assert encoded.class_names == ("healthy", "sick")
    assert encoded.y.sum() == 21                                   # 21 sick rows in the fixture
    assert at.session_state[CURRENT].raw.target == "outcome"
    # Other target: the flag column is rebuilt and the old positive class is reset, not kept stale.
    at.selectbox(key="data_target").set_value("smoker").run()
    assert not at.exception and at.selectbox(key="data_positive").value in ("yes", "no")


def _preview(at: AppTest) -> tuple[list[str], dict]:
    """The Data page's preview (tables: summary, preview, codes): its columns and its column_config."""
    table = at.dataframe[1]
    return list(table.value.columns), json.loads(table.proto.columns)


def test_preview_shows_the_target_first_and_left_out_columns_last(at):
    """Mushroom's target 'class' is its 117th and last column, off the first screen: the preview puts it first,
    pinned and labelled, and says so. An upload's left-out ID column comes last, marked."""
    at.session_state["data.preview_open"] = True  # the preview is folded, drawn when opened (issue 34.5)
    data_page(at)
    columns, config = _preview(at)
    assert columns[0] == "class" and len(columns) == 117
    assert config["class"] == {"label": "class (target)", "pinned": True, "help": "The column to predict"}
    assert any("The target **class** comes first, pinned at the left." in c.value for c in at.caption)
    upload(at, "patients.csv", (FIXTURES / "patients.csv").read_bytes())
    columns, config = _preview(at)
    assert columns[0] == "outcome" and columns[-2:] == ["patient_id", "clinic"]
    assert config["patient_id"]["label"] == "patient_id (left out)" and config["outcome"]["pinned"]
    assert any("the 2 columns left out of the features come last" in c.value for c in at.caption)


def test_malformed_upload_shows_an_error_and_the_app_keeps_working(at):
    data_page(at)
    upload(at, "malformed.csv", (FIXTURES / "malformed.csv").read_bytes())
    assert len(at.error) == 1 and "malformed.csv: could not read the file" in at.error[0].value
    assert at.session_state[CURRENT].name == "mushroom (sample)"  # the current dataset is untouched
    upload(at, "binary.csv", b"PK\x03\x04 not a csv")
    assert "Excel" in at.error[0].value
    upload(at, "ok.csv", b"a,b,y\n1,x,0\n2,y,1\n3,x,1\n")
    assert not at.error and at.selectbox(key="data_target").value == "y"


def test_bad_target_choice_shows_an_error(at):
    data_page(at)
    upload(at, "t.csv", b"a,b,y\n1,same,0\n2,same,1\n")
    at.selectbox(key="data_target").set_value("b").run()
    assert not at.exception
    assert "only one class" in at.error[0].value


def test_applied_upload_survives_a_page_switch(at):
    data_page(at)
    upload(at, "semicolon.csv", (FIXTURES / "semicolon.csv").read_bytes())
    at.selectbox(key="data_target").set_value("label").run()
    at.button(key="data_use").click().run()
    at.switch_page("pages/home.py").run()
    data_page(at)
    assert at.radio(key="data_source").value == "current"
    assert "semicolon.csv" in at.success[0].value and not at.error


def test_real_valued_target_and_multiclass_sample(at):
    """A target with 30 distinct real numbers is regression: no positive class to pick.
    optdigits keeps its ten digits until a positive class is chosen."""
    data_page(at)
    rows = "\n".join(f"{i % 3},{i * 0.37:.2f}" for i in range(30))
    upload(at, "real.csv", f"a,price\n{rows}\n".encode())
    # no column named like a target: asked, with 'a' (few distinct values) as the best guess, nothing computed
    assert at.selectbox(key="data_target").value is None and not at.metric
    assert any("Its best guess is **a**" in i.value for i in at.info)
    at.selectbox(key="data_target").set_value("price").run()
    assert not at.error and at.metric[2].value == "regression" and at.metric[3].value == "30"
    assert at.text_input(key="data_positive_none").disabled
    at.radio(key="data_source").set_value("sample").run()
    at.selectbox(key="data_sample").set_value("optdigits").run()
    assert at.selectbox(key="data_positive").value == "(keep all classes)" and at.metric[3].value == "10"
    at.selectbox(key="data_positive").set_value("3").run()
    assert at.metric[2].value == "binary" and not at.exception


def test_target_guess_finds_a_text_target_in_the_middle_and_ids_can_be_kept(at):
    """A breast-cancer-like table: id first, text target 'diagnosis' in the middle, numeric features after it."""
    # measurements, not evenly spaced (an evenly spaced unique column reads as a generated ID: fslab.column_types)
    lines = ["id,diagnosis,radius,texture"] + [f"{9000 + i},{'M' if i % 3 == 0 else 'B'},"
                                               f"{10 + (i * i % 41) * 0.31:.2f},{20 - (i * 7 % 43) ** 1.5 * 0.17:.2f}"
                                               for i in range(40)]
    data_page(at)
    upload(at, "cancer.csv", ("\n".join(lines) + "\n").encode())
    assert at.selectbox(key="data_target").value == "diagnosis"
    assert at.multiselect(key="data_exclude").value == ["id"]
    assert at.metric[2].value == "binary" and at.metric[1].value == "2"  # radius and texture
    at.multiselect(key="data_exclude").set_value([]).run()  # the user keeps the ID column
    assert not at.exception and at.metric[1].value == "3"


def test_data_page_on_a_wide_sample_lists_some_columns_and_finds_others(at):
    """PCMAC (1,943 x 3,289): the page settles quickly and says how many of its columns the tables show."""
    at.session_state["data.preview_open"] = True  # the preview and the codes are folded, drawn when opened (34.5)
    at.session_state["data.coding_open"] = True
    data_page(at)
    at.selectbox(key="data_sample").set_value("pcmac").run()
    assert not at.exception and not at.error
    assert at.metric[1].value == "3,289" and at.metric[3].value == "0.495"   # Table 1's positive rate
    summary = at.dataframe[0].value                                          # summary, preview, codes
    assert len(summary) == 200 and summary["column"].tolist()[:2] == ["class", "w1"]
    assert any(c.value.startswith("Showing 200 of 3,290 columns.") for c in at.caption)
    assert at.dataframe[1].value.shape == (50, 31)          # the target and 30 features
    at.text_input(key="data_find").set_value("W328").run()                   # any case: w328, w3280..w3289
    found = at.dataframe[0].value["column"].tolist()
    assert found == ["w328"] + [f"w{i}" for i in range(3280, 3290)]
    assert at.dataframe[2].value["feature"].tolist() == found
    assert any(c.value == "11 of 3,290 columns match 'W328'." for c in at.caption)
    assert any(c.value == "11 of 3,289 features match 'W328'." for c in at.caption)


def test_gisette_like_is_not_offered_by_the_pickers(at):
    """The synthetic 6,000 x 5,000 timing generator stays in fslab.SAMPLES but not in the app's pickers."""
    from fslab.data.samples import SAMPLES

    assert "gisette-like" in SAMPLES
    offered = [o.split(":")[0] for o in at.selectbox(key="home_sample").options]  # "name: title"
    assert "gisette-like" not in offered and {"pcmac", "basehock"} <= set(offered)
    assert any("Not listed: gisette-like" in c.value for c in at.caption)
    data_page(at)
    titles = at.selectbox(key="data_sample").options                              # the samples' titles
    assert SAMPLES["gisette-like"].title not in titles and SAMPLES["pcmac"].title in titles


def test_home_lists_every_page_of_the_navigation_once(at):
    """The Home page's 'Pages' list links every page of app.py's navigation (ui.pages.PAGES) except Home, once each."""
    from ui.pages import PAGES

    nav = {Path(p.file).stem for p in PAGES}
    linked = [el.proto.page for el in at.get("page_link")]  # the page's url name, e.g. "by_measure"
    assert len(nav) >= 10 and sorted(linked) == sorted(nav - {"home"})


def test_messy_upload_types_can_be_overridden_and_missing_rows_dropped(at):
    """fslab.data.messy.customers: IDs left out by default with the reason, dates and percentages read as numbers,
    a column read otherwise on request, a type that does not fit said with its column and row, missing rows dropped."""
    from fslab.data import messy

    data_page(at)
    upload(at, "customers.csv", messy.to_csv_bytes(messy.customers()))
    assert not at.error and at.selectbox(key="data_target").value == "churn"
    assert at.multiselect(key="data_exclude").value == ["customer_id", "row", "notes"]
    assert any("**row** (whole numbers, a different one in every row)" in c.value for c in at.caption)
    summary = next(d.value for d in at.dataframe if "read as" in d.value.columns).set_index("column")
    assert summary.loc["signup_date", "read as"] == "date" and summary.loc["discount", "example"] == "66%"
    assert "outliers: quantile bins" in summary.loc["tenure", "flags"]
    at.selectbox(key="data_type_column").set_value("discount").run()
    at.selectbox(key="data_type_value").set_value("category").run()
    assert not at.exception and not at.error
    summary = next(d.value for d in at.dataframe if "read as" in d.value.columns).set_index("column")
    assert summary.loc["discount", "read as"] == "category (as asked)" and summary.loc["discount", "distinct"] == 80
    assert any("Your types: **discount** as categories" in c.value for c in at.caption)
    at.selectbox(key="data_type_column").set_value("plan").run()
    assert at.selectbox(key="data_type_value").value == "auto"        # each column shows its own type
    at.selectbox(key="data_type_value").set_value("number").run()
    assert any("column 'plan' was set to number but data row 1 holds 'standard'" in e.value for e in at.error)
    at.selectbox(key="data_type_value").set_value("auto").run()       # undo
    assert not at.error
    assert at.metric[0].value == "600"
    at.radio(key="data_missing").set_value("drop").run()
    assert at.metric[0].value == "585" and not at.exception           # 15 rows miss an age
    at.button(key="data_use").click().run()
    name = at.session_state[CURRENT].name
    assert "types discount=category" in name and "rows with missing values dropped" in name
    assert at.session_state[CURRENT].encoded.n_rows == 585


def test_a_parquet_or_gzip_upload_reads_like_its_csv(at, tmp_path):
    """Issue 27.6 in the app: the Data page takes .csv.gz and parquet, read by fslab.read_table."""
    import gzip

    import pandas as pd

    frame = pd.DataFrame({"a": [1, 2, 3, 4] * 5, "b": list("xyzw") * 5, "y": [0, 1] * 10})
    data_page(at)
    upload(at, "t.csv.gz", gzip.compress(frame.to_csv(index=False).encode()))
    assert not at.error and at.selectbox(key="data_target").value == "y"
    path = tmp_path / "t.parquet"
    frame.to_parquet(path)
    upload(at, "t.parquet", path.read_bytes())
    assert not at.error and at.selectbox(key="data_target").value == "y"
