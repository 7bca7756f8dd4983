"""Cached wrappers of the Home and Data pages: parse an upload, load a sample, build and encode a Dataset.

Uploads are cached on their bytes plus the options, so changing the positive class or the bins reruns only
what changed; those caches belong to the session (``UPLOAD_CACHE``) and hold at most two entries each.
Errors (FslabError) are not cached: the page catches them and shows the message.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from fslab.data import COLUMN_TYPES, Dataset
from fslab.data.discretize import bin_edges, check_method, numeric_values
from fslab.data.samples import SAMPLES, load_sample, sample_limits
from fslab.data.target import TargetSplit, split_target, split_text
from fslab.data.upload import (
    Upload,
    WithKinds,
    bare_codes,
    read_upload,
    registered_kinds,
    typed_dataset,
    with_raw,
)
from fslab.errors import FslabError
from fslab.limits import LIMITS

from . import state
from .cache import sample_encoded
from .heavy import run_in_worker
from .share import data_page_spec

ALL_CLASSES = "(keep all classes)"
# gisette-like is a synthetic 6,000 x 5,000 timing generator (bench/, fslab.load_sample), not data to explore here
APP_SAMPLES = [name for name in SAMPLES if name != "gisette-like"]
HIDDEN_NOTE = ("Not listed: gisette-like, a synthetic 6,000 x 5,000 table for timing experiments; load it in "
               "Python with `fslab.load_sample('gisette-like')`.")
WIDE = 200  # column tables and pickers show at most this many columns; a search box finds the others
PREVIEW_COLUMNS = 30  # the preview of a wide table: the target and this many feature columns
# the Applied choices behind the dataset set by "Use this dataset"
APPLIED = "fslab.data.applied"


class Applied(NamedTuple):
    """What the Data page's "Use this dataset" applied (ui.share.data_page_spec reads it as this 6-tuple)."""

    frame_key: str   # "upload:<sha256>" or "sample:<name>"
    target: str
    positive: str | None
    method: str
    bins: int
    label: str       # the dataset's name in the sidebar


# An upload's parsed table, Dataset and codes live in its session only (``scope="session"``: Streamlit drops them
# when the session disconnects), at most UPLOAD_ENTRIES per function, so a new upload replaces the older ones and one
# user's 50 MiB file never stays in the server after its tab closes. Shipped samples are shared (``SAMPLE_ENTRIES``).
UPLOAD_ENTRIES = 2
UPLOAD_CACHE = {"scope": "session", "max_entries": UPLOAD_ENTRIES, "max_size": f"{LIMITS.cache_mb}MB"}


def _in_session() -> bool:
    """True inside a Streamlit script run (a session-scoped cache needs one; a bare call just computes)."""
    return get_script_run_ctx(suppress_warning=True) is not None


def isolated(fn, *args):
    """``fn(*args)`` in a worker process capped by the server's LIMITS (``max_parse_mb``, ``max_parse_seconds``):
    what a hostile file costs to read, decompress or type is spent there, a breach is a clean limit error, the
    server's GIL stays free for the other sessions (ui.heavy.run_in_worker, fslab.limited). The column types
    registered in this process travel with the job (fslab.data.upload.WithKinds)."""
    return run_in_worker(WithKinds(fn, registered_kinds()), *args, caps=LIMITS)


def _read(digest: str, _data: bytes) -> Upload:
    return isolated(read_upload, _data, LIMITS)


# The worker's answer is kept as it arrived (a resource: st.cache_data would pickle it into the cache and unpickle a
# copy on every rerun, 120 MB each for a 45 MB upload), in this session only, at most UPLOAD_ENTRIES of them. Its key
# is the bytes' SHA-256, not the bytes (Streamlit's hasher copies bytes it hashes: 45 MB more on every rerun).
_upload = st.cache_resource(show_spinner="Reading the file...", scope="session", max_entries=UPLOAD_ENTRIES)(_read)


def upload(data: bytes) -> Upload:
    """The uploaded bytes read (fslab.read_table: delimiter sniffing, checks) within the server's LIMITS (the library
    applies none by default), their target guessed and the Dataset typed for it, all in a capped worker process
    (:func:`isolated`); cached in this session only, not copied (:data:`_upload`)."""
    import hashlib  # (imported here: the top of this module is the rest of the page's)

    return _upload(hashlib.sha256(data).hexdigest(), data) if _in_session() else read_upload(data, LIMITS)


def share_uploaded_bytes() -> None:
    """Make the copy of an uploaded file that ``st.file_uploader`` returns on every run share the file's bytes.

    Streamlit returns ``copy.deepcopy`` of the widget's value (so user code cannot change it); an ``UploadedFile`` is
    a ``BytesIO``, whose deep copy writes its bytes into a new buffer: 45 MB more on every rerun of the Data page
    for a 45 MB file, kept by the allocator after it is freed, and one more held by the kept upload (:data:`PENDING`).
    A ``BytesIO`` made from bytes shares them until it is written to (CPython's copy-on-write), so a copy made that
    way is just as safe from user code and costs nothing: ``getvalue()`` of it is the file manager's own bytes
    object. Installed once per process (idempotent); a Streamlit whose class defines its own ``__deepcopy__`` is
    left alone."""
    import copy
    import io

    from streamlit.runtime.uploaded_file_manager import UploadedFile

    if "__deepcopy__" in vars(UploadedFile):
        return

    def __deepcopy__(self, memo):   # noqa: N807 (the copy protocol's name)
        twin = type(self).__new__(type(self))
        io.BytesIO.__init__(twin, self.getvalue())   # shared until written to
        twin.__dict__.update(copy.deepcopy(self.__dict__, memo))
        twin.seek(self.tell())
        return twin

    UploadedFile.__deepcopy__ = __deepcopy__   # type: ignore[attr-defined]


def upload_frame(data: bytes) -> pd.DataFrame:
    """The uploaded bytes parsed as a table (:func:`upload`)."""
    return upload(data).frame


# A sample's table, typed Dataset and codes are resources shared by every session (as ui.cache.sample_encoded is):
# st.cache_data unpickled a copy on every rerun of the Data page, in every session (PCMAC: 0.185 of a rerun's 0.22 s
# of CPU). Nothing changes them: the page derives new frames (drop, assign) and Datasets from them. SAMPLE_ENTRIES
# per function bounds their memory (the widest sample, BASEHOCK, is ~90 MB typed).
SAMPLE_ENTRIES = 4


@st.cache_resource(show_spinner="Loading sample data...", max_entries=SAMPLE_ENTRIES)
def sample_frame(name: str) -> pd.DataFrame:
    """A sample as one raw table (features and target column), so it can be re-targeted like an upload."""
    return load_sample(name).to_frame()


def sample_default_target(name: str, columns) -> str:
    """The sample's own target column, else the last column."""
    target = SAMPLES[name].target
    return target if target in columns else str(list(columns)[-1])


def _typed(_frame: pd.DataFrame, frame_key: str, target: str, types: tuple = (), positive=None,
           missing: str = "level", near_unique: str = "drop") -> Dataset:
    limits = frame_limits(_frame, frame_key)
    if frame_key.startswith("sample:"):
        return typed_dataset(_frame, target, types, limits, positive, missing, near_unique)
    return isolated(typed_dataset, _frame, target, types, limits, positive, missing, near_unique)


def _codes(_ds: Dataset, ds_key: tuple, method: str, bins: int):
    return _ds.discretize(method, bins)


def _upload_codes(_ds: Dataset, ds_key: tuple, method: str, bins: int):
    """An upload's codes, made in the capped worker (:func:`isolated`): binning 199,000 x 24 floats allocates about
    its table again (quantiles sort a copy of each column block), spent there; the codes come back without the raw
    features, which are this process's own again (:func:`fslab.data.upload.with_raw`)."""
    return with_raw(_ds, isolated(bare_codes, _ds, method, bins))


_typed_sample = st.cache_resource(show_spinner="Checking the data...", max_entries=SAMPLE_ENTRIES)(_typed)
# an upload's Dataset and codes are session resources, as its parsed table is (_upload): st.cache_data pickled the
# codes with their raw features (45-67 MB for a 45 MB upload) and unpickled a copy on every rerun of the page
_typed_upload = st.cache_resource(show_spinner="Checking the data...", scope="session",
                                  max_entries=UPLOAD_ENTRIES)(_typed)
_codes_sample = st.cache_resource(show_spinner="Discretising...", max_entries=SAMPLE_ENTRIES)(_codes)
_codes_upload = st.cache_resource(show_spinner="Discretising...", scope="session",
                                  max_entries=UPLOAD_ENTRIES)(_upload_codes)


def _plain_typed(_frame, frame_key, target, types=(), positive=None, missing="level", near_unique="drop"):
    return typed_dataset(_frame, target, types, frame_limits(_frame, frame_key), positive, missing, near_unique)


def _cached(frame_key: str, sample_fn, upload_fn, plain_fn):
    """Shared cache for a shipped sample, this session's bounded cache for an upload, none outside a session."""
    if frame_key.startswith("sample:"):
        return sample_fn
    return upload_fn if _in_session() else plain_fn


def inspect(frame: pd.DataFrame, frame_key: str, target: str, types: tuple = (), known: Dataset | None = None
            ) -> Dataset:
    """The Dataset with the default positive class and the column types read (``types``: the user's overrides as
    (column, type) pairs): tells the page the task, the class names and the near-unique columns (``left_out``).
    ``known``: the Dataset the upload's worker typed for its guessed target (:class:`fslab.data.upload.Upload`),
    used as it is when it was typed for this target without overrides (an upload is typed once)."""
    if known is not None and known.target == target and not types:
        return known
    return _cached(frame_key, _typed_sample, _typed_upload, _plain_typed)(frame, frame_key, target, types)


def split_frame(frame: pd.DataFrame, target: str, split) -> tuple[pd.DataFrame, TargetSplit]:
    """``frame`` with its numeric ``target`` cut into classes (:func:`fslab.data.target.split_target`, the rule of
    ``Dataset.from_frame(target_split=...)``), and the split (its positive class and note)."""
    cut = split_target(frame[target].dropna(), target, split)
    labels = pd.Series(pd.NA, index=frame.index, dtype=object)
    labels.loc[cut.labels.index] = cut.labels.to_numpy()
    return frame.assign(**{target: labels}), cut


def prepared(frame: pd.DataFrame, frame_key: str, base: Dataset, positive, exclude=(), types: tuple = (),
             missing: str = "level", split=None) -> Dataset:
    """The Dataset of the page's choices: ``base`` (:func:`inspect`'s) itself when the choices are its own (the
    default positive class, the near-unique columns left out and nothing else, missing values as a level, the
    target as it is), else ``frame`` without ``exclude`` typed again with those choices (near-unique columns kept:
    the page left out what it meant to); ``split``: a numeric target cut into classes (:func:`split_frame`)."""
    default = positive is None or str(positive) == str(base.positive)
    if default and missing == "level" and set(exclude) == set(base.left_out) and split is None:
        return base
    kept = frame.drop(columns=list(exclude)) if exclude else frame
    key = frame_key + (f"|without:{sorted(exclude)}" if exclude else "")
    if split is not None:
        kept, cut = split_frame(kept, base.target, split)
        key += f"|split:{split!r}"
        positive = cut.positive if positive is None else positive
    return _cached(frame_key, _typed_sample, _typed_upload, _plain_typed)(kept, key, base.target, types, positive,
                                                                         missing, "keep")


def codes(ds: Dataset, ds_key: tuple, method: str, bins: int):
    """``ds.discretize(method, bins)``, cached on ``ds_key`` (what built ``ds``): a binning change rebins the typed
    Dataset, never retypes it."""
    if not _in_session():
        return ds.discretize(method, bins)
    return (_codes_sample if ds_key[0].startswith("sample:") else _codes_upload)(ds, ds_key, method, bins)


# The Data page's column-type overrides: {frame_key: {column: type}} in the session (a plain key, so it outlives a
# visit to another page). "drop" is what an alert's "Leave out <col> and rerun" sets (ui.alerts_view).
TYPE_OVERRIDES = "fslab.data.column_types"
TYPE_LABELS = {"auto": "as read (automatic)", "number": "number", "date": "date or timestamp",
               "percent": "percentage", "boolean": "yes/no", "category": "categories (text levels)",
               "drop": "left out (not a feature)"}
MISSING_LABELS = {"level": "a level of its own ('missing')", "drop": "drop those rows"}


def page_types() -> list[str]:
    """The column types the page offers: fslab's built-in ones and any registered since the server started
    (:func:`fslab.data.parse_rules.register`), read on every run (COLUMN_TYPES is live)."""
    return list(COLUMN_TYPES)


def type_label(kind: str) -> str:
    """A type's words in the page's list: TYPE_LABELS, or a registered kind's values and unit ("durations, in
    minutes")."""
    from fslab.data.parse_rules import EXTRA

    if kind in TYPE_LABELS:
        return TYPE_LABELS[kind]
    extra = EXTRA.get(kind)
    return f"{extra.what}, in {extra.unit}" if extra is not None else kind


def type_overrides(frame_key: str) -> dict[str, str]:
    """The user's column types for this data ({column: type}; empty when none)."""
    return dict(st.session_state.get(TYPE_OVERRIDES, {}).get(frame_key, {}))


def set_type_override(frame_key: str, column: str, kind: str) -> None:
    """Record (or, for "auto", forget) the type of ``column``; other data keep theirs."""
    every = dict(st.session_state.get(TYPE_OVERRIDES, {}))
    mine = dict(every.get(frame_key, {}))
    if kind == "auto":
        mine.pop(column, None)
    else:
        mine[column] = kind
    every[frame_key] = mine
    st.session_state[TYPE_OVERRIDES] = every


def types_key(overrides: dict[str, str]) -> tuple:
    """The overrides as sorted (column, type) pairs: hashable, for the caches."""
    return tuple(sorted(overrides.items()))


def rows_with_missing(ds: Dataset) -> int:
    """Rows with a missing value in any feature column."""
    return int(ds.features.isna().any(axis=1).sum()) if ds.n_features else 0


def frame_limits(frame: pd.DataFrame, frame_key: str):
    """Uploads get the server's LIMITS; a shipped sample always fits (fslab.samples.sample_limits)."""
    return sample_limits(frame) if frame_key.startswith("sample:") else LIMITS


def positive_options(ds: Dataset, preferred=None) -> tuple[list[str], int]:
    """Options of the positive-class selectbox for a dataset built with positive=None, and the default index
    (``preferred`` if it is one of the classes, e.g. a sample's positive class; else fslab's default)."""
    t = ds.encoded_target
    if t.task == "binary":
        options = list(t.class_names)
    elif t.task == "multiclass":
        options = [ALL_CLASSES, *t.class_names]
    else:
        return [], 0
    if preferred is not None and str(preferred) in options:
        return options, options.index(str(preferred))
    return options, options.index(t.positive) if t.positive in options else 0


def is_applied(name: str, signature: Applied) -> bool:
    """Whether the data set ``name`` built from ``signature`` is the current dataset: a sample by its name, an
    upload only if this page applied the same choices."""
    return state.get_dataset()[0] == name and (signature.frame_key.startswith("sample:")
                                               or st.session_state.get(APPLIED) == signature)


def apply(name: str, ds: Dataset, encoded, signature: Applied, exclude: list[str], types=None,
          missing: str = "level", split=None) -> None:
    """Make the Data page's choice the current dataset, with the descriptor a link or recipe names it by, and
    remember the choices that built it (APPLIED). ``split``: how a numeric target was cut into classes, recorded as
    the descriptor's ``target_split`` text ("median", "12.5", "q3": fslab.data.target.split_text / parse_split)."""
    spec = data_page_spec(signature, ds.task)
    pending = pending_upload()
    if spec is not None and "file" in spec and pending is not None and spec.get("sha256") == pending.sha256:
        spec = spec | {"file": pending.name}   # the uploader is empty when the upload was kept from an earlier visit
        st.session_state[PENDING] = pending._replace(used=True)
    if split is not None and spec is not None:
        spec = spec | {"target_split": split_text(split)}
    if exclude and spec is not None:  # links and recipes carry the exclusions, the column types and the missing rule
        spec = spec | {"exclude": list(exclude)}
    kept_types = [f"{c}={t}" for c, t in dict(types or {}).items() if c not in (exclude or ())]
    if kept_types and spec is not None:
        spec = spec | {"types": kept_types}
    if missing != "level" and spec is not None:
        spec = spec | {"missing": missing}
    state.set_dataset(name, encoded, ds, spec=spec)
    st.session_state[APPLIED] = signature


def applied_current() -> Applied | None:
    """The choices behind the current dataset when this page set it and it is still current (an upload is gone
    once the page is left, so the page offers it again as "Current"), else None."""
    current = state.current_data()
    applied = st.session_state.get(APPLIED)
    if current is None or current.raw is None or getattr(applied, "label", None) != current.name:
        return None
    return applied


def without_label(name: str, columns) -> str:
    """The sidebar's name of a dataset with ``columns`` left out: "loan.csv (approve = 1; without action)"."""
    gone = ", ".join(columns)
    return f"{name[:-1]}; without {gone})" if name.endswith(")") else f"{name} (without {gone})"


def leave_out_current(columns) -> str | None:
    """Rebuild the current dataset without ``columns`` (column type "drop", so its descriptor, and so a link or
    recipe, carries them as ``types``) and make it current; the Data page's overrides for the same data learn the
    drop too. Built from the current raw Dataset (what the page typed: its target, positive class, missing-value
    rule and split are kept) or, for a plain sample, from the sample. Returns why it could not, or None."""
    data = state.current_data()
    spec = dict(data.spec or {}) if data is not None else {}
    if data is None or not spec or "toy_sample" in spec or ("sample" not in spec and data.raw is None):
        return ("This data cannot be rebuilt here (rows drawn from a toy distribution, or data without its table); "
                "leave the column out on the Data page.")
    types = dict(item.rsplit("=", 1) for item in spec.get("types", ()))
    types |= {c: "drop" for c in columns}
    raw = data.raw if data.raw is not None else load_sample(spec["sample"])
    frame = raw.to_frame()
    missing_cols = [c for c in columns if c not in frame.columns]
    if missing_cols:
        return f"{', '.join(missing_cols)} is not a column of the current data."
    kept = {c: t for c, t in types.items() if c in frame.columns and c != raw.target}
    try:
        ds = Dataset.from_frame(frame, raw.target, positive=raw.positive if raw.task == "binary" else None,
                                limits=frame_limits(frame, "sample:" if "sample" in spec else "upload:"),
                                column_types=kept, near_unique="keep",
                                constant=frame.attrs.get("fslab_constant", "drop"))
        encoded = ds.discretize(spec.get("method", "mean-std"), spec.get("bins", 3))
    except FslabError as err:
        return f"Could not leave out {', '.join(columns)}: {err}"
    new = spec | {"types": [f"{c}={t}" for c, t in types.items()]}
    name = without_label(data.name, columns)
    state.set_dataset(name, encoded, ds, spec=new)
    frame_key = f"sample:{spec['sample']}" if "sample" in spec else f"upload:{spec.get('sha256', '')}"
    for c in columns:
        set_type_override(frame_key, c, "drop")
    applied = st.session_state.get(APPLIED)
    if applied is not None and applied.label == data.name:
        st.session_state[APPLIED] = applied._replace(label=name)
    return None


# An upload kept in the session (its bytes, name and hash) until another replaces it, so it survives a visit to
# another page before "Use this dataset" (a file_uploader forgets its file when its page is left); ``used`` once
# it was applied; ``choices``: the Data page's last choices for it (a Choice), which "Use it" on another page applies.
PENDING = "fslab.data.pending_upload"


class Choice(NamedTuple):
    """The Data page's choices for one table: what :func:`build` needs to make its Dataset and codes again."""

    target: str
    positive: str | None
    method: str
    bins: int
    exclude: tuple[str, ...] = ()
    types: tuple = ()        # (column, type) pairs
    missing: str = "level"
    split: object = None     # None, "median", a number or ("quantiles", q)
    label: str = ""


class Pending(NamedTuple):
    name: str
    data: bytes
    sha256: str
    used: bool = False
    choice: Choice | None = None


def remember_upload(name: str, data: bytes, sha256: str) -> None:
    """Keep this upload in the session (a new file replaces the one kept before)."""
    old = pending_upload()
    if old is None or old.sha256 != sha256:
        st.session_state[PENDING] = Pending(name, data, sha256)


def pending_upload() -> Pending | None:
    return st.session_state.get(PENDING)


def remember_choice(sha256: str, choice: Choice) -> None:
    old = pending_upload()
    if old is not None and old.sha256 == sha256 and old.choice != choice:
        st.session_state[PENDING] = old._replace(choice=choice)


def unused_upload() -> Pending | None:
    """The kept upload when it is not the current dataset and was never applied (app.py says so on every page)."""
    pending = pending_upload()
    spec = state.get_dataset_spec() or {}
    if pending is None or pending.used or spec.get("sha256") == pending.sha256:
        return None
    return pending


def build(frame: pd.DataFrame, frame_key: str, base: Dataset, choice: Choice):
    """(Dataset, codes) of ``choice`` on ``frame`` (the Data page's pipeline: typed once for these choices, then
    binned)."""
    types = tuple(choice.types)
    ds = prepared(frame, frame_key, base, choice.positive, list(choice.exclude), types, choice.missing, choice.split)
    key = (frame_key, choice.target, choice.positive, tuple(sorted(choice.exclude)), types, choice.missing,
           repr(choice.split))
    return ds, codes(ds, key, choice.method, choice.bins)


def use_pending() -> str | None:
    """Apply the kept upload with the Data page's last choices for it (or, never opened there, its target guess
    when sure and the defaults); returns why it could not, or None."""
    pending = pending_upload()
    if pending is None:
        return "No upload is kept in this session."
    read = upload(pending.data)
    frame_key = "upload:" + pending.sha256
    choice = pending.choice
    if choice is None:
        if not read.guess.sure:
            return f"{pending.name}: choose the column to predict on the Data page first."
        choice = Choice(read.guess.column, None, "mean-std", 3, tuple(read.base.left_out),
                        label=f"{pending.name} ({read.guess.column})")
    try:
        base = inspect(read.frame, frame_key, choice.target, tuple(choice.types), read.base)
        ds, encoded = build(read.frame, frame_key, base, choice)
    except FslabError as err:
        return f"{pending.name}: {err}"
    apply(choice.label, ds, encoded, Applied(frame_key, choice.target, choice.positive, choice.method, choice.bins,
                                             choice.label), list(choice.exclude), dict(choice.types), choice.missing,
          choice.split)
    return None


def use_sample(name: str) -> None:
    """Make sample ``name`` (paper encoding, default discretisation) the current dataset of the session."""
    state.set_dataset(f"{name} (sample)", sample_encoded(name), None, spec={"sample": name})


def column_edges(ds: Dataset, column: str, method: str, bins: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(values, inner bin edges) of a numeric feature column, or None when it is not binned."""
    method, bins = check_method(method, bins)
    values = numeric_values(ds.features[column])
    if values is None:
        return None
    finite = values[~np.isnan(values)]
    if finite.size == 0:
        return None
    return values, bin_edges(finite, method, bins)


def coding_table(encoded) -> pd.DataFrame:
    """One row per feature: number of codes and their names (bins or categories), for the page's table."""
    cats = encoded.categories or ()
    return pd.DataFrame({
        "feature": list(encoded.feature_names),
        "codes": [len(c) for c in cats],
        "values": [", ".join(c[:8]) + (", ..." if len(c) > 8 else "") for c in cats],
    })


def find_rows(table: pd.DataFrame, column: str, query: str, limit: int = WIDE) -> tuple[pd.DataFrame, int]:
    """The first ``limit`` rows of ``table`` whose ``column`` contains ``query`` (plain text, any case), and how
    many rows match."""
    if query:
        table = table[table[column].astype(str).str.contains(query, case=False, regex=False).to_numpy(bool)]
    return table.head(limit), len(table)


FIND = "data_find"  # the Data page's "Find columns by name" box (drawn below the pickers; its last query is read)


def picker_options(columns: list[str], keep=(), query: str | None = None, limit: int = WIDE) -> list[str]:
    """The options of a column picker: every column of a table of at most ``limit`` columns; of a wider one, the
    chosen columns ``keep`` and the first ``limit`` whose name contains the "Find columns by name" query (plain
    text, any case; the page's box when ``query`` is None), in the table's order. Every option is sent and
    handled by the browser on every run of the page: PCMAC's 3,290 and BASEHOCK's 4,863 per picker were most of
    the wide Data page's main-thread time."""
    if len(columns) <= limit:
        return list(columns)
    query = str(st.session_state.get(FIND, "") or "").strip() if query is None else query
    names = pd.Index(columns, dtype=object)
    hits = np.flatnonzero(np.asarray(names.str.contains(query, case=False, regex=False), dtype=bool))[:limit]
    wanted = np.zeros(len(names), dtype=bool)
    wanted[hits] = True
    wanted |= names.isin([c for c in keep if c is not None])
    return names[wanted].tolist()


def binned_columns(encoded) -> list[str]:
    """Features cut into bins: their first code is an interval "(-inf, ...)" (fslab.discretize.bin_names)."""
    return [n for n, c in zip(encoded.feature_names, encoded.categories or (), strict=False)
            if c and str(c[0]).startswith("(-inf")]


def preview_frame(frame: pd.DataFrame, target: str, names: list[str] | None = None, excluded=(),
                  rows: int = 50) -> pd.DataFrame:
    """The first ``rows`` rows with the target column first, then the feature columns ``names`` (every other column
    when None), then the ``excluded`` columns (left out of the features) last."""
    left_out = [c for c in excluded if c in frame.columns and c != target]
    if names is None:
        names = [c for c in frame.columns if c != target]
    keep = ([target] if target in frame.columns else []) + [n for n in names if n != target and n not in left_out]
    return frame.head(rows).loc[:, keep + left_out]   # the rows first: .loc on the whole table copies it


def preview_columns(target: str, excluded=()) -> dict:
    """column_config of the preview: the target pinned at the left and labelled as the target; left-out columns
    labelled as such, so a wide table still shows what is predicted and what is not used."""
    config = {target: st.column_config.Column(f"{target} (target)", pinned=True, help="The column to predict")}
    return config | {c: st.column_config.Column(f"{c} (left out)", help="Not a feature: left out above")
                     for c in excluded if c != target}
