"""tests/conftest.py's worker groups for `pytest -n N --dist loadgroup` (.ci/run, issue 36.5): tests sharing a costly
server never run on two workers at once, a module-scoped fixture is built once, everything else spreads; the
longest units go out first."""

from __future__ import annotations

import pytest

from tests.conftest import BROWSER_S, PROCESS_S, QUICK_S, longest_first, source_costs, source_groups, work_group

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


SLOW_ONE = "import pytest\n\n@pytest.mark.slow  # a process\ndef test_a():\n    pass\n\ndef test_b():\n    pass\n"


@pytest.mark.parametrize("path,source,costs", [
    ("tests/e2e/test_toy_e2e.py", "def test_toy(page):\n    pass\n", (BROWSER_S, {})),
    ("tests/test_a.py", SLOW_ONE, (QUICK_S, {"test_a": PROCESS_S})),   # only the marked test
    ("tests/test_a.py", "import pytest\n\npytestmark = [pytest.mark.slow]\n" + SLOW_ONE, (PROCESS_S, {})),
    ("tests/test_cli_a.py", "def test_a():\n    pass\n", (PROCESS_S, {})),            # a command-line file
    ("tests/test_a.py", "def test_a():\n    from streamlit.testing.v1 import AppTest\n", (PROCESS_S, {})),  # app
    ("tests/test_a.py", "'''AppTest in a docstring'''\n", (QUICK_S, {})),
    ("tests/test_a.py", "def broken(:\n", (QUICK_S, {})),
])
def test_costs_from_the_source(path, source, costs):
    assert source_costs(path, source) == costs


def test_units_go_out_longest_first():
    """Two browser tests (40 s), then the cluster group's two (at least 3 s each), a single app test (2 s), then two
    quick unit tests (0.1 s) in the order xdist gave them (equal estimates keep their order)."""
    units = {"tests/test_ci_groups.py::test_units_go_out_longest_first": {"tests/test_ci_groups.py::t": False},
             "cluster": {"tests/test_cli_cluster.py::test_x[csv]": False, "tests/test_z.py::test_y": False},
             "tests/test_pages_select.py::test_q": {"tests/test_pages_select.py::test_q": False},
             "browser tests/e2e/test_toy_e2e.py": {"tests/e2e/test_toy_e2e.py::a": False,
                                                   "tests/e2e/test_toy_e2e.py::b": False},
             "tests/test_ci_groups.py::test_other": {"tests/test_ci_groups.py::test_other": False}}
    order = [scope for scope, _ in longest_first(units)]
    assert order == ["browser tests/e2e/test_toy_e2e.py", "cluster", "tests/test_pages_select.py::test_q",
                     "tests/test_ci_groups.py::test_units_go_out_longest_first", "tests/test_ci_groups.py::test_other"]
