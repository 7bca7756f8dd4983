"""The page registry (ui.pages.PAGES): one record per page file, and the recipe names are fslab.recipe.PAGES."""

from __future__ import annotations

from fslab.recipe import PAGES as RECIPE_NAMES
from tests.conftest import ROOT
from ui.pages import PAGES, RECIPE_PAGES, home_links


def test_recipe_names_are_fslab_recipe_pages():
    assert len(RECIPE_PAGES) == len(set(RECIPE_PAGES)) and set(RECIPE_PAGES) == set(RECIPE_NAMES)


def test_every_page_file_is_declared_once_and_exists():
    files = [p.file for p in PAGES]
    assert len(files) == len(set(files)) and all((ROOT / f).is_file() for f in files)
    assert sorted(f.name for f in (ROOT / "pages").glob("*.py")) == sorted(f.removeprefix("pages/") for f in files)
    assert [p.default for p in PAGES].count(True) == 1
    assert [p.url_path for p in PAGES if not p.default] == [p.file[len("pages/"):-len(".py")] for p in home_links()]
