"""Issue 32.1 and 36.2: the capped reading process (fslab.limited, ui.heavy's caps), its messages, and the Data
page that types an upload once and rebins without retyping."""

from __future__ import annotations

import signal
import time

import pytest
from streamlit.testing.v1 import AppTest

from fslab.limited import ParseLimitError, breach_error, run_limited
from fslab.limits import Limits, over_limit
from tests.conftest import ROOT
from tests.worker_jobs import allocate, die, fail, spin

CAPS = Limits(max_parse_mb=100, max_parse_seconds=1)


def test_upload_limit_message_gives_the_bytes_of_its_own_megabytes():
    """'50 MB (1,000,000 bytes)' before: the byte count is now the MB figure times 10^6."""
    said = over_limit("max_upload_mb", "the file has 60.0 MB", Limits())
    assert "the limit is 50 MB (50,000,000 bytes) per uploaded file (upload size limit" in said
    assert "the limit is 3 MB (3,000,000 bytes) per uploaded file" in over_limit("max_upload_mb", "x",
                                                                                 Limits(max_upload_mb=3))
    assert "the limit is 40 MB (40,000,000 bytes) of memory (address space)" in over_limit(
        "max_parse_mb", "x", Limits(max_parse_mb=40))


@pytest.mark.parametrize(("code", "setting"), [(-signal.SIGXCPU, "FSLAB_MAX_PARSE_SECONDS"),
                                               (-signal.SIGKILL, "FSLAB_MAX_PARSE_SECONDS"),
                                               (-signal.SIGSEGV, "FSLAB_MAX_PARSE_MB"),
                                               (-signal.SIGABRT, "FSLAB_MAX_PARSE_MB")])
def test_a_killed_reader_is_a_limit_error_naming_its_setting(code, setting):
    err = breach_error(code, CAPS)
    assert isinstance(err, ParseLimitError) and setting in str(err)


def test_a_reader_that_exits_by_itself_is_not_a_limit():
    assert breach_error(0, CAPS) is None and breach_error(1, CAPS) is None and breach_error(None, CAPS) is None


@pytest.mark.slow
def test_run_limited_answers_or_names_the_limit_it_hit():
    assert run_limited(CAPS, allocate, 10 << 20) == (10 << 20) // 8       # 10 MB under a 100 MB cap: fine
    with pytest.raises(ParseLimitError, match=r"needed more memory than allowed; the limit is 100 MB "
                                              r"\(100,000,000 bytes\).*FSLAB_MAX_PARSE_MB"):
        run_limited(CAPS, allocate, 400 << 20)
    start = time.perf_counter()
    with pytest.raises(ParseLimitError, match=r"took more CPU time than allowed.*the limit is 1 seconds.*"
                                              r"FSLAB_MAX_PARSE_SECONDS"):
        run_limited(CAPS, spin)
    assert time.perf_counter() - start < 1 + 5 + 10   # the limit, the grace to SIGKILL, a loaded machine
    with pytest.raises(ParseLimitError, match=r"\(SIGSEGV\), most likely at its memory limit"):
        run_limited(CAPS, die)
    with pytest.raises(ValueError, match="own error"):
        run_limited(CAPS, fail)


@pytest.mark.slow
def test_the_app_worker_takes_the_same_caps():
    """ui.heavy.run_in_worker(caps=...): the forkserver worker is capped, a breach comes back as the limit error."""
    from ui.heavy import run_in_worker

    assert run_in_worker(allocate, 10 << 20, caps=CAPS) == (10 << 20) // 8
    with pytest.raises(ParseLimitError, match="FSLAB_MAX_PARSE_MB"):
        run_in_worker(allocate, 400 << 20, caps=CAPS)
    with pytest.raises(ParseLimitError, match="FSLAB_MAX_PARSE_MB"):
        run_in_worker(die, caps=CAPS)
    assert run_in_worker(allocate, 400 << 20) == (400 << 20) // 8    # no caps: the worker as before


CSV = "\n".join(["x,z,outcome"] + [f"{i % 7}.5,{'ab'[i % 2]},{'no' if i % 3 else 'yes'}" for i in range(60)]).encode()


@pytest.fixture
def typings(monkeypatch):
    """Every Dataset.from_frame of the page, counted (the capped worker runs in this process here)."""
    import fslab.data.upload as upload_module
    import ui.data as ud

    calls = []
    real = upload_module.Dataset.from_frame

    def from_frame(frame, target, **kw):
        calls.append((target, kw.get("positive"), kw.get("missing", "level")))
        return real(frame, target, **kw)

    monkeypatch.setattr(ud, "isolated", lambda fn, *args: fn(*args))
    monkeypatch.setattr(upload_module.Dataset, "from_frame", staticmethod(from_frame))
    return calls


@pytest.mark.slow
def test_an_upload_is_typed_once_and_a_binning_change_only_rebins(typings):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page("pages/data.py").run()
    at.radio(key="data_source").set_value("upload").run()
    typings.clear()
    at.file_uploader(key="data_upload").set_value(("t.csv", CSV, "text/csv")).run()
    assert not at.exception and not at.error
    assert at.selectbox(key="data_target").value == "outcome"
    assert typings == [("outcome", None, "level")]                   # read and typed once, in the worker
    at.selectbox(key="data_method").set_value("quantile").run()
    at.number_input(key="data_bins").set_value(4).run()
    assert not at.exception and len(typings) == 1                    # two binnings: no retyping
    other = next(o for o in at.selectbox(key="data_positive").options if o != at.selectbox(key="data_positive").value)
    at.selectbox(key="data_positive").set_value(other).run()
    assert typings[1:] == [("outcome", other, "level")]               # another positive class: typed once more
    at.number_input(key="data_bins").set_value(5).run()
    assert len(typings) == 2
    at.button(key="data_use").click().run()
    from ui.data import APPLIED, Applied

    applied = at.session_state[APPLIED]
    assert isinstance(applied, Applied) and (applied.method, applied.bins, applied.positive) == ("quantile", 5, other)
    assert at.session_state["fslab.current_data"].encoded.X.shape == (60, 2)
