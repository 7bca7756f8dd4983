"""Select page helpers: measure-parameter widgets, the selection memo, curves and safe exports.

Selections are kept per session (``st.session_state``) and server-wide by content (``ui.cache.shared_results``)
rather than with ``st.cache_data``: the run reports its progress to an ``st.progress`` bar created by the page, and
a cached function may not write to an element created outside it (Streamlit cannot replay that on a cache hit).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np
import pandas as pd
import streamlit as st

from fslab import export, terms
from fslab.cost import select_cost
from fslab.counting.folds import DEFAULT_FOLDS
from fslab.criteria import criterion
from fslab.errors import FslabError
from fslab.measures import MEASURES, Param, supported_measures
from fslab.measures.cross_fit import usable_folds
from fslab.selectors import SELECTORS, Selection, prefix_criteria, select
from fslab.stopping import steps_to_keep

from . import state
from .cache import result_key, shared_results
from .compare import token
from .memo import recall, remember, session_memo

RESULTS = "fslab.select.results"
CURVES = "fslab.select.curves"  # comparison_curves per run and settings
_MEMO_SIZE = 12


def is_regression(source) -> bool:
    """A real-valued target: its values are not classes (DESIGN.md: only the squared error applies)."""
    return getattr(source, "task", None) == "regression"


def selector_options(source) -> list[str]:
    """Selectors that fit the source's target: a fixed measure must be supported, and a selector declared
    ``counts_classes`` (MI family, Fisher) would treat every value of a real-valued target as a class."""
    fitting = supported_measures(source)
    return [name for name, spec in SELECTORS.items()
            if (spec.fixed_measure is None or spec.fixed_measure in fitting)
            and not (spec.counts_classes and is_regression(source))]


def keep_choice(key: str, options: list) -> None:
    """Before a selectbox is drawn: a remembered choice that is no longer offered falls back to the first."""
    if st.session_state.get(key) not in options:
        st.session_state[key] = options[0]


def keep_in_range(key: str, low: int, high: int, default: int) -> None:
    """Before a number box or slider whose range follows the data is drawn: a remembered value outside
    ``[low, high]`` (kept from other data, settings persist across pages) goes back to ``default``: it is removed,
    so the widget starts at its own default (writing ``default`` into Session State before a widget that is also
    given a value makes Streamlit log a "set via the Session State API" warning)."""
    if not low <= st.session_state.get(key, default) <= high:
        del st.session_state[key]


def work_note(selector: str, n: int, k: int, rows: int) -> str | None:
    """How much a backward run computes, said before it starts (it is quadratic in the number of features)."""
    if SELECTORS[selector].kind != "backward" or k >= n:
        return None
    evaluations = sum(n - t for t in range(n - k))
    return (f"Backward elimination: {n - k} steps, each scoring every remaining feature's removal "
            f"({n} down to {k + 1} candidates): {evaluations:,} subset tables over {rows:,} rows.")


# What each measure parameter's widget is called; its default, range, step or choices and help come from the
# measure record's Param (fslab.measures: one source of truth for the library, recipes, command line and pages).
PARAM_LABELS = {"c": "cost c of a false positive (a false negative costs 1 - c)", "beta": "beta (weight of recall)",
                "approach": "approach"}
CHOICE_LABELS = {"approach": {1: "1: sum of probabilities", 2: "2: log-likelihood"}}


def param_widget(container, name: str, param: Param, key: str, label: str | None = None, **kwargs):
    """One widget for a measure parameter: a slider over ``param.low .. param.high`` in ``param.step`` starting
    at ``param.default``, or a horizontal radio over ``param.choices``; ``param.help`` as its help text."""
    label = label or PARAM_LABELS.get(name, name)
    kwargs.setdefault("help", param.help)
    if isinstance(st.session_state.get(key), list | tuple):   # a cost matrix left from a many-class target
        del st.session_state[key]
    given = key in st.session_state  # a link or the widget set it: no default of the widget's own beside it
    if param.choices is not None:
        names = CHOICE_LABELS.get(name, {})
        return container.radio(label, param.choices, index=None if given else param.choices.index(param.default),
                               key=key, horizontal=True, format_func=lambda v: names.get(v, str(v)), **kwargs)
    kind = type(param.default)
    return container.slider(label, kind(param.low), kind(param.high), None if given else param.default,
                            kind(param.step), key=key, **kwargs)


def measure_params(container, measure_name: str, key: str, classes=None) -> dict:
    """Widgets for the parameters of ``measure_name`` (cost c, beta, precision/recall approach), one per
    :class:`~fslab.measures.Param` of its record; widget keys are ``{key}.{parameter}``. ``classes``: the target's
    classes; on more than two, the cost c is a K x K cost matrix (:func:`ui.cost_matrix.cost_matrix_input`)."""
    from .cost_matrix import cost_matrix_input, takes_matrix  # here: the rest of this module is another helper's

    return {name: cost_matrix_input(container, classes, f"{key}.{name}") if takes_matrix(name, classes)
            else param_widget(container, name, param, f"{key}.{name}")
            for name, param in MEASURES[measure_name].parameters.items()}


def _memo():
    return session_memo(RESULTS)


def source_key(kind: str, name: str, source) -> tuple:
    """Identifies the data a selection ran on by content (an ``id`` can be recycled by the next data set)."""
    return kind, name, token(source), source.n_features, getattr(source, "n_rows", 0)


ESTIMATE_LABELS = {"cross-fitted": "Held out (cross-fitted, 5 folds)",
                   "plug-in": "In-sample (plug-in, as in the papers)"}
OTHER = {"cross-fitted": "plug-in", "plug-in": "cross-fitted"}


def own_data() -> bool:
    """True when the current dataset is the user's own upload (not a shipped sample or rows drawn from a toy)."""
    spec = state.get_dataset_spec() or {}
    return "file" in spec


def data_key() -> str:
    """The current dataset's identity for the pages' per-data defaults: its descriptor, else its name."""
    spec = state.get_dataset_spec()
    return repr(sorted(spec.items())) if spec else str(state.get_dataset()[0])


def estimate_choice(container, kind: str, page: str) -> str:
    """The page's estimate: a radio for a dataset, "plug-in" for an exact distribution (exact values). Each time
    the dataset changes the radio starts at its default, held out for the user's own upload and the papers'
    plug-in for shipped samples, unless a link brought the data with its own estimate (``ui.share.apply`` marks
    ``{page}.estimate_for``); the value travels in the page's link."""
    if kind != "dataset":
        return "plug-in"
    holds_out = own_data() and held_out_possible()
    default = "cross-fitted" if holds_out else "plug-in"
    key, marker = f"{page}.estimate", f"{page}.estimate_for"
    if st.session_state.get(marker) != data_key():
        st.session_state[marker] = data_key()
        st.session_state[key] = default
    options = list(ESTIMATE_LABELS)
    if st.session_state.get(key) not in options:
        st.session_state[key] = default
    return container.radio(
        "Estimate", options, format_func=ESTIMATE_LABELS.get, horizontal=True, key=key, persist_state="session",
        help="In-sample: the plug-in Bayes rule fitted and scored on the same rows (the papers' definition; a "
             "column with a value per row scores perfectly). Held out: fitted on all stratified folds but one "
             "(5 folds, fewer when a class has fewer rows) and scored on that one, averaged (a column that only "
             "fits the sample scores like no feature at all).")


def held_out_possible() -> bool:
    """Whether the current dataset's rows can be held out (every class has 2 rows or more): else a page on a tiny
    upload opens on the in-sample estimate and says why (:func:`held_out_refusal`) instead of failing."""
    return not held_out_refusal()


def held_out_refusal() -> str:
    """Why the current dataset cannot be held out, in words ("" when it can)."""
    _, encoded = state.get_dataset()
    if encoded is None:
        return ""
    try:
        usable_folds(encoded, DEFAULT_FOLDS)
    except FslabError as err:
        return str(getattr(err, "reason", "") or err)
    return ""


OWN_DEFAULTS = "select.own_defaults_for"   # the data key the own-data defaults were last set for
HONEST_K_MAX = 10
HONEST_K_SECONDS = 2.0   # the default-k search runs only when predicted this fast


def own_data_key(spec: dict | None) -> tuple | None:
    """What makes an upload a new one for the first-visit defaults: its file, hash and the Data page's choices."""
    return None if not spec or "file" not in spec else tuple(sorted((k, repr(v)) for k, v in spec.items()))


def first_visit_of_own_data(kind: str) -> bool:
    """True on the first run of the Select page for the user's own upload (then the page sets its defaults once:
    the balanced error for a binary target, and k by the held-out stopping rule). A link that brought the upload
    marks it seen (``ui.share.apply``): the link's settings stand."""
    key = own_data_key(state.get_dataset_spec())
    if kind != "dataset" or key is None or st.session_state.get(OWN_DEFAULTS) == key:
        return False
    st.session_state[OWN_DEFAULTS] = key
    return True


def own_measure_default(source, options: list[str]) -> str | None:
    """The balanced error for a user's binary target (the 0-1 error of an imbalanced target often stays at the base
    rate whatever the features, so selection by it sees no gain); None keeps the page's default."""
    return "balanced" if len(source.labels) == 2 and "balanced" in options else None


def honest_k(key: tuple, source, selector: str, measure: str, params: dict) -> tuple[int, str] | None:
    """(k, why): the default k for a user's data, Ahmed et al.'s footnote 3 stopping rule on HELD-OUT values with
    tolerance 0 (keep the steps that improve the held-out criterion; at least 1, at most 10); None when the search
    would be slow (predicted over HONEST_K_SECONDS) or the selector has no stepwise criterion."""
    spec = SELECTORS[selector]
    n = source.n_features
    k_max = min(HONEST_K_MAX, n)
    if spec.kind != "forward" or k_max < 2 or not held_out_possible():
        return None
    if select_cost(source, k_max, selector, measure if spec.uses_measure else "zero-one", None).seconds \
            > HONEST_K_SECONDS:
        return None
    sel = run_selection(key, source, k_max, selector, measure, None, params, estimate="cross-fitted")
    held = prefix_criteria(source, sel.features, measure, estimate="cross-fitted", **params)
    empty = float(criterion(source, [], measure, estimate="cross-fitted", **params))
    kept, stopped = steps_to_keep([empty, *held.tolist()], 0.0)
    k = max(1, kept)
    if stopped is None:
        return k, f"every step up to {k_max} improves the held-out {terms.label(measure, params)}"
    return k, (f"step {stopped} does not improve the held-out {terms.label(measure, params)}, so the first "
               f"{k} are kept")


def estimate_note(estimate: str, beside: bool = True) -> str:
    """One line under the settings saying which number the page shows and why (``beside``: the page also shows
    the other estimate)."""
    if estimate == "cross-fitted":
        return ("Values are **held out** (5-fold cross-fitted): the plug-in rule is fitted on four folds and scored on "
                "the fifth" + (", the default for your own data" if own_data() else "") + "."
                + (" The in-sample value is shown beside it; a large gap means the pick fits this sample, not the "
                   "problem." if beside else " A column that merely has many levels cannot win."))
    return ("Values are **in-sample plug-in estimates**, as in the papers: the Bayes criterion of the sample's own "
            "counts, which improves with every feature added and flatters many-level columns."
            + (" The held-out value is shown beside it." if beside else ""))


def run_selection(key: tuple, source, k: int, selector: str, measure: str, s: int | None, params: dict,
                  progress=None, estimate: str = "plug-in") -> Selection:
    """``fslab.select`` computed once per server for the same content and settings: the session's memo, then the
    server-wide store of results (``ui.cache.shared_results``, keyed by the data's content token, never its name),
    else a run (``progress(step, total)`` is called on it) stored in both: a class of thirty opening one link runs
    one selection."""
    memo = _memo()
    full = (key, int(k), selector, measure, s, tuple(sorted(params.items())), estimate)
    if full in memo:
        return recall(memo, full)
    shared, shared_key = shared_results(), result_key("select", *full[0][2:], *full[1:])
    result = shared.get(shared_key)
    if result is None:
        spec = SELECTORS[selector]
        result = select(source, k, selector, measure=measure, s=s, progress=progress, estimate=estimate,
                        **(params if spec.uses_measure else {}))
        shared.put(shared_key, result)
    return remember(memo, full, result, _MEMO_SIZE)


def curve_frame(source, features, measure: str, params: dict, estimate: str = "plug-in") -> pd.DataFrame:
    """t, value = the measure's own value of the first t features (an error or a score, not the signed
    criterion) in ``estimate``, feature = the name added at t."""
    values = terms.own_terms(prefix_criteria(source, features, measure, estimate=estimate, **params), measure)
    return pd.DataFrame({"t": np.arange(1, len(features) + 1), "value": values,
                         "feature": [source.feature_names[j] for j in features]})


def comparison_curves(key: tuple, source, result: Selection, measure: str, params: dict,
                      estimate: str = "plug-in") -> dict[str, pd.DataFrame]:
    """The run's own curve plus BayesScore's and MIGreedy's first k features, all under the same measure and
    estimate; on a sample also the run's curve in the other estimate (in-sample beside held-out).

    Backward runs start at the full set (t = n) and go down one point per elimination. MIGreedy is left
    out for a real-valued target (it would treat every target value as a class). Kept in the session's memo for the
    run and the curves' settings: a rerun that changes neither computes no prefix values.
    """
    memo = session_memo(CURVES)
    full = (key, result.selector, result.k, result.s, tuple(result.features), measure, tuple(sorted(params.items())),
            estimate)
    found = recall(memo, full)
    if found is not None:
        return found
    spec = SELECTORS[result.selector]
    sample = getattr(source, "is_sample", False)
    label = f"{spec.label} (this run" + (f", {ESTIMATE_LABELS[estimate].split(' (')[0].lower()})" if sample else ")")
    curves: dict[str, pd.DataFrame] = {}
    if spec.kind == "backward":
        n = source.n_features
        curves[label] = pd.DataFrame({
            "t": n - np.arange(len(result.scores) + 1),
            "value": terms.own_terms(np.concatenate([[result.start_score], result.scores]), measure),
            "feature": ["all features"] + [f"removed {source.feature_names[j]}" for j in result.eliminated]})
    else:
        curves[label] = curve_frame(source, result.features, measure, params, estimate)
        if sample:
            other = OTHER[estimate]
            try:  # the held-out values beside in-sample ones, when the rows can be folded (not a real-valued target)
                curves[f"{spec.label} (this run, {ESTIMATE_LABELS[other].split(' (')[0].lower()})"] = curve_frame(
                    source, result.features, measure, params, other)
            except FslabError:
                pass
    for other in overlay_selectors(source):
        if other == result.selector and result.s is None:
            continue
        sel = run_selection(key, source, result.k, other, measure, None, params, estimate=estimate)
        curves[SELECTORS[other].label] = curve_frame(source, sel.features, measure, params, estimate)
    return remember(memo, full, curves, _MEMO_SIZE)


def overlay_selectors(source) -> tuple[str, ...]:
    """The selectors drawn dotted for comparison: BayesScore, and MIGreedy unless the target is real-valued."""
    return ("bayes-score",) if is_regression(source) else ("bayes-score", "mi-greedy")


def in_own_terms(result: Selection) -> bool:
    """True when the run's values are its measure's criterion (shown as the measure's own value); False for
    selectors with their own criterion (MI gains, Fisher scores), whose values are shown as they are."""
    return SELECTORS[result.selector].uses_measure


def own_trace(result: Selection) -> pd.DataFrame:
    """The trace with ``value`` in the measure's own terms (an error positive, lower is better)."""
    if not in_own_terms(result):
        return result.trace
    return result.trace.assign(value=terms.own_terms(result.trace["value"].to_numpy(), result.measure))


def own_summary(result: Selection) -> pd.DataFrame:
    """``Selection.summary`` with the step scores in the measure's own terms."""
    table = result.summary()
    if in_own_terms(result):
        table["score"] = terms.own_terms(table["score"].to_numpy(), result.measure)
    return table


def selected_table(result: Selection, curve: pd.DataFrame | None, measure: str, params: dict,
                   other: pd.DataFrame | None = None) -> pd.DataFrame:
    """The selected features with the selector's score, how many candidates tied at that step, and the measure's
    value of the first t features (an error shown positive) in the run's estimate and, given ``other``, in the
    other one beside it."""
    table = own_summary(result).rename(columns={
        "score": f"step value: {terms.titled(result.measure, result.params)}" if in_own_terms(result)
        else "selector score"})
    trace = result.trace
    if "subset" not in trace.columns and result.selector != "backward":
        chosen = trace[trace["chosen"]].set_index("candidate")
        table["tied at its step"] = [int(chosen.loc[j, "n_tied"]) for j in result.features]
    if curve is not None and len(curve) == len(table):
        own = "held-out" if result.estimate == "cross-fitted" else "in-sample"
        table[f"first t features, {own}: {terms.titled(measure, params)}"] = curve["value"].to_numpy()
        if other is not None and len(other) == len(table):
            table[f"first t features, {'in-sample' if own == 'held-out' else 'held-out'}"] = other["value"].to_numpy()
    return table


def safe_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Escaped copy for export; list cells (exhaustive subsets) become JSON text first."""
    lists = [c for c in frame.columns if frame[c].map(lambda v: isinstance(v, list)).any()]
    return export.safe_frame(frame.assign(**{c: frame[c].map(lambda v: json.dumps(v) if isinstance(v, list) else v)
                                            for c in lists}) if lists else frame)


def safe_csv(frame: pd.DataFrame) -> bytes:
    """CSV bytes with formula-like text cells escaped (numbers stay numbers)."""
    return safe_frame(frame).to_csv(index=False).encode("utf-8")


def selection_json(result: Selection, prov: dict | None = None) -> bytes:
    """The selection record with its scores in the measure's own terms (``scores_are`` says which) and, when given,
    its provenance."""
    record = result.to_dict()
    record["names"] = [export.escape_cell(n) for n in record["names"]]
    if in_own_terms(result):
        record["scores"] = export.json_ready(terms.own_terms(np.asarray(result.scores, float), result.measure))
        if result.start_score is not None:
            record["start_score"] = export.json_ready(terms.own_terms(result.start_score, result.measure))
        record["scores_are"] = terms.titled(result.measure, result.params)
    else:
        record["scores_are"] = f"{SELECTORS[result.selector].label}'s own score"
    if prov is not None:
        record["provenance"] = prov
    return json.dumps(record, indent=1).encode("utf-8")


def trace_json(result: Selection, prov: dict | None = None) -> bytes:
    records = json.loads(safe_frame(own_trace(result)).to_json(orient="records"))
    payload = records if prov is None else {"provenance": prov, "trace": records}
    return json.dumps(payload).encode("utf-8")


def _with(frame: pd.DataFrame, prov: dict | None) -> bytes:
    lists = [c for c in frame.columns if frame[c].map(lambda v: isinstance(v, list)).any()]
    frame = frame.assign(**{c: frame[c].map(json.dumps) for c in lists}) if lists else frame
    return export.csv_with_provenance(frame, prov) if prov is not None else safe_csv(frame)


def selected_data(source, result: Selection, raw=None) -> pd.DataFrame:
    """The rows with only the selected columns and the target: raw values when the raw table is at hand, else each
    feature's coded category (bin or value) and the class name."""
    names = [source.feature_names[j] for j in result.features]
    if raw is not None:
        frame = raw.to_frame()
        target = getattr(raw, "target", None)
        keep = [c for c in names if c in frame.columns] + ([target] if target in frame.columns else [])
        if len(keep) >= len(names):
            return frame[keep]
    cats = source.categories or ()
    columns = {name: np.asarray(cats[j], dtype=object)[source.X[:, j]] if cats else source.X[:, j]
               for name, j in zip(names, result.features, strict=True)}
    classes = np.asarray(getattr(source, "class_names", None) or source.labels, dtype=object)
    target = getattr(source, "target", None) or "y"
    return pd.DataFrame(columns | {target: classes[source.y] if source.y.dtype.kind in "iu" else source.y})


def exports(result: Selection, prov: dict | None = None) -> dict[str, Callable[[], bytes]]:
    """CSV and JSON of the selection and its trace with their provenance, each built only when its download button
    is clicked (a deferred ``st.download_button`` data callable): a long trace takes a while to write out, and
    drawing the page should not pay for files nobody downloads."""
    return {
        "selection.csv": lambda: _with(own_summary(result), prov),
        "selection.json": lambda: selection_json(result, prov),
        "trace.csv": lambda: _with(own_trace(result), prov),
        "trace.json": lambda: trace_json(result, prov),
    }
