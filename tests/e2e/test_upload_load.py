"""Issue 32's load goal, shortened (bench/load_test.py --upload): on a real `streamlit run` server, one session
uploads 2 MB of pathological cells (20 cells of 100,000 characters: typed in the worker for longer than the other
session's two Home loads take: 8 s against 2 x 2.4 s at load 9), then the fixed_size_binary parquet bomb (4 GB once
decoded), while another session loads Home twice each; Home's median stays within 2x of its idle time measured just
before each upload (``--paired``: this shared machine's load drifts between 15 and 30 within minutes) and the
server's resident memory under the upload limit + 500 MB. Nine Home loads in all (13 with three each and 25 cells:
66 s of wall, 25 s of CPU at load 9). The other hostile files are refused through the library, the command line and
the Data page in tests/test_upload_hostile.py."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow


def test_hostile_uploads_leave_home_responsive_and_the_server_small():
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "load_test.py"), "--upload", "--home-loads", "2",
                          "--paired", "--cells", "20", "--only", "pathological", "fixed_size_binary"],
                         capture_output=True, text=True, cwd=ROOT, timeout=1800)
    assert "goals:" in out.stdout, out.stdout[-3000:] + out.stderr[-3000:]
    rows = [line for line in out.stdout.splitlines() if re.match(r"(pathological|fixed_size)", line)]
    assert len(rows) == 2, out.stdout
    # the cells are typed in the capped worker: accepted, or stopped at the CPU-time limit, never the server's time
    assert rows[0].endswith("accepted") or "took more CPU time than allowed" in rows[0], rows[0]
    assert "holds values of type fixed_size_binary[20000]" in rows[1]
    assert out.returncode == 0, out.stdout[-3000:]   # both goals met (the script's last line says which failed)
