"""A heavy job's worker process imports ui.heavy to run one job: it must not pay the pages' preload (ui/__init__)."""

import multiprocessing
import sys

import pytest


def _child(queue) -> None:
    import ui.heavy  # noqa: F401  (what a worker imports to unpickle its target, ui.heavy._work)

    queue.put(sorted(name for name in ("fslab.plots.by_measure", "ui.toy", "ui.compare") if name in sys.modules))


@pytest.mark.slow
def test_a_job_worker_skips_the_pages_preload():
    from ui.preload import script_modules

    assert {"fslab.plots.by_measure", "ui.toy", "ui.compare"} <= set(script_modules())   # the server preloads them
    ctx = multiprocessing.get_context("forkserver")   # as ui.heavy starts its jobs
    queue = ctx.Queue()
    worker = ctx.Process(target=_child, args=(queue,))
    worker.start()
    try:
        assert queue.get(timeout=120) == []
    finally:
        worker.join(30)
