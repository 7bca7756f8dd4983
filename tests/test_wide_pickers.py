"""The Data page's column pickers on a wide table (issue 34.5): the chosen columns and the first ``WIDE`` whose name
matches the "Find columns by name" box, not every column (PCMAC's 3,290 and BASEHOCK's 4,863 options per picker were
sent to and handled by the browser on every run of the page)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT
from ui.data import WIDE, picker_options

COLUMNS = [f"c{i}" for i in range(250)]


def test_a_table_of_at_most_wide_columns_lists_them_all():
    assert picker_options(COLUMNS[:WIDE], query="c1") == COLUMNS[:WIDE]


def test_a_wide_table_lists_the_first_matches_and_the_chosen_columns_in_table_order():
    assert len(COLUMNS) > WIDE == 200
    assert picker_options(COLUMNS, query="") == COLUMNS[:200]
    assert picker_options(COLUMNS, ["c249", None], query="") == [*COLUMNS[:200], "c249"]  # the target kept
    # "C24" (any case): c24 and c240..c249, eleven names; c3 chosen before stays listed, in its place
    assert picker_options(COLUMNS, ["c3"], query="C24") == ["c3", "c24", *(f"c{i}" for i in range(240, 250))]
    assert picker_options(COLUMNS, ["c7"], query="c24", limit=3) == ["c7", "c24", "c240", "c241"]
    assert picker_options(COLUMNS, [], query="no such column") == []


@pytest.mark.slow
def test_the_wide_sample_s_pickers_follow_the_find_box():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90).run()
    at.switch_page("pages/data.py").run()
    at.selectbox(key="data_sample").set_value("pcmac").run()  # 1,943 rows x 3,289 features and the target
    assert not at.exception and not at.error
    target, exclude = at.selectbox(key="data_target"), at.multiselect(key="data_exclude")
    assert target.value == "class" and len(target.options) == WIDE + 1  # the first 200 columns and the target
    assert len(exclude.options) == WIDE
    at.text_input(key="data_find").set_value("W328").run()
    assert at.selectbox(key="data_target").options == ["w328", *(f"w{i}" for i in range(3280, 3290)), "class"]
    at.multiselect(key="data_exclude").set_value(["w3281"]).run()
    at.text_input(key="data_find").set_value("w12").run()  # another query: the chosen column stays
    exclude = at.multiselect(key="data_exclude")
    assert exclude.value == ["w3281"] and "w3281" in exclude.options
    assert at.metric[1].value == "3,288"  # features: w3281 left out
