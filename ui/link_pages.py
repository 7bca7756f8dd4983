"""The app's side of each page a share link or recipe opens, declared once: its widget-key prefix, what it reads
when a link names no source, the largest k it offers on the data at hand, the selectors it offers and whether its
measures must be scorable on a test sample.

The recipe format itself (which pages exist, the checks of each page's widget values, the tabs a link may name,
Compare's largest k) is :mod:`fslab.recipe`; this module refers to it and duplicates none of it. No streamlit here:
``ui.pages``, ``ui.share`` and the pages read these records.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from fslab.recipe import CHOICES, COMPARE_MAX_K, PAGES, TABS
from fslab.selectors import SelectorSpec


@dataclass(frozen=True)
class LinkPage:
    """One page a link or recipe opens. ``prefix``: the start of its widget keys (``<prefix>.<choice>``);
    ``default_source``: what it reads when a link names none; ``bounds(n)``: the largest value of each of its
    counts of features it offers on n features (a link's larger value is lowered, with a note); ``offers(spec)``:
    which selectors it offers (a link's other selector is replaced, with a note); ``scored``: its measures are
    those a test sample can be scored on (learning curves); ``cost_matrix``: on a target with more than two classes
    it offers the cost-sensitive error and asks for its K x K cost matrix (:mod:`ui.cost_matrix`)."""

    name: str
    key_prefix: str | None = None
    default_source: str = "distribution"
    bounds: Callable[[int], dict[str, int]] = field(default=lambda n: {"k": n})
    offers: Callable[[SelectorSpec], bool] = field(default=lambda spec: True)
    scored: bool = False
    cost_matrix: bool = False

    def __post_init__(self) -> None:
        if self.name not in PAGES:
            raise ValueError(f"link page {self.name!r} is not a page of the recipe format (fslab.recipe.PAGES)")

    @property
    def prefix(self) -> str:
        return self.key_prefix or self.name

    @property
    def choices(self) -> Mapping[str, Callable]:
        """Its widget values' checks, from the recipe format (:data:`fslab.recipe.CHOICES`)."""
        return CHOICES[self.name]

    @property
    def tabs(self) -> tuple[str, ...]:
        """The labels of its ``st.tabs(..., key="<prefix>.tab")`` a link may name (:data:`fslab.recipe.TABS`)."""
        return TABS.get(self.name, ())


LINK_PAGES: Mapping[str, LinkPage] = MappingProxyType({page.name: page for page in (
    LinkPage("select", default_source="dataset", cost_matrix=True),
    LinkPage("by_measure", key_prefix="bym", default_source="dataset",
             offers=lambda spec: spec.uses_measure and not spec.fixed_measure, cost_matrix=True),
    LinkPage("npfs", default_source="dataset", bounds=lambda n: {"k": n - 1},
             offers=lambda spec: spec.cost_class != "heavy", cost_matrix=True),
    LinkPage("compare", default_source="dataset", bounds=lambda n: {"k": min(COMPARE_MAX_K, n)},
             offers=lambda spec: spec.fixed_measure is None, scored=True, cost_matrix=True),
    LinkPage("orderings", bounds=lambda n: {}),
    LinkPage("scores", default_source="dataset", bounds=lambda n: {}),
    LinkPage("toy", bounds=lambda n: {"pick_k": n, "conv_k": n}),
)})
if set(LINK_PAGES) != set(PAGES):  # every page of the format has its app side, and no other
    raise ValueError(f"ui.link_pages.LINK_PAGES {sorted(LINK_PAGES)} != fslab.recipe.PAGES {sorted(PAGES)}")

__all__ = ["LINK_PAGES", "LinkPage"]
