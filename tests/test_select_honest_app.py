"""The Select page on a table as analysts export it (issue 22): an upload is held out by default, the planted signal
is picked, in-sample and held-out values stand side by side, and "Does this pick hold up?" can say no."""

from __future__ import annotations

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from fslab.data import messy
from tests.conftest import ROOT


def _upload(name: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page("pages/data.py").run()
    at.radio(key="data_source").set_value("upload").run()
    at.file_uploader(key="data_upload").set_value((f"{name}.csv", messy.to_csv_bytes(messy.TABLES[name]()),
                                                   "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    at.selectbox(key="data_target").set_value(messy.TARGETS[name]).run()
    at.button(key="data_use").click().run()
    assert at.session_state["fslab.current_data"].encoded.target == messy.TARGETS[name]
    # folded sections draw when opened (issue 34.5): Select's "How this is computed" (the stopping rule's caption),
    # NPFS's explanation and count table
    for fold in ("select.how", "npfs.how", "npfs.table_open"):
        at.session_state[fold] = True
    at.switch_page("pages/selection.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _table(at) -> pd.DataFrame:
    return next(d.value for d in at.table if "rank" in d.value.columns)  # a static table (issue 34.5)


def _verdict(at) -> str:
    return " ".join(v.value for v in [*at.success[1:], *at.warning, *at.error])


@pytest.mark.parametrize("name", list(messy.TABLES))
def test_the_default_view_of_an_upload_picks_only_planted_signal(name):
    """No setting touched: held out, the balanced error, k by the held-out stopping rule (footnote 3)."""
    at = _upload(name)
    assert at.radio(key="select.estimate").value == "cross-fitted"
    assert at.selectbox(key="select.measure").value == "balanced"
    picked = set(_table(at)["name"])
    assert picked and picked <= set(messy.SIGNAL[name]), picked
    assert any("footnote 3" in c.value for c in at.caption)


def test_an_upload_is_held_out_by_default_and_picks_the_planted_signal():
    at = _upload("loans")
    assert at.radio(key="select.estimate").value == "cross-fitted"
    at.number_input(key="select.k").set_value(3).run()
    assert set(_table(at)["name"]) == set(messy.SIGNAL["loans"])
    columns = " ".join(_table(at).columns)
    assert "held-out" in columns and "in-sample" in columns
    assert any("held-out (5-fold cross-fitted)" in c.value for c in at.caption)
    assert "Holds up" in _verdict(at) or "Partly" in _verdict(at)


def test_the_papers_plug_in_on_an_upload_picks_the_many_level_codes_and_is_flagged():
    at = _upload("loans")
    at.number_input(key="select.k").set_value(3).run()
    at.radio(key="select.estimate").set_value("plug-in").run()
    assert {"employer", "zip_prefix"} <= set(_table(at)["name"])
    assert "Does not hold up" in _verdict(at)
    assert "no better than no feature" in _verdict(at) or "Overfitting" in _verdict(at)


def test_shipped_samples_keep_the_papers_plug_in_a_click_away():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page("pages/selection.py").run()
    assert at.radio(key="select.estimate").value == "plug-in"
    assert any("in-sample (plug-in, as in the papers)" in c.value for c in at.caption)
    at.radio(key="select.estimate").set_value("cross-fitted").run()
    assert not at.exception and not at.error
    assert any("held-out (5-fold cross-fitted)" in c.value for c in at.caption)


def test_compare_and_by_measure_hold_an_upload_out_too():
    at = _upload("loans")
    at.switch_page("pages/compare.py").run()
    assert at.radio(key="compare.estimate").value == "cross-fitted"
    at.slider(key="compare.k").set_value(3).run()
    subsets = next(d.value for d in [*at.dataframe, *at.table] if "selector" in d.value.columns)
    chosen = " ".join(subsets["features"])
    assert "zip_prefix" not in chosen and "employer" not in chosen and "grade" in chosen
    assert any("held-out (5-fold cross-fitted) values on the sample" in m.value for m in at.markdown)
    at.switch_page("pages/by_measure.py").run()
    assert not at.exception and at.radio(key="bym.estimate").value == "cross-fitted"
    at.number_input(key="bym.k").set_value(2).run()
    shown = " ".join(str(v) for d in [*at.dataframe, *at.table] for v in d.value.to_numpy().ravel())
    assert "grade" in shown and "zip_prefix" not in shown and "employer" not in shown


def test_npfs_on_an_upload_selects_each_bootstrap_held_out():
    at = _upload("loans")
    at.switch_page("pages/npfs.py").run()
    assert at.radio(key="npfs.estimate").value == "cross-fitted"
    at.selectbox(key="npfs.selector").set_value("bayes-greedy").run()
    at.number_input(key="npfs.k").set_value(3).run()
    at.number_input(key="npfs.n").set_value(20).run()
    at.button(key="npfs.run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    table = next(d.value for d in at.dataframe if "relevant" in d.value.columns)
    relevant = set(table.loc[table["relevant"], "name"])
    # grade is picked on every bootstrap; dti ties with amount for the third place (11 and 12 of 20 with the
    # row_hash folds, zeta = 15), so only planted columns may pass, and the many-level codes are never picked
    assert "grade" in relevant and relevant <= set(messy.SIGNAL["loans"]), relevant
    assert table.set_index("name").loc[["zip_prefix", "employer"], "count"].eq(0).all()
    assert any("held-out (5-fold cross-fitted)" in c.value for c in at.caption)
