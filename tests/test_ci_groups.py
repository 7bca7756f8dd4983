"""tests/conftest.py's worker groups for `pytest -n N --dist loadgroup` (.ci/run, issue 36.5): tests sharing a costly
server never run on two workers at once, a module-scoped fixture is built once, everything else spreads."""

from __future__ import annotations

import pytest

from tests.conftest import source_groups, work_group

TWO_TESTS = "import pytest\n\n{head}\ndef test_a(client, tmp_path):\n    pass\n\n{mark}\ndef test_b():\n    {body}\n"


@pytest.mark.parametrize("path,source,group,cluster", [
    ("tests/e2e/test_toy_e2e.py", "def test_toy(page):\n    pass\n", "browser tests/e2e/test_toy_e2e.py", set()),
    # per test: the client fixture, LocalCluster in its body, the cluster mark
    ("tests/test_a.py", TWO_TESTS.format(head="", mark="", body="pass"), None, {"test_a"}),
    ("tests/test_a.py", TWO_TESTS.format(head="", mark="", body="from distributed import LocalCluster"), None,
     {"test_a", "test_b"}),
    ("tests/test_a.py", TWO_TESTS.format(head="", mark="@pytest.mark.cluster", body="pass"), None,
     {"test_a", "test_b"}),
    # the whole file: a module-level cluster mark; a module-scoped fixture
    ("tests/test_a.py", TWO_TESTS.format(head="pytestmark = pytest.mark.cluster", mark="", body="pass"), "cluster",
     {"test_a"}),
    ("tests/test_a.py", TWO_TESTS.format(head="@pytest.fixture(scope='module')\ndef f():\n    return 1\n", mark="",
                                         body="pass"), "file tests/test_a.py", {"test_a"}),
    # neither: a session fixture, a name in a docstring, a test that does not parse
    ("tests/test_a.py", "import pytest\n\n@pytest.fixture(scope='session')\ndef f():\n    return 1\n\n"
                        "def test_a(f, client_id):\n    '''LocalCluster in a docstring'''\n", None, set()),
    ("tests/test_a.py", "def broken(:\n", None, set()),
])
def test_groups_from_the_source(path, source, group, cluster):
    assert source_groups(path, source) == (group, cluster)


def test_groups_of_nodeids():
    """A PostgreSQL parameter groups a test of an otherwise free file; this file's own tests go anywhere; a browser
    file's tests stay together, and two browser files may run on two workers."""
    assert work_group("tests/test_ci_groups.py::test_groups_of_nodeids") is None
    assert work_group("tests/test_ci_groups.py::test_x[postgres-2]") == "postgres"
    assert work_group("tests/test_ci_groups.py::test_x[duckdb-postgresql_like]") is None
    assert work_group("tests/e2e/test_toy_e2e.py::test_anything") == "browser tests/e2e/test_toy_e2e.py"
    assert work_group("tests/e2e/test_share_e2e.py::test_a[x]") == "browser tests/e2e/test_share_e2e.py"
