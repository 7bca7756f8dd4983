"""The NPFS page and a configured Dask scheduler (issue 23.2): it checks the scheduler before saying it uses it; one
that does not answer leaves the runs on this server, with a note for the operator (a caption and the server log),
never an instruction to the student."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from fslab.cluster import usable_scheduler

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_scheduler_falls_back_with_an_operator_note(monkeypatch, caplog):
    address = f"tcp://127.0.0.1:{_free_port()}"   # nothing listens there
    monkeypatch.setenv("FSLAB_DASK_SCHEDULER", address)
    with caplog.at_level(logging.WARNING, logger="fslab.cluster"):
        at = AppTest.from_file(APP, default_timeout=90).run()
        at.switch_page("pages/npfs.py").run()
    assert not at.exception
    assert not any("Dask cluster" in i.value for i in at.info)   # not claimed
    notes = [c.value for c in at.caption if "Operator note" in c.value]
    assert notes and "did not answer, so NPFS runs on this server" in notes[0]
    assert "dask scheduler`" not in notes[0] and "start" not in notes[0]   # no operator instruction to the student
    assert any(address in r.getMessage() and "not reachable" in r.getMessage() for r in caplog.records)
    at.number_input(key="npfs.n").set_value(10).run()
    at.button(key="npfs.run").click().run()   # the run goes on here
    assert not at.exception and not at.error and at.metric


def test_a_reachable_scheduler_is_named(monkeypatch):
    """Something at the address answers as a Dask scheduler does (its first 8 bytes: the little-endian length of its
    handshake, sent unasked): the page says the runs go to the cluster (the run itself is
    tests/test_dask_source.py's)."""
    import threading

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        held = []

        def answer():
            while True:
                try:
                    conn, _ = server.accept()
                except OSError:
                    return
                held.append(conn)
                conn.sendall((58).to_bytes(8, "little"))

        threading.Thread(target=answer, daemon=True).start()
        address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
        monkeypatch.setenv("FSLAB_DASK_SCHEDULER", address)
        at = AppTest.from_file(APP, default_timeout=90).run()
        at.switch_page("pages/npfs.py").run()
        assert usable_scheduler(address) == (address, None)
    for conn in held:
        conn.close()
    assert any(f"Dask cluster at {address}" in i.value for i in at.info)
    assert not any("Operator note" in c.value for c in at.caption)


def test_a_64_character_host_label_leaves_the_page_working(monkeypatch):
    """Issue 32.6: a 64-character DNS label in the setting raised a raw UnicodeError on every NPFS page view."""
    monkeypatch.setenv("FSLAB_DASK_SCHEDULER", "tcp://" + "h" * 64 + ".example.org:8786")
    at = AppTest.from_file(APP, default_timeout=90).run()
    at.switch_page("pages/npfs.py").run()
    assert not at.exception and not at.error
    notes = [c.value for c in at.caption if "Operator note" in c.value]
    assert notes and "NPFS runs on this server" in notes[0]


@pytest.mark.parametrize("address", ["tcp//nonsense", "tcp://host:99999"])
def test_a_malformed_setting_is_an_operator_note_too(address):
    used, note = usable_scheduler(address, timeout=0.2)
    assert used is None and "is not a Dask scheduler address" in note and "computed on this server" in note
