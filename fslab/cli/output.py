"""Output of the command line: JSON documents, compact text tables, and a progress bar on stderr."""

from __future__ import annotations

import json
import sys
import time

import pandas as pd

from ..export import json_ready


def dumps(record: dict) -> str:
    return json.dumps(json_ready(record), indent=2, allow_nan=False)


def table(frame: pd.DataFrame, digits: int = 4) -> str:
    """A DataFrame as aligned text without the index; floats with ``digits`` significant digits."""
    if frame.empty:
        return "(none)"
    return frame.to_string(index=False, float_format=lambda v: f"{v + 0.0:.{digits}g}", na_rep="-")  # no "-0"


class ProgressBar:
    """``bar(done, total)`` redraws ``label [#####.....] done/total  1.2 s`` on stderr (at most ten times a
    second); ``bar.close()`` ends the line. Disabled, it does nothing. Returns None, so npfs never cancels."""

    def __init__(self, label: str, enabled: bool, width: int = 28) -> None:
        self.label, self.enabled, self.width = label, enabled, width
        self.start = self.last = time.monotonic()
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if self.drawn and done < total and now - self.last < 0.1:
            return
        self.last, self.drawn = now, True
        frac = min(max(done / total, 0.0), 1.0) if total else 1.0
        filled = int(round(frac * self.width))
        sys.stderr.write(f"\r{self.label} [{'#' * filled}{'.' * (self.width - filled)}] {done}/{total}"
                         f"  {now - self.start:.1f} s")
        sys.stderr.flush()

    def close(self) -> None:
        if self.drawn:
            sys.stderr.write("\n")
            sys.stderr.flush()
            self.drawn = False
