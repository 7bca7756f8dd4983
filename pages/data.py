"""Data page: upload a CSV or pick a sample, name the target and positive class, choose the binning, check."""

from __future__ import annotations

import hashlib
from functools import partial
from typing import NamedTuple

import numpy as np
import pandas as pd
import streamlit as st

import ui as _ui  # noqa: F401  (first of ours: ui/preload.py imports every page's modules once, a session at a time)

# isort: split

from fslab.data.column_types import ColumnTypeError
from fslab.data.discretize import METHODS, value_name
from fslab.data.samples import SAMPLES
from fslab.data.upload import Upload
from fslab.errors import FslabError
from fslab.limits import LIMITS
from fslab.plots.data import bins_figure, class_balance_figure, target_histogram
from ui import data_guess, state
from ui.alerts_view import alerts_for, current_alerts, leave_out, show_data_alerts, show_error, show_leaks
from ui.data import (
    ALL_CLASSES,
    APP_SAMPLES,
    FIND,
    HIDDEN_NOTE,
    MISSING_LABELS,
    PREVIEW_COLUMNS,
    WIDE,
    Applied,
    Choice,
    applied_current,
    apply,
    binned_columns,
    build,
    coding_table,
    column_edges,
    find_rows,
    inspect,
    is_applied,
    page_types,
    pending_upload,
    picker_options,
    positive_options,
    preview_columns,
    preview_frame,
    remember_choice,
    remember_upload,
    rows_with_missing,
    sample_default_target,
    sample_frame,
    set_type_override,
    share_uploaded_bytes,
    split_frame,
    type_label,
    type_overrides,
    types_key,
    unused_upload,
)
from ui.data import upload as read_upload
from ui.source import registered_upload, upload_types
from ui.text import md, read_aloud

METHOD_HELP = {
    "mean-std": "three bins around the mean, as in the Bayes paper (footnote 6)",
    "quantile": "bins with about the same number of rows",
    "uniform": "bins of equal width between the smallest and largest value",
    "auto": "mean-std, except quantile bins for a column whose outliers put 90% of its rows into one mean-std bin "
            "(the default for your own file; the papers' samples keep mean-std)",
}
METHOD_LABELS = {"auto": "robust (mean-std, quantile where outliers crowd one bin)"}
FORMULAS = {
    "mean-std": r"\text{code}(x)=\begin{cases}0 & x<\mu-\sigma\\ 1 & \mu-\sigma\le x<\mu+\sigma\\"
                r" 2 & x\ge\mu+\sigma\end{cases}\qquad \sigma=\sqrt{\tfrac{1}{m-1}\textstyle\sum_i(x_i-\mu)^2}",
    "quantile": r"\text{code}(x)=\#\{k: x\ge q_{k/b}\},\quad q_{k/b}=\text{the }k/b\text{ quantile},\ k=1..b-1",
    "uniform": r"\text{code}(x)=\#\{k: x\ge \min+\tfrac{k}{b}(\max-\min)\},\ k=1..b-1",
}
FORMULAS["auto"] = FORMULAS["mean-std"]   # the quantile formula too, for the columns said under it


def _wide_help(columns: list[str]) -> str:
    """A wide table's pickers list the chosen columns and the first WIDE that match the "Find columns by name" box."""
    return "" if len(columns) <= WIDE else (f" The list holds the first {WIDE} of {len(columns):,} columns that match "
                                            "**Find columns by name** (below), and the chosen ones.")


def reset_if_invalid(key: str, options: list, default) -> None:
    """A widget keeps its value across reruns; when the data change, a stale value goes back to the default."""
    if st.session_state.get(key) not in options:
        st.session_state[key] = default


UPLOAD_TYPES = ["csv", "txt", "tsv", "gz", "parquet"]   # fslab.read_table reads gzip and parquet too


def choose_frame(kind: str):
    """(frame, frame_key, display name, sample name or None), or None when there is nothing to show yet."""
    if kind == "upload":
        share_uploaded_bytes()
        upload = st.file_uploader("CSV file (comma, semicolon or tab separated, with a header row; also gzip "
                                  ".csv.gz or parquet)", type=[*UPLOAD_TYPES, *upload_types()], key="data_upload",
                                  max_upload_size=LIMITS.max_upload_mb)
        kept = pending_upload()
        if upload is None and kept is None:
            st.info("Upload a table with one row per example and one column per feature, plus the column "
                    "you want to predict (the target). Or switch to a sample data set.")
            return None
        if upload is None:   # uploaded on an earlier visit to this page: kept in the session (ui.data.PENDING)
            data, file_name, sha = kept.data, kept.name, kept.sha256
            st.caption(f"**{md(file_name)}**, uploaded earlier in this session. Upload another file above to "
                       "replace it.")
        else:
            data, file_name = upload.getvalue(), upload.name   # the file manager's bytes (share_uploaded_bytes)
            sha = hashlib.sha256(data).hexdigest()
        if registered_upload(file_name, data):   # a file of a registered source (fslab.data.registry) reads itself
            return None
        try:
            read = read_upload(data)
        except FslabError as err:
            st.error(f"{md(file_name)}: {md(err)}.\n\nThe current dataset ({md(state.get_dataset()[0])}) is "
                     "unchanged.")
            return None
        remember_upload(file_name, data, sha)
        return Chosen(read.frame, "upload:" + sha, file_name, None, read)
    current = (state.get_dataset()[0] or "").removesuffix(" (sample)")
    reset_if_invalid("data_sample", APP_SAMPLES, current if current in APP_SAMPLES else state.DEFAULT_SAMPLE)
    name = st.selectbox("Sample data set", APP_SAMPLES, key="data_sample", format_func=lambda n: SAMPLES[n].title,
                        help=HIDDEN_NOTE)
    try:
        frame = sample_frame(name)
    except FslabError as err:
        st.error(md(err))
        return None
    st.caption(f"{SAMPLES[name].encoding}  \nSource: {SAMPLES[name].citation}")
    return Chosen(frame, "sample:" + name, name, name)


class Chosen(NamedTuple):
    """The data the page works on: the raw ``frame``, its cache ``key`` ("upload:<sha256>", "sample:<name>"), the
    name shown, the sample's name (None for an upload) and an upload's worker result (its guessed target and the
    Dataset typed for it: ui.data.upload)."""

    frame: pd.DataFrame
    key: str
    name: str
    sample: str | None
    upload: Upload | None = None


def choose_options(chosen: Chosen):
    """Target, positive class, binning, exclusion, column-type and missing-value widgets; returns (target, positive,
    method, bins, base Dataset, excluded columns, column types, missing rule)."""
    frame, frame_key, sample = chosen.frame, chosen.key, chosen.sample
    columns = [str(c) for c in frame.columns]
    if st.session_state.get("data_frame_key") != frame_key:   # new data: forget the old choices
        st.session_state["data_frame_key"] = frame_key
        for key in ("data_target", "data_positive", "data_exclude", "data_exclude_for", "data_method"):
            st.session_state.pop(key, None)
    guess = None if sample else chosen.upload.guess if chosen.upload else data_guess.target(frame, frame_key)
    sure = guess is None or guess.sure
    kept = pending_upload()
    if chosen.upload is not None and "data_target" not in st.session_state and kept is not None and \
            kept.choice is not None and frame_key == "upload:" + kept.sha256:   # back on a kept upload
        st.session_state["data_target"] = kept.choice.target
    default_target = sample_default_target(sample, columns) if sample else guess.column if sure else None
    if sure:
        reset_if_invalid("data_target", columns, default_target)
    elif st.session_state.get("data_target") not in columns:   # the box starts empty: the user chooses
        st.session_state.pop("data_target", None)
    c1, c2, c3, c4 = st.columns([2, 2, 2, 1])
    listed = picker_options(columns, [st.session_state.get("data_target"), guess.column if guess else None])
    target = c1.selectbox("Target column (what to predict)", listed, key="data_target", index=0 if sure else None,
                          placeholder="Choose the column to predict", help=_wide_help(columns).strip() or None)
    if guess is not None and target == guess.column:
        c1.caption(f"Guessed: {md(guess.reason)}." if guess.sure else "You chose fslab's best guess.")
    if target is None:   # not sure which column is the target: ask, and compute nothing until it is chosen
        why = guess.reason.removeprefix("not sure: ").removesuffix("; choose the column to predict")
        st.info(f"**Choose the column to predict** in the box above. fslab is not sure which column is the target "
                f"({md(why)}). Its best guess is **{md(guess.column)}**.", icon=":material/help:")
        return None
    overrides = {c: t for c, t in type_overrides(frame_key).items() if c != target}
    try:
        base = inspect(frame, frame_key, target, types_key(overrides), chosen.upload and chosen.upload.base)
    except ColumnTypeError as err:   # an override that does not fit: say so and offer the types again
        st.error(f"{md(err)}.")
        choose_column_types(frame_key, [c for c in columns if c != target], None, overrides)
        raise
    options, index = positive_options(base, SAMPLES[sample].positive if sample else None)
    if options:
        reset_if_invalid("data_positive", options, options[index])
        chosen = c2.selectbox("Positive class (y = 1)", options, key="data_positive",
                              help="Binary measures treat this class as y = 1. For more than two classes, "
                                   "pick one to compare it with all the others (one-vs-rest).")
        positive = None if chosen == ALL_CLASSES else chosen
    else:
        c2.text_input("Positive class", value="real-valued target", disabled=True, key="data_positive_none")
        positive = None
    split = choose_split(frame, target) if base.task == "regression" else None
    # a user's file: robust bins; a sample: the paper's mean-std
    reset_if_invalid("data_method", list(METHODS), "mean-std" if sample else "auto")
    method = c3.selectbox("Discretisation of numeric columns", METHODS, key="data_method",
                          format_func=lambda m: METHOD_LABELS.get(m, m),
                          help="; ".join(f"{METHOD_LABELS.get(m, m)}: {h}" for m, h in METHOD_HELP.items()))
    bins = c4.number_input("Bins", min_value=2, max_value=20, value=3, step=1, key="data_bins",
                           disabled=method == "mean-std", help="mean-std always makes three bins")
    exclude = choose_exclusions(frame_key, columns, target, base)
    features = [c for c in columns if c != target and c not in exclude]
    if not sample:   # a sample's columns carry the paper's encoding
        overrides = choose_column_types(frame_key, features, base, overrides)
    missing = choose_missing(base)
    return Options(target, positive, method, int(bins), base, exclude,
                   {c: overrides[c] for c in overrides if c in features}, missing, split)


class Options(NamedTuple):
    target: str
    positive: str | None
    method: str
    bins: int
    base: object
    exclude: list
    types: dict
    missing: str
    split: object


SPLITS = {"numeric": "keep it numeric (squared error)", "threshold": "two classes at a threshold",
          "quantiles": "quantile classes"}


def choose_split(frame, target: str):
    """A real-valued target: keep it numeric, split it at a threshold (the median by default, said), or cut it into
    2-5 quantile classes (fslab.data.target.split_target); returns Dataset.from_frame's ``target_split``."""
    values = pd.to_numeric(frame[target], errors="coerce").dropna()
    median = float(values.median()) if len(values) else 0.0
    kind = st.radio(f"**{md(target)}** is a real-valued target", list(SPLITS), key="data_split", horizontal=True,
                    format_func=SPLITS.get, persist_state="session",   # kept across pages, with the upload
                    help="Numeric: the squared-error measure only. Two classes or quantile classes: every "
                         "classification measure (0-1, balanced, F-beta, ...) applies.")
    if kind == "threshold":
        if st.session_state.get("data_split_for") != (target, median):   # the median of this target by default
            st.session_state["data_split_for"] = (target, median)
            st.session_state["data_threshold"] = median
        t = st.number_input("Threshold: rows above it are the positive class", key="data_threshold",
                            format="%.6g", help="A value equal to the threshold goes below.", persist_state="session")
        said = f"{value_name(t)} (the median)" if t == median else value_name(t)
        st.caption(f"Positive class: **{md(target)} > {md(said)}**; a value equal to the threshold goes below.")
        return "median" if t == median else float(t)
    if kind == "quantiles":
        q = st.slider("Quantile classes", 2, 5, 3, key="data_quantiles", persist_state="session",
                      help="Cut at the k/q quantiles: classes of about the same size; a value equal to a cut goes "
                           "below.")
        return ("quantiles", int(q))
    return None


def choose_exclusions(frame_key: str, columns: list[str], target: str, base) -> list[str]:
    """Columns to leave out of the features; the near-unique ones (IDs, row numbers, free text: ``Dataset.left_out``)
    are left out by default, with a note."""
    ids = list(base.left_out)
    why = {t.column: t.why for t in base.column_types if t.dropped}
    others = [c for c in columns if c != target]
    if st.session_state.get("data_exclude_for") != (frame_key, target):  # new data or target: the default again
        st.session_state["data_exclude_for"] = (frame_key, target)
        st.session_state["data_exclude"] = ids
    # (a run that stopped at a column-type error did not draw the box, and Streamlit forgot its value)
    st.session_state["data_exclude"] = [c for c in st.session_state.get("data_exclude", ids) if c in others]
    exclude = st.multiselect("Columns to leave out (not features)",
                             picker_options(others, st.session_state["data_exclude"]), key="data_exclude",
                             help="An ID, a row number, free text or a column computed from the target would fit the "
                                  "sample perfectly and tell nothing about new rows." + _wide_help(others))
    if ids:
        st.caption("Left out by default: " + ", ".join(f"**{md(c)}** ({md(why.get(c, 'near-unique'))})" for c in ids)
                   + ". A column with (nearly) a different value in every row, like an ID, fits the sample perfectly "
                   "and says nothing about new rows. Remove it from the box to keep it as a feature.")
    return exclude


def choose_column_types(frame_key: str, features: list[str], base, overrides: dict[str, str]) -> dict[str, str]:
    """A column and the type to read it as (the page's override of fslab's reading); returns the overrides."""
    if not features:
        return overrides
    with st.expander("Column types: how each column is read", expanded=bool(overrides) or base is None):
        st.markdown("fslab reads dates, percentages, numbers with units or thousands separators and yes/no text as "
                    "numbers; the **read as** column of the table below says what it did. Pick a column to read it "
                    "otherwise: *categories* keeps its values as text levels.")
        reset_if_invalid("data_type_column", features, features[0])
        t1, t2 = st.columns(2)
        column = t1.selectbox("Column", picker_options(features, [st.session_state["data_type_column"]]),
                              key="data_type_column", help=_wide_help(features).strip() or None,
                              persist_state="session")
        if st.session_state.get("data_type_for") != (frame_key, column):   # show the chosen column's own type
            st.session_state["data_type_for"] = (frame_key, column)
            st.session_state["data_type_value"] = overrides.get(column, "auto")
        t2.selectbox("Read it as", page_types(), key="data_type_value", format_func=type_label,
                     persist_state="session", on_change=_record_type, args=(frame_key, column))
        if overrides:
            st.caption("Your types: " + ", ".join(f"**{md(c)}** as {md(type_label(t))}" for c, t in overrides.items())
                       + ". Set a column back to *as read* to undo.")
    return type_overrides(frame_key) if base is not None else overrides


def _record_type(frame_key: str, column: str) -> None:
    set_type_override(frame_key, column, st.session_state["data_type_value"])


def choose_missing(base) -> str:
    """What a missing feature value becomes: a level of its own (the default) or a dropped row (with the count)."""
    n = rows_with_missing(base)
    if not n:
        return "level"
    labels = MISSING_LABELS | {"drop": f"drop those rows ({n:,} of {base.n_rows:,})"}
    return st.radio(f"Missing feature values ({n:,} row(s) have at least one)", list(labels), key="data_missing",
                    horizontal=True, format_func=labels.get, persist_state="session",
                    help="As a level of its own, 'missing' is one more code of the column (see the coding table); "
                         "dropping the rows keeps only complete rows.")


def show_messages(ds, method: str, bins: int) -> None:
    """The notes, then the warnings (the outlier sentences of the binning in use: Dataset.notes_for)."""
    if ds.notes:
        st.info("\n".join(f"- {md(n)}" for n in ds.notes))
    warnings = ds.notes_for(method, bins)[len(ds.notes):]
    if warnings:
        shown = warnings[:8]
        more = f"\n- ... and {len(warnings) - 8} more (see the flags column below)" if len(warnings) > 8 else ""
        st.warning("\n".join(f"- {md(w)}" for w in shown) + more)


def find_box(n_columns: int) -> str:
    """A search box over the column names when the table is too wide to list (ui.data.WIDE); the query."""
    if n_columns <= WIDE:
        return ""
    return st.text_input("Find columns by name", key=FIND, placeholder="part of a column name, e.g. w12",
                         help=f"The tables below list at most {WIDE} columns; type to find the others.").strip()


def shown_caption(shown: int, matches: int, total: int, query: str, what: str = "columns") -> None:
    if query:
        first = f"; showing the first {shown:,}" if shown < matches else ""
        st.caption(f"{matches:,} of {total:,} {what} match '{md(query)}'{first}.")
    elif shown < total:
        st.caption(f"Showing {shown:,} of {total:,} {what}. Type part of a name in **Find columns by name** to see "
                   "others.")


def show_preview(frame, ds, listed, exclude) -> None:
    """The first rows, target first (pinned) and left-out columns last; of a wide table (``listed``: the columns
    the table above lists), the target and PREVIEW_COLUMNS of the listed features. Folded, drawn only when opened:
    a third data grid on every visit, not the page's lesson (how each column is read and coded; issue 34.5)."""
    with st.expander("Preview: the first 50 rows", key="data.preview_open", on_change="rerun") as preview:
        if preview.open:
            _preview_table(frame, ds, listed, exclude)


def _preview_table(frame, ds, listed, exclude) -> None:
    left_out = [c for c in exclude if c in frame.columns]
    names, what = None, "every column"
    if listed is not None:
        names = listed.loc[listed["role"] == "feature", "column"].head(PREVIEW_COLUMNS).tolist()
        what = f"the target and {len(names)} of the {ds.n_features:,} feature columns (the first ones listed above)"
    shown_out = left_out if listed is None else left_out[:PREVIEW_COLUMNS]  # a wide table: some of them
    st.dataframe(preview_frame(frame, ds.target, names, shown_out), width="stretch", height=250, key="data_preview",
                 column_config=preview_columns(ds.target, shown_out))
    if len(left_out) == 1:
        last = "; the column left out of the features comes last, marked *left out*"
    elif left_out:
        some = f"the first {len(shown_out)} of " if len(shown_out) < len(left_out) else ""
        last = f"; {some}the {len(left_out):,} columns left out of the features come last, marked *left out*"
    else:
        last = ""
    st.caption(f"First 50 rows of {what}. The target **{md(ds.target)}** comes first, pinned at the left{last}.")


def show_dataset(frame, ds, encoded, name: str, method: str, bins: int, exclude=(), alerts=(), on_leave_out=None,
                 split=None) -> None:
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Rows", f"{ds.n_rows:,}")
    m2.metric("Features", f"{ds.n_features:,}")
    m3.metric("Target", ds.task)
    if ds.task == "binary":
        m4.metric(f"Positive rate ({md(ds.positive)})", f"{ds.positive_rate():.3f}")
    else:
        m4.metric("Classes" if ds.task == "multiclass" else "Distinct values", f"{len(ds.encoded_target.labels):,}")
    show_messages(ds, method, bins)
    if on_leave_out is not None:
        show_leaks(alerts, on_leave_out, "data_alerts")
    summary = ds.summary()
    query = find_box(len(summary))
    left, right = st.columns([2, 3])
    with left:
        if ds.task == "regression":
            values = ds.target_values.to_numpy(dtype=float)
            st.plotly_chart(target_histogram(values, ds.target), width="stretch", key="data_balance")
            st.caption(f"Histogram of the target's {len(np.unique(values)):,} distinct values. A real-valued target "
                       "takes the squared error; split it above (at the median, or into quantile classes) for the "
                       "classification measures.")
        else:
            st.plotly_chart(class_balance_figure(ds.class_balance(), ds.target), width="stretch", key="data_balance")
            st.caption("Rows per class of the target. A rare positive class makes the 0-1 error a poor guide "
                       "(always answering 'negative' already scores well); see the balanced and F-measures.")
        if split is not None and ds.target in frame.columns:   # the values and where they were cut
            cut = split_frame(frame, ds.target, split)[1]
            values = pd.to_numeric(frame[ds.target], errors="coerce").to_numpy(dtype=float)
            st.plotly_chart(target_histogram(values, ds.target, cut.cuts), width="stretch", key="data_split_chart")
            st.caption(md(cut.note) + " Dashed: where the values were cut.")
    with right:
        show_data_alerts(alerts)
    with right:
        st.markdown("**Columns** (how each was read, distinct and missing counts, an example; flags mark columns to "
                    "look at)")
        shown, matches = find_rows(summary, "column", query)
        st.dataframe(shown, hide_index=True, width="stretch", height=min(330, 35 * (len(shown) + 1) + 3),
                     key="data_summary")
        shown_caption(len(shown), matches, len(summary), query)
    show_preview(frame, ds, shown if len(summary) > WIDE else None, exclude)
    st.subheader("How the features are coded")
    st.markdown("Every measure in fslab works on counts of (feature cell, class), so every feature becomes a few "
                "integer codes: numeric columns are cut into bins, text columns keep their categories, columns "
                "with a few whole numbers stay as they are, and a missing value is a category of its own.")
    # drawn when opened: the rule's formula (KaTeX, ~300 elements), the codes table and a bin chart were a third of
    # what every click on this page drew (issue 34.5); the sentence above says what the coding does
    with st.expander("The coding rule, each binned column's histogram and every feature's codes",
                     key="data.coding_open", on_change="rerun") as coding:
        if not coding.open:
            return
        st.latex(FORMULAS[method])
        if method == "auto":
            st.latex(FORMULAS["quantile"])
            switched = [c.binning for c in encoded.plan.kept if c.binning] if encoded.plan is not None else []
            st.caption("Robust bins: mean-std (the first formula) for every numeric column, except where outliers "
                       "put 90% of a column's rows into one mean-std bin; those columns get quantile bins (the second) "
                       "when these crowd fewer rows. " + (" ".join(md(s) for s in switched) if switched else
                                                          "No column here is crowded that way: every one keeps "
                                                          "mean-std."))
        st.caption("Bins are closed on the left: a value equal to an edge goes to the upper bin." +
                   (" The standard deviation is the sample one (divide by m - 1), as in the paper's MATLAB code."
                    if method == "mean-std" else ""))
        binned = [c for c in binned_columns(encoded) if query.lower() in c.lower()][:WIDE]
        c1, c2 = st.columns([1, 1])
        with c2:
            codes = coding_table(encoded)
            shown_codes, matches = find_rows(codes, "feature", query)
            st.dataframe(shown_codes, hide_index=True, width="stretch",
                         height=min(330, 35 * (len(shown_codes) + 1) + 3), key="data_codes")
            shown_caption(len(shown_codes), matches, len(codes), query, "features")
        with c1:
            edges = None
            if binned:
                col = st.selectbox("Binned column", binned, key="data_bin_column")
                edges = column_edges(ds, col, method, bins)
            if edges is not None:
                values, edges = edges
                st.plotly_chart(bins_figure(values, edges, col, method), width="stretch", key="data_bins_chart")
                st.caption(f"Histogram of {md(repr(col))}; dashed lines are the {method} bin edges, and each row gets "
                           "the code of the bin it falls in.")
            elif query and not binned:
                st.caption(f"No binned column matches '{md(query)}'.")
            else:
                st.caption("No column of this data set is binned: every feature is already discrete.")


def apply_button(name: str, ds, encoded, signature: Applied, exclude: list[str], types=(),
                 missing: str = "level", split=None) -> None:
    if is_applied(name, signature):
        st.success(f"**{md(name)}** is the current dataset: the other pages use it.")
        return
    st.warning(f"The pages use **{md(state.get_dataset()[0])}**. Press the button to use this data instead.")
    if st.button("Use this dataset", key="data_use", type="primary"):
        apply(name, ds, encoded, signature, exclude, types, missing, split)
        st.rerun()


def dataset_label(name: str, sample: str | None, columns, target: str, positive, method: str, bins: int,
                  exclude=(), types=None, missing: str = "level", split=None) -> str:
    """What the sidebar calls the dataset: "mushroom (sample)", "patients.csv (outcome = sick; quantile, 5 bins;
    without id)"; the default binning (mean-std for a sample, robust "auto" for an upload) goes unsaid; columns whose
    type is "drop" (an alert's leave-out) count as left out."""
    details = []
    if split is not None:
        details.append(f"{target} split at the median" if split == "median" else
                       f"{target} in {split[1]} quantile classes" if isinstance(split, tuple) else
                       f"{target} > {value_name(split)}")
    elif not sample or target != sample_default_target(sample, columns) or \
            str(positive) != str(SAMPLES[sample].positive):
        details.append(target + (f" = {positive}" if positive is not None else ""))
    default = "mean-std" if sample else "auto"   # a sample's paper bins; an upload's robust bins
    if method != default or (method == "auto" and bins != 3):
        details.append("mean-std bins" if method == "mean-std" else f"{method}, {bins} bins")
    exclude = [*exclude, *(c for c, t in dict(types or {}).items() if t == "drop")]
    types = {c: t for c, t in dict(types or {}).items() if t != "drop"}
    if exclude:
        details.append("without " + (", ".join(exclude) if len(exclude) <= 3 else f"{len(exclude)} columns"))
    if types:
        details.append("types " + (", ".join(f"{c}={t}" for c, t in types.items()) if len(types) <= 3
                                   else f"of {len(types)} columns set"))
    if missing == "drop":
        details.append("rows with missing values dropped")
    base = f"{name} (sample" if sample else f"{name} ("
    if sample:
        return base + (f"; {'; '.join(details)})" if details else ")")
    return base + "; ".join(details) + ")"


def main() -> None:
    st.title("Data")
    read_aloud("data")
    st.markdown("fslab checks the table, names the class to predict, and turns every feature into a few integer "
                "codes: the criteria of the Bayes paper (Ahmed et al., 2015) are computed from the counts of each "
                "(feature values, class) pair.")
    st.latex(r"y=\begin{cases}1 & \text{target}=\text{positive class}\\ 0 & \text{otherwise}\end{cases}")
    name, encoded = state.get_dataset()
    applied = applied_current()  # set on this page earlier and still the current dataset
    sources = {"sample": "Sample data set", "upload": "Upload a CSV"}
    if applied is not None:
        sources = {"current": f"Current: {md(name)}"} | sources
    # an upload kept from an earlier visit and not in use opens again (ui.data.PENDING)
    reset_if_invalid("data_source", list(sources), "upload" if unused_upload() else next(iter(sources)))
    kind = st.radio("Data", list(sources), key="data_source", horizontal=True, format_func=sources.get)
    if kind == "current":
        st.success(f"**{md(name)}** is the current dataset: the other pages use it.")
        show_error()
        raw = state.get_dataset_raw()
        show_dataset(raw.to_frame(), raw, encoded, name, applied.method, applied.bins,
                     alerts=current_alerts(), on_leave_out=leave_out)
        return
    chosen = choose_frame(kind)
    if chosen is None:
        return
    frame, frame_key, name, sample = chosen.frame, chosen.key, chosen.name, chosen.sample
    try:
        options = choose_options(chosen)
        if options is None:   # no target chosen yet
            return
        target, positive, method, bins, base, exclude, types, missing, split = options
        choice = Choice(target, positive, method, bins, tuple(exclude), types_key(types), missing, split)
        # typed once for these choices (the inspected Dataset itself when they are its own); bins only rebin it
        ds, encoded = build(frame, frame_key, base, choice)
    except ColumnTypeError:
        return   # said above, with the column types to change
    except FslabError as err:
        st.error(md(err))
        return
    label = dataset_label(name, sample, frame.columns, target, positive, method, bins, exclude, types, missing, split)
    signature = Applied(frame_key, target, positive, method, bins, label)
    if chosen.upload is not None:
        remember_choice(frame_key.removeprefix("upload:"), choice._replace(label=label))
    if st.session_state.pop(APPLY_NOW, False):   # "Leave out <col> and rerun" on the data in use: use the result
        apply(label, ds, encoded, signature, exclude, types, missing, split)
    apply_button(label, ds, encoded, signature, exclude, types, missing, split)
    key = "|".join(map(str, (frame_key, *choice[:-1])))
    show_dataset(frame, ds, encoded, name, method, bins, exclude,
                 alerts=alerts_for(encoded, ds, key),
                 on_leave_out=partial(leave_out_here, where=(frame_key, is_applied(label, signature))), split=split)


APPLY_NOW = "data_apply_now"


def leave_out_here(columns, *, where) -> None:
    """An alert's button on this page: the column's type becomes "drop" (the page's own override, so the type
    table says *left out*), and the data in use follows at once if it was this data."""
    frame_key, in_use = where
    for c in columns:
        set_type_override(frame_key, c, "drop")
    st.session_state[APPLY_NOW] = in_use


main()
