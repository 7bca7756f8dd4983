"""Counting the subset tables a job really evaluates, for bench/bench_cost.py and tests/test_cost.py (an instrument,
not part of the library: issue 25 moved it out of fslab.cost).

A profile hook (``sys.setprofile``) sees every call of the evaluators' ``criterion`` (1 table), ``extensions`` (one
per candidate) and ``removals`` (one per kept feature), of the sources' ``table`` / ``extension_tables`` used outside
an evaluator (the permutation test) and of mRMR's pair tables (one per candidate, by ``feature_pair_counts`` or
``pair_information``); nested calls count once, at the outermost level. Nothing is patched: the hook is this
thread's only, and gone when the block ends. Jobs run several times slower while it is on, so time them outside it.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Measured:
    """Work counted while :func:`measure_work` was active: tables (one per subset evaluated) and calls."""

    tables: int = 0
    calls: int = 0
    by_method: dict = field(default_factory=dict)


def _sizes() -> dict:
    """code object -> (method name, the number of tables of one call from its arguments)."""
    from fslab.measures.evaluator import Evaluator
    from fslab.selectors import _counting
    from fslab.tables import CodedSource

    size = {"criterion": lambda a: 1, "table": lambda a: 1, "extensions": lambda a: len(a["candidates"]),
            "extension_tables": lambda a: len(a["candidates"]), "removals": lambda a: len(a["kept"]),
            "pairs": lambda a: len(a["candidates"]), "pair_information": lambda a: len(a["firsts"])}
    classes, todo = [], [Evaluator]
    while todo:
        cls = todo.pop()
        classes.append(cls)
        todo.extend(cls.__subclasses__())
    found = {vars(cls)[name].__code__: name for cls in classes for name in ("criterion", "extensions", "removals")
             if name in vars(cls)}
    found |= {CodedSource.table.__code__: "table", CodedSource.extension_tables.__code__: "extension_tables",
              _counting.feature_pair_counts.__code__: "pairs", _counting.pair_information.__code__: "pair_information"}
    return {code: (name, size[name]) for code, name in found.items()}


@contextmanager
def measure_work():
    """``with measure_work() as work: job()`` -> ``work.tables``, ``work.calls``, ``work.by_method``."""
    counts, targets, depth = Measured(), _sizes(), [0]
    previous = sys.getprofile()

    def hook(frame, event, arg):
        target = targets.get(frame.f_code)
        if target is None or event not in ("call", "return"):
            return
        if event == "return":
            depth[0] -= 1
            return
        if depth[0] == 0:
            name, size = target
            n = size(frame.f_locals)
            counts.tables += n
            counts.calls += 1
            counts.by_method[name] = counts.by_method.get(name, 0) + n
        depth[0] += 1

    sys.setprofile(hook)
    try:
        yield counts
    finally:
        sys.setprofile(previous)
