"""The reproduction ledger: one row per figure, table or numbered claim of the papers, with our number.

``bench/reproduce.py`` runs every row and writes ``bench/results/<profile>/ledger.json``; the Papers page
and ``bench/REPRODUCE.md`` read it back through :func:`load_ledger`. A row records the paper's claim, what
we measured (``ours``), a verdict computed from the numbers by the row's own rule (``agree``, ``partly``,
``disagree``; ``cannot test`` for a claim about data we only have a synthetic stand-in for), why, the
numbers the rule read (``numbers``, so a verdict can be recomputed and its rule fed contradicting numbers),
the scale the row ran at, the link that recreates it live in the app, and the data of its figure.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import plotly.graph_objects as go

from .errors import DataError

VERDICTS = ("agree", "partly", "disagree")  # the verdicts of a claim the data here can test
STAND_IN = "cannot test"  # a claim about Gisette / KDDCup01, run on a synthetic stand-in: not counted above
ALL_VERDICTS = (*VERDICTS, STAND_IN)
VERDICT_LABELS = {"agree": "agree", "partly": "partly", "disagree": "disagree", STAND_IN: "cannot test: stand-in data"}
PAPERS = {
    "ahmed": "Ahmed, Narasimhan & Agarwal (2015), Bayes optimal feature selection",
    "ditzler": "Ditzler, Polikar & Rosen (2015), NPFS",
    "pena": "Peña & Nilsson (2010), complexity of discrete feature selection",
}
RESULTS_DIR = Path(__file__).resolve().parents[1] / "bench" / "results"
PROFILES = ("paper", "scale", "quick")  # the shipped results: the papers' scale where affordable, reduced, CI-sized
LEDGER_START, LEDGER_END = "<!-- ledger:start -->", "<!-- ledger:end -->"
_ID = re.compile(r"^\|\s*`([a-z0-9-]+)`\s*\|", re.MULTILINE)


@dataclass
class Row:
    """One ledger row. ``figure`` is ``{"kind": ..., **data}`` for :func:`row_figure` (or empty)."""

    id: str
    paper: str
    item: str
    claim: str
    ours: str
    verdict: str
    why: str
    link: str = ""
    figure: dict = field(default_factory=dict)
    seconds: float = 0.0
    numbers: dict = field(default_factory=dict)  # what the rule read (bench/repro_rules.py recomputes the verdict)
    rule: str = ""  # the rule applied to ``numbers``, in words, with what held; ``why`` keeps the context
    scale: str = ""  # the protocol this row actually ran at, in words
    note: str = ""  # a second reading shown beside the verdict, never changing it (e.g. the authors' NPFS rule)

    def __post_init__(self) -> None:
        if self.paper not in PAPERS:
            raise DataError(f"row {self.id!r}: unknown paper {self.paper!r}")
        if self.verdict not in ALL_VERDICTS:
            raise DataError(f"row {self.id!r}: verdict must be one of {', '.join(ALL_VERDICTS)}; "
                            f"got {self.verdict!r}")

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Ledger:
    """All rows of one run with the protocol that produced them."""

    profile: str
    protocol: dict
    rows: list[Row]
    seconds: float = 0.0
    load: str = ""
    created: str = ""

    def ids(self) -> list[str]:
        return [r.id for r in self.rows]

    def row(self, row_id: str) -> Row:
        for r in self.rows:
            if r.id == row_id:
                return r
        raise KeyError(row_id)

    def counts(self) -> dict[str, int]:
        """Rows per verdict; stand-in rows (``cannot test``) are counted apart, never as agree/partly/disagree."""
        return {v: sum(r.verdict == v for r in self.rows) for v in ALL_VERDICTS}

    def counts_text(self) -> str:
        c = self.counts()
        return (f"agree {c['agree']}, partly {c['partly']}, disagree {c['disagree']} of "
                f"{len(self.rows) - c[STAND_IN]} testable rows; {c[STAND_IN]} stand-in rows cannot test their claim")

    def to_json(self) -> str:
        return json.dumps({**asdict(self), "rows": [r.to_dict() for r in self.rows]}, indent=1, allow_nan=False,
                          default=_plain)


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not JSON-serialisable: {type(value).__name__}")


def ledger_from_json(text: str) -> Ledger:
    """Parse and validate a ledger written by :meth:`Ledger.to_json`; DataError names what is wrong."""
    try:
        raw = json.loads(text)
        rows = [Row(**r) for r in raw.pop("rows")]
        ledger = Ledger(rows=rows, **raw)
    except (ValueError, TypeError, KeyError) as exc:
        raise DataError(f"not a reproduction ledger: {exc}") from None
    ids = ledger.ids()
    if len(set(ids)) != len(ids):
        raise DataError(f"duplicate row ids in the ledger: {sorted({i for i in ids if ids.count(i) > 1})}")
    return ledger


def ledger_path(profile: str, root: Path = RESULTS_DIR) -> Path:
    return root / profile / "ledger.json"


def load_ledger(profile: str, root: Path = RESULTS_DIR) -> Ledger:
    """The shipped ledger of ``profile`` (``paper``, ``scale`` or ``quick``)."""
    path = ledger_path(profile, root)
    if not path.is_file():
        raise DataError(f"no results for {profile!r} at {path}; run bench/reproduce.py"
                        f"{' --quick' if profile == 'quick' else ''}")
    return ledger_from_json(path.read_text(encoding="utf-8"))


def markdown_ids(text: str) -> list[str]:
    """Row ids of the ledger table in REPRODUCE.md (the first column, in backticks)."""
    start, end = text.find(LEDGER_START), text.find(LEDGER_END)
    if start < 0 or end < start:
        raise DataError("REPRODUCE.md has no ledger block (the ledger:start / ledger:end markers)")
    return _ID.findall(text[start:end])


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def ledger_markdown(main: Ledger, *others: Ledger) -> str:
    """The ledger table: one line per row of ``main`` (its verdict, scale and rule); each of ``others`` (the
    reduced scales) adds a column with its verdict. Then the counts per scale, stand-in rows apart."""
    head = "| id | paper | item | paper's claim | ours | verdict | scale | why |"
    for o in others:
        head += f" {o.profile} |"
    lines = [head, "|---" * (head.count("|") - 1) + "|"]
    for r in main.rows:
        why = " ".join(t for t in (r.rule, r.why) if t) + (
            f" Note (does not change the verdict): {r.note}" if r.note else "")
        cells = [f"`{r.id}`", r.paper, r.item, r.claim, r.ours, f"**{VERDICT_LABELS[r.verdict]}**", r.scale, why]
        for other in others:
            try:
                theirs = other.row(r.id)
                cells.append(f"{VERDICT_LABELS[theirs.verdict]}: {theirs.ours}")
            except KeyError:
                cells.append("not run")
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    lines.append("")
    for led in (main, *others):
        lines.append(f"- **{led.profile}**: {len(led.rows)} rows: {led.counts_text()}; {led.seconds:.0f} s "
                     f"wall-clock, {led.created}, {led.load}.")
    reduced = next((o for o in others if o.profile == "scale"), None)
    if main.profile == "paper" and reduced is not None:
        lines += ["", "**What the paper-scale run changed:** " + change_sentence(main, reduced)]
    return "\n".join(lines)


def changes(paper: Ledger, reduced: Ledger) -> list[tuple[str, str, str]]:
    """(row id, reduced verdict, paper-scale verdict) of the rows whose verdict differs between the two runs."""
    out = []
    for r in paper.rows:
        try:
            o = reduced.row(r.id)
        except KeyError:
            continue
        if o.verdict != r.verdict and not r.scale.startswith("not rerun"):
            out.append((r.id, o.verdict, r.verdict))
    return out


def change_sentence(paper: Ledger, reduced: Ledger) -> str:
    """One sentence: what running at the papers' scale changed against the reduced run."""
    diff = changes(paper, reduced)
    rerun = sum(not r.scale.startswith("not rerun") for r in paper.rows)
    if not diff:
        return (f"Of the {rerun} rows rerun at the papers' scale, none changed its verdict from the reduced run; "
                f"the other {len(paper.rows) - rerun} rows are the reduced run's, marked as such.")
    return (f"Rerunning {rerun} rows at the papers' scale (or the largest affordable here, stated per row) changed "
            f"{len(diff)} verdict{'s' if len(diff) > 1 else ''} against the reduced run ("
            + ", ".join(f"{i}: {a} -> {b}" for i, a, b in diff) + ")"
            + (f"; the other {len(paper.rows) - rerun} rows could not be rerun here and show the reduced run, "
               "marked as such." if rerun < len(paper.rows) else "."))


def replace_ledger_block(text: str, table: str) -> str:
    """``text`` with the part between the ledger markers replaced by ``table``."""
    start, end = text.find(LEDGER_START), text.find(LEDGER_END)
    if start < 0 or end < start:
        raise DataError("REPRODUCE.md has no ledger block (the ledger:start / ledger:end markers)")
    return text[:start + len(LEDGER_START)] + "\n" + table + "\n" + text[end:]


# --- figures ------------------------------------------------------------------------------------------------

def _curves(fig: dict) -> go.Figure:
    """Panels of learning curves: ``panels`` = [{title, k, series: {label: [mean per k]}}]."""
    from plotly.subplots import make_subplots

    panels = fig["panels"]
    cols = min(3, len(panels))
    rows = -(-len(panels) // cols)
    out = make_subplots(rows=rows, cols=cols, subplot_titles=[p["title"] for p in panels])
    labels = sorted({lab for p in panels for lab in p["series"]})
    palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]
    colour = {lab: palette[i % len(palette)] for i, lab in enumerate(labels)}
    for i, p in enumerate(panels):
        for lab, ys in p["series"].items():
            out.add_trace(go.Scatter(x=p["k"], y=ys, name=lab, mode="lines+markers", legendgroup=lab,
                                     showlegend=i == 0, line={"color": colour[lab]}),
                          row=i // cols + 1, col=i % cols + 1)
    out.update_layout(height=280 * rows + 60, margin={"t": 60, "b": 30}, yaxis_title=fig.get("y", ""))
    out.update_xaxes(title_text=fig.get("x", "k (features)"))
    return out


def _matrix(fig: dict) -> go.Figure:
    """NPFS selection matrices (features x bootstraps) side by side, relevant rows marked."""
    from plotly.subplots import make_subplots

    panels = fig["panels"]
    out = make_subplots(rows=1, cols=len(panels), subplot_titles=[p["title"] for p in panels],
                        horizontal_spacing=0.03)
    for i, p in enumerate(panels):
        z = np.asarray(p["matrix"], dtype=float)
        z[np.asarray(p["relevant"], dtype=int)] *= 2  # relevant rows drawn in the highlight colour
        out.add_trace(go.Heatmap(z=z, zmin=0, zmax=2, showscale=False,
                                 colorscale=[[0, "black"], [0.5, "white"], [1, "orange"]]), row=1, col=i + 1)
        out.update_yaxes(autorange="reversed", row=1, col=i + 1, showticklabels=i == 0)
    out.update_layout(height=360, margin={"t": 50, "b": 30})
    out.update_xaxes(title_text="bootstrap")
    out.update_yaxes(title_text="feature", row=1, col=1)
    return out


def _paths(fig: dict) -> go.Figure:
    """Relevant-feature count vs bootstraps: ``panels`` = [{title, paths: {label: [count per bootstrap]}}]."""
    from plotly.subplots import make_subplots

    panels = fig["panels"]
    out = make_subplots(rows=1, cols=len(panels), subplot_titles=[p["title"] for p in panels])
    for i, p in enumerate(panels):
        for lab, ys in p["paths"].items():
            out.add_trace(go.Scatter(y=ys, x=list(range(1, len(ys) + 1)), name=lab, legendgroup=lab,
                                     showlegend=i == 0, mode="lines"), row=1, col=i + 1)
        if "truth" in fig:
            out.add_hline(y=fig["truth"], line_dash="dot", row=1, col=i + 1)
    out.update_layout(height=340, margin={"t": 50, "b": 30})
    out.update_xaxes(title_text="bootstraps")
    out.update_yaxes(title_text="relevant features", row=1, col=1)
    return out


def _bars(fig: dict) -> go.Figure:
    """Grouped bars: ``x`` categories, ``series`` {label: [value per category]}."""
    out = go.Figure([go.Bar(x=fig["x"], y=ys, name=lab) for lab, ys in fig["series"].items()])
    out.update_layout(barmode="group", height=340, margin={"t": 30, "b": 30}, yaxis_title=fig.get("y", ""))
    return out


def _image(fig: dict) -> go.Figure:
    """Pixel maps (``panels`` = [{title, z: 2-d}]), e.g. the bootstrap count of every pixel."""
    from plotly.subplots import make_subplots

    panels = fig["panels"]
    out = make_subplots(rows=1, cols=len(panels), subplot_titles=[p["title"] for p in panels])
    for i, p in enumerate(panels):
        out.add_trace(go.Heatmap(z=p["z"], colorscale="gray", showscale=False), row=1, col=i + 1)
        out.update_yaxes(autorange="reversed", scaleanchor=f"x{i + 1}", row=1, col=i + 1)
    out.update_layout(height=340, margin={"t": 50, "b": 30})
    return out


_BUILDERS = {"curves": _curves, "matrix": _matrix, "paths": _paths, "bars": _bars, "image": _image}


def row_figure(row: Row) -> go.Figure | None:
    """The plotly figure of a ledger row, or None for rows shown as a table (``figure['kind'] == 'table'``)."""
    kind = row.figure.get("kind")
    builder = _BUILDERS.get(kind) if isinstance(kind, str) else None
    return None if builder is None else builder(row.figure)


def row_table(row: Row):
    """The row's table (``figure['kind'] == 'table'``: ``columns`` and ``rows``) as a DataFrame, else None."""
    import pandas as pd

    if row.figure.get("kind") != "table":
        return None
    table = pd.DataFrame(row.figure["rows"], columns=row.figure["columns"])
    for column in table.columns:  # a reader sees "-" for a number the paper or we do not have, {1, 3} for a subset
        if table[column].map(_needs_text).any():
            table[column] = table[column].map(_cell_text)
    return table


def _needs_text(value) -> bool:
    return (value is None or isinstance(value, list) or (isinstance(value, float) and value != value)
            or (isinstance(value, str) and value.startswith("[") and value.endswith("]")))


def _cell_text(value) -> str:
    """One table cell as a reader writes it: "-" when missing, a subset as {0, 2} (the empty one as ∅)."""
    if value is None or (isinstance(value, float) and value != value):
        return "-"
    if isinstance(value, str) and value.startswith("[") and value.endswith("]"):
        value = [v.strip() for v in value[1:-1].split(",") if v.strip()]
    if isinstance(value, list):
        return "{" + ", ".join(map(str, value)) + "}" if value else "∅"
    return f"{value:g}" if isinstance(value, float) else str(value)


__all__ = ["ALL_VERDICTS", "LEDGER_END", "LEDGER_START", "Ledger", "PAPERS", "PROFILES", "RESULTS_DIR", "Row",
           "STAND_IN", "VERDICTS", "VERDICT_LABELS", "change_sentence", "changes", "ledger_from_json",
           "ledger_markdown", "ledger_path", "load_ledger", "markdown_ids", "replace_ledger_block", "row_figure",
           "row_table"]
