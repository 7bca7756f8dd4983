"""Heavy jobs as plain module-level functions, so the app can run them in a worker process that imports fslab only
(``ui.heavy.run_in_worker`` pickles the function by name; a function defined under ``ui/`` would import Streamlit
and the app's pages in the worker)."""

from __future__ import annotations

from .ksuggest import KSuggestion, permutation_k_test
from .npfs.procedure import npfs
from .selectors import SELECTORS, select


def test_measure(selector: str, measure_name: str) -> str:
    """The criterion whose improvements the permutation test checks: the selector's measure, else MI."""
    spec = SELECTORS[selector]
    if spec.uses_measure:
        return spec.fixed_measure or measure_name
    return "mi"


def suggest_k(source, selector: str, measure_name: str, params: dict, k: int, n_perm: int, n_boot: int,
              alpha: float, seed: int, progress=None) -> KSuggestion:
    """"Which k?": the selector's first k features, the within-cell permutation test of each step, and NPFS's k*
    with ``n_boot`` bootstraps (skipped when 0). ``progress(done, total)`` reports the NPFS bootstraps."""
    spec = SELECTORS[selector]
    extra = params if spec.uses_measure else {}
    order = select(source, k, selector, measure=measure_name, **extra).features
    measure = test_measure(selector, measure_name)
    test = permutation_k_test(source, order, measure, n_perm, alpha, seed, extra if measure == measure_name else None)
    result = None
    if n_boot and source.n_features > 1:
        result = npfs(source, selector, min(k, source.n_features - 1), n_bootstraps=n_boot, alpha=0.01, seed=seed,
                      progress=progress, measure=measure_name, **extra)
    return KSuggestion(result, test, tuple(int(j) for j in order))
