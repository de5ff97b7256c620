"""The nav MkDocs loaded, as the pages' values take it (`qkv_site.site_nav.SiteNav`): made in ``on_nav``, after
mkdocs-static-i18n put the language's titles in, once per language.

MkDocs reads a page's text only when it converts that page, one page after the other, so when the
corrections page is converted most pages are still unread: the texts come from MkDocs' own files of
the nav's pages (``File.content_string``, what MkDocs converts: the language's file, or the one
mkdocs-static-i18n put in its place), taken before any page is converted.

>>> from mkdocs.structure.files import File
>>> from mkdocs.structure.nav import Navigation, Section
>>> from mkdocs.structure.pages import Page
>>> file = File("en/cost.md", src_dir=None, dest_dir="site", use_directory_urls=True)
>>> file.content_string = "# Cost\\n"  # a file in memory: nothing is read
>>> page = Page("Cost", file, {})
>>> nav = site_nav(Navigation([Section("Deep dives", [page])], [page]), ("zh", "en"))
>>> nav.lang, nav.entries[0].titles, nav.entries[0].sections, nav.sources
('en', {'en': 'Cost'}, {'en': 'Deep dives'}, {'cost.md': '# Cost\\n'})
>>> untitled = File("en/more.md", src_dir=None, dest_dir="site", use_directory_urls=True)
>>> untitled.content_string = "# More on cost { #more }\\n"  # a nav entry without a title: its first heading
>>> more = Page(None, untitled, {})
>>> site_nav(Navigation([more], [more]), ("zh", "en")).entries[0].titles
{'en': 'More on cost'}
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils.meta import get_data

from qkv_site.site_map import NavEntry
from qkv_site.site_nav import SiteNav


def _pages(items: list[Any], lang: str, section: str | None = None) -> list[tuple[NavEntry, Page]]:
    """The nav's pages depth first, each with its entry (its title and its section's, in ``lang``)."""
    pages: list[tuple[NavEntry, Page]] = []
    for item in items:
        if item.is_section:
            pages.extend(_pages(item.children, lang, str(item.title)))
        elif item.is_page:
            folder, _, source = item.file.src_uri.partition("/")
            if folder != lang:
                raise ValueError(f"the nav of {lang!r} holds {item.file.src_uri}, a page of another language")
            pages.append((NavEntry(source, {lang: _title(item)}, {lang: section}), item))
    return pages


def _title(page: Page) -> str:
    """The page's title in the nav, or where the nav gives none (MkDocs takes it from the page when it reads it),
    the page's first level-1 heading without its attributes, else its file's name."""
    if page.title is not None:
        return str(page.title)
    if page.file.src_uri.endswith(".md"):
        body, _ = get_data(page.file.content_string)
        heading = re.search(r"^# +(.+?)(?: +\{[^}]*\})? *$", body, flags=re.M)
        if heading:
            return heading.group(1)
    return Path(page.file.src_uri).stem


def site_nav(nav: Navigation, languages: tuple[str, ...]) -> SiteNav | None:
    """The nav of the language being built, or None when its pages are not in a folder of ``languages``
    (a site without languages)."""
    lang = nav.pages[0].file.src_uri.partition("/")[0] if nav.pages else None
    if lang is None or lang not in languages:
        return None
    pages = _pages(nav.items, lang)
    sources = {entry.source: page.file.content_string for entry, page in pages if entry.source.endswith(".md")}
    return SiteNav(lang, tuple(entry for entry, _ in pages), sources)
