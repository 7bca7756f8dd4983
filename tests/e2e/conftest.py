"""Browser tests: expect(...)'s default wait scaled to the machine's load at each test's start (the load of a shared
machine moves within minutes: a scale taken once, when the session's browser started, was 1x at load 0.4 and then
too short at load 20). Every other wait is scaled where it is made (tests/conftest.py)."""

from __future__ import annotations

import pytest

from tests.conftest import scaled


@pytest.fixture(autouse=True)
def _expect_waits_scaled():
    from playwright.sync_api import expect

    expect.set_options(timeout=scaled(5_000))   # expect's own default, 5 s, times the load factor
