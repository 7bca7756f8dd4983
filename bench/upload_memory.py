"""What a legitimate upload costs the process that receives it from the capped worker (issue 32, item 1).

The Data page reads, decompresses and types an upload in a capped worker process (``ui.data.isolated``: ``ui.heavy
.run_in_worker(read_upload, data, LIMITS, caps=LIMITS)``); the server keeps what the worker sends back. This script
makes the same call in a fresh process per measurement and reports that process's resident memory before the call
and its peak during it (VmHWM after resetting it, ``/proc/self/clear_refs``), so the growth is the cost of
receiving and holding the answer; the worker's own memory is its own. Two files of about the upload limit:

- numeric: 199,000 rows x 24 float columns and a 0/1 target (45 MB of CSV);
- text: 199,000 rows x 20 text columns (8 and 300 levels), one float column and a yes/no target (30 MB).

``--page``: the whole Data page instead (Streamlit's AppTest, in process: the file set in the uploader, then two
binning changes), peak and held growth of that process; it counts every step of the page (typing reuse, codes,
alerts, preview, the uploader's copy of its file on each run), not the browser's HTTP upload. The uploader's file is
this script's bytes object (made before the measurement), so the file manager's copy is not counted: a real server
holds it once (the HTTP body; ``ui.data.share_uploaded_bytes``).

Checkouts alternate (A B A B ...) so a drifting machine load touches both alike::

    .venv/bin/python bench/upload_memory.py                          # this checkout
    .venv/bin/python bench/upload_memory.py --root /tmp/before .     # before / after, interleaved, 3 rounds each
    .venv/bin/python bench/upload_memory.py --page /tmp/before .     # the Data page, before / after
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
import fslab
assert fslab.__file__.startswith(sys.argv[1]), fslab.__file__
from fslab.data.upload import read_upload
from fslab.limits import LIMITS
from ui.heavy import run_in_worker


def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


run_in_worker(read_upload, b"a,b,y\n1,2,0\n3,4,1\n", LIMITS, caps=LIMITS)   # the forkserver starts (not counted)
data = open(sys.argv[2], "rb").read()
before = status("VmRSS")
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")   # VmHWM := VmRSS now
t0 = time.perf_counter()
got = run_in_worker(read_upload, data, LIMITS, caps=LIMITS)
seconds = time.perf_counter() - t0
print(json.dumps({"before": before, "peak": status("VmHWM"), "held": status("VmRSS"), "seconds": seconds,
                  "shape": list(got.frame.shape), "load": os.getloadavg()[0]}))
"""


PAGE = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
os.chdir(sys.argv[1])
from streamlit.testing.v1 import AppTest


def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024


at = AppTest.from_file(os.path.join(sys.argv[1], "app.py"), default_timeout=300).run()
at.switch_page("pages/data.py").run()
at.radio(key="data_source").set_value("upload").run()
at.file_uploader(key="data_upload").set_value(("w.csv", b"a,b,y\n1,2,0\n3,4,1\n5,6,0\n", "text/csv")).run()  # warm
data = open(sys.argv[2], "rb").read()
before = status("VmRSS")
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")
t0 = time.perf_counter()
at.file_uploader(key="data_upload").set_value((os.path.basename(sys.argv[2]), data, "text/csv")).run()
assert not at.exception and not at.error, [e.value for e in [*at.exception, *at.error]]
at.selectbox(key="data_method").set_value("quantile").run()
at.number_input(key="data_bins").set_value(4).run()
print(json.dumps({"before": before, "peak": status("VmHWM"), "held": status("VmRSS"),
                  "seconds": time.perf_counter() - t0, "load": os.getloadavg()[0]}))
"""


def make_files(directory: Path) -> dict[str, Path]:
    """The numeric (45 MB) and text (30 MB) CSVs of the module docstring, written once to ``directory``."""
    import numpy as np
    import pandas as pd

    directory.mkdir(parents=True, exist_ok=True)
    numeric, text = directory / "numeric45.csv", directory / "text30.csv"
    rng = np.random.default_rng(0)
    n = 199_000
    if not numeric.exists():
        frame = pd.DataFrame(rng.normal(size=(n, 24)).round(6), columns=[f"x{i}" for i in range(24)])
        frame["y"] = rng.integers(0, 2, n)
        frame.to_csv(numeric, index=False)
    if not text.exists():
        words = np.array(["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"])
        frame = pd.DataFrame({f"t{i}": words[rng.integers(0, 8, n)] for i in range(12)})
        for i in range(8):
            frame[f"c{i}"] = np.char.add("code-", rng.integers(0, 300, n).astype(str))
        frame["v"] = rng.normal(size=n).round(4)
        frame["y"] = rng.choice(["yes", "no"], n)
        frame.to_csv(text, index=False)
    return {"numeric 45 MB": numeric, "text 30 MB": text}


def measure(root: Path, path: Path, page: bool = False) -> dict:
    out = subprocess.run([sys.executable, "-c", PAGE if page else PROBE, str(root), str(path)], capture_output=True,
                         text=True, cwd=root, timeout=900)
    if out.returncode:
        raise RuntimeError(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="*", default=[str(ROOT)], help="checkouts to compare (default: this one)")
    parser.add_argument("--root", action="append", default=[], help="another checkout, measured first")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--page", action="store_true", help="the whole Data page in AppTest (module docstring)")
    args = parser.parse_args(argv)
    roots = [Path(r).resolve() for r in [*args.root, *args.roots]]
    files = make_files(Path(tempfile.gettempdir()) / "fslab-upload-memory")
    rows: dict[tuple[str, str], list[dict]] = {}
    for _ in range(args.rounds):
        for label, path in files.items():
            for root in roots:
                got = measure(root, path, args.page)
                rows.setdefault((str(root), label), []).append(got)
                print(f"  {root} {label}: {got['before']:.0f} -> peak {got['peak']:.0f} MB "
                      f"(+{got['peak'] - got['before']:.0f}), held +{got['held'] - got['before']:.0f} MB, "
                      f"{got['seconds']:.1f} s, load {got['load']:.1f}", flush=True)
    print(f"\n{'checkout':<30} {'file':<14} {'peak growth MB (median)':>24} {'held MB':>8} {'seconds':>8} {'load':>9}")
    for (root, label), got in rows.items():
        growth = statistics.median(g["peak"] - g["before"] for g in got)
        held = statistics.median(g["held"] - g["before"] for g in got)
        loads = [g["load"] for g in got]
        print(f"{root[-30:]:<30} {label:<14} {growth:>24.0f} {held:>8.0f} "
              f"{statistics.median(g['seconds'] for g in got):>8.1f} {min(loads):>4.1f}-{max(loads):<4.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
