"""tests/apptest_cache.py: every AppTest run of the process shares one script cache, which a rewritten script
misses, and the component scan runs once."""

from __future__ import annotations

import pytest
from streamlit.components.v2 import manifest_scanner
from streamlit.testing.v1 import AppTest

from tests import apptest_cache


def test_runs_share_the_compiled_script_and_a_rewritten_script_is_compiled_again(tmp_path):
    script = tmp_path / "page.py"
    script.write_text("import streamlit as st\nst.write('one')\n")
    at = AppTest.from_file(str(script)).run()
    code = apptest_cache.SHARED._cache[str(script)]
    assert [m.value for m in at.markdown] == ["one"]
    AppTest.from_file(str(script)).run()
    assert apptest_cache.SHARED._cache[str(script)] is code  # a second AppTest did not compile it again
    script.write_text("import streamlit as st\nst.write('three')\n")  # another size: a new stamp
    assert [m.value for m in at.run().markdown] == ["three"]
    assert apptest_cache.SHARED._cache[str(script)] is not code


def test_the_component_scan_runs_once_per_process(tmp_path):
    script = tmp_path / "page.py"
    script.write_text("import streamlit as st\nst.write('x')\n")
    AppTest.from_file(str(script)).run()
    hits = manifest_scanner.scan_component_manifests.cache_info()
    AppTest.from_file(str(script)).run()
    after = manifest_scanner.scan_component_manifests.cache_info()
    assert (after.misses, after.hits) == (hits.misses, hits.hits + 1) and after.misses == 1


def test_a_run_past_its_timeout_is_stopped_with_streamlits_error(tmp_path):
    """The blocking wait keeps Streamlit's timeout: a run past it raises Streamlit's "timed out" error."""
    script = tmp_path / "slow.py"
    script.write_text("import time\nimport streamlit as st\nfor _ in range(100):\n    time.sleep(0.01)\n"
                      "    st.empty()\nst.write('done')\n")
    at = AppTest.from_file(str(script))
    with pytest.raises(RuntimeError, match=r"timed out after 0\.2"):
        at.run(timeout=0.2)
