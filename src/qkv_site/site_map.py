"""The site's pages, read from mkdocs.yml: the nav in reading order, the languages the i18n plugin
builds (and the default one, built at the site's root), and each page's URL and file in the built site.

Everything that needs to know where a page is outside a build's pages (the downloads, the PDF edition, the tests)
asks this map. A build makes it from the configuration MkDocs loaded (`site_map_of_loaded`: its nav and
its i18n plugin's languages, carried on the `qkv_site.project.Project`), so nothing in a build reads
mkdocs.yml again. Command-line tools and tests that have only the file read it with ``load_site_map``, once
per process (again only when the file changes); it reads the YAML itself, not through MkDocs: the nav and
the i18n plugin's languages (with the plugin's own defaults) are all it needs. The pages' values take the
nav of the language being built instead (`qkv_site.site_nav`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from mkdocs_static_i18n.config import I18nPluginConfig

CONFIG_FILE = Path("mkdocs.yml")


def flatten_nav(items: list[Any]) -> list[str]:
    """The page paths of a nav, depth first: sections ({title: [...]}) opened, titles dropped.

    >>> flatten_nav(["index.md", {"正文": ["motivation.md", {"步骤": "worked-example.md"}]}])
    ['index.md', 'motivation.md', 'worked-example.md']
    """
    return [source for source, _ in titled_pages(items)]


def titled_pages(items: list[Any]) -> list[tuple[str, str | None]]:
    """The pages of a nav, depth first, each with its title in the nav (None where the nav gives none).

    >>> titled_pages(["index.md", {"正文": [{"步骤": "worked-example.md"}]}])
    [('index.md', None), ('worked-example.md', '步骤')]
    """
    pages: list[tuple[str, str | None]] = []
    for item in items:
        title, value = next(iter(item.items())) if isinstance(item, dict) else (None, item)
        pages.extend(titled_pages(value) if isinstance(value, list) else [(value, None if title is None else str(title))])
    return pages


@dataclass(frozen=True)
class SitePage:
    """One page of the nav in one language, as it is built.

    >>> page = SitePage(source="worked-example.md", lang="en", default_lang="zh")
    >>> page.stem, page.url, page.path_in_site
    ('worked-example', 'en/worked-example/', 'en/worked-example/index.html')
    >>> SitePage(source="index.md", lang="zh", default_lang="zh").url
    ''
    """

    source: str  # the file inside the language folder: "worked-example.md", "notebook.ipynb"
    lang: str
    default_lang: str  # built at the site's root; the other languages under /<lang>/

    @property
    def stem(self) -> str:
        return self.source.rsplit(".", 1)[0]

    @property
    def url(self) -> str:
        """The page's URL relative to the site's root ("" for the default language's home page)."""
        folder = "" if self.lang == self.default_lang else f"{self.lang}/"
        return folder if self.stem == "index" else f"{folder}{self.stem}/"

    @property
    def path_in_site(self) -> str:
        return f"{self.url}index.html"

    def built(self, site: Path) -> Path:
        """The page's file in the built ``site``."""
        return site / self.path_in_site


@dataclass(frozen=True)
class NavEntry:
    """One page of the nav with its title and the title of the section it is in, per language."""

    source: str
    titles: dict[str, str]  # {lang: the page's title in the nav}
    sections: dict[str, str | None]  # {lang: the title of its section}, None at the top level


def nav_entries(items: list[Any], translations: dict[str, dict[str, str]],
                section: str | None = None) -> list[NavEntry]:
    """The titled pages of a nav, depth first, each title given in every language of ``translations``
    ({lang: {title in the nav: title in lang}}; a title without a translation stays as the nav gives it).

    >>> [(e.source, e.titles["en"], e.sections["en"]) for e in nav_entries(
    ...     [{"首页": "index.md"}, {"正文": [{"动机": "a.md"}]}], {"zh": {}, "en": {"首页": "Home", "正文": "Text"}})]
    [('index.md', 'Home', None), ('a.md', '动机', 'Text')]
    """
    entries: list[NavEntry] = []
    for item in items:
        if not isinstance(item, dict):
            raise ValueError(f"the nav entry {item!r} has no title: give every page of the nav its title")
        title, value = next(iter(item.items()))
        if isinstance(value, list):
            entries.extend(nav_entries(value, translations, title))
        else:
            sections: dict[str, str | None] = {lang: None for lang in translations}
            if section is not None:
                heading: str = section
                sections = {lang: names.get(heading, heading) for lang, names in translations.items()}
            page_title: str = str(title)
            titles = {lang: names.get(page_title, page_title) for lang, names in translations.items()}
            entries.append(NavEntry(value, titles, sections))
    return entries


def nav_titles(config_file: Path = CONFIG_FILE) -> list[NavEntry]:
    """mkdocs.yml's nav with every title in every language the i18n plugin builds (its ``nav_translations``)."""
    config = yaml.load(config_file.read_text(encoding="utf-8"), Loader=_ConfigLoader) or {}
    entries = [item if isinstance(item, dict) else {item: {}} for item in config.get("plugins") or []]
    options = next((entry["i18n"] or {} for entry in entries if "i18n" in entry), {})
    translations = {language["locale"]: dict(language.get("nav_translations") or {})
                    for language in options.get("languages") or []}
    if not translations:
        raise ValueError(f"{config_file} has no i18n languages: the nav's titles are given per language there")
    return nav_entries(config.get("nav") or [], translations)


@dataclass(frozen=True)
class SiteMap:
    """The pages of a site: its nav (paths inside a language folder) in every language it builds, with the
    title the nav gives each page in each of them."""

    nav: tuple[str, ...]
    languages: tuple[str, ...]  # in the i18n plugin's order; () when the configuration has no i18n plugin
    default_lang: str | None
    titles: Mapping[str, Mapping[str, str]]  # {page: {lang: its title in the nav}}, the pages the nav gives a title
    where: str = "the configuration"

    @property
    def markdown_pages(self) -> list[str]:
        """The pages of the nav written in Markdown (not the notebooks), in order."""
        return [source for source in self.nav if source.endswith(".md")]

    def _default(self, lang: str | None = None) -> str:
        if self.default_lang is None:
            raise ValueError(f"{self.where} has no i18n plugin: the site is built per language, and it names none")
        if lang is not None and lang not in self.languages:
            raise ValueError(f"language {lang!r} is not built by {self.where}; it builds {list(self.languages)}")
        return self.default_lang

    def pages(self, lang: str) -> list[SitePage]:
        """The pages of language ``lang`` in nav order."""
        default = self._default(lang)
        return [SitePage(source, lang, default) for source in self.nav]

    def page(self, source: str, lang: str) -> SitePage:
        """The page ``source`` (``worked-example.md``) of language ``lang``."""
        default = self._default(lang)
        if source not in self.nav:
            raise ValueError(f"{source!r} is not in the nav of {self.where}; its pages are {list(self.nav)}")
        return SitePage(source, lang, default)

    @property
    def root_home(self) -> SitePage:
        """The home page at the site's root: the default language's."""
        default = self._default()
        return SitePage("index.md", default, default)


class _ConfigLoader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no types
    """mkdocs.yml with its !ENV and !!python tags read as None: the nav and the languages need neither."""


_ConfigLoader.add_multi_constructor("!", lambda loader, suffix, node: None)
_ConfigLoader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def _i18n(plugins: list[Any], where: str) -> I18nPluginConfig | None:
    # The i18n plugin's options, read and completed by the plugin's own schema (its defaults: build: true).
    entries = [item if isinstance(item, dict) else {item: {}} for item in plugins]
    options = next((entry["i18n"] or {} for entry in entries if "i18n" in entry), None)
    if options is None:
        return None
    i18n = I18nPluginConfig()
    i18n.load_dict(options)
    errors, _ = i18n.validate()
    if errors:
        raise ValueError(f"{where}: the i18n plugin's options are wrong: {[f'{key}: {error}' for key, error in errors]}")
    return i18n


def site_map_of_loaded(nav: list[Any], i18n: I18nPluginConfig | None, where: str = "the configuration") -> SiteMap:
    """The site map of a configuration as MkDocs loaded it: its ``nav`` and its i18n plugin's validated
    options (``config.plugins["i18n"].config``; None without the plugin), each page's title given in every
    language the plugin builds (its ``nav_translations``; a title without a translation stays as the nav gives it).

    >>> i18n = I18nPluginConfig()
    >>> i18n.load_dict({"languages": [{"locale": "zh", "name": "中文", "default": True},
    ...                               {"locale": "en", "name": "English", "nav_translations": {"动机": "Why"}}]})
    >>> i18n.validate()
    ([], [])
    >>> site = site_map_of_loaded(["index.md", {"正文": [{"动机": "a.md"}]}], i18n)
    >>> site.nav, site.languages, site.titles
    (('index.md', 'a.md'), ('zh', 'en'), {'a.md': {'zh': '动机', 'en': 'Why'}})
    """
    if i18n is None:
        languages: tuple[str, ...] = ()
        default = None
        translations: dict[str, dict[str, str]] = {}
    else:
        built = [language for language in i18n.languages if language.build]
        languages = tuple(language.locale for language in built)
        default = next(language.locale for language in built if language.default)  # the schema demands one
        translations = {language.locale: dict(language.nav_translations or {}) for language in built}
    pages = titled_pages(nav)
    titles = {source: {lang: names.get(title, title) for lang, names in translations.items()}
              for source, title in pages if title is not None}
    return SiteMap(tuple(source for source, _ in pages), languages, default, titles, where)


def site_map_of(text: str, where: str = "the configuration") -> SiteMap:
    """The site map of a MkDocs configuration's text (``where`` names it in errors).

    >>> site = site_map_of("nav:\\n  - index.md\\n  - Part: [a.md, b.ipynb]\\nplugins:\\n  - i18n:\\n      languages:\\n"
    ...                    "        - {locale: zh, name: 中文, default: true}\\n        - {locale: en, name: English}\\n")
    >>> site.nav, site.languages, site.default_lang, site.page("a.md", "en").url
    (('index.md', 'a.md', 'b.ipynb'), ('zh', 'en'), 'zh', 'en/a/')
    """
    config = yaml.load(text, Loader=_ConfigLoader) or {}
    if not isinstance(config, dict) or not config.get("nav"):
        raise ValueError(f"{where} has no nav: the site's pages are listed there in reading order")
    return site_map_of_loaded(config["nav"], _i18n(config.get("plugins") or [], where), where)


@functools.lru_cache(maxsize=8)
def _loaded(config_file: Path, modified_ns: int) -> SiteMap:
    return site_map_of(config_file.read_text(encoding="utf-8"), str(config_file))


def load_site_map(config_file: Path = CONFIG_FILE) -> SiteMap:
    """The site map of ``config_file``, read once per process (again when the file changes)."""
    path = config_file.resolve()
    if not path.is_file():
        raise FileNotFoundError(f"no MkDocs configuration at {config_file}; run from the repository's root")
    return _loaded(path, path.stat().st_mtime_ns)
