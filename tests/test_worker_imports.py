"""A heavy job's worker (ui.heavy.run_in_worker) runs fslab only: neither Streamlit nor the pages' modules.

A worker unpickles its entry point and its target, importing their modules. The entry point lived in ``ui.heavy``,
so every job imported Streamlit and, through ``ui/__init__``, every page's modules before ``multiprocessing`` marked
it a child: 1.2-1.5 s of wall a job (an upload's read, its typing, each binning, NPFS), 0.01 s now.
"""

import sys

import pytest


def _loaded() -> list[str]:
    """In the worker: which of the server-only packages it imported (this module imports none of them)."""
    return sorted({name.split(".")[0] for name in sys.modules} & {"streamlit", "ui", "plotly"})


@pytest.mark.slow
def test_a_job_worker_imports_neither_streamlit_nor_the_pages(monkeypatch):
    import types

    from ui import heavy

    # a plain __main__ (an AppTest earlier in this process leaves its script there, which a new process would re-run)
    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))
    assert "streamlit" in sys.modules   # this process has it; the worker must not
    assert heavy.run_in_worker(_loaded) == []
