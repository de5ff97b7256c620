"""The home page (index.md): its reading path is the nav, every page of mkdocs.yml's nav but the home page, in
order, with its nav title in each language (a page added to the nav without its line on the home page stops the
build); its program computes what its prose prints, and it says, as the corrections page does, which numbers are
measured."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError
from page_sources import DOCS_SRC, built_article, run_program
from repository import DOCS, LANGUAGES, ROOT
from site_pages import nav_sources, rendered

from qkv_site.pages import index
from qkv_site.project import Project, load_project
from qkv_site.site_nav import read_nav


def reading_path_links(text: str) -> list[tuple[str, str]]:
    """(title, page) of every link in the reading path's table of a rendered home page."""
    section = text[text.index("{ #reading-path }"):]
    section = section[:section.index("\n## ")]
    rows = [line for line in section.splitlines() if line.startswith("| ") and "](" in line]
    return [re.search(r"\[([^\]]+)\]\(([^)]+)\)", row).groups() for row in rows]  # type: ignore[union-attr]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_reading_path_lists_every_page_of_the_nav_in_order(lang: str, project: Project) -> None:
    links = reading_path_links(rendered("index.md", lang, project))
    assert [page for _, page in links] == [page for page in nav_sources() if page != "index.md"]
    assert "learned-attention.md" in dict((page, title) for title, page in links)
    assert "corrections.md" in [page for _, page in links]
    nav = read_nav(ROOT / "mkdocs.yml", DOCS, lang)
    titles = {row["source"]: row["title"][lang] for row in index.values(project, nav)["reading_path"]}
    assert [title for title, _ in links] == [titles[page] for _, page in links]


def test_the_english_titles_are_the_navs_translations(project: Project) -> None:
    en = dict((page, title) for title, page in reading_path_links(rendered("index.md", "en", project)))
    assert en["corrections.md"] == "Corrections and editor's notes" and en["summary.md"] == "Recap"


def test_a_page_added_to_the_nav_without_its_line_stops_the_home_page(tmp_path: Path) -> None:
    shutil.copytree(DOCS, tmp_path / "docs", ignore=shutil.ignore_patterns("figures"))
    for checked in ("overrides", "docs_src"):
        shutil.copytree(ROOT / checked, tmp_path / checked)
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")  # the home page lists qkv's wheel, named from it
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(config.replace("  - 术语表: glossary.md\n", "  - 术语表: glossary.md\n  - 新页: new.md\n"),
                                         encoding="utf-8")
    for lang in ("zh", "en"):
        (tmp_path / "docs" / lang / "new.md").write_text("# New { #new }\n", encoding="utf-8")
    copy = load_project(tmp_path / "mkdocs.yml")
    nav = read_nav(copy.config_file, copy.docs_dir, "zh")
    assert "new.md" in [row["source"] for row in index.values(copy, nav)["reading_path"]]
    with pytest.raises(PluginError, match=r"zh/index\.md: .*'new\.md'"):
        rendered("index.md", "zh", copy)


# The program the page shows -----------------------------------------------------------------------


def test_index_program_agrees_with_the_values_the_prose_prints(project: Project) -> None:
    from qkv_site.pages.index import values

    shown = values(project, read_nav(ROOT / "mkdocs.yml", DOCS, "zh"))
    quick_start, printed = run_program(DOCS_SRC / "index" / "quick_start.py")
    assert quick_start["weights"].shape == (int(shown["tokens"]),) * 2  # one row and one column per token of the example
    assert quick_start["example"].x.shape[1] == int(shown["d_model"])
    assert printed.strip() == str(quick_start["weights"].round(2))


# Home and corrections: which numbers are measured -------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_home_and_corrections_say_which_numbers_are_measured(site: Path, lang: str) -> None:
    home = built_article(site, "index.md", lang)
    different = home.select_one("#what-is-different").find_next("p")
    assert different.select_one('a[href*="beyond-quadratic"]'), f"{lang}: the home page names the measured page"
    corrections = built_article(site, "corrections.md", lang).get_text(" ")
    for old in ("每一处都在它所在的页面上用一条", "Each of these places carries an “editor's note”", "每个数字都由 `qkv`", "Every number is computed by"):
        assert old not in corrections, f"{lang}/corrections: {old!r}"
