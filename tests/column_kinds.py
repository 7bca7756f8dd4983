"""Column types the app tests register and send to the upload worker (tests/test_add_a_column_type_app.py). A
worker imports a kind's module to unpickle its conversion: this one imports numpy, pandas and fslab only (the
forkserver has them), where the test module would import Streamlit, the AppTest and ui in every worker (2.3 s of CPU
at the worker's lower priority: about 16 s of wall an upload read at load 5)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from fslab.data import parse_rules as pr


def _minutes(rule: pr.ParseRule, g: pd.DataFrame) -> np.ndarray:
    """"3h 20m" -> 200: hours * 60 + minutes, or minutes alone (module level: a registered kind travels to the
    worker by pickle)."""
    hours, minutes, alone = (pd.to_numeric(g[i], errors="coerce") for i in range(3))
    return (hours.fillna(0) * 60 + minutes.fillna(0) + alone.fillna(0)).where(hours.notna() | alone.notna()) \
        .to_numpy(np.float64)


# asked for only (inferred=False): as read, the column stays text, so the override is what changes it
DURATION = pr.ColumnKind("duration", "durations", "minutes", (pr.ParseRule(
    "duration-hm", "duration", r"(?i)^(\d{1,4})\s*h(?:\s*(\d{1,2})\s*m)?$|^(\d{1,4})\s*m$",
    ("hours", "minutes", "minutes alone"), "3h 20m -> 200 minutes", inferred=False),), _minutes)
