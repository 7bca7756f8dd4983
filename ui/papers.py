"""Streamlit helpers of the Papers page: the shipped ledgers (cached) and one ledger row drawn."""

from __future__ import annotations

import streamlit as st

from fslab.errors import FslabError
from fslab.reproduction import (
    ALL_VERDICTS,
    PAPERS,
    PROFILES,
    STAND_IN,
    VERDICT_LABELS,
    Ledger,
    Row,
    change_sentence,
    changes,
    ledger_path,
    load_ledger,
    row_figure,
    row_table,
)
from ui import theme
from ui.text import md

BADGE = {"agree": ":green-badge[agree]", "partly": ":orange-badge[partly]", "disagree": ":red-badge[disagree]",
         STAND_IN: ":gray-badge[cannot test: stand-in data]"}
PROFILE_LABELS = {"paper": "Papers' scale (where affordable)", "scale": "Larger run (reduced scale)",
                  "quick": "Quick run (CI size)"}


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


def counts_table(ledgers: dict[str, Ledger]):
    """Verdict counts per scale (rows: scales; stand-in rows in their own column, not among the three)."""
    import pandas as pd

    rows = []
    for profile, led in ledgers.items():
        c = led.counts()
        rows.append({"results": PROFILE_LABELS[profile], "rows": len(led.rows),
                     **{VERDICT_LABELS[v]: c[v] for v in ALL_VERDICTS}})
    return pd.DataFrame(rows)


def protocol_lines(led: Ledger) -> list[str]:
    """What this run reduced from the papers' protocol, one plain sentence each."""
    if led.profile == "paper":
        return ["Each entry states the scale it ran at: the papers' protocol where it fits on this machine now "
                "(Ditzler et al. Figures 1-4 as printed, 10,000 bootstraps for Figure 3 on all rows; Ahmed et al. "
                "with 5 splits and tuning, every training row on Semeion, up to 2,300 per split in Figures 1-3), "
                "the largest affordable scale elsewhere (Table II: 1,000 bootstraps per fold; the stand-ins' sizes).",
                f"Run: {led.seconds:.0f} s, started {led.created}; {led.load}."]
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


def draw_row(row: Row, others: list[tuple[str, Row]]) -> None:
    """One ledger row: the paper's claim, our number and verdict (with its scale and rule) beside the reproduced
    figure; ``others``: (label, row) of the same entry at the other scales, shown after it."""
    with st.container(border=True):
        left, right = st.columns([2, 3])
        left.markdown(f"**{md(row.item)}** {BADGE[row.verdict]}")
        left.markdown(f"*The paper:* {md(row.claim)}")
        left.markdown(f"*We measured:* {md(row.ours)}")
        if row.scale:
            left.caption(f"Scale: {md(row.scale)}")
        left.caption(md(" ".join(t for t in (row.rule, row.why) if t)))
        if row.note:
            left.caption(f"Note, not part of the verdict: {md(row.note)}")
        for label, other in others:
            left.caption(f"{label}: **{VERDICT_LABELS[other.verdict]}**, {md(other.ours)}")
        if row.link:
            left.markdown(f"[Recreate it live on a shipped sample](/{row.link})")
        fig = row_figure(row)
        table = row_table(row)
        if fig is not None:
            right.plotly_chart(theme.chart(fig), key=f"papers.fig.{row.id}", config={"displayModeBar": False})
        elif table is not None:
            with right:
                theme.table(table)
        right.caption(f"{md(row.item)} as reproduced here from the shipped results (`{row.id}`, "
                      f"{row.seconds:.1f} s to compute); the paper's statement and our verdict are on the left.")


def paper_title(paper: str) -> str:
    return PAPERS[paper]


__all__ = ["BADGE", "PROFILES", "PROFILE_LABELS", "change_sentence", "changes", "counts_table", "draw_row", "ledger",
           "paper_title", "protocol_lines"]
