"""Messy tables as analysts export them, with a planted signal: test material for column typing.

Each generator returns a DataFrame of text-like columns as a CSV export would hold them (ids, row
numbers, dates, "62%", "1.86 mm/s", "6,243", free text, outliers, missing values), deterministic by
``seed``. ``SIGNAL[name]`` lists the columns the target truly depends on; ``MESS[name]`` the columns
that carry no signal but win in-sample by sheer cardinality or read as text when they are numbers.
``to_csv_bytes(df)`` gives the bytes an upload would hold.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

SIGNAL: dict[str, tuple[str, ...]] = {
    "customers": ("support_calls", "plan", "tenure"),
    "sensor_log": ("vibration", "temperature", "pressure"),
    "loans": ("grade", "dti", "delinquencies"),
}
MESS: dict[str, tuple[str, ...]] = {
    "customers": ("customer_id", "row", "signup_date", "notes"),
    "sensor_log": ("timestamp", "reading_id", "machine"),
    "loans": ("zip_prefix", "employer"),
}
TARGETS: dict[str, str] = {"customers": "churn", "sensor_log": "failure", "loans": "default"}

_WORDS = ("asked", "about", "billing", "upgrade", "called", "twice", "happy", "with", "service", "wants",
          "refund", "moved", "office", "new", "contact", "email", "bounced", "renewal", "pending", "invoice",
          "late", "discount", "promised", "manager", "escalated", "resolved", "feature", "request", "login",
          "issue", "password", "reset", "training", "booked", "demo", "trial", "extended", "satisfied")


def _draw(rng: np.random.Generator, logit: np.ndarray, base: float) -> np.ndarray:
    """Bernoulli draws whose log-odds are ``logit`` shifted so the mean rate is about ``base``."""
    lo, hi = -20.0, 20.0
    for _ in range(60):   # bisection on the shift: the base rate is a monotone function of it
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if np.mean(1 / (1 + np.exp(-(logit + mid)))) < base else (lo, mid)
    return rng.random(logit.size) < 1 / (1 + np.exp(-(logit + lo)))


def _free_text(rng: np.random.Generator, n: int) -> list[str]:
    words = np.array(_WORDS)
    lengths = rng.integers(4, 9, size=n)
    return [" ".join(rng.choice(words, size=k)) + f" (ticket {rng.integers(1000, 99999)})" for k in lengths]


def customers(n: int = 600, seed: int = 0) -> pd.DataFrame:
    """A churn table: churn depends on support calls, plan and tenure, never on id, row, date or notes."""
    rng = np.random.default_rng(seed)
    plan = rng.choice(np.array(["basic", "standard", "premium", "enterprise"]), size=n, p=[0.4, 0.3, 0.2, 0.1])
    calls = rng.poisson(1.6, size=n)
    tenure = rng.integers(1, 72, size=n)
    plan_effect = pd.Series(plan).map({"basic": 1.6, "standard": 0.3, "premium": -0.8, "enterprise": -1.2})
    logit = 1.1 * calls + plan_effect.to_numpy() - 0.03 * tenure
    churn = _draw(rng, logit, 0.3)
    tenure_text = tenure.astype(object)
    tenure_text[rng.integers(n)] = 9999   # an export glitch: one tenure of 9999 months
    age = rng.integers(18, 80, size=n).astype(object)
    age[rng.choice(n, size=max(1, n // 40), replace=False)] = ""   # missing
    age[rng.integers(n)] = -1                                    # impossible
    days = rng.integers(0, 3 * 365, size=n)
    dates = (pd.Timestamp("2021-01-01") + pd.to_timedelta(days, unit="D")).strftime("%Y-%m-%d")
    ids = rng.choice(np.arange(1, 10 * n), size=n, replace=False)
    return pd.DataFrame({
        "customer_id": [f"C{i:06d}" for i in ids],
        "row": np.arange(1, n + 1),
        "signup_date": list(dates),
        "discount": [f"{d}%" for d in rng.integers(0, 80, size=n)],
        "notes": _free_text(rng, n),
        "plan": plan,
        "support_calls": calls,
        "tenure": tenure_text,
        "age": age,
        "churn": np.where(churn, "yes", "no"),
    })


def sensor_log(n: int = 1500, seed: int = 0) -> pd.DataFrame:
    """A machine log: failure depends on vibration, temperature and (less) pressure, not on timestamp, reading id
    or machine."""
    rng = np.random.default_rng(seed)
    vibration = rng.gamma(4.0, 0.5, size=n)
    temperature = rng.normal(65.0, 8.0, size=n)
    pressure = rng.normal(101.3, 2.5, size=n)
    logit = 1.4 * (vibration - 2.0) + 0.18 * (temperature - 65.0) + 0.3 * (pressure - 101.3)
    failure = _draw(rng, logit, 0.2)
    seconds = np.sort(rng.choice(np.arange(60 * 24 * 3600), size=n, replace=False))
    stamps = (pd.Timestamp("2024-03-01") + pd.to_timedelta(seconds, unit="s")).strftime("%Y-%m-%dT%H:%M:%S")
    temp_text = np.array([f"{t:.1f}" for t in temperature], dtype=object)
    comma = rng.random(n) < 0.3   # a second logger writes decimal commas
    temp_text[comma] = [t.replace(".", ",") for t in temp_text[comma]]
    return pd.DataFrame({
        "timestamp": list(stamps),
        "reading_id": 100001.0 + np.arange(n),
        "machine": [f"M-{m:02d}" for m in rng.integers(1, 13, size=n)],
        "vibration": [f"{v:.2f} mm/s" for v in vibration],
        "temperature": temp_text,
        "pressure": np.round(pressure, 2),
        "failure": np.where(failure, 1, 0),
    })


def loans(n: int = 2000, seed: int = 0) -> pd.DataFrame:
    """A loan book: default depends on grade, debt-to-income and delinquencies, not on zip or employer."""
    rng = np.random.default_rng(seed)
    grade = rng.choice(np.array(list("ABCDEFG")), size=n, p=[0.18, 0.24, 0.22, 0.16, 0.1, 0.06, 0.04])
    dti = np.round(rng.gamma(3.0, 6.0, size=n), 2)
    delinquencies = rng.poisson(0.5, size=n)
    logit = 0.75 * (pd.Series(grade).map({g: i for i, g in enumerate("ABCDEFG")}).to_numpy() - 2) \
        + 0.08 * (dti - 18.0) + 0.9 * delinquencies
    default = _draw(rng, logit, 0.25)
    amount = np.round(rng.lognormal(9.0, 0.6, size=n)).astype(int)
    employers = np.array([f"{a} {b}" for a in ("Acme", "Globex", "Initech", "Umbrella", "Stark", "Wayne", "Hooli",
                                               "Vandelay", "Soylent", "Tyrell", "Cyberdyne", "Wonka", "Oscorp",
                                               "Gringotts", "Monarch", "Pied Piper", "Dunder", "Prestige",
                                               "Sterling", "Bluth")
                          for b in ("Inc", "LLC", "Corp", "Ltd", "Group", "Holdings", "Partners", "Labs",
                                    "Services", "Foods", "Logistics", "Health", "Bank", "Media", "Energy",
                                    "Motors", "Retail", "Systems", "Studios", "Capital")])
    return pd.DataFrame({
        "zip_prefix": [f"{z:03d}xx" for z in rng.choice(np.arange(100, 1000), size=250, replace=False)[
            rng.integers(0, 250, size=n)]],
        "employer": employers[rng.integers(0, len(employers), size=n)],
        "amount": [f"{a:,}" for a in amount],
        "grade": grade,
        "dti": dti,
        "delinquencies": delinquencies,
        "default": np.where(default, "yes", "no"),
    })


TABLES = {"customers": customers, "sensor_log": sensor_log, "loans": loans}


def to_csv_bytes(df: pd.DataFrame) -> bytes:
    """The table as UTF-8 CSV bytes (comma-separated, quoted where needed, no index), as an export holds it."""
    return df.to_csv(index=False).encode("utf-8")

# what the data layer should do with each table's mess (tests/test_messy_tables.py)
MESS_DROPPED: dict[str, tuple[str, ...]] = {
    "customers": ("customer_id", "row", "notes"),
    "sensor_log": ("reading_id",),
    "loans": (),
}
CONVERTED: dict[str, dict[str, str]] = {
    "customers": {"signup_date": "date", "discount": "percent"},
    "sensor_log": {"timestamp": "date", "vibration": "number", "temperature": "number"},
    "loans": {"amount": "number"},
}
