"""A heavy job's worker process imports ui.heavy to run one job: it must not pay the pages' preload (ui/__init__)."""

import multiprocessing
import sys
import types

import pytest


def _child(queue) -> None:
    import ui.heavy  # noqa: F401  (what a worker imports to unpickle its target, ui.heavy._work)

    queue.put(sorted(name for name in ("fslab.plots.by_measure", "ui.toy", "ui.compare") if name in sys.modules))


@pytest.mark.slow
def test_a_job_worker_skips_the_pages_preload(monkeypatch):
    from ui.preload import script_modules

    assert {"fslab.plots.by_measure", "ui.toy", "ui.compare"} <= set(script_modules())   # the server preloads them
    # a plain __main__ (an AppTest earlier in this process leaves its script there, which a new process would re-run)
    # and a fresh interpreter: a child of multiprocessing, as a job's worker is
    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    worker = ctx.Process(target=_child, args=(queue,))
    worker.start()
    try:
        assert queue.get(timeout=120) == []
    finally:
        worker.join(30)
