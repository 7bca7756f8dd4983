"""By-measure page helpers: the cached computation, the verdict sentence, the styled picks table and the exports."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from fslab import export, terms
from fslab.by_measure import DEFAULT_MEASURES, ByMeasure, by_measure
from fslab.measures import MEASURES, PARAMETERS
from fslab.selectors import SELECTORS

from .cache import BOUNDED
from .compare import token
from .cost_matrix import offered_measures
from .link_pages import LINK_PAGES
from .text import md

_HIGHLIGHT = "background-color: #fde0c5; font-weight: 600"


def selector_options() -> list[str]:
    """Selectors whose criterion is a measure's (an MI-family selector would give one path for every measure): the
    page's link record's rule (ui.link_pages.LINK_PAGES), so a link and the page offer the same."""
    offers = LINK_PAGES["by_measure"].offers
    return [name for name, spec in SELECTORS.items() if offers(spec)]


def default_k(kind: str) -> int:
    """A toy distribution has a handful of features (Example 1: 2); a data set shows 5 steps."""
    return 3 if kind == "distribution" else 5


def default_measures(offered: list[str]) -> list[str]:
    """The page's opening measures: the paper's seven (:data:`fslab.by_measure.DEFAULT_MEASURES`) that fit the
    target, else every offered one (a real-valued target: the squared error), so the page always shows a result."""
    return [m for m, _ in DEFAULT_MEASURES if m in offered] or list(offered)


def measure_options(source) -> list[str]:
    """The measures that fit the target and are a function of the subset's joint table (their records bring no
    evaluator of their own: precision and recall are built from per-feature predictors, not one path per table); the
    cost-sensitive error on many classes too, with its K x K cost matrix (:mod:`ui.cost_matrix`)."""
    return [m for m in offered_measures(source) if MEASURES[m].evaluator is None]


def param_options(measures: list[str]) -> dict[str, tuple]:
    """Parameter name -> (its Param record, the measures among ``measures`` that take it), from the records."""
    return {name: (param, tuple(m for m in takers if m in measures))
            for name, (param, takers) in PARAMETERS.items() if set(takers) & set(measures)}


def with_params(names: list[str], params: dict) -> tuple[tuple[str, tuple], ...]:
    """(name, sorted params) pairs, hashable for the cache: each measure takes its record's parameters out of
    ``params`` (its defaults for the ones not given)."""
    return tuple((name, tuple(sorted({**MEASURES[name].params, **{p: params[p] for p in MEASURES[name].parameters
                                                                   if p in params}}.items())))
                 for name in names)


@st.cache_data(**BOUNDED, show_spinner="Running the selector once per measure...")
def _cached(tok: str, _source, k: int, selector: str, measures: tuple, estimate: str = "plug-in") -> ByMeasure:
    """Keyed by the data's content token (``_source`` itself is not hashed)."""
    return by_measure(_source, k, [(name, dict(params)) for name, params in measures], selector, estimate=estimate)


def compute(source, k: int, selector: str, measures: tuple, estimate: str = "plug-in") -> ByMeasure:
    """:func:`fslab.by_measure.by_measure`, shared server-wide by data content and settings."""
    return _cached(token(source), source, int(k), selector, measures, estimate)


def verdict(view: ByMeasure) -> str:
    """One or two sentences: where the measures agree, and the first step where they part (who picks what)."""
    agree = view.agree()
    if len(view.labels) == 1:
        return f"Only one measure chosen ({md(view.labels[0])}): choose more to compare."
    if agree.all():
        return (f"All {len(view.labels)} measures add **the same feature at every step** here: on these data the "
                "choice of measure does not change the first k features."
                + (" Some of these picks were ties (below)." if view.tie_words() else ""))
    first = int(agree.idxmin())
    row = view.picks.loc[first]
    groups: dict[str, list[str]] = {}
    for lab, feat in row.items():
        groups.setdefault(feat, []).append(lab)
    parts = "; ".join(f"{', '.join(md(g) for g in labs)} add{'s' if len(labs) == 1 else ''} **{md(feat)}**"
                      for feat, labs in sorted(groups.items(), key=lambda kv: -len(kv[1])))
    differ = [int(t) for t in agree.index[~agree]]
    same_sets = view.same_set()
    tail = ""
    if same_sets.iloc[-1]:
        tail = f" After {view.k} steps they hold the same set, in different orders."
    ties = view.tie_words(first)
    tied = f" Ties (the lowest index taken): {md(ties)}." if ties else ""
    return (f"The measures **disagree** at step{'s' if len(differ) > 1 else ''} "
            f"{', '.join(map(str, differ))} of {view.k}. At step {first}: {parts}.{tied}{tail}")


def picks_styled(view: ByMeasure):
    """Measures (rows) x steps (columns): the feature each measure adds at each step; a pick that differs from its
    step's most common pick is highlighted, and the last row says whether the step agrees."""
    picks = view.picks
    mode = picks.mode(axis=1)[0]
    agree, same = view.agree(), view.same_set()
    table = picks.T.rename(columns=lambda t: f"step {t}")
    table.loc["all measures"] = ["same feature" if a else ("same set so far" if s else "differ")
                                 for a, s in zip(agree, same, strict=True)]
    table = table.rename_axis(index="measure").reset_index()

    def mark(frame: pd.DataFrame) -> pd.DataFrame:
        styles = pd.DataFrame("", index=frame.index, columns=frame.columns)
        for t, col in zip(picks.index, frame.columns[1:], strict=True):
            styles.loc[: len(view.labels) - 1, col] = [_HIGHLIGHT if v != mode[t] else ""
                                                       for v in frame.loc[: len(view.labels) - 1, col]]
        styles.loc[len(view.labels), frame.columns[1:]] = "font-style: italic"
        return styles

    return table.style.apply(mark, axis=None)


def regret(view: ByMeasure, step: int) -> pd.DataFrame:
    part = view.cross[view.cross["step"] == step]
    return part.pivot(index="chosen_by", columns="evaluated_by", values="regret").reindex(
        index=view.labels, columns=view.labels)


def titled_table(view: ByMeasure, values: pd.DataFrame) -> pd.DataFrame:
    """Columns renamed 'label (lower is better)'; the row label becomes a column 'chosen by'."""
    out = values.rename(columns={lab: f"{lab} ({direction(view, lab)})" for lab in values.columns})
    return out.rename_axis(index="chosen by", columns=None).reset_index()


def direction(view: ByMeasure, label: str) -> str:
    return terms.direction(view.measures[label][0])


def cross_csv(view: ByMeasure, source_name: str) -> bytes:
    """Every (chosen by, step, judged by) value, with the measure's direction, the data and the selector."""
    frame = view.cross.assign(
        direction=[direction(view, lab) for lab in view.cross["evaluated_by"]],
        data=source_name, selector=view.selector)
    return export.safe_csv(frame)


def file_name(source_name: str, view: ByMeasure) -> str:
    """The export's name, as every other export's (:func:`fslab.export.file_stem`): 'fslab_wdbc_by-measure_jmi_k5.csv'
    for 'wdbc.csv (diagnosis = malignant)' (the display name's note and extension left out)."""
    return f"{export.file_stem(source_name, 'by-measure', view.selector, f'k{view.k}')}.csv"
