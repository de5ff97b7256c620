"""zh/en parity: every page pair has the same skeleton, in the sources and in the built HTML, and a page titled
like its heading in Chinese is titled so in English."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from repository import DOCS
from site_pages import SITE_MAP, built_page, built_path, nav_sources, parsed_page

from qkv_site.markdown_source import read

MARKDOWN_PAGES = SITE_MAP.markdown_pages


def skeleton_of_source(path: Path) -> dict[str, object]:
    """Counts of the structural elements of a Markdown page, and its heading anchors."""
    page = read(path)
    prose = page.prose
    return {
        "heading anchors": [heading.anchor for heading in page.headings if heading.anchor],
        "headings": len(page.headings),
        "display formulas": prose.count("$$") // 2,
        "tables": len(re.findall(r"^\|\s*:?-{3,}", prose, flags=re.MULTILINE)),
        "code fences": [fence.language for fence in page.fences],
        "images": prose.count("!["),
        "admonitions": len(re.findall(r"^\s*(!!!|\?\?\?)", prose, flags=re.MULTILINE)),
        "links": len(re.findall(r"\]\((?!http)[^)]+\)", prose)),
    }


def skeleton_of_html(path: Path) -> dict[str, int]:
    """Counts of what a reader sees, generated content included."""
    content = parsed_page(path).select_one("article")
    return {
        "headings": len(content.find_all(re.compile("^h[1-6]$"))),
        "display formulas": len(content.select("div.arithmatex")),
        "inline formulas": len(content.select("span.arithmatex")),
        "tables": len(content.find_all("table")),
        "images": len(content.find_all("img")),
        "admonitions": len(content.select(".admonition, details")),
        "code blocks": len(content.select("pre")),
        "list items": len(content.find_all("li")),
    }


@pytest.mark.parametrize("source", MARKDOWN_PAGES)
def test_sources_have_the_same_skeleton(source: str) -> None:
    zh, en = skeleton_of_source(DOCS / "zh" / source), skeleton_of_source(DOCS / "en" / source)
    different = {key: (zh[key], en[key]) for key in zh if zh[key] != en[key]}
    assert not different, f"{source}: zh and en differ in {different}"


@pytest.mark.parametrize("source", MARKDOWN_PAGES)
def test_built_pages_have_the_same_skeleton(site: Path, source: str) -> None:
    zh, en = skeleton_of_html(built_path(site, source, "zh")), skeleton_of_html(built_path(site, source, "en"))
    different = {key: (zh[key], en[key]) for key in zh if zh[key] != en[key]}
    assert not different, f"{source}: built zh and en pages differ in {different} (zh, en)"


def test_every_language_folder_has_the_same_files() -> None:
    files = {lang: sorted(p.relative_to(DOCS / lang).as_posix() for p in (DOCS / lang).rglob("*") if p.is_file() and "figures" not in p.parts) for lang in ("zh", "en")}
    assert files["zh"] == files["en"]


# Titles -------------------------------------------------------------------------------------------


def test_a_page_titled_like_its_heading_in_chinese_is_titled_so_in_english(site: Path) -> None:
    def titles(page: str, lang: str) -> tuple[str, str]:
        soup = built_page(site, page, lang)
        nav_title = soup.title.get_text().rsplit(" - ", 1)[0]
        heading = soup.select_one("article h1").get_text().replace("¶", "").strip()
        return nav_title, heading

    for page in nav_sources():
        zh_title, zh_heading = titles(page, "zh")
        if zh_title == zh_heading:
            en_title, en_heading = titles(page, "en")
            assert en_title == en_heading, f"{page}: the English page has two titles, {en_title!r} and {en_heading!r}"
