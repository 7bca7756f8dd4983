"""A folded section draws nothing until it is opened (issue 34.5): a closed ``st.expander``'s content is still sent
to the browser and drawn, hidden, on every run of its page (Select's folded sections held 694 of its 2,554 elements
on the toy distribution; 77 now: the folded headings and the sidebar's share box), so an expander that holds a
formula, a chart or a data grid takes ``on_change="rerun"`` and draws its content under ``if <expander>.open``. A
static check of app.py, pages/ and ui/ (no app run)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COSTLY = {"latex", "plotly_chart", "dataframe", "data_editor"}


def _calls(nodes) -> set[str]:
    """The attribute names called anywhere in ``nodes`` (``st.latex(...)`` -> "latex")."""
    return {n.func.attr for node in nodes for n in ast.walk(node)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}


def _expanders(tree: ast.AST):
    """(line, call, as-name, body) of every ``with ....expander(...) [as name]:``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.With):
            for item in node.items:
                call = item.context_expr
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "expander":
                    name = item.optional_vars.id if isinstance(item.optional_vars, ast.Name) else None
                    yield node.lineno, call, name, node.body


def _guarded(body: list[ast.stmt], name: str) -> bool:
    """The body's costly calls all sit under ``if name.open:`` (or after ``if not name.open: return``)."""
    def is_open(test) -> bool:
        return isinstance(test, ast.Attribute) and test.attr == "open" and getattr(test.value, "id", None) == name
    for i, stmt in enumerate(body):
        if isinstance(stmt, ast.If) and isinstance(stmt.test, ast.UnaryOp) and isinstance(stmt.test.op, ast.Not) \
                and is_open(stmt.test.operand) and any(isinstance(s, ast.Return) for s in stmt.body):
            return not (_calls(body[:i]) & COSTLY)
        if isinstance(stmt, ast.If) and is_open(stmt.test):
            continue
        if _calls([stmt]) & COSTLY:
            return False
    return True


def folded_costly_sections(paths, root: Path = ROOT) -> list[str]:
    """'file:line' (relative to ``root``) of each expander that draws a formula, chart or grid while folded."""
    found = []
    for path in paths:
        for line, call, name, body in _expanders(ast.parse(path.read_text(encoding="utf-8"))):
            if not _calls(body) & COSTLY:
                continue
            reruns = any(k.arg == "on_change" and getattr(k.value, "value", None) == "rerun" for k in call.keywords)
            if not (reruns and name and _guarded(body, name)):
                found.append(f"{path.relative_to(root)}:{line}")
    return found


def test_no_folded_section_draws_a_formula_chart_or_grid():
    paths = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "ui").glob("*.py"))]
    assert folded_costly_sections(paths) == []


def test_the_check_sees_an_unguarded_section(tmp_path):
    """The rule fails on a folded formula, on one drawn before the guard, and passes the two guarded forms."""
    page = tmp_path / "page.py"
    page.write_text(
        'with st.expander("a"):\n    st.latex("x")\n'
        'with st.expander("b", key="b", on_change="rerun") as b:\n    st.latex("x")\n    if b.open:\n        pass\n'
        'with st.expander("c", key="c", on_change="rerun") as c:\n    if c.open:\n        st.dataframe(d)\n'
        'def f():\n    with st.expander("d", key="d", on_change="rerun") as d:\n        if not d.open:\n'
        '            return\n        st.plotly_chart(fig)\n'
        'with st.expander("e"):\n    st.markdown("words only")\n', encoding="utf-8")
    assert folded_costly_sections([page], tmp_path) == ["page.py:1", "page.py:3"]
