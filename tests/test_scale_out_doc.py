"""docs/scale-out.md's Python snippet runs as written (issue 23.4): in a fresh interpreter, in an empty folder, it
writes the parquet files, starts and closes its LocalCluster, and prints the selection and NPFS's relevant features."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

DOC = Path(__file__).resolve().parents[1] / "docs" / "scale-out.md"


def python_blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", DOC.read_text(), flags=re.M | re.S)


@pytest.mark.slow
@pytest.mark.cluster   # its LocalCluster runs in the subprocess
def test_the_snippet_runs_as_written(tmp_path):
    blocks = python_blocks()
    assert len(blocks) == 1 and 'if __name__ == "__main__":' in blocks[0]
    (tmp_path / "snippet.py").write_text(blocks[0])
    done = subprocess.run([sys.executable, "snippet.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    selected, relevant = done.stdout.strip().splitlines()[-2:]
    assert selected.startswith("(") and "odor=" in selected   # five feature names
    assert relevant.startswith("[")
    assert (tmp_path / "mushroom-parquet").is_dir()
