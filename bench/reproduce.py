"""Reproduce every figure, table and numbered claim of the papers: the ledger of bench/REPRODUCE.md.

    .venv/bin/python bench/reproduce.py                  # the papers' protocol (hours; see REPRODUCE.md)
    .venv/bin/python bench/reproduce.py --quick          # CI-sized: every row at reduced scale (~2 minutes)
    .venv/bin/python bench/reproduce.py --scale 0.2      # rows, bootstraps and stand-in sizes x 0.2
    .venv/bin/python bench/reproduce.py --quick --only d-fig1 a-ex1     # some rows (not written as a ledger)
    .venv/bin/python bench/reproduce.py --markdown       # rewrite REPRODUCE.md's ledger from the shipped results

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

from fslab.reproduction import RESULTS_DIR, Ledger, ledger_markdown, ledger_path, load_ledger, replace_ledger_block  # noqa: E402

REPRODUCE_MD = HERE / "REPRODUCE.md"


def all_rows(p: Protocol):
    """(group id, thunk returning rows) for every ledger group, papers in order."""
    return [*repro_ahmed.rows(p), *repro_ditzler.rows(p), *repro_pena.rows(p)]


def _wanted(group: str, groups: list[str], only) -> bool:
    """Run ``group`` for a requested id or prefix o: o is a prefix of the group ("a-", "a-fig4"), or the group is
    the longest group id that o starts with ("a-fig4a" -> "a-fig4"; "a-fig1-exh" -> "a-fig1-exh", not "a-fig1")."""
    for o in only:
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
            if only and not any(r.id.startswith(o) for o in only):
                continue
            out.append(r)
            log(f"{r.id:16s} {r.verdict:9s} {seconds / len(rows):7.1f} s  {r.ours[:110]}")
    return out


def load_text() -> str:
    try:
        return f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}"
    except OSError:
        return ""


def write_markdown() -> None:
    """Rewrite REPRODUCE.md's ledger block from the shipped scale run, with the quick run's verdict beside it."""
    main = load_ledger("scale")
    quick = load_ledger("quick")
    text = REPRODUCE_MD.read_text(encoding="utf-8")
    REPRODUCE_MD.write_text(replace_ledger_block(text, ledger_markdown(main, quick)), encoding="utf-8")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="CI-sized run of every row")
    ap.add_argument("--scale", type=float, default=None, help="multiply rows, bootstraps, stand-in sizes by this")
    ap.add_argument("--no-tune", action="store_true", help="fixed hyper-parameters instead of tuning")
    ap.add_argument("--only", nargs="+", help="row ids (or prefixes) to run; results are printed, not written")
    ap.add_argument("--merge", action="store_true", help="with --only: replace those rows in the profile's ledger")
    ap.add_argument("--markdown", action="store_true", help="rewrite REPRODUCE.md's ledger from shipped results")
    ap.add_argument("--out", type=Path, default=RESULTS_DIR,
                    help="results root (default bench/results, the shipped files; CI should write elsewhere)")
    args = ap.parse_args(argv)
    if args.markdown:
        write_markdown()
        return
    p = Protocol.quick() if args.quick else Protocol()
    if args.scale is not None:
        p = p.scaled(args.scale)
    if args.no_tune:
        p = p.__class__(**{**p.to_dict(), "tune": False})
    profile = "quick" if args.quick else "scale" if args.scale is not None else "paper"
    start = time.perf_counter()
    rows = run(p, args.only)
    total = time.perf_counter() - start
    print(f"\n{len(rows)} rows in {total:.0f} s ({load_text()}): "
          + ", ".join(f"{v} {sum(r.verdict == v for r in rows)}" for v in ("agree", "partly", "disagree")))
    if args.only and not args.merge:
        return
    if args.only:  # splice the rerun rows into the existing ledger of this profile, in the papers' order
        old = load_ledger(profile, args.out)
        new = {r.id: r for r in rows}
        order = [r.id for r in old.rows] + [i for i in new if i not in old.ids()]
        rows = [new.get(i) or old.row(i) for i in order]
        total += old.seconds
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    load, created = load_text(), now
    if args.only:  # keep the main run's time and load; say which rows were rerun when
        load, created = f"{old.load}; {', '.join(new)} rerun at {now} ({load})", old.created
    ledger = Ledger(profile=profile, protocol=p.to_dict(), rows=rows, seconds=round(total, 1), load=load,
                    created=created)
    path = ledger_path(profile, args.out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(ledger.to_json(), encoding="utf-8")
    print(f"Results in {path}.")


if __name__ == "__main__":
    main()
