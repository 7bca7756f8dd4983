"""App and browser waits scale with the machine's load (issue 25.6): tests/conftest.py's load_factor and scaled,
and the AppTest timeout patch applied to app tests."""

from __future__ import annotations

import os

import pytest

from tests import conftest


def test_load_factor_is_load_per_core_and_never_below_one(monkeypatch):
    cores = os.cpu_count() or 1
    monkeypatch.setattr(os, "getloadavg", lambda: (3.0 * cores, 0.0, 0.0))
    assert conftest.load_factor() == pytest.approx(3.0)
    assert conftest.scaled(60) == pytest.approx(180.0)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.1, 0.0, 0.0))
    assert conftest.load_factor() == 1.0 and conftest.scaled(60) == 60


@pytest.mark.app
def test_app_tests_get_their_apptest_timeout_scaled(monkeypatch):
    """This test is marked app, so pytest_runtest_setup has patched AppTest before it runs."""
    from streamlit.testing.v1 import AppTest

    cores = os.cpu_count() or 1
    monkeypatch.setattr(os, "getloadavg", lambda: (2.5 * cores, 0.0, 0.0))
    at = AppTest.from_string("import streamlit as st\nst.write('hi')", default_timeout=4)
    assert at.default_timeout == pytest.approx(10.0)
    assert at.run().markdown[0].value == "hi"
