"""Issue 25: fslab's imports flow downward only (DESIGN.md, "Layers"), function-level ones too.

The graph is read from the source with ``ast``, not from ``sys.modules``: every ``import`` / ``from ... import``
anywhere in a module (module level, in functions, in ``try`` blocks), and ``importlib.import_module`` calls with a
literal name (relative names resolved against the module's package), so an import cannot hide from the check by
being late or spelled through ``importlib``. Imports under ``if TYPE_CHECKING:`` never run and are not edges.
``import fslab.samples``-style old paths (``fslab._moved``) count as the module they alias.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "fslab"


def _modules() -> dict[str, Path]:
    mods = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        mods[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return mods


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


def import_graph() -> tuple[dict[str, set[str]], dict[tuple[str, str], list[int]], dict[str, set[str]]]:
    """(edges between fslab modules, the lines of each edge, the outside top-level packages each module imports)."""
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
            elif target.split(".")[0] != "fslab":
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


@pytest.mark.slow  # 1.06 s measured (inner loop: unit and not slow)
def test_fslab_imports_have_no_cycle():
    edges, lines, _ = import_graph()
    assert len(edges) > 50 and edges["fslab"]  # the whole package was read
    cycles = strongly_connected(edges)
    assert not cycles, "import cycles among fslab modules (each edge: importer -> imported):\n" + "\n".join(
        _describe(c, edges, lines) for c in cycles)


@pytest.mark.slow  # 0.79 s measured (inner loop: unit and not slow)
def test_no_fslab_module_names_streamlit():
    """The static side of tests/test_import.py (which imports fslab and checks sys.modules): no module, not even
    in a function that test never calls, imports streamlit."""
    _, _, outside = import_graph()
    assert not {m for m, packages in outside.items() if "streamlit" in packages}
