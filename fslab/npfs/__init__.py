"""NPFS (Ditzler et al. 2015): a base selector on bootstraps, then a binomial test on how often each feature is picked.

``procedure`` (``npfs``: the run, cancellation, Dask), ``weighted`` (the MI family's bootstraps as row weights),
``result`` (``NPFSResult``, the threshold and p-values, Eq. 2-4), ``stability`` (Kuncheva and Nogueira indices).

``fslab.npfs`` re-exports what the former module ``fslab/npfs.py`` exported, so ``from fslab.npfs import npfs``
keeps working.
"""

from .procedure import *  # noqa: F403
from .procedure import Shared, __all__, _lean  # noqa: F401
