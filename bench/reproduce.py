"""Reproduce every figure, table and numbered claim of the papers: the ledger of bench/REPRODUCE.md.

    .venv/bin/python bench/reproduce.py                  # the papers' protocol (hours; see REPRODUCE.md)
    .venv/bin/python bench/reproduce.py --quick          # CI-sized: every row at reduced scale (~2 minutes)
    .venv/bin/python bench/reproduce.py --scale 0.2      # rows, bootstraps and stand-in sizes x 0.2
    .venv/bin/python bench/reproduce.py --quick --only d-fig1 a-ex1     # some rows (not written as a ledger)
    .venv/bin/python bench/reproduce.py --markdown       # rewrite REPRODUCE.md's ledger from the shipped results
    .venv/bin/python bench/reproduce.py --rejudge scale  # reapply bench/repro_rules.py to a ledger's stored numbers
    .venv/bin/python bench/reproduce.py --only d-fig3 --merge --set kdd=1909,5000   # paper profile, some rows,
                                                         # a protocol field overridden (stated in each row's scale)

The papers' protocol (``Protocol()`` in bench/repro_common.py): Ahmed et al. 5 random train/test splits
(70/30, Adult 20/80) on every row, k = 1..15, hyper-parameters tuned on a held-out 20% of the training part,
Figure 5 / Table 2 at k up to 75 with the s = 2 approximation; Ditzler et al. n = 100 bootstraps (Figures 1
and 4), up to 500 (Figure 2), 10,000 (Figure 3, Table II), ten-fold CV (Table II). ``--quick`` and ``--scale``
reduce it; every reduction is recorded in the results (``protocol``) and shown on the Papers page.

Writes bench/results/<profile>/ledger.json (profile ``quick``, ``scale`` for --scale, ``paper``) and prints one
line per row with its verdict and time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before numpy: the machine's cores are shared
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import repro_ahmed  # noqa: E402
import repro_ditzler  # noqa: E402
import repro_pena  # noqa: E402
from repro_common import Protocol  # noqa: E402
from repro_rules import judge  # noqa: E402

from fslab.errors import DataError  # noqa: E402
from fslab.reproduction import (  # noqa: E402
    ALL_VERDICTS,
    RESULTS_DIR,
    Ledger,
    ledger_markdown,
    ledger_path,
    load_ledger,
    replace_ledger_block,
)

REPRODUCE_MD = HERE / "REPRODUCE.md"


def all_rows(p: Protocol):
    """(group id, thunk returning rows) for every ledger group, papers in order."""
    return [*repro_ahmed.rows(p), *repro_ditzler.rows(p), *repro_pena.rows(p)]


GROUP_OF = {"a-score": "a-fig1"}  # rows whose id does not start with their group's (computed from its curves)


def _wanted(group: str, groups: list[str], only) -> bool:
    """Run ``group`` for a requested id or prefix o: o is a prefix of the group ("a-", "a-fig4"), or the group is
    the longest group id that o starts with ("a-fig4a" -> "a-fig4"; "a-fig1-exh" -> "a-fig1-exh", not "a-fig1"),
    or o is a row of the group named in GROUP_OF ("a-score" -> "a-fig1")."""
    for o in only:
        if GROUP_OF.get(o) == group:
            return True
        owners = [g for g in groups if o.startswith(g)]
        if group.startswith(o) or (owners and group == max(owners, key=len)):
            return True
    return False


def run(p: Protocol, only=None, log=print) -> list:
    out = []
    groups = all_rows(p)
    ids = [g for g, _ in groups]
    for group, thunk in groups:
        t0 = time.perf_counter()
        if only and not _wanted(group, ids, only):
            continue
        rows = thunk()
        seconds = time.perf_counter() - t0
        for r in rows:
            r.seconds = round(seconds / len(rows), 2)
            if only and not any(r.id.startswith(o) or group.startswith(o) for o in only):  # a group asked: all rows
                continue
            out.append(r)
            log(f"{r.id:16s} {r.verdict:9s} {seconds / len(rows):7.1f} s  {r.ours[:110]}")
    return out


def load_text() -> str:
    try:
        return f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}"
    except OSError:
        return ""


# The ledger's row order (the papers' order); a ledger built row group by row group is written in it.
ROW_ORDER = ("a-ex1", "a-tab1", "a-fig1", "a-score", "a-fig1-exh", "a-fig2", "a-fig3", "a-fig4a", "a-fig4b", "a-fig4c",
             "a-fig5-semeion", "a-fig5-gisette", "a-tab2", "d-eq3", "d-eq5", "d-fig1", "d-fig2", "d-fig3", "d-tab2",
             "d-fig4", "p-thm1", "p-thm1-greedy", "p-ex1", "p-bs-os", "p-fbs-fos")


def _ordered(rows: list) -> list:
    rank = {i: n for n, i in enumerate(ROW_ORDER)}
    return sorted(rows, key=lambda r: rank.get(r.id, len(rank)))


def write_markdown() -> None:
    """Rewrite REPRODUCE.md's ledger block: the paper-scale run first, the reduced runs' verdicts beside it."""
    ledgers = [load_ledger(p) for p in ("paper", "scale", "quick") if ledger_path(p).is_file()]
    text = REPRODUCE_MD.read_text(encoding="utf-8")
    REPRODUCE_MD.write_text(replace_ledger_block(text, ledger_markdown(*ledgers)), encoding="utf-8")


def rejudge(profile: str, root: Path) -> Ledger:
    """The ledger with every row's verdict and rule text recomputed from its stored numbers (nothing rerun)."""
    led = load_ledger(profile, root)
    for r in led.rows:
        if r.numbers:
            r.verdict, r.rule = judge(r.id, r.numbers)
    return led


def fill_from(led: Ledger, source: str, root: Path) -> Ledger:
    """``led`` with the rows it lacks copied from the ``source`` ledger, each saying it was not rerun here."""
    other = load_ledger(source, root)
    have = set(led.ids())
    for r in other.rows:
        if r.id not in have:
            r.scale = f"not rerun at the papers' scale (too long for this machine now); the {source} run: {r.scale}"
            led.rows.append(r)
    led.rows = _ordered(led.rows)
    return led


def _override(p: Protocol, items) -> Protocol:
    """``p`` with fields set from KEY=VALUE strings (tuples as comma lists, e.g. kdd=1909,5000)."""
    fields = p.to_dict()
    for item in items or ():
        key, _, value = item.partition("=")
        if key not in fields or not value:
            raise SystemExit(f"--set {item!r}: give FIELD=VALUE with FIELD one of {', '.join(fields)}")
        old = fields[key]
        if isinstance(old, tuple):
            fields[key] = tuple(type(old[0])(v) for v in value.split(","))
        elif isinstance(old, bool):
            fields[key] = value.lower() in ("1", "true", "yes")
        elif old is None:
            fields[key] = int(value)
        else:
            fields[key] = type(old)(value)
    return p.__class__(**fields)


def _write(ledger: Ledger, root: Path) -> None:
    path = ledger_path(ledger.profile, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(ledger.to_json(), encoding="utf-8")
    print(f"Results in {path}: {ledger.counts_text()}.")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="CI-sized run of every row")
    ap.add_argument("--scale", type=float, default=None, help="multiply rows, bootstraps, stand-in sizes by this")
    ap.add_argument("--no-tune", action="store_true", help="fixed hyper-parameters instead of tuning")
    ap.add_argument("--set", nargs="+", metavar="FIELD=VALUE", help="override protocol fields (e.g. tab2_boots=100)")
    ap.add_argument("--only", nargs="+", help="row ids (or prefixes) to run; results are printed, not written")
    ap.add_argument("--merge", action="store_true", help="with --only: replace those rows in the profile's ledger")
    ap.add_argument("--fill-from", metavar="PROFILE", help="copy rows this ledger lacks from another one")
    ap.add_argument("--rejudge", metavar="PROFILE", help="recompute a ledger's verdicts from its stored numbers")
    ap.add_argument("--markdown", action="store_true", help="rewrite REPRODUCE.md's ledger from shipped results")
    ap.add_argument("--out", type=Path, default=RESULTS_DIR,
                    help="results root (default bench/results, the shipped files; CI should write elsewhere)")
    args = ap.parse_args(argv)
    if args.markdown:
        write_markdown()
        return
    if args.rejudge:
        led = rejudge(args.rejudge, args.out)
        if args.fill_from:
            led = fill_from(led, args.fill_from, args.out)
        _write(led, args.out)
        return
    p = Protocol.quick() if args.quick else Protocol()
    if args.scale is not None:
        p = p.scaled(args.scale)
    if args.no_tune:
        p = p.__class__(**{**p.to_dict(), "tune": False})
    p = _override(p, args.set)
    profile = "quick" if args.quick else "scale" if args.scale is not None else "paper"
    start = time.perf_counter()
    rows = run(p, args.only)
    total = time.perf_counter() - start
    print(f"\n{len(rows)} rows in {total:.0f} s ({load_text()}): "
          + ", ".join(f"{v} {sum(r.verdict == v for r in rows)}" for v in ALL_VERDICTS))
    if args.only and not args.merge:
        return
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    load, created = load_text(), now
    if args.only:  # splice the rerun rows into the existing ledger of this profile, in the papers' order
        try:
            old = load_ledger(profile, args.out)
        except DataError:  # the first rows of a ledger built group by group
            old = Ledger(profile=profile, protocol=p.to_dict(), rows=[], seconds=0.0, load="", created=now)
        new = {r.id: r for r in rows}
        rows = _ordered([new.get(i) or old.row(i) for i in dict.fromkeys([*old.ids(), *new])])
        total += old.seconds
        # keep the main run's time and load; say which rows were rerun when
        load, created = (f"{old.load + '; ' if old.load else ''}{', '.join(new)} run at {now} ({load})",
                         old.created)
    ledger = Ledger(profile=profile, protocol=p.to_dict(), rows=rows, seconds=round(total, 1), load=load,
                    created=created)
    if args.fill_from:
        ledger = fill_from(ledger, args.fill_from, args.out)
    _write(ledger, args.out)


if __name__ == "__main__":
    main()
