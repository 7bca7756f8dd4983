"""NPFS page helpers: the per-session result memo, the progress reporter with a remaining-time estimate,
cancellation, image shapes of samples, and safe downloads.

Results are memoised in ``st.session_state`` (not ``st.cache_data``): a run reports progress to a bar the page
created, which a cached function may not do. Cancelling works through Streamlit itself: clicking "Cancel" asks
for a rerun, and Streamlit stops the running script at its next call into ``st`` (the progress update), which
terminates the worker process the bootstraps run in (``ui.heavy.run_in_worker``: one user's NPFS run does not
hold the server's GIL, and at most ``cores - 1`` runs go at once).
"""

from __future__ import annotations

import hashlib
import time
from typing import NoReturn

import numpy as np
import streamlit as st

from fslab.cluster import npfs_on, scheduler_from_env, usable_scheduler
from fslab.cost import needs_confirmation, npfs_cost
from fslab.data.samples import SAMPLES
from fslab.errors import FslabError
from fslab.export import safe_csv
from fslab.npfs.result import NPFSResult
from fslab.selectors import SELECTORS

from . import guard, heavy, state
from .cache import result_key, sample_encoded, shared_results
from .compare import token
from .link_pages import LINK_PAGES
from .memo import recall, remember, session_memo
from .names import UNIFORM_NAME
from .text import md

RESULTS = "fslab.npfs.results"
LAST = "fslab.npfs.last"
PROGRESS = "fslab.npfs.progress"
CANCELLED = "fslab.npfs.cancelled"
AUTO = "fslab.npfs.auto_ran"
FILES = "fslab.npfs.files"  # the downloads of the result shown (downloads)
K_WANTED = "fslab.npfs.k_wanted"  # the k the user asked for (the box shows it, capped at K - 1 of the data)
K_SHOWN = "fslab.npfs.k_shown"    # the k adopt_k last put in the box
_MEMO_SIZE = 8
# Selectors NPFS does not offer: those the registry declares cost_class "heavy". NPFS reruns the selector n times,
# and one exhaustive search or backward elimination takes seconds to minutes (backward on Mushroom: about 20 s,
# so n = 100 would take half an hour). SLOW_KINDS: their kinds, derived from the same declaration.
SLOW_KINDS = tuple(sorted({spec.kind for spec in SELECTORS.values() if spec.cost_class == "heavy"}))


def base_selectors() -> list[str]:
    """Names of the selectors the NPFS page offers (registry order): its link record's rule, fast enough to rerun
    on every bootstrap (not declared heavy)."""
    offers = LINK_PAGES["npfs"].offers
    return [name for name, spec in SELECTORS.items() if offers(spec)]


def _memo():
    return session_memo(RESULTS)


def run_key(source_name: str, source, selector: str, measure: str | None, params: dict, k: int, n: int,
            alpha: float, seed: int, fraction: float) -> tuple:
    """Everything that determines the matrix (n_jobs does not: the same seed gives the same matrix).

    The data enter by a content digest, not ``id(source)``: a replaced data set's id can be recycled by the next
    object, and a re-uploaded file may keep its name and shape."""
    return (source_name, token(source), source.n_features, getattr(source, "n_rows", 0), selector, measure,
            tuple(sorted(params.items())), int(k), int(n), float(alpha), int(seed), float(fraction))


def cached_result(key: tuple) -> NPFSResult | None:
    return _memo().get(key)


def last_result() -> tuple[tuple, NPFSResult] | None:
    """(key, result) of the latest finished run of this session, if any."""
    key = st.session_state.get(LAST)
    result = _memo().get(key) if key is not None else None
    return (key, result) if result is not None else None


class Reporter:
    """progress(done, total) for npfs: moves the bar and estimates the remaining time from the mean pace so far."""

    def __init__(self, bar) -> None:
        self.bar, self.start = bar, time.perf_counter()
        self.done, self.total, self.last = 0, 0, self.start

    def __call__(self, done: int, total: int) -> None:
        st.session_state[PROGRESS] = (done, total)
        self.done, self.total, self.last = done, total, time.perf_counter()
        self.bar.progress(done / total if total else 0.0, text=self.text())

    def tick(self) -> None:
        """No news from the worker for a while: show the time passing, never a frozen estimate."""
        if self.total:
            self.bar.progress(self.done / self.total, text=self.text())

    def text(self) -> str:
        now = time.perf_counter()
        elapsed, silent = now - self.start, now - self.last
        if self.done == 0:
            return (f"Starting {self.total} bootstraps... {elapsed:.0f} s" +
                    (" (the server is busy: the job runs at a lower priority than the pages)" if elapsed > 5 else ""))
        if self.done >= self.total:
            return f"All {self.total} bootstraps done in {self.last - self.start:.1f} s; assembling the result..."
        left = (self.last - self.start) / self.done * (self.total - self.done)
        late = f"; no bootstrap finished for {silent:.0f} s, the server is busy" if silent > max(5.0, 3 * left) else ""
        return (f"{self.done} of {self.total} bootstraps, {elapsed:.1f} s elapsed, about {max(left - silent, 0):.0f} s "
                f"left{late}")


def first_visit() -> bool:
    """True once per session: the page then runs NPFS with its defaults so it shows something at once."""
    if st.session_state.get(AUTO):
        return False
    st.session_state[AUTO] = True
    return True


@st.cache_data(ttl=30, show_spinner=False, max_entries=8)
def _checked(address: str) -> tuple[str | None, str | None]:
    return usable_scheduler(address)


def scheduler() -> tuple[str | None, str | None]:
    """(the Dask scheduler NPFS runs go to, or None; the operator's note when ``FSLAB_DASK_SCHEDULER`` is set but does
    not answer, so the runs stay on this server): a 2-second TCP connect, checked at most every 30 s per address
    (:func:`fslab.cluster.usable_scheduler` also writes the note to the server log)."""
    address = scheduler_from_env()
    return _checked(address) if address else (None, None)


def mark_cancelled() -> None:
    """on_click of the Cancel button: runs before the rerun that interrupts the computation."""
    st.session_state[CANCELLED] = st.session_state.get(PROGRESS, (0, 0))


def pop_cancelled() -> tuple[int, int] | None:
    return st.session_state.pop(CANCELLED, None)


def run(key: tuple, source, selector: str, measure: str | None, params: dict, k: int, n: int, alpha: float,
        seed: int, fraction: float, n_jobs: int, prefer: str, progress) -> NPFSResult:
    """Run NPFS (or return the memoised result of the same parameters) and remember it as the latest run."""
    memo = _memo()
    if key not in memo:
        how = {name: v for name, v in params.items() if name == "estimate"}   # the base selector's estimate
        kept = {name: v for name, v in params.items() if name != "estimate"}
        extra = ({"measure": measure, **kept} if measure is not None else {}) | how
        shared_key = result_key("npfs", *key[1:])  # by content: not the data's name

        address = scheduler()[0]   # the Dask cluster when set and answering, else this server

        def compute() -> NPFSResult:  # in a worker process: the server's GIL stays free for the other sessions
            return heavy.run_in_worker(npfs_on, address, source, selector, k,
                                       n_bootstraps=n, alpha=alpha, seed=seed, n_jobs=n_jobs, prefer=prefer,
                                       progress=progress, idle=getattr(progress, "tick", None),
                                       sample_fraction=fraction, **extra)

        # identical runs (several tabs on one link) wait for the first one's result instead of computing it again
        found = heavy.computed_once(shared_results(), shared_key, compute,
                                    keep=lambda r: not getattr(r, "cancelled", False))
        remember(memo, key, found, _MEMO_SIZE)
    memo.move_to_end(key)
    st.session_state[LAST] = key
    return memo[key]


def image_shape(dataset_name: str | None, n_features: int) -> tuple[int, int] | None:
    """The pixel grid of a shipped image sample (semeion, optdigits, digits-in-noise) when the columns match."""
    base = (dataset_name or "").split(" (")[0]
    spec = SAMPLES.get(base)
    shape = getattr(spec, "image_shape", None)
    return tuple(shape) if shape and shape[0] * shape[1] == n_features else None


def keep_choices(selectors: list[str], measure_key: str | None = None, options: list[str] | None = None) -> None:
    """Before the selector and measure boxes are drawn (after ``ui.page_plan.inherit`` put in Select's choice, if
    any): JMI when no selector was chosen yet, and a stale measure that does not fit this data (e.g. a binary-only
    measure kept from binary data) falls back to the first option."""
    if st.session_state.get("npfs.selector") not in selectors:
        st.session_state["npfs.selector"] = "jmi" if "jmi" in selectors else selectors[0]
    if measure_key is not None and options and st.session_state.get(measure_key) not in options:
        st.session_state[measure_key] = options[0]


def adopt_k(n_features: int) -> None:
    """Put in the k box the k the user wants (K_WANTED), at most K - 1 of this data.

    The wanted k is whatever was last put in the box: Select's k (``ui.page_plan.inherit``), a link's or a recipe's,
    or the user's (``keep_k``); 10 at first. A cap forced by small data is not a wish: after a 2-feature data set
    (k = 1), the next larger one gets the wanted k back instead of keeping 1 beside a result for k = 10."""
    box = st.session_state.get("npfs.k")
    if box is not None and box != st.session_state.get(K_SHOWN):  # set since the last run by a link or a recipe
        st.session_state[K_WANTED] = int(box)
    wanted = st.session_state.setdefault(K_WANTED, 10)
    st.session_state["npfs.k"] = st.session_state[K_SHOWN] = min(max(1, wanted), n_features - 1)


def keep_k() -> None:
    """on_change of the k box: the typed k is the one wanted, on this data and the next."""
    st.session_state[K_WANTED] = st.session_state[K_SHOWN] = int(st.session_state["npfs.k"])


def run_panel(name: str, data, selector: str, measure: str | None, params: dict, k: int, n: int, alpha: float,
              seed: int, fraction: float, n_jobs: int, prefer: str) -> NPFSResult:
    """The "Run NPFS" button and what it does: refuse or ask before a costly run (ui.guard), report a cancelled
    run, run with a progress bar and a Cancel button, and return the result to show (this run's, or the last
    run's on the same data with a note). Stops the page with a hint when there is nothing to show yet.

    Runs by itself only on D_uni (a click on its button); anything else waits for the click, as it takes seconds."""
    key = run_key(name, data, selector, measure, params, k, n, alpha, seed, fraction)
    cost = guard.refuse_over_limit(npfs_cost(data, selector, k, n, fraction, measure))  # before any work
    cancelled = pop_cancelled()
    first = first_visit() and name == UNIFORM_NAME and not needs_confirmation(cost)
    notice = st.empty()  # the estimate of a large run, until its result is there
    if needs_confirmation(cost) and cached_result(key) is None:
        notice.warning(guard.estimate_text(cost) + " It runs when you press *Run NPFS*, in a heavy-work slot of the "
                   "server; Cancel stops it.", icon=":material/hourglass_top:")
    clicked = st.button("Run NPFS", type="primary", key="npfs.run")
    args = (key, data, selector, measure, params, k, n, alpha, seed, fraction, n_jobs, prefer)
    if cancelled:
        st.warning(f"Run cancelled after {cancelled[0]} of {cancelled[1]} bootstraps. Change the settings or run "
                   "again.")
    elif (clicked or first) and cached_result(key) is None:
        _run_with_bar(*args)
        notice.empty()
    elif clicked:
        run(*args, None)
    return _result_to_show(key, name, selector, k, n)


def _run_with_bar(*args) -> None:
    running = st.empty()  # holds the bar and the Cancel button only while the bootstraps run
    bar_col, cancel_col = running.container().columns([5, 1])
    bar = bar_col.progress(0.0, text="Starting...")
    cancel_col.button("Cancel", key="npfs.cancel", on_click=mark_cancelled)
    try:
        run(*args, Reporter(bar))
    except FslabError as err:
        running.empty()
        st.error(md(err))
        st.stop()
    running.empty()


def _result_to_show(key: tuple, name: str, selector: str, k: int, n: int) -> NPFSResult:
    shown = cached_result(key)
    if shown is not None:
        return shown
    last = last_result()
    if last is None:
        st.info(f"Press **Run NPFS** to draw the bootstraps: {n} runs of {SELECTORS[selector].label} with k = {k} "
                f"on {md(name)} (a few seconds on the samples; a bar shows the time left, and Cancel stops it).")
        _stop_linked()
    if last[0][:4] != key[:4]:
        st.info(f"Press **Run NPFS** to run on {md(name)}.")
        _stop_linked()
    shown = last[1]
    st.info(f"The settings changed: showing the last run ({SELECTORS[shown.selector].label}, k = {shown.k}, "
            f"n = {shown.n_bootstraps}, alpha = {shown.alpha}). Press **Run NPFS** for the new settings.")
    return shown


def _stop_linked() -> NoReturn:
    """Stop the page before a run, its settings in the link (ui.share imports this module: import it here)."""
    from . import share
    share.stop("npfs")


def load_uniform() -> None:
    """Make D_uni (K=25, k*=5, M=1000, 3 equal-width bins) the current dataset: the paper's Section IV-B data."""
    state.set_dataset(UNIFORM_NAME, sample_encoded("uniform", "uniform", 3), None)
    st.session_state[AUTO] = False  # run at once on the new data, as on a first visit


def result_digest(result: NPFSResult) -> str:
    """Content digest of what the page draws from ``result`` (its bootstraps, names, settings and rule): the key of
    its figures (``ui.theme.memo_chart``) and downloads, so a rerun that shows the same result builds neither again
    (they were 0.7 of the page's 0.09 s of CPU a rerun on D_uni)."""
    h = hashlib.blake2b(digest_size=16)
    for array in (result.matrix, result.tied_picks):
        if array is not None:
            h.update(repr((array.shape, array.dtype.str)).encode())
            h.update(np.ascontiguousarray(array).tobytes())
    h.update(repr((result.alpha, result.epsilon, result.feature_names, result.k, result.selector, result.seed,
                   result.sample_fraction, result.n_requested, result.cancelled,
                   sorted(result.selector_params.items()), result.rule)).encode())
    return h.hexdigest()


def downloads(result: NPFSResult) -> dict[str, tuple[bytes, str, str]]:
    """File name -> (bytes, mime, label) for the matrix, the per-feature summary and the whole result; made once per
    result in the session (:func:`result_digest`)."""
    memo, key = session_memo(FILES), result_digest(result)
    return recall(memo, key) or remember(memo, key, _downloads(result), 2)


def _downloads(result: NPFSResult) -> dict[str, tuple[bytes, str, str]]:
    matrix = result.matrix_frame()
    matrix.index.name = "feature"
    return {
        "npfs_matrix.csv": (safe_csv(matrix, index=True), "text/csv", "Selection matrix (CSV)"),
        "npfs_features.csv": (safe_csv(result.summary()), "text/csv", "Counts and p-values (CSV)"),
        "npfs_result.json": (result.to_json().encode("utf-8"), "application/json", "Full result (JSON)"),
    }
