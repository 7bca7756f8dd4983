"""The app's gate in front of every job: predicted cost first (fslab.cost), then refuse, ask, or run.

- Over ``LIMITS.max_work`` or ``LIMITS.max_job_mb``: an ``st.error`` naming the limit and what to change; the page
  stops before any work.
- Predicted longer than ``LIMITS.confirm_seconds``: the estimate and a *Run* button; nothing runs until the click.
  The click is remembered for that exact job in this session, so the result stays on later reruns.
- Confirmed (long) jobs take a server-wide heavy-work slot (``ui.heavy``) while they run.

Pages call :func:`require` before the work and hold :func:`slot` around it::

    job = guard.require(select_cost(source, k, selector, measure, s), ("select", key, k, selector, measure, s))
    with guard.slot(job):
        result = ...
"""

from __future__ import annotations

import hashlib
from contextlib import contextmanager, nullcontext

import streamlit as st

from fslab.cost import Cost, needs_confirmation, over_limit_message

from . import heavy
from .memo import recall, remember, session_memo
from .text import md

CONFIRMED = "fslab.guard.confirmed"
_CONFIRMED_SIZE = 32


def estimate_text(cost: Cost) -> str:
    return f"This job is large: {md(cost.describe())}."


def allowed(cost: Cost, job_key, container=None) -> bool:
    """Show the refusal or the estimate with a *Run* button; True when the job may run now.

    ``job_key`` (hashable) names the job: a click on *Run* confirms that job only, for the rest of the session.
    """
    box = container or st
    if _refused(cost, box):
        return False
    if not needs_confirmation(cost):
        return True
    key = repr(job_key)
    confirmed = session_memo(CONFIRMED)
    if recall(confirmed, key):
        return True
    box.warning(estimate_text(cost) + " It runs only when you press *Run*; it takes a heavy-work slot of the "
                "server meanwhile, and you can stop it by changing a setting or closing the tab.",
                icon=":material/hourglass_top:")
    if box.button("Run", key=f"guard.run.{hashlib.blake2b(key.encode(), digest_size=8).hexdigest()}",
                  type="primary"):
        return remember(confirmed, key, True, _CONFIRMED_SIZE)
    return False


def refuse_over_limit(cost: Cost, container=None) -> Cost:
    """Stop the page with the refusal when ``cost`` is over a limit; for pages whose own button starts the job
    (NPFS), so a large job needs one click, not a *Run* and then the page's button. Return the cost."""
    if _refused(cost, container or st):
        _stop()
    return cost


def _refused(cost: Cost, box) -> bool:
    """Show the refusal when ``cost`` is over a limit (work, memory, or the job's own size limit); True if so."""
    message = over_limit_message(cost)
    if message is not None:
        box.error(md(message), icon=":material/block:")
    return message is not None


def require(cost: Cost, job_key, container=None) -> Cost:
    """Stop the page (after the refusal or the *Run* button) unless the job may run now; return the cost."""
    if not allowed(cost, job_key, container):
        _stop()
    return cost


def _stop() -> None:
    """Stop the page, its link written first (the settings it drew stay in the share box)."""
    from . import share  # share builds on the pages' helpers, which use this module

    share.stop()


@contextmanager
def slot(cost: Cost):
    """A heavy-work slot for a job long enough to need a click; nothing for short jobs. A MemoryError inside
    becomes one message naming the memory limit (never a traceback) and stops the page."""
    try:
        with heavy.heavy_slot() if needs_confirmation(cost) else nullcontext():
            yield cost
    except MemoryError:
        st.error(f"The server ran out of memory for this job ({md(cost.job)}, predicted "
                 f"{cost.bytes / 1e6:,.0f} MB). Nothing was kept. Choose a smaller k or fewer features, or run it "
                 "with the library on a machine with more memory; a server operator can lower FSLAB_MAX_JOB_MB so "
                 "such jobs are refused before they start.", icon=":material/memory:")
        st.stop()


@contextmanager
def gate(cost: Cost, job_key, container=None):
    """:func:`require` then :func:`slot` around the ``with`` block."""
    require(cost, job_key, container)
    with slot(cost):
        yield cost
