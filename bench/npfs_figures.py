"""Numbers behind the NPFS paper's figures, computed with fslab (Ditzler et al. 2015, Section IV).

    .venv/bin/python bench/npfs_figures.py fig1     # D_uni K=25, k*=5, M=1000, n=100, alpha=0.01, JMI, k=10..24
    .venv/bin/python bench/npfs_figures.py fig2     # K=50, k*=15, k=3..25, relevant count as bootstraps grow to 500
    .venv/bin/python bench/npfs_figures.py digits   # digits in noise, K=256, k=64, n=100 (minutes)

D_uni is discretised with 3 equal-width bins (see tests/test_npfs_reproduction.py for why).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from fslab.npfs import npfs  # noqa: E402
from fslab.synthetic import digits_in_noise, uniform_dataset, window_mask  # noqa: E402


def fig1() -> None:
    data = uniform_dataset(m=1000, n_features=25, k_star=5, seed=0).discretize(method="uniform", bins=3)
    for k in (3, 5, 10, 15, 20, 24):
        r = npfs(data, "jmi", k, n_bootstraps=100, alpha=0.01, seed=0)
        extra = [int(i) + 1 for i in r.relevant if i >= 5]
        print(f"fig1 k={k:2d} zeta={r.threshold:3d} k*={r.k_star:2d} all of X1..X5: "
              f"{set(range(5)) <= set(r.relevant.tolist())} extras (1-based): {extra}", flush=True)


def fig2(n: int = 500) -> None:
    data = uniform_dataset(m=1000, n_features=50, k_star=15, seed=0).discretize(method="uniform", bins=3)
    for k in (3, 5, 10, 15, 20, 25):
        t0 = time.perf_counter()
        r = npfs(data, "jmi", k, n_bootstraps=n, alpha=0.01, seed=0)
        path = r.relevant_path
        true = len(set(range(15)) & set(r.relevant.tolist()))
        marks = {b: int(path[b - 1]) for b in (10, 50, 100, 200, 300, 500) if b <= n}
        print(f"fig2 k={k:2d} relevant after n bootstraps {marks}; of the 15 true: {true}; "
              f"{time.perf_counter() - t0:.1f} s", flush=True)


def digits(n: int = 100) -> None:
    data = digits_in_noise(seed=0).discretize()
    t0 = time.perf_counter()
    r = npfs(data, "jmi", 64, n_bootstraps=n, alpha=0.01, seed=0, n_jobs=1)
    inside = window_mask()[r.relevant]
    print(f"digits n={n} k=64 zeta={r.threshold} relevant={r.k_star} inside the 8x8 window={int(inside.sum())} "
          f"outside={int((~inside).sum())} ({time.perf_counter() - t0:.0f} s)", flush=True)
    print("relevant pixels:", r.relevant_names)
    print(np.where(np.isin(np.arange(256), r.relevant), 1, 0).reshape(16, 16))


if __name__ == "__main__":
    for arg in sys.argv[1:] or ["fig1", "fig2"]:
        {"fig1": fig1, "fig2": fig2, "digits": digits}[arg]()
