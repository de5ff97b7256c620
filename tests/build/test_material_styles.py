"""Material's stylesheet, trimmed to the rules the site can use (qkv_site.builder.material_styles)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import tinycss2
from repository import SITE_URL

from qkv_site.builder import compat, material_styles
from qkv_site.builder.material_styles import (
    UsedRuleDropped,
    check_dropped,
    page_names,
    parsed_names,
    trim_site,
    trimmed,
)

MATERIAL_CSS = compat.material_stylesheet().read_text(encoding="utf-8")
_CLASS_OR_ID = re.compile(r"[.#](-?[A-Za-z_][\w-]*)")


def _names_in(css: str) -> set[str]:
    return set(_CLASS_OR_ID.findall(css))


def _tokens(css: str) -> str:
    return tinycss2.serialize(tinycss2.parse_stylesheet(css))


def test_with_every_name_there_nothing_goes() -> None:
    # Material's own names all present: the trim writes Material's stylesheet back, token for token (tinycss2
    # writes an escaped character in a string as itself, `"\\3c "` as `"<"`, and `1n+2` as `1n/**/+2`)
    css = trimmed(MATERIAL_CSS, _names_in(MATERIAL_CSS), set()).css
    assert _tokens(css) == _tokens(MATERIAL_CSS) and abs(len(css) - len(MATERIAL_CSS)) < 10


def test_a_page_that_shows_nothing_keeps_what_styles_any_page() -> None:
    css = trimmed(MATERIAL_CSS, set(), set()).css
    assert len(css) < len(MATERIAL_CSS) / 2
    assert ":root{" in css and "body{" in css and "@media print" in css
    assert ".md-typeset .admonition" not in css


@pytest.mark.parametrize("page", [
    '<article class="md-typeset"><p class="&#97;dmonition">',  # an entity in the attribute
    '<article class="md-typeset"><p class=admonition>',  # no quotes
    '<article class="md-typeset"><p data-x="1" class = "note admonition">',  # spaces around =
])
def test_the_build_stops_when_the_trim_drops_a_rule_a_page_uses(page: str) -> None:
    # the trim's fast reading of the page misses the class; Python's HTML parser does not
    assert "admonition" not in page_names(page) and "admonition" in parsed_names(page)
    trim = trimmed(MATERIAL_CSS, page_names(page), set())
    assert any(drop.missing == "admonition" for drop in trim.dropped)
    with pytest.raises(UsedRuleDropped, match="admonition"):
        check_dropped(trim.dropped, {"page.html": page})


def test_the_check_passes_when_what_went_is_nowhere() -> None:
    page = '<article class="md-typeset"><div class="admonition note"><p class="admonition-title">x</p></div></article>'
    trim = trimmed(MATERIAL_CSS, page_names(page), set())
    check_dropped(trim.dropped, {"page.html": page})
    assert ".admonition-title" in trim.css and trim.dropped


def test_a_class_a_script_builds_keeps_every_class_with_its_prefix() -> None:
    trim = trimmed(MATERIAL_CSS, set(), {"md-source__fact--"})
    assert ".md-source__fact--version" in trim.css and ".md-source__fact--stars" in trim.css


def _material_page(links: str) -> str:
    return f'<head><meta name="generator" content="mkdocs-1.6.1, mkdocs-material-9.8.2">{links}</head>'


def test_a_page_is_pointed_at_the_trim_once() -> None:
    link = '<link rel="stylesheet" href="../assets/stylesheets/main.57a0d79d.min.css">'
    assert compat.link_stylesheet(_material_page(link), "main.0123abcd.min.css", "x") == _material_page(
        '<link rel="stylesheet" href="../assets/stylesheets/main.0123abcd.min.css">')
    for links in ("", link + link):
        with pytest.raises(compat.StylesheetLinkMissing, match="not once"):
            compat.link_stylesheet(_material_page(links), "main.0123abcd.min.css", "x")
    assert compat.link_stylesheet("<p>not Material's</p>", "main.0123abcd.min.css", "x") == "<p>not Material's</p>"


def test_the_installed_material_is_the_one_the_trim_was_written_for() -> None:
    assert compat.check_stylesheet() == []


def test_a_site_without_material_stylesheet_stops_the_trim(tmp_path: Path) -> None:
    (tmp_path / compat.STYLESHEET_FOLDER).mkdir(parents=True)
    with pytest.raises(FileNotFoundError, match="Material"):
        trim_site(tmp_path)


def _selectors(css: str) -> set[tuple[str, str, str]]:
    """Each selector of each rule with the rule's declarations and the @media or @supports it is inside."""
    found: set[tuple[str, str, str]] = set()

    def read(nodes: list[Any], inside: str) -> None:
        for node in nodes:
            if node.type == "qualified-rule":
                found.update((inside, selector.strip(), tinycss2.serialize(node.content))
                             for selector in tinycss2.serialize(node.prelude).split(","))
            elif node.type == "at-rule" and node.content is not None and node.lower_at_keyword in ("media", "supports"):
                read(tinycss2.parse_rule_list(node.content), inside + "@" + tinycss2.serialize(node.prelude))
            elif node.type == "at-rule":
                found.add((inside, tinycss2.serialize([node]), ""))

    read(tinycss2.parse_stylesheet(css), "")
    return found


def _stylesheets(site: Path) -> list[Path]:
    return sorted((site / compat.STYLESHEET_FOLDER).glob("main.*"))


def test_every_page_links_the_trimmed_stylesheet(site: Path) -> None:
    (trim,) = _stylesheets(site)
    assert trim.name != compat.material_stylesheet().name
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 30
    for page in pages:
        html = page.read_text(encoding="utf-8")
        (link,) = re.findall(r'<link rel="stylesheet" href="([^"]*main\.[0-9a-f]{8}\.min\.css)">', html)
        if page.name == "404.html":  # linked from the site's root, wherever the reader's missing address was
            assert link == urlsplit(SITE_URL).path + trim.relative_to(site).as_posix(), page
        else:
            assert (page.parent / link).resolve() == trim.resolve(), page


def test_the_trim_holds_only_material_rules_and_every_name_a_page_uses(site: Path) -> None:
    (trim,) = _stylesheets(site)
    css = trim.read_text(encoding="utf-8")
    assert _selectors(css) <= _selectors(MATERIAL_CSS)
    styled, kept = _names_in(MATERIAL_CSS), _names_in(css)
    for page in site.rglob("*.html"):
        assert not (parsed_names(page.read_text(encoding="utf-8")) & styled) - kept, page


def _one_page_site(site: Path, body: str) -> Path:
    folder = site / compat.STYLESHEET_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    (folder / compat.material_stylesheet().name).write_text(MATERIAL_CSS, encoding="utf-8")
    link = f'<link rel="stylesheet" href="assets/stylesheets/{compat.material_stylesheet().name}">'
    (site / "index.html").write_text(_material_page(link) + f"<body>{body}</body>", encoding="utf-8")
    return site


def test_a_rebuild_naming_the_same_classes_reads_the_trim_it_made_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    page = '<article class="md-typeset"><div class="admonition note"></div></article>'
    first = trim_site(_one_page_site(tmp_path / "first", page), cache)
    made = (tmp_path / "first" / first.name).read_text(encoding="utf-8")

    read: list[str] = []

    def no_trimming(*args: Any) -> None:
        raise AssertionError("trimmed again")

    def counted(html: str) -> set[str]:
        read.append(html)
        return parsed_names(html)

    monkeypatch.setattr(material_styles, "trimmed", no_trimming)
    monkeypatch.setattr(material_styles, "parsed_names", counted)
    again = trim_site(_one_page_site(tmp_path / "again", page), cache)  # the next build, the same page
    assert again == first and (tmp_path / "again" / again.name).read_text(encoding="utf-8") == made
    assert read == []  # the page was checked by the first trim

    with pytest.raises(AssertionError, match="trimmed again"):  # a page naming another class: trimmed again
        trim_site(_one_page_site(tmp_path / "other", page + '<p class="md-tag">'), cache)


def test_a_page_checked_before_is_read_again_once_its_html_changes(tmp_path: Path) -> None:
    clean = '<article class="md-typeset"><p>x</p></article>'
    trim = trimmed(MATERIAL_CSS, page_names(clean), set())
    check_dropped(trim.dropped, {"page.html": clean}, tmp_path)
    assert len(list(tmp_path.iterdir())) == 1  # noted clean
    with pytest.raises(UsedRuleDropped, match="admonition"):  # the same page, now with a class the fast reading misses
        check_dropped(trim.dropped, {"page.html": clean.replace("<p>", '<p class="&#97;dmonition">')}, tmp_path)
