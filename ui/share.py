"""Shareable views: the URL query string and recipe files (fslab.recipe) restored into and published from
the session. app.py calls :func:`restore` before ``nav.run()`` and :func:`publish` after it."""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import NoReturn
from urllib.parse import urlencode, urlsplit

import streamlit as st

from fslab.data.samples import SAMPLES
from fslab.errors import FslabError
from fslab.limits import server_limits
from fslab.measures import MEASURES, PARAMETERS, SCORABLE, supported_measures
from fslab.pena_nilsson.toy import PRESETS
from fslab.recipe import (
    ALL_CLASSES,
    CHOICES,
    Recipe,
    RecipeError,
    load_dataset,
    load_distribution,
    load_table,
    plain_sample,
    sha256_hex,
)
from fslab.selectors import SELECTORS

from . import page_plan, state
from .cache import sample_encoded
from .cost_matrix import GRID, offered_measures
from .link_pages import LINK_PAGES
from .names import UNIFORM_NAME
from .pages import PAGES
from .selection import OWN_DEFAULTS, data_key, own_data_key, selector_options
from .text import md
from .toy import install

DEFAULT_PRESET = "bayes-example-1"   # the distribution every session starts with (ui.source)
UNIFORM_SPEC = {"sample": "uniform", "method": "uniform", "bins": 3}  # the NPFS page's D_uni button
PUBLISHED = "fslab.share.published"  # the query string the app last wrote (or restored)
PENDING = "fslab.share.pending"      # (Recipe, file bytes) to apply before the next run draws its widgets
LOADED = "fslab.share.loaded"        # hash of the recipe upload already applied
PARSED = "fslab.share.parsed"        # (hash, Recipe or its RecipeError) of the recipe file the uploader holds
AWAITING = "fslab.share.awaiting"    # a link's Recipe on an uploaded file the session has not been given yet
DIST_MEMO = "fslab.share.dist_memo"  # (Distribution, its recipe entry): computed once per distribution object
BOX = "fslab.share.box"              # this run's LinkBox (the share box's link to copy), for stop()
OPEN_KEY = "share.open"              # the sidebar's share box is open (its content is drawn only then)
LINK_KEY = "share_link"              # the container of the link to copy (its CSS class: st-key-share_link)
DIST_NOTE = "fslab.share.dist_note"  # (recipe entry, why a recipe cannot hold it or None): checked once per entry
DATA_FILE_TYPES = ["csv", "txt", "tsv", "gz", "parquet"]  # what the Data page takes (fslab.read_table reads them all)


def prefix(page: str) -> str:
    """The start of the page's widget keys: ``<prefix>.<choice name>`` (its ui.link_pages.LINK_PAGES record)."""
    return LINK_PAGES[page].prefix


def page_of(nav, recipe_pages: dict) -> str | None:
    """The recipe page id (fslab.recipe.PAGES) of the page st.navigation chose; None for Home and Data."""
    if not st.runtime.exists():  # app.py imported outside `streamlit run` (e.g. by a worker process)
        return None
    return next((pid for pid, page in recipe_pages.items() if page.url_path == nav.url_path), None)


# --- what the session holds, as recipe parts ------------------------------------------------------------

@st.cache_data(max_entries=1, show_spinner=False)
def _preset_json() -> dict[str, str]:
    return {name: p.factory().to_json() for name, p in PRESETS.items()}


def distribution_spec() -> dict | None:
    """The session's toy distribution as a recipe entry: a preset when it is one, else its JSON (for one loaded
    from a recipe, the recipe's own entry: re-serialising normalised probabilities can make it several times
    larger). Memoised per distribution object, so a large one is not serialised on every run."""
    _, dist = state.get_distribution()
    if dist is None:
        return None
    memo = st.session_state.get(DIST_MEMO)
    if memo is not None and memo[0] is dist:
        return memo[1]
    text = dist.to_json()
    spec = next(({"preset": name} for name, preset_text in _preset_json().items() if text == preset_text),
                {"json": json.loads(text)})
    st.session_state[DIST_MEMO] = (dist, spec)
    return spec


def _distribution_note(spec: dict) -> str | None:
    """Why the session's custom distribution cannot go into a recipe (its JSON is over the size limit), else None.
    It was built (from a recipe or on the Toy page), so its size is the one thing left to check; once per entry."""
    memo = st.session_state.get(DIST_NOTE)
    if memo is not None and memo[0] is spec:
        return memo[1]
    size = len(json.dumps(spec["json"]).encode())
    max_bytes = server_limits().max_json_bytes
    note = None if size <= max_bytes else (
        f"the toy distribution ({size:,} bytes as JSON; a recipe holds at most {max_bytes:,}: "
        "FSLAB_MAX_JSON_BYTES)")
    st.session_state[DIST_NOTE] = (spec, note)
    return note


def data_spec() -> dict | None:
    """The data descriptor of the current dataset (recorded by ui.state.set_dataset), None when unknown."""
    spec = state.get_dataset_spec()
    if spec is None and state.get_dataset()[0] == UNIFORM_NAME:
        return dict(UNIFORM_SPEC)
    return spec


def data_page_spec(signature: tuple, task: str) -> dict | None:
    """The descriptor of what the Data page's "Use this dataset" sets; ``signature`` is its
    (frame_key, target, positive, method, bins, label) and ``task`` the target's task."""
    frame_key, target, positive, method, bins, _ = signature
    kind, _, ref = frame_key.partition(":")
    if positive is None and task == "multiclass":
        positive = ALL_CLASSES
    spec: dict = {"method": method, "bins": int(bins)} if method != "mean-std" else {}
    if kind == "sample":
        if target != SAMPLES[ref].target:
            spec["target"] = target
        if positive is not None and ("target" in spec or str(positive) != str(SAMPLES[ref].positive)):
            spec["positive"] = str(positive)
        return {"sample": ref} | spec
    upload = st.session_state.get("data_upload")
    name = getattr(upload, "name", None) or "uploaded.csv"
    return {"file": name, "sha256": ref, "target": target} | spec | (
        {"positive": str(positive)} if positive is not None else {})


def current_choices(page: str) -> dict:
    """The page's widget values that matter for what it shows, by short name."""
    pre = prefix(page)
    choices = {name: st.session_state[f"{pre}.{name}"] for name in CHOICES[page]
               if f"{pre}.{name}" in st.session_state}
    selector = SELECTORS.get(choices.get("selector"))
    if selector is not None and selector.fixed_measure:
        choices["measure"] = selector.fixed_measure
    if selector is not None and not selector.uses_measure and page != "select":  # Select judges any pick by it
        choices.pop("measure", None)
    if not choices.get("use_s"):
        choices.pop("s", None)
    chosen = {choices.get("measure"), *choices.get("measures", ())}  # By measure: several measures at once
    for name, (_, measures) in PARAMETERS.items():  # a parameter only while a chosen measure takes it
        if not chosen & set(measures):
            choices.pop(name, None)
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in choices.items()}


def current_recipe(page: str) -> tuple[Recipe, list[str]]:
    """The recipe of the view on screen, and what it had to leave out: choices the recipe refuses (a stale
    value) and a toy distribution it cannot carry (over the JSON size limit). Never raises."""
    data, dist, choices = data_spec(), distribution_spec(), current_choices(page)
    custom = dist is not None and "json" in dist
    too_large = _distribution_note(dist) if custom else None
    left_out = [too_large] if too_large else []
    if too_large and data is not None and "toy_sample" in data:  # rows of a distribution the recipe cannot hold
        data = None
        left_out.append("the rows sampled from it")
    try:  # a custom distribution is not parsed again on every run (a large one took ~0.7 s): added below
        recipe = Recipe(page, data, None if custom else dist, choices)
    except RecipeError as err:
        left_out.append(f"the page's settings ({err})")
        try:
            recipe = Recipe(page, data, None if custom else dist, {})
        except RecipeError:
            return Recipe(page), [f"the data and settings ({err})"]
    if custom and too_large is None:  # built, so valid, and its size checked above
        object.__setattr__(recipe, "distribution", dist)
    return recipe, left_out


# --- restoring --------------------------------------------------------------------------------------------

@st.cache_data(max_entries=8, show_spinner="Loading the shared data...")
def _recipe_dataset(data_json: str, dist_json: str | None):
    """(encoded, raw Dataset or None) of a sample or toy-sample descriptor (a file's bytes are not cached)."""
    data = json.loads(data_json)
    if "toy_sample" in data:
        return load_dataset(data, distribution=json.loads(dist_json) if dist_json else None), None
    raw = load_table(data)
    return raw.discretize(data.get("method", "mean-std"), data.get("bins", 3)), raw


def data_label(spec: dict) -> str:
    """What the sidebar calls a dataset a recipe loaded."""
    if "toy_sample" in spec:
        return (f"{state.get_distribution()[0]}: {spec['toy_sample']['m']:,} sampled rows "
                f"(seed {spec['toy_sample']['seed']})")
    details = [spec["target"] if "target" in spec else "", spec.get("positive", "")]
    details = [" = ".join(d for d in details if d)] if any(details) else []
    if spec.get("method", "mean-std") != "mean-std":
        details.append(f"{spec['method']}, {spec.get('bins', 3)} bins")
    if "sample" in spec:
        return f"{spec['sample']} (sample" + (f"; {'; '.join(details)})" if details else ")")
    return f"{spec['file']}" + (f" ({'; '.join(details)})" if details else "")


def _load_data(spec: dict, file_bytes: bytes | None):
    """(encoded dataset, raw Dataset) as the Data page makes them: the raw table (what re-binning and the binning
    check read) for an uploaded file, so a link's receiver runs the same checks as its sender; None for a plain
    sample (``ui.compare.raw_dataset`` loads it when needed) and rows drawn from a toy distribution."""
    if "file" in spec:
        raw = load_table(spec, file_bytes)
        try:
            return raw.discretize(spec.get("method", "mean-std"), spec.get("bins", 3)), raw
        except FslabError as err:
            raise RecipeError(f"the recipe's data cannot be loaded: {err}") from None
    if plain_sample(spec):  # as Home loads it (fslab.recipe's rule): one cache
        return sample_encoded(spec["sample"], spec.get("method", "mean-std"), spec.get("bins", 3)), None
    dist = distribution_spec() if "toy_sample" in spec else None
    return _recipe_dataset(json.dumps(spec, sort_keys=True), json.dumps(dist) if dist else None)


def _target_words(source) -> str:
    if getattr(source, "task", None) == "regression":
        return "real-valued target"
    return f"target with {len(source.labels)} classes"


def _offered_selectors(page: str, source) -> list[str]:
    """The selectors ``page`` offers (its record's ``offers``) that fit the source's target."""
    offers = LINK_PAGES[page].offers
    return [s for s in selector_options(source) if offers(SELECTORS[s])]


def _fixes_measure(page: str, spec) -> bool:
    """The page's one measure is the selector's own (precision / recall greedy on Select and NPFS)."""
    return spec is not None and bool(spec.fixed_measure) and "measure" in CHOICES[page] and "selector" in CHOICES[page]


def _offered_measures(page: str, source, selector: str | None) -> list[str]:
    spec = SELECTORS.get(selector)
    if _fixes_measure(page, spec):
        return [spec.fixed_measure]
    fitting = offered_measures(source) if LINK_PAGES[page].cost_matrix else supported_measures(source)
    return [m for m in fitting if m in SCORABLE] if LINK_PAGES[page].scored else fitting


def _widget_values(recipe: Recipe) -> tuple[dict, list[str]]:
    """Session-state values for the page's widgets, kept inside what the page offers for this data; and a note
    for each value that had to change, saying what is used instead."""
    page, values, notes = recipe.page, dict(recipe.choices), []
    _, dataset = state.get_dataset()
    _, dist = state.get_distribution()
    record = LINK_PAGES[page]
    use_dataset = values.get("source", record.default_source) == "dataset"
    source = dataset if use_dataset else dist
    if source is None:
        return {f"{prefix(page)}.{name}": value for name, value in values.items()}, notes
    n = source.n_features
    for name, top in record.bounds(n).items():
        if name in values and values[name] > max(1, top):
            notes.append(f"{name} = {values[name]} is more than this data allows ({n} features): "
                         f"using {name} = {max(1, top)}")
            values[name] = max(1, top)
    offered = _offered_selectors(page, source)
    for name in ("selector", "bin_selector"):  # Compare's binning panel has a selector of its own
        if offered and values.get(name) not in (None, *offered):
            asked, values[name] = values[name], offered[0]
            notes.append(f"selector {SELECTORS[asked].label} is not offered here for this {_target_words(source)}: "
                         f"using {SELECTORS[offered[0]].label}")
    if "selectors" in values:
        kept = [s for s in values["selectors"] if s in offered]
        notes += [f"selector {SELECTORS[s].label} is not offered here for this {_target_words(source)}: left out"
                  for s in values["selectors"] if s not in kept]
        values["selectors"] = kept
    selector = values.get("selector") or st.session_state.get(f"{prefix(page)}.selector")
    spec = SELECTORS.get(selector)
    for name in ("measure", "conv_measure"):
        if name not in values:
            continue
        if _fixes_measure(page, spec):
            if values[name] != spec.fixed_measure:
                notes.append(f"{spec.label} always uses {MEASURES[spec.fixed_measure].label}: the link's "
                             f"{MEASURES[values[name]].label} is not used")
            values.pop(name)  # the selector fixes it
            continue
        measures = _offered_measures(page, source, selector)
        if measures and values[name] not in measures:
            asked, values[name] = values[name], measures[0]
            notes.append(f"measure {MEASURES[asked].label} does not fit this {_target_words(source)}"
                         + (" on this page" if record.scored else "") + f": using {MEASURES[measures[0]].label}")
    return {f"{prefix(page)}.{name}": value for name, value in values.items()}, notes


def apply(recipe: Recipe, file_bytes: bytes | None = None) -> list[str]:
    """Load the recipe's distribution and data into the session and its choices into the widget keys
    (call before the page draws its widgets). Returns notes on choices that had to change.

    A recipe on an uploaded file that comes without the file (a link) applies nothing: it waits in the session
    for :func:`awaiting_file` to get the file, so nothing runs on other data meanwhile."""
    if recipe.data is not None and "file" in recipe.data and file_bytes is None and recipe.data != data_spec():
        st.session_state[AWAITING] = recipe
        return []
    if recipe.distribution is not None and recipe.distribution != distribution_spec():
        name = PRESETS[recipe.distribution["preset"]].label if "preset" in recipe.distribution else "from a recipe"
        dist = load_distribution(recipe.distribution)
        install(name, dist)
        st.session_state[DIST_MEMO] = (dist, recipe.distribution)  # the recipe's own entry, not a re-serialisation
    if recipe.data is not None and recipe.data != data_spec():
        encoded, raw = _load_data(recipe.data, file_bytes)
        state.set_dataset(data_label(recipe.data), encoded, raw, spec=recipe.data)
        st.session_state[OWN_DEFAULTS] = own_data_key(recipe.data)   # the link's settings stand, not the page's
                                                                     # first-visit defaults for an upload
    values, dropped = _widget_values(recipe)
    st.session_state.update(values)
    for name in values:   # a link's cost matrix replaces the grid's edits made on another one
        st.session_state.pop(name + GRID, None)
    pre = prefix(recipe.page)
    if f"{pre}.estimate" in values:   # the link's estimate stands on its data, not the default
        st.session_state[f"{pre}.estimate_for"] = data_key()
    on_dataset = recipe.choices.get("source", LINK_PAGES[recipe.page].default_source) == "dataset"
    if on_dataset and state.get_dataset()[1] is not None:  # the link's measure and k stand, and the other pages
        page_plan.record_link(pre, {name.removeprefix(f"{pre}."): v for name, v in values.items()})
    return dropped


def restore(page: str | None) -> None:
    """Before nav.run(): apply a recipe loaded from the sidebar, or the query string of the session's first run
    (a new link in the address bar loads a new session)."""
    pending = st.session_state.pop(PENDING, None)
    if pending is not None:
        _report(lambda: apply(*pending), "The recipe could not be restored")
        st.session_state[PUBLISHED] = st.query_params.to_dict()
        return
    if PUBLISHED in st.session_state:  # only the link a session opens with is restored: a rerun can carry
        return                          # an older address (a click made before the last run's link arrived)
    query = st.query_params.to_dict()
    st.session_state[PUBLISHED] = query
    if page is None or not query:
        return
    _report(lambda: _apply_link(page, query), "This link could not be opened as it is")


def _apply_link(page: str, query: dict) -> list[str]:
    recipe = Recipe.from_query(page, query)
    for what in recipe.missing:  # e.g. a custom toy distribution: say so rather than silently show another one
        st.warning(f"This link was made on {what}. The page shows the toy distribution this session has instead: "
                   f"{md(state.get_distribution()[0])}.", icon=":material/link_off:")
    return apply(recipe)


def awaiting_file() -> bool:
    """Before nav.run(): while the session's link names an uploaded file it has not been given, ask for that file
    in the main area and return True (app.py then stops: no page runs on other data). The same file (checked by
    its SHA-256) applies the link and returns False; so does the button that opens the page without it."""
    recipe = st.session_state.get(AWAITING)
    if recipe is None:
        return False
    data = recipe.data
    slot = st.empty()  # the request disappears in the run that gets the file
    with slot.container():
        st.title("This link needs its data file")
        st.markdown(f"The view in this link was made on an uploaded file, **{md(data['file'])}** (SHA-256 "
                    f"`{data['sha256'][:16]}...`), and a link carries only the file's name and fingerprint, never "
                    "its rows. Upload the same file to open the view. Nothing has been computed on other data.")
        upload = st.file_uploader(f"The file {md(data['file'])}", type=DATA_FILE_TYPES,
                                  key="share.link_file",
                                  max_upload_size=server_limits().max_upload_mb)
        if st.button("Open the page without this link's data and settings", key="share.skip_file"):
            del st.session_state[AWAITING]
            st.rerun()
        if upload is None:
            return True
        raw = upload.getvalue()
        if sha256_hex(raw) != data["sha256"]:
            st.error(f"{md(upload.name)} is not the file this link was made with: its SHA-256 begins "
                     f"{sha256_hex(raw)[:16]}, the link's file's begins {data['sha256'][:16]}.")
            return True
    slot.empty()
    del st.session_state[AWAITING]
    _report(lambda: apply(recipe, raw), "This link could not be opened as it is")
    return False


def _report(action, headline: str) -> None:
    try:
        dropped = action()
    except FslabError as err:
        st.warning(f"{headline}: {md(err)}. The page shows the session's current data and settings instead.")
        return
    if dropped:
        st.info("Changed to fit the data: " + md("; ".join(dropped)) + ".", icon=":material/info:")


# --- publishing and the sidebar ---------------------------------------------------------------------------

def write_link(page: str | None, box: LinkBox | None = None) -> tuple[Recipe, list[str]] | None:
    """Write the page's recipe into the address bar (when it changed) and, given the share box's ``box``, the
    link to copy there; returns the recipe with what it left out. app.py calls it after the page, also when the
    page ended with ``st.stop()`` (NPFS before Run): the widgets' first-draw values are set only by the page."""
    if page is None or st.session_state.get(AWAITING) is not None:  # the link stays until its file is given
        return None
    recipe, left_out = current_recipe(page)
    query = recipe.to_query()
    if query.get("dist") == DEFAULT_PRESET:
        del query["dist"]
    if query != st.query_params.to_dict():
        st.query_params.from_dict(query)
    st.session_state[PUBLISHED] = query
    if box is not None:
        box.show(query, recipe)
    return recipe, left_out


def stop(page: str | None = None) -> NoReturn:
    """``st.stop()`` for a page that waits for a click (NPFS before Run, a job ui.guard asks to confirm): first
    write its link with the values its widgets took on this run (``page`` None: the page :func:`publish` drew the
    share box for). After ``st.stop()`` nothing reaches the browser any more (Streamlit stays stopped at every
    later yield), so app.py's :func:`write_link` after the page would never run; on a first visit the link would
    then lack every default the page set (the teacher's k = 3 arrived as k = 10)."""
    box = st.session_state.get(BOX)
    write_link(page or (box.page if box is not None else None), box)
    st.stop()


class LinkBox:
    """The share box's link to copy (a projector's full-screen browser hides the address bar): a Markdown link
    whose text is the address, so right-click, Copy link address works in every browser. Not ``st.code``: its copy
    button pulls Streamlit's 1.5 MB code highlighter, 0.3-0.76 s of the browser's main thread on the session's first
    page with a share box (issue 34.5). Drawn where :func:`publish` placed it, refilled by :func:`write_link` after
    the page."""

    def __init__(self, page: str, url_path: str, drawn: bool = True):
        self.page, self.url_path, self.recipe = page, url_path, None
        self.slot = st.container(key=LINK_KEY).empty() if drawn else None  # None: the box is closed

    def show(self, query: dict, recipe: Recipe | None = None) -> None:
        if self.slot is not None:
            self.slot.markdown(link_markdown(f"{app_url()}/{self.url_path}?{urlencode(query)}"))
        self.recipe = recipe  # the download button's file is built on click: the latest recipe of this run

    def recipe_json(self) -> str:
        return self.recipe.to_json() if self.recipe is not None else "{}"


def link_markdown(url: str) -> str:
    """``[url](url)`` with every ASCII punctuation mark of the shown text backslash-escaped (a ``_`` or ``~`` in
    a data set's name is no emphasis); the target is ``url`` as is, its ``(`` and ``)`` percent-encoded."""
    text = re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", url)
    return f"[{text}]({url.replace('(', '%28').replace(')', '%29')})"


def app_url() -> str:
    """The app's address without a page path ("" outside a browser session): ``st.context.url`` keeps the path
    of the page the session is on."""
    url = (st.context.url or "") if st.runtime.exists() else ""
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    last = path.rsplit("/", 1)[-1]
    if last and last in {p.url_path for p in PAGES}:
        path = path[: -len(last) - 1]
    return f"{parts.scheme}://{parts.netloc}{path}" if parts.netloc else ""


def publish(page: str | None, recipe_pages: dict) -> LinkBox | None:
    """Before nav.run(): write the page's recipe into the address bar and draw the sidebar's share box
    (``recipe_pages``: page id -> st.Page, where a loaded recipe switches to); the box's content (the link to copy,
    the recipe's download and upload) only while it is open. Before, not after: a page that
    ends with ``st.stop()`` stops the whole script run, so nothing after ``nav.run()`` would draw. The widget
    values are already the user's latest here; app.py calls :func:`write_link` after the page for the values
    the page itself set on this run, with the returned box to refill the link to copy."""
    if st.session_state.get(AWAITING) is not None:
        with st.sidebar.expander("Share this view", icon=":material/share:"):
            st.caption("Waiting for the link's data file (see the page).")
        return None
    box = None
    with st.sidebar.expander("Share this view", icon=":material/share:", key=OPEN_KEY, on_change="rerun") as fold:
        if not fold.open:  # drawn only when opened (about 34 elements on every page, issue 34.5); the address bar
            box = LinkBox(page, recipe_pages[page].url_path, drawn=False) if page is not None else None
            st.session_state[BOX] = box
            write_link(page, box)  # still follows every run
            return box
        if page is not None:
            st.caption("The link to this view (page, data, settings), also in the address bar; right-click it "
                       "and choose Copy link address. The recipe file holds the same, and also an uploaded file's "
                       "fingerprint and a custom toy distribution.")
            box = LinkBox(page, recipe_pages[page].url_path)
        st.session_state[BOX] = box
        recipe, left_out = write_link(page, box) or (None, [])
        if recipe is None:
            st.caption("Open Select, By measure, Compare, NPFS, Toy distribution or Orderings to share a view of "
                       "it.")
        else:
            notes = recipe.left_out_of_query()
            if notes:
                st.caption("Not in the link: " + md("; ".join(notes)) + ".")
            if left_out:
                st.caption("Not in the link nor the recipe: " + md("; ".join(left_out)) + ".")
            st.download_button("Download recipe (JSON)", box.recipe_json if box is not None else recipe.to_json,
                               f"fslab-{page}-recipe.json", "application/json", on_click="ignore",
                               key="share.download")
        _recipe_upload(recipe_pages)
    return box


def _parsed_recipe(raw: bytes) -> Recipe | RecipeError:
    """The uploaded recipe parsed and checked once per file in this session (``PARSED``): the uploader returns the
    same bytes on every rerun while it holds the file, and a 1.3 MB recipe took 2.4 s of CPU to parse and check
    again on each (H4's profile)."""
    digest = hashlib.sha256(raw).hexdigest()
    kept = st.session_state.get(PARSED)
    if kept is not None and kept[0] == digest:
        return kept[1]
    try:
        recipe: Recipe | RecipeError = Recipe.from_json(raw)
    except RecipeError as err:
        recipe = err
    st.session_state[PARSED] = (digest, recipe)
    return recipe


def _recipe_upload(recipe_pages: dict) -> None:
    upload = st.file_uploader("Load a recipe", type=["json"], key="share.upload",
                              max_upload_size=max(1, math.ceil(server_limits().max_json_bytes / 1e6)))
    if upload is None:
        return
    raw = upload.getvalue()
    recipe = _parsed_recipe(raw)
    if isinstance(recipe, RecipeError):
        st.error(f"{md(upload.name)}: {md(recipe)}")
        return
    file_bytes = None
    if recipe.data and "file" in recipe.data:
        data_file = st.file_uploader(f"The recipe uses the uploaded file {md(repr(recipe.data['file']))}: upload it",
                                     type=DATA_FILE_TYPES, key="share.data_file",
                                     max_upload_size=server_limits().max_upload_mb)
        if data_file is None:
            return
        file_bytes = data_file.getvalue()
        if hashlib.sha256(file_bytes).hexdigest() != recipe.data["sha256"]:
            st.error(f"{md(data_file.name)} is not the file the recipe was made with (its SHA-256 differs).")
            return
    fingerprint = hashlib.sha256(raw + (file_bytes or b"")).hexdigest()
    if st.session_state.get(LOADED) == fingerprint:
        st.caption(f"Loaded {md(upload.name)}.")
        return
    st.session_state[LOADED] = fingerprint
    st.session_state[PENDING] = (recipe, file_bytes)
    st.switch_page(recipe_pages[recipe.page])
