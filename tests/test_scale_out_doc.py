"""docs/scale-out.md's Python snippet runs as written (issue 23.4): it is README's Dask block (the same code,
comments and layout aside), which tests/test_readme_blocks.py runs in a fresh interpreter on its own LocalCluster
(writes the parquet files, starts and closes the cluster, prints the selection and NPFS's relevant features)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.test_readme_blocks import python_block

DOC = Path(__file__).resolve().parents[1] / "docs" / "scale-out.md"


def python_blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", DOC.read_text(), flags=re.M | re.S)


def test_the_snippet_is_the_readme_block_that_runs():
    blocks = python_blocks()
    assert len(blocks) == 1 and 'if __name__ == "__main__":' in blocks[0]
    assert ast.dump(ast.parse(blocks[0])) == ast.dump(ast.parse(python_block("dask")))
