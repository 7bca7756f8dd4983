"""NPFS on partitioned data (a :class:`~fslab.data.distributed.DaskSource`): Poisson bootstraps counted on the
workers, the rows never leaving them.

In memory, bootstrap l draws round(f m) rows with replacement: row i appears W_i times, (W_1..W_m) multinomial.
A multinomial draw couples every row of every partition, so on partitioned data each row instead gets an
independent weight W_i ~ Poisson(f), drawn on the workers from (the seed of bootstrap l, the row's global index)
alone (:meth:`DaskSource.bootstrap`): the Poisson bootstrap, the standard large-data approximation of the
multinomial one (Hanley and MacGibbon 2006; Chamandy, Muralidharan, Najmi and Naidu 2012, "Estimating uncertainty
for massive data streams"). Each W_i has the multinomial's marginal mean f and nearly its variance; the total
weight is Poisson(f m) instead of exactly f m (relative spread 1/sqrt(f m), negligible at the sizes that need a
cluster). The weights are :func:`fslab.row_hash.poisson_weights`, so a SQL engine draws the same ones. The base
selector counts the weighted tables (bincount weights) exactly as the in-memory selectors count resampled rows,
so for one seed the matrix does not depend on the number of workers or partitions; it differs from the in-memory
matrix of the same seed (another draw of the bootstraps), not in distribution as m grows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from ..counting.folds import DEFAULT_FOLDS, DEFAULT_SEED
from ..errors import ParameterError


@runtime_checkable
class BootstrapCounting(Protocol):
    """A count-only source whose ``bootstrap(key, mean)`` view counts row i (its 0-based index in the source's row
    order) w_i times, w_i = :func:`fslab.row_hash.poisson_weights` (Dask, SQL, a registered source)."""

    @property
    def is_sample(self) -> bool: ...

    def bootstrap(self, key: int, mean: float = 1.0): ...


def _features(view, k: int, selector, params: dict) -> Sequence[int]:
    if callable(selector):
        out = selector(view, k, **params)
    else:
        from ..selectors import select  # late import, as fslab.npfs.procedure

        out = select(view, k, selector, **params)
    return getattr(out, "features", out)


def partitioned_bootstraps(source, selector, k: int, seeds: Sequence[np.random.SeedSequence], *,
                           sample_fraction: float, progress: Callable | None, counting: str, estimate: str,
                           selector_params: dict, folds: int = DEFAULT_FOLDS) -> tuple[list[np.ndarray], bool]:
    """The selection indicators of :func:`fslab.npfs`'s bootstraps on a DaskSource (validated by it), one (1, K)
    block per bootstrap, and whether ``progress`` cancelled: bootstrap l is ``source.bootstrap(key_l,
    sample_fraction)``, key_l the first 64 bits of ``seeds[l]``. The bootstraps run one after another; each
    selection's counts run in parallel over the partitions (and share the cell codes cached on the workers).

    ``estimate="cross-fitted"``: each bootstrap is selected with held-out estimates over ``folds`` folds of the
    ORIGINAL rows (``row_hash.folds``, seed DEFAULT_SEED, as in memory): a row weighing w_i counts w_i times in
    its own fold (:meth:`DaskSource.folded` of the bootstrap view), as the in-memory copies of a drawn row keep
    its fold."""
    if counting != "auto":
        raise ParameterError(f"counting={counting!r} applies to rows in memory; partitioned data is counted with "
                             "Poisson row weights on the workers (counting='auto')")
    if estimate != "plug-in":
        if callable(selector):
            raise ParameterError("estimate='cross-fitted' applies to a named selector; a callable chooses its own")
        selector_params = {**selector_params, "estimate": estimate, "folds": folds, "seed": DEFAULT_SEED}
    n = len(seeds)
    blocks: list[np.ndarray] = []
    if progress is not None and progress(0, n) is False:
        return blocks, True
    for b, seq in enumerate(seeds):
        view = source.bootstrap(int(seq.generate_state(1, np.uint64)[0]), sample_fraction)
        row = np.zeros((1, source.n_features), dtype=bool)
        row[0, np.asarray(_features(view, k, selector, selector_params), dtype=np.int64)] = True
        blocks.append(row)
        if progress is not None and progress(b + 1, n) is False and b + 1 < n:
            return blocks, True
    return blocks, False
