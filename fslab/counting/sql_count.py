"""Folds and Poisson bootstrap weights computed in a SQL engine: :mod:`fslab.row_hash` written as SQL.

The SQL uses only ``+``, ``*``, ``%`` on BIGINT, ``CASE`` and ``row_number()``, so DuckDB, SQLite and PostgreSQL give
:func:`fslab.row_hash.folds` and :func:`fslab.row_hash.poisson_weights` to the integer (no engine hash, no XOR, no
division: SQLite divides integers, DuckDB ``/`` gives a float, and Ibis's floor division goes through a float on
every engine). Every product stays below 2**63 (``row_hash``'s bounds), so no engine overflows or rounds.

The hash is a left fold over its values, so a constant prefix (the seed and the class; the bootstrap key) is folded
on the client and the engine computes only the rounds that read a column.

**Folds** over rows ordered by ``order`` (the source's row order):
``j = row_number() OVER (PARTITION BY y ORDER BY order) - 1`` (the class rank),
``b = row_number() OVER (PARTITION BY y, j % K ORDER BY j) - 1`` (= j div K: the rows of one class with the same
``j % K`` are j = r, r + K, r + 2K, ...), fold ``= (j % K + hash(seed, y, b)) % K``.

**Weights** of row i (0-based in the source's row order; the ``i`` column of the numbered rows):
``u = hash(key_hi, key_lo, i)``, weight ``= #{k : u >= T_k}`` as a ``CASE`` over the integer thresholds T.
"""

from __future__ import annotations

import numpy as np

from .. import row_hash
from ..errors import ParameterError


def hash_round_sql(rows: str, state: str, value: str, out: str) -> str:
    """``SELECT *, h AS out FROM (rows)``: one round of :func:`fslab.row_hash.row_hash`, h = ``scramble(scramble(
    absorb(state, value)) * MULT2 % P)`` with absorb(x, v) = ((x + v % P) * MULT) % P and scramble(x) = (x * x + ADD)
    % P, on the SQL expressions ``state`` (in [0, P)) and ``value`` (>= 0), one subquery per step (each step reads
    the previous one's column twice: nested, the text would double per step). PostgreSQL's SQL; Ibis transpiles it
    to the engine's dialect (SQLite's ``%`` is the integer remainder; Ibis renders it as ``MOD()``, a float
    function there, hence SQL text and not Ibis expressions)."""
    P, M, M2, A = row_hash.P, row_hash.MULT, row_hash.MULT2, row_hash.ADD
    absorb = f"((CAST({state} AS BIGINT) + CAST({value} AS BIGINT) % {P}) * {M}) % {P}"
    q = f'SELECT *, {absorb} AS "_h1" FROM ({rows}) AS "_r1"'
    q = f'SELECT *, ("_h1" * "_h1" + {A}) % {P} AS "_h2" FROM ({q}) AS "_r2"'
    q = f'SELECT *, ("_h2" * {M2}) % {P} AS "_h3" FROM ({q}) AS "_r3"'
    return f'SELECT *, ("_h3" * "_h3" + {A}) % {P} AS "{out}" FROM ({q}) AS "_r4"'


def class_states(seed: int, n_labels: int) -> np.ndarray:
    """The hash state after absorbing (seed, c) for every class c: ``row_hash(seed, c)``."""
    return row_hash.row_hash(int(seed), np.arange(n_labels, dtype=np.int64))


def check_folds_and_seed(n_folds, seed) -> tuple[int, int]:
    """A whole number of folds 2 .. 20 and a seed 0 <= seed < 2**63 (as the in-memory split takes them)."""
    from ..counting.folds import MAX_FOLDS

    if isinstance(n_folds, bool) or not isinstance(n_folds, int | np.integer) or not 2 <= n_folds <= MAX_FOLDS:
        raise ParameterError(f"folds must be a whole number from 2 to {MAX_FOLDS}; got {n_folds!r}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= int(seed) < 2**63:
        raise ParameterError(f"the split seed must be a whole number from 0 to 2**63 - 1; got {seed!r}")
    return int(n_folds), int(seed)


def ranked(t, order: str):
    """``t`` with ``_j``, the 0-based rank of each row among the rows of its class ``y`` in the order of the column
    ``order``: the first step of the folds (an Ibis expression; store it, then :func:`folded_sql`)."""
    import ibis

    return t.mutate(_j=ibis.row_number().over(group_by=t.y, order_by=t[order]).cast("int64"))


def folded_sql(table: str, columns: list[str], n_folds: int, seed: int, n_labels: int) -> str:
    """SQL over the stored :func:`ranked` rows ``table``: its ``columns`` and ``y`` = fold * L + y, the module's
    fold rule (``_b`` = j div K by a second ``row_number()``, then one hash round from the per-class state)."""
    K, L = int(n_folds), int(n_labels)
    states = " ".join(f"WHEN {c} THEN {int(x)}" for c, x in enumerate(class_states(seed, L)))
    blocks = (f'SELECT *, ROW_NUMBER() OVER (PARTITION BY "y", "_j" % {K} ORDER BY "_j") - 1 AS "_b" '
              f'FROM "{table}"')
    hashed = hash_round_sql(blocks, f'CASE "y" {states} ELSE 0 END', '"_b"', "_h")
    keep = ", ".join(f'"{c}"' for c in columns)
    return f'SELECT {keep}, CAST((("_j" % {K} + "_h") % {K}) * {L} + "y" AS INTEGER) AS "y" FROM ({hashed}) AS "_f"'


MAX_MEAN = 100.0   # the CASE has about mean + 10 sqrt(mean) + 10 branches


def check_key_and_mean(key, mean) -> tuple[int, float]:
    """A bootstrap key (any integer, taken mod 2**64) and a Poisson mean in (0, MAX_MEAN]."""
    if isinstance(key, bool) or not isinstance(key, int | np.integer):
        raise ParameterError(f"the bootstrap key must be a whole number; got {key!r}")
    if isinstance(mean, bool) or not isinstance(mean, int | float | np.integer | np.floating) or not (
            0 < float(mean) <= MAX_MEAN):
        raise ParameterError(f"the bootstrap's mean row weight must be a number in (0, {MAX_MEAN:g}]; got {mean!r}")
    return int(key) % (1 << 64), float(mean)


def weighted_sql(table: str, columns: list[str], key: int, mean: float) -> str:
    """SQL over the stored rows ``table`` (with ``i``, the 0-based row index): its ``columns`` and ``w``, the
    Poisson(mean) weight of row i for bootstrap ``key``, :func:`fslab.row_hash.poisson_weights` as
    ``CASE WHEN u < T_0 THEN 0 WHEN u < T_1 THEN 1 ... END``, u = hash(key_hi, key_lo, i)."""
    hi, lo = row_hash.key_parts(key)
    hashed = hash_round_sql(f'SELECT * FROM "{table}"', str(int(row_hash.row_hash(hi, lo))), '"i"', "_u")
    thresholds = row_hash.poisson_thresholds(mean).tolist()
    cases = " ".join(f'WHEN "_u" < {int(t)} THEN {k}' for k, t in enumerate(thresholds))
    keep = ", ".join(f'"{c}"' for c in columns)
    return f'SELECT {keep}, CASE {cases} ELSE {len(thresholds)} END AS "w" FROM ({hashed}) AS "_w"'


__all__ = ["MAX_MEAN", "check_folds_and_seed", "check_key_and_mean", "class_states", "folded_sql", "hash_round_sql",
           "ranked", "weighted_sql"]
