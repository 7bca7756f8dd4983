"""Streamlit helpers of the Papers page: the shipped ledgers (cached) and one ledger row drawn."""

from __future__ import annotations

import streamlit as st

from fslab.errors import FslabError
from fslab.reproduction import PAPERS, Ledger, Row, ledger_path, load_ledger, row_figure, row_table
from ui.text import md

BADGE = {"agree": ":green-badge[agree]", "partly": ":orange-badge[partly]", "disagree": ":red-badge[disagree]"}
PROFILE_LABELS = {"scale": "Larger run (reduced scale)", "quick": "Quick run (CI size)"}


@st.cache_data(show_spinner=False, max_entries=4)
def _ledger(profile: str, mtime: float) -> Ledger:
    return load_ledger(profile)


def ledger(profile: str) -> Ledger | None:
    """The shipped ledger of ``profile``, or None (with a message) when it is missing or unreadable."""
    path = ledger_path(profile)
    try:
        return _ledger(profile, path.stat().st_mtime if path.is_file() else 0.0)
    except FslabError as exc:
        st.info(f"No {PROFILE_LABELS.get(profile, profile)} results: {md(exc)}")
        return None


def protocol_lines(led: Ledger) -> list[str]:
    """What this run reduced from the papers' protocol, one plain sentence each."""
    p = led.protocol
    rows = (f"{p['fixed_train']} training rows per split" if p.get("fixed_train")
            else f"{p['row_scale']:g} x the paper's training rows (at least {p['min_train']})")
    return [
        f"Ahmed et al.: {p['splits']} train/test splits, {rows}, k in {list(p['ks'])}, "
        f"{'tuned' if p['tune'] else 'fixed'} hyper-parameters; Figure 5 at k in {list(p['large_ks'])}; "
        f"PCMAC and BASEHOCK {'included' if p.get('text_sets', True) else 'left out'} in Figures 1 and 3.",
        f"Ditzler et al.: {p['fig1_boots']} bootstraps (Figure 1), {p['fig2_boots']} (Figure 2), {p['fig3_boots']} "
        f"(Figure 3), {p['ocr_boots']} (Figure 4), {p['cv_folds']}-fold CV with {p['tab2_boots']} bootstraps per fold "
        "(Table II).",
        f"Stand-ins: gisette-like {p['gisette'][0]} x {p['gisette'][1]}, kdd-like {p['kdd'][0]} x {p['kdd'][1]}.",
        f"Run: {led.seconds:.0f} s, {led.created}, {led.load}.",
    ]


def draw_row(row: Row, other: Row | None, other_label: str) -> None:
    """One ledger row: the paper's claim, our number and verdict beside the reproduced figure."""
    with st.container(border=True):
        left, right = st.columns([2, 3])
        left.markdown(f"**{md(row.item)}** {BADGE[row.verdict]}")
        left.markdown(f"*The paper:* {md(row.claim)}")
        left.markdown(f"*We measured:* {md(row.ours)}")
        left.caption(md(row.why))
        if other is not None:
            left.caption(f"{other_label}: **{other.verdict}**, {md(other.ours)}")
        if row.link:
            left.markdown(f"[Recreate it live on a shipped sample](/{row.link})")
        fig = row_figure(row)
        table = row_table(row)
        if fig is not None:
            right.plotly_chart(fig, key=f"papers.fig.{row.id}", config={"displayModeBar": False})
        elif table is not None:
            right.dataframe(table, hide_index=True)
        right.caption(f"{md(row.item)} as reproduced here from the shipped results (`{row.id}`, "
                      f"{row.seconds:.1f} s to compute); the paper's statement and our verdict are on the left.")


def paper_title(paper: str) -> str:
    return PAPERS[paper]
