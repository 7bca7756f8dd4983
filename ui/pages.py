"""The app's pages, declared once: app.py's navigation, the Home page's list of pages and the pages a share link
or recipe can open are all derived from :data:`PAGES`. A page a link opens names its link record
(``recipe``: a key of :data:`ui.link_pages.LINK_PAGES`, which holds its widget-key prefix, bounds, offers and
default source; the checks of its values are the recipe format's, :mod:`fslab.recipe`), so a link's page is declared
in one place and checked when this module loads."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from .link_pages import LINK_PAGES, LinkPage


@dataclass(frozen=True)
class PageInfo:
    file: str            # the script, relative to app.py
    title: str
    icon: str
    section: str         # the navigation's group
    about: str           # one line for the Home page's list
    recipe: str | None = None  # its name in links and recipes (fslab.recipe.PAGES); None: no link state
    default: bool = False      # the page "/" opens

    def __post_init__(self) -> None:
        if self.recipe is not None and self.recipe not in LINK_PAGES:
            raise ValueError(f"page {self.file}: no link record {self.recipe!r} in ui.link_pages.LINK_PAGES")

    @property
    def link(self) -> LinkPage | None:
        """The page's link record (schema, key prefix, bounds, default source), None for a page without link state."""
        return LINK_PAGES[self.recipe] if self.recipe is not None else None

    @property
    def url_path(self) -> str:
        """The page's name in the URL (Streamlit's default: the file's stem); "" for the default page."""
        return "" if self.default else Path(self.file).stem


PAGES = (
    PageInfo("pages/home.py", "Home", ":material/home:", "Start",
             "what fslab is, the sample data picker, this list of pages and the papers.", default=True),
    PageInfo("pages/tour.py", "Example 1 tour", ":material/school:", "Start",
             "four short steps: the 0-1 error and mutual information disagree, the subset lattice, Theorem 1, "
             "NPFS."),
    PageInfo("pages/data.py", "Data", ":material/table:", "Start",
             "upload a CSV or pick a sample, name the target and positive class, see how every column is coded."),
    PageInfo("pages/selection.py", "Select", ":material/checklist:", "Select",
             "pick features greedily (or exhaustively) for the performance measure you care about; see every "
             "step.", recipe="select"),
    PageInfo("pages/by_measure.py", "By measure", ":material/view_column:", "Select",
             "one selector, several measures, the same data: where their picks part, and what each choice costs.",
             recipe="by_measure"),
    PageInfo("pages/compare.py", "Compare", ":material/compare_arrows:", "Select",
             "put selectors side by side and check the chosen features with cross-validated classifiers.",
             recipe="compare"),
    PageInfo("pages/scores.py", "Scores", ":material/leaderboard:", "Select",
             "every feature under several measures, in-sample and held out, sortable; tick features, see them "
             "together, export them.", recipe="scores"),
    PageInfo("pages/npfs.py", "NPFS", ":material/grid_on:", "Select",
             "run any selector on bootstrap resamples and keep the features chosen more often than chance.",
             recipe="npfs"),
    PageInfo("pages/toy.py", "Toy distribution", ":material/casino:", "Theory",
             "build a small exact distribution (the Bayes paper's Example 1 by default) and compute criteria "
             "exactly.", recipe="toy"),
    PageInfo("pages/orderings.py", "Orderings", ":material/account_tree:", "Theory",
             "Pena and Nilsson: every subset's Bayes risk, why the best k features need exhaustive search.",
             recipe="orderings"),
    PageInfo("pages/papers.py", "Papers", ":material/menu_book:", "Theory",
             "every figure, table and numbered claim of the papers, the paper's statement beside fslab's number."),
)
RECIPE_PAGES = tuple(p.recipe for p in PAGES if p.recipe is not None)  # every key of ui.link_pages.LINK_PAGES


def navigation() -> tuple[dict[str, list], dict[str, object]]:
    """The ``st.Page`` objects of :data:`PAGES`: by section (for ``st.navigation``) and by recipe name."""
    sections: dict[str, list] = {}
    by_recipe: dict[str, object] = {}
    for info in PAGES:
        page = st.Page(info.file, title=info.title, icon=info.icon, default=info.default)
        sections.setdefault(info.section, []).append(page)
        if info.recipe is not None:
            by_recipe[info.recipe] = page
    return sections, by_recipe


def home_links() -> tuple[PageInfo, ...]:
    """The pages the Home page lists: every page but Home itself."""
    return tuple(p for p in PAGES if not p.default)


def page_bar(sections: dict[str, list], current) -> None:
    """Presentation mode: links to the previous and next page (in :data:`PAGES` order) at the top of the main
    column, so a projector moves on without unfolding the sidebar. ``current`` is ``st.navigation``'s page."""
    from .theme import presenting

    if not presenting():
        return
    pages = [page for group in sections.values() for page in group]
    at = next((i for i, page in enumerate(pages) if page.url_path == current.url_path), None)
    if at is None:
        return
    left, _, right = st.container(key="page_bar").columns([1, 2, 1], vertical_alignment="center")
    if at > 0:
        left.page_link(pages[at - 1], label=f"{pages[at - 1].title}", icon=":material/arrow_back:")
    if at + 1 < len(pages):
        right.page_link(pages[at + 1], label=f"{pages[at + 1].title}", icon=":material/arrow_forward:")

