"""The site map (qkv_site.site_map): mkdocs.yml's nav and languages, and where each page is built."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from repository import LANGUAGES, SITE_URL
from site_pages import SITE_MAP, parsed_page

from qkv_site.project import Project
from qkv_site.site_map import load_site_map, nav_titles, site_map_of

CONFIG = """\
nav:
  - index.md
  - Part: [a.md, {B: b.ipynb}]
plugins:
  - search
  - i18n:
      languages:
        - {locale: en, name: English}
        - {locale: zh, name: 中文, default: true}
        - {locale: fr, name: Français, build: false}
"""


ROOT_PATH = urlsplit(SITE_URL).path  # the sub-path the site is built for ("/qkv-site/")


def resolve(page_url: str, href: str) -> str:
    """A link's target, on the page at ``page_url`` ("/en/"), as a site-relative URL ("/en/worked-example/")."""
    path = urlsplit(urljoin(f"http://site{ROOT_PATH}{page_url.lstrip('/')}", href)).path
    assert path.startswith(ROOT_PATH), f"{href!r} on {page_url} leaves the site"
    return "/" + path.removeprefix(ROOT_PATH)


def test_the_map_reads_the_nav_and_the_languages_the_i18n_plugin_builds() -> None:
    site = site_map_of(CONFIG)
    assert site.nav == ("index.md", "a.md", "b.ipynb")
    assert (site.languages, site.default_lang) == (("en", "zh"), "zh")  # fr is not built
    assert [page.path_in_site for page in site.pages("en")] == ["en/index.html", "en/a/index.html", "en/b/index.html"]
    assert [page.url for page in site.pages("zh")] == ["", "a/", "b/"]
    assert site.markdown_pages == ["index.md", "a.md"]
    assert site.root_home.path_in_site == "index.html"
    assert site.titles == {"b.ipynb": {"en": "B", "zh": "B"}}  # the pages the nav gives a title


def test_the_map_of_what_mkdocs_loaded_is_the_map_of_the_file(project: Project) -> None:
    loaded, read = project.site_map, load_site_map(project.config_file)
    assert loaded is not None and loaded.where == str(project.config_file)
    assert (loaded.nav, loaded.languages, loaded.default_lang) == (read.nav, read.languages, read.default_lang)
    assert loaded.titles == read.titles == {entry.source: entry.titles for entry in nav_titles(project.config_file)}


def test_the_map_names_what_is_wrong() -> None:
    site = site_map_of(CONFIG, "test.yml")
    with pytest.raises(ValueError, match=r"'fr' is not built by test\.yml"):
        site.pages("fr")
    with pytest.raises(ValueError, match=r"'c\.md' is not in the nav"):
        site.page("c.md", "en")
    with pytest.raises(ValueError, match=r"test\.yml has no nav"):
        site_map_of("site_name: x\n", "test.yml")
    with pytest.raises(ValueError, match="i18n plugin's options are wrong"):
        site_map_of("nav: [index.md]\nplugins:\n  - i18n:\n      languages: [{locale: en, name: English}]\n")
    with pytest.raises(ValueError, match="no i18n plugin"):
        site_map_of("nav: [index.md]\n").pages("en")
    assert site_map_of("nav: [index.md]\n").markdown_pages == ["index.md"]  # the nav alone needs no languages


def test_the_map_is_read_once_and_again_when_the_file_changes(tmp_path: Path) -> None:
    config = tmp_path / "mkdocs.yml"
    config.write_text(CONFIG, encoding="utf-8")
    first = load_site_map(config)
    assert load_site_map(config) is first
    config.write_text(CONFIG.replace("  - index.md\n", "  - index.md\n  - c.md\n"), encoding="utf-8")
    os.utime(config, ns=(config.stat().st_atime_ns, config.stat().st_mtime_ns + 1_000_000))
    assert load_site_map(config).nav == ("index.md", "c.md", "a.md", "b.ipynb")


def test_the_site_is_the_map(site: Path) -> None:
    built = {path.relative_to(site).as_posix() for path in site.rglob("index.html")}
    mapped = {page.path_in_site for lang in LANGUAGES for page in SITE_MAP.pages(lang)}
    assert mapped <= built, f"pages of the map that were not built: {sorted(mapped - built)}"
    assert built == mapped, f"built pages that are not in the map: {sorted(built - mapped)}"
    assert set(SITE_MAP.languages) == set(LANGUAGES) and SITE_MAP.default_lang == LANGUAGES[0]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_built_pages_link_each_other_at_the_maps_urls(site: Path, lang: str) -> None:
    pages = SITE_MAP.pages(lang)
    urls = ["/" + page.url for page in pages]
    for i, page in enumerate(pages):
        soup, own = parsed_page(page.built(site)), "/" + page.url
        where = page.path_in_site
        # The language switch: every language's counterpart of this page.
        switch = {link["hreflang"]: resolve(own, link["href"]) for link in soup.select("a.md-select__link[hreflang]")}
        assert switch == {other: "/" + SITE_MAP.page(page.source, other).url for other in SITE_MAP.languages}, where
        # The nav: every page of the language, in the map's order.
        nav = [resolve(own, link["href"]) for link in soup.select("nav.md-nav--primary a.md-nav__link[href]")
               if not link["href"].startswith("#")]
        assert list(dict.fromkeys(nav)) == urls, f"{where}: the nav links {list(dict.fromkeys(nav))}"
        # The footer: the pages before and after this one in the map.
        footer = [resolve(own, link["href"]) for link in soup.select("a.md-footer__link[href]")]
        assert footer == urls[max(i - 1, 0):i] + urls[i + 1:i + 2], f"{where}: the footer links {footer}"
