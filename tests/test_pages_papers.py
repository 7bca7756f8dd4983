"""AppTest of the Papers page: the shipped ledger, drawn without recomputing anything."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from fslab.reproduction import PAPERS, STAND_IN, load_ledger

APP = str(Path(__file__).resolve().parents[1] / "app.py")


@pytest.fixture(scope="module")
def papers_page():
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page("pages/papers.py").run()
    return at


def test_page_opens_on_the_paper_scale_with_the_reduced_runs_beside_it(papers_page):
    at = papers_page
    assert not at.exception and not at.error
    ledger = load_ledger("paper")  # the papers' scale comes first (the radio's default)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Entries"] == str(len(ledger.rows))
    counts = ledger.counts()
    for verdict in ("agree", "partly", "disagree"):
        assert metrics[verdict.capitalize()] == str(counts[verdict])
    assert metrics["Cannot test"] == str(counts[STAND_IN])  # stand-in rows apart
    assert len(at.tabs) == len(PAPERS)
    text = " ".join(m.value for m in at.markdown)
    for row in ledger.rows:
        assert row.item.split(" (")[0] in text, row.id
    # one figure or table per row, plus the counts-per-scale table; formulas teach each paper
    drawn = len(at.get("plotly_chart")) + len(at.dataframe) + len(at.table)
    assert drawn == len(ledger.rows) + 1
    assert len(at.latex) == len(PAPERS)
    counts_table = at.dataframe[0].value
    assert len(counts_table) == 3 and "cannot test: stand-in data" in counts_table.columns
    # each entry names its scale and the other runs' verdicts; one sentence says what the paper scale changed
    captions = " ".join(c.value for c in at.caption)
    assert captions.count("Scale: ") == len(ledger.rows)
    assert "Larger run (reduced scale):" in captions and "Quick run (CI size):" in captions
    assert any("at the papers' scale" in m.value for m in at.markdown)


def test_every_row_links_to_the_page_that_recreates_it(papers_page):
    links = [m.value for m in papers_page.markdown if m.value.startswith("[Recreate it live")]
    assert len(links) == sum(bool(r.link) for r in load_ledger("paper").rows)
    assert any("(/npfs?data=uniform&selector=jmi&k=24" in link for link in links)


def test_switching_to_the_quick_run(papers_page):
    at = papers_page
    at.radio(key="papers.profile").set_value("quick").run()
    assert not at.exception and not at.error
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Entries"] == str(len(load_ledger("quick").rows))
    assert any("CI size" in c.value or "reduced scale" in c.value.lower() for c in at.caption)
