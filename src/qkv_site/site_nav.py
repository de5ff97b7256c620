"""One language's nav as a build hands it to the pages' values: every page of the nav in order with its
title and its section's title in that language, and the Markdown text of each Markdown page.

mkdocs-static-i18n builds one language at a time, so a build hands over the nav of the language it is
building (`qkv_site.builder.loaded_nav` makes it from the nav MkDocs loaded); the pages that list
other pages (the home page's reading path, the corrections page's editor's notes) compute their values
from it and read no file. `read_nav` makes the same from mkdocs.yml and the docs folder, for tests and
tools that compute those values outside a build.

>>> nav = SiteNav("en", (NavEntry("a.md", {"en": "A"}, {"en": None}),), {"a.md": "# A\\n"})
>>> nav.markdown_pages, len(nav.digest())
(['a.md'], 64)
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from qkv_site.site_map import NavEntry, nav_titles


@dataclass(frozen=True)
class SiteNav:
    """The nav of language ``lang``: its entries in order (titles and sections given in ``lang``) and the
    Markdown text of each Markdown page, by its path inside the language folder (``worked-example.md``)."""

    lang: str
    entries: tuple[NavEntry, ...]
    sources: dict[str, str]

    @property
    def markdown_pages(self) -> list[str]:
        """The nav's Markdown pages (not the notebooks), in order."""
        return [entry.source for entry in self.entries if entry.source.endswith(".md")]

    def digest(self) -> str:
        """sha256 of everything values computed from this nav may show: the language, the entries, the texts."""
        entries = [[entry.source, entry.titles, entry.sections] for entry in self.entries]
        payload = json.dumps([self.lang, entries, self.sources], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(payload.encode()).hexdigest()


def read_nav(config_file: Path, docs_dir: Path, lang: str) -> SiteNav:
    """The nav a build of ``lang`` hands over, read from ``config_file`` and the pages in ``docs_dir/lang``.

    >>> nav = read_nav(Path("mkdocs.yml"), Path("docs"), "en")
    >>> nav.entries[-1].titles, nav.sources["glossary.md"].startswith("---")
    ({'en': "Corrections and editor's notes"}, True)
    """
    entries = tuple(NavEntry(entry.source, {lang: entry.titles[lang]}, {lang: entry.sections[lang]})
                    for entry in nav_titles(config_file))
    sources = {entry.source: (docs_dir / lang / entry.source).read_text(encoding="utf-8")
               for entry in entries if entry.source.endswith(".md")}
    return SiteNav(lang, entries, sources)
