"""Feature selectors: searches over subsets driven by a criterion (Ahmed et al., Algorithm 1 and baselines).

``SELECTORS`` lists them; ``select(source, k, selector, measure, s)`` runs one and returns a
:class:`Selection` with the chosen features, the criterion after each step and the full trace.
"""

from ._curves import prefix_criteria
from ._loop import Hooks, SelectionCancelled
from ._registry import SELECTORS, SelectorSet, SelectorSpec, register, unregister
from ._result import Selection
from ._select import select
from ._work import Work
from .ties import TIE_TOLERANCE, pick_best, tied_mask

__all__ = ["SELECTORS", "TIE_TOLERANCE", "Hooks", "Selection", "SelectionCancelled", "SelectorSet", "SelectorSpec",
           "Work", "pick_best", "prefix_criteria", "register", "select", "tied_mask", "unregister"]
