"""AppTest's per-run overheads, cut in the test process (issue 36.5). Importing this module installs all three.

Streamlit 1.67's ``AppTest._run`` builds a fresh ``ScriptCache`` on every run, so each ``at.run()`` reads and
recompiles app.py and the page's script (magic's AST pass included: about 0.02 s of CPU a run); and each new AppTest
scans the metadata of every installed package for v2 components (``scan_component_manifests``: about 0.15 s of CPU,
102 packages, once per AppTest). A real server does both once per process. Here:

- one ``ScriptCache`` shared by every run of the process, its entries keyed by the file's (path, mtime_ns, size), so a
  script a test rewrites is compiled again;
- the manifest scan memoised (the installed packages do not change during a test run);
- the wait for a run's end blocks on the script thread instead of polling: Streamlit's ``require_widgets_deltas``
  wakes every millisecond (about 700 wake-ups a second of script), each taking the GIL from the script thread and
  scanning its events; a timed-out run still stops the script and raises the same error.
"""

from __future__ import annotations

import functools
import os
from typing import Any

from streamlit.components.v2 import manifest_scanner
from streamlit.runtime.scriptrunner.script_cache import ScriptCache
from streamlit.testing.v1 import app_test, local_script_runner

_polling_wait = local_script_runner.require_widgets_deltas


class StatScriptCache(ScriptCache):
    """A ``ScriptCache`` whose entries hold while the file's mtime and size do."""

    def __init__(self) -> None:
        super().__init__()
        self._stamps: dict[str, tuple[int, int]] = {}

    def get_bytecode(self, script_path: str) -> Any:
        path = os.path.abspath(script_path)
        st = os.stat(path)
        stamp = (st.st_mtime_ns, st.st_size)
        with self._lock:
            if self._stamps.get(path) != stamp:
                self._cache.pop(path, None)
                self._stamps[path] = stamp
        return super().get_bytecode(path)


SHARED = StatScriptCache()
# The two places a run makes its cache: AppTest._run (for the pages) and LocalScriptRunner (for the main script).
app_test.ScriptCache = local_script_runner.ScriptCache = lambda: SHARED  # type: ignore[assignment,misc]

if not hasattr(manifest_scanner.scan_component_manifests, "cache_info"):
    manifest_scanner.scan_component_manifests = functools.cache(manifest_scanner.scan_component_manifests)


def require_widgets_deltas(runner: local_script_runner.LocalScriptRunner, timeout: float = 3) -> None:
    """Return once the script thread of ``runner`` has ended with its SHUTDOWN; past ``timeout`` seconds, stop the
    script and raise Streamlit's timeout error; a thread that ended without SHUTDOWN gets Streamlit's own wait."""
    thread = getattr(runner, "_script_thread", None)
    if thread is None:
        return _polling_wait(runner, timeout)
    thread.join(timeout)
    if runner.script_stopped():
        return None
    if not thread.is_alive():
        return _polling_wait(runner, timeout)
    runner.request_stop()
    runner.join()
    raise RuntimeError(f"AppTest script run timed out after {timeout}(s)")

if local_script_runner.require_widgets_deltas is _polling_wait:
    local_script_runner.require_widgets_deltas = require_widgets_deltas
