"""Issues 25 and 36: imports flow downward only (DESIGN.md, "Layers"), function-level ones too, in fslab/, ui/,
pages/ and app.py: ``pages`` (and ``app``) -> ``ui`` -> ``fslab``, and inside fslab the layers of DESIGN.md
(:data:`LAYERS`). An import from a lower layer to a higher one fails, and so does any circle.

The graph is read from the source with ``ast``, not from ``sys.modules``: every ``import`` / ``from ... import``
anywhere in a module (module level, in functions, in ``try`` blocks), and ``importlib.import_module`` calls with a
literal name (relative names resolved against the module's package), so an import cannot hide from the check by
being late or spelled through ``importlib``. Imports under ``if TYPE_CHECKING:`` never run and are not edges.
``import fslab.samples``-style old paths (``fslab._moved``) count as the module they alias.
"""

from __future__ import annotations

import ast
from fnmatch import fnmatchcase
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
READ = ("fslab", "ui", "pages", "app.py")  # every directory (or file) whose imports are checked
OURS = {"fslab", "ui", "pages", "app"}   # the top-level names of those modules


def _tree(name: str) -> list[str]:
    """``name`` and every module below it, as fnmatch patterns."""
    return [name, name + ".*"]


# DESIGN.md's layers, top to bottom: a module may import its own layer and the layers below it, never one above.
# Every module must fall in one layer (the first listed pattern that matches it): a new top-level module of fslab/
# is declared here, where DESIGN.md puts it. Inside a layer, only circles are forbidden (test below).
LAYERS: tuple[tuple[str, list[str]], ...] = (
    ("pages and app.py (st.navigation over pages/)", ["app", *_tree("pages")]),
    ("ui/ (Streamlit-only helpers)", _tree("ui")),
    ("fslab's facade", ["fslab", "fslab.__main__"]),
    ("command line; scikit-learn adapter", [*_tree("fslab.cli"), "fslab.evaluate"]),
    ("cost and recipes", ["fslab.cost", "fslab.recipe"]),
    ("analyses over selectors and NPFS (curves, checks, comparisons, k, scheduler)",
     ["fslab.curves", "fslab.robustness", "fslab.binning", "fslab.compare", "fslab.by_measure",
      "fslab.convergence", "fslab.stopping", "fslab.ksuggest", "fslab.cluster"]),
    ("npfs/", _tree("fslab.npfs")),
    ("pena_nilsson/", _tree("fslab.pena_nilsson")),
    ("plots/", _tree("fslab.plots")),
    ("selectors/", _tree("fslab.selectors")),
    ("on the measures (criteria, scores, learners, terms, code alerts)",
     ["fslab.criteria", "fslab.scores", "fslab.learners", "fslab.terms", "fslab.alerts"]),
    ("measures/", _tree("fslab.measures")),
    ("information.py", ["fslab.information"]),
    ("data/", _tree("fslab.data")),
    ("counting/ (the engines that turn codes into count tables: dense, sparse, removal, Dask kernels, SQL folds)",
     _tree("fslab.counting")),
    ("tables.py", ["fslab.tables"]),
    ("foundations (errors, limits and capped readers, row hashes, safe export, rank tests, reproduction)",
     ["fslab.errors", "fslab.limits", "fslab.limited", "fslab.row_hash", "fslab.export", "fslab.rank_tests",
      "fslab.reproduction", "fslab._moved"]),
)

# Imports that run back up today, each with the issue that removes it: the test fails on any other upward import,
# and on an entry here that no longer exists (delete it then).
KNOWN_UPWARD: dict[tuple[str, str], str] = {}   # none since issue 36.1 (the counting floor)

# Layers that sit side by side although LAYERS lists one above the other: neither may import the other (issue 36.1:
# measures count through fslab.counting, sources name their counter; the data layer never computes a measure).
SIBLINGS: tuple[tuple[str, str], ...] = (("fslab.measures", "fslab.data"),)


def _modules() -> dict[str, Path]:
    mods = {}
    for top in READ:
        for path in sorted((ROOT / top).rglob("*.py")) if (ROOT / top).is_dir() else [ROOT / top]:
            parts = path.relative_to(ROOT).with_suffix("").parts
            mods[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return mods


def layer_of(module: str) -> int | None:
    """Index in :data:`LAYERS` of the first layer with a pattern matching ``module`` (0 = top); None if none."""
    return next((i for i, (_, patterns) in enumerate(LAYERS)
                 if any(fnmatchcase(module, p) for p in patterns)), None)


def _aliases() -> dict[str, str]:
    """Old module paths served by ``fslab._moved`` (empty once the shims are gone)."""
    try:
        from fslab._moved import MOVED
    except ImportError:
        return {}
    return dict(MOVED)


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _absolute(name: str, level: int, package: str) -> str:
    if not level:
        return name
    base = package.split(".")
    base = base[:len(base) - level + 1]
    return ".".join(base + ([name] if name else []))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imported_names(tree: ast.Module, package: str) -> list[tuple[str, int]]:
    """(absolute dotted name, line) of every runtime import in a module; ``from a import b`` gives ``a.b``
    (resolved later to the module ``a.b`` if there is one, else to ``a``)."""
    found = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node.module or "", node.level, package)
            found.extend((f"{base}.{alias.name}" if base else alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.Call) and _is_import_module(node.func) and node.args \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            name = node.args[0].value
            level = len(name) - len(name.lstrip("."))
            found.append((_absolute(name[level:], level, package), node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _is_import_module(func: ast.expr) -> bool:
    return (isinstance(func, ast.Attribute) and func.attr == "import_module") or (
        isinstance(func, ast.Name) and func.id == "import_module")


@cache
def import_graph() -> tuple[dict[str, set[str]], dict[tuple[str, str], list[int]], dict[str, set[str]]]:
    """(edges between our modules (fslab, ui, pages, app), the lines of each edge, the outside top-level packages
    each module imports). Read once per test session; do not mutate the result."""
    mods, aliases = _modules(), _aliases()
    edges: dict[str, set[str]] = {m: set() for m in mods}
    lines: dict[tuple[str, str], list[int]] = {}
    outside: dict[str, set[str]] = {m: set() for m in mods}
    for module, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for name, line in _imported_names(tree, _package_of(module, path)):
            target = name
            while target and target not in mods and target not in aliases and "." in target:
                target = target.rpartition(".")[0]
            target = aliases.get(target, target)
            if target in mods:
                if target != module:
                    edges[module].add(target)
                    lines.setdefault((module, target), []).append(line)
            elif target.split(".")[0] not in OURS:
                outside[module].add(target.split(".")[0])
    return edges, lines, outside


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components with more than one module (iterative: no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


def _a_cycle(component: list[str], edges: dict[str, set[str]]) -> list[str]:
    """One shortest cycle through the component's first member (breadth-first), as the list of its modules."""
    start, inside = component[0], set(component)
    parent: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(edges[node] & inside):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(parent[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if child not in parent:
                    parent[child] = node
                    following.append(child)
        frontier = following
    return []


def _describe(component: list[str], edges, lines) -> str:
    cycle = _a_cycle(component, edges)
    steps = [f"  {a} -> {b} (line {', '.join(map(str, sorted(set(lines[a, b]))))})"
             for a, b in zip(cycle, cycle[1:], strict=False)]
    return f"{len(component)} modules in a circle: {', '.join(component)}\n one cycle among them:\n" + "\n".join(steps)


def test_the_graph_sees_late_and_importlib_imports():
    """The reader itself: a function-level import and an importlib call with a literal name are edges."""
    tree = ast.parse("def f():\n    from .b import c\n    import importlib\n"
                     "    return importlib.import_module('.d', __package__)\n"
                     "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .e import E\n")
    assert sorted(name for name, _ in _imported_names(tree, "fslab.x")) == [
        "fslab.x.b.c", "fslab.x.d", "importlib", "typing.TYPE_CHECKING"]
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert strongly_connected(edges) == [["a", "b", "c"]] and _a_cycle(["a", "b", "c"], edges) == ["a", "b", "c", "a"]


def upward_imports(edges: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Every edge (importer, imported) whose imported module sits in a higher layer than its importer."""
    return sorted((a, b) for a, targets in edges.items() for b in targets
                  if (layer_of(b) is not None and layer_of(a) is not None and layer_of(b) < layer_of(a)))


def test_layers_are_read_as_declared():
    """The layer reader itself, on names (fast): the first matching layer wins, sub-packages follow their package,
    and an upward edge is reported while a downward or same-layer one is not."""
    assert [layer_of(m) for m in ("pages.npfs", "app", "ui.share", "fslab", "fslab.cli.main", "fslab.evaluate",
                                  "fslab.npfs.procedure", "fslab.selectors._loop", "fslab.measures.f_beta",
                                  "fslab.data.sparse", "fslab.tables", "fslab.errors")] == \
        [0, 0, 1, 2, 3, 3, 6, 9, 11, 13, 15, 16]
    assert layer_of("fslab.counting.dense") == 14
    assert layer_of("fslab.brand_new_module") is None and layer_of("uix") is None  # undeclared: the test says so
    edges = {"ui.share": {"fslab.measures"}, "fslab.measures.f_beta": {"fslab.tables", "ui.share", "fslab.npfs"},
             "fslab.tables": set(), "fslab.npfs": {"fslab.measures.f_beta"}}
    assert upward_imports(edges) == [("fslab.measures.f_beta", "fslab.npfs"), ("fslab.measures.f_beta", "ui.share")]


@pytest.mark.slow  # reads ~200 files: 1.2 s measured (inner loop: unit and not slow)
def test_no_circle_in_fslab_ui_pages():
    edges, lines, _ = import_graph()
    assert len([m for m in edges if m.startswith("fslab.")]) > 50 and edges["fslab"]  # the whole package was read
    assert len([m for m in edges if m.startswith("ui.")]) > 20 and len([m for m in edges if m.startswith("pages.")]) > 5
    cycles = strongly_connected(edges)
    assert not cycles, "import cycles (each edge: importer -> imported):\n" + "\n".join(
        _describe(c, edges, lines) for c in cycles)


@pytest.mark.slow  # shares the graph read above
def test_imports_flow_down_the_declared_layers():
    edges, lines, _ = import_graph()
    undeclared = sorted(m for m in edges if layer_of(m) is None)
    assert not undeclared, f"modules in no layer: {undeclared}; add each to LAYERS where DESIGN.md puts it"
    upward = upward_imports(edges)
    new = [f"  {a} ({LAYERS[layer_of(a)][0]}) -> {b} ({LAYERS[layer_of(b)][0]}), line "
           f"{', '.join(map(str, sorted(set(lines[a, b]))))}" for a, b in upward if (a, b) not in KNOWN_UPWARD]
    assert not new, "imports from a lower layer up to a higher one (DESIGN.md, Layers):\n" + "\n".join(new)
    gone = sorted(set(KNOWN_UPWARD) - set(upward))
    assert not gone, f"KNOWN_UPWARD lists imports that no longer run up: {gone}; delete them from the list"


def sibling_imports(edges: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Every edge between two :data:`SIBLINGS` packages, in either direction."""
    def inside(module: str, package: str) -> bool:
        return module == package or module.startswith(package + ".")

    return sorted((a, b) for a, targets in edges.items() for b in targets for p, q in SIBLINGS
                  if (inside(a, p) and inside(b, q)) or (inside(a, q) and inside(b, p)))


def test_sibling_reader():
    edges = {"fslab.measures.base": {"fslab.data.sparse", "fslab.counting.engines"},
             "fslab.data.plan": {"fslab.measures", "fslab.counting.folds"}, "fslab.datax": {"fslab.measures"}}
    assert sibling_imports(edges) == [("fslab.data.plan", "fslab.measures"),
                                      ("fslab.measures.base", "fslab.data.sparse")]


@pytest.mark.slow  # shares the graph read above
def test_measures_and_data_never_import_each_other():
    """Issue 36.1: the measures count through fslab.counting (a source names its counter: ``counter_of``), and
    the data layer reads the folds and engine bounds from there, never from the measures."""
    edges, lines, _ = import_graph()
    found = [f"  {a} -> {b}, line {', '.join(map(str, sorted(set(lines[a, b]))))}" for a, b in sibling_imports(edges)]
    assert not found, "imports between side-by-side layers:\n" + "\n".join(found)


@pytest.mark.slow  # 0.79 s measured (inner loop: unit and not slow)
def test_no_fslab_module_names_streamlit():
    """The static side of tests/test_import.py (which imports fslab and checks sys.modules): no module, not even
    in a function that test never calls, imports streamlit."""
    _, _, outside = import_graph()
    assert {m for m, packages in outside.items() if "streamlit" in packages} >= {"ui.share", "pages.npfs"}
    assert not {m for m, packages in outside.items() if "streamlit" in packages and m.split(".")[0] == "fslab"}
