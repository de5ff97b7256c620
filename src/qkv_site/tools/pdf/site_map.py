"""Where a language's pages are: the nav of mkdocs.yml, in order, and each page's place in the built site."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mkdocs.config import load_config

from qkv_site.nav import flatten_nav


@dataclass(frozen=True)
class SitePage:
    """One page of the nav in one language, as it was built.

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


def nav_sources(config_file: Path) -> list[str]:
    """Every page of the nav of ``config_file``, in order, as its path inside a language folder."""
    config = load_config(str(config_file))

    return flatten_nav(config["nav"])


def languages(config_file: Path) -> tuple[list[str], str]:
    """The languages the i18n plugin builds, in its order, and the default one (built at the root)."""
    config = load_config(str(config_file))
    if "i18n" not in config.plugins:
        raise ValueError(f"{config_file} has no i18n plugin: the PDF edition is made per language")
    built = [language for language in config.plugins["i18n"].config.languages if language.build]
    default = next((language.locale for language in built if language.default), None)
    if default is None:
        raise ValueError(f"{config_file}: no default language among {[language.locale for language in built]}")
    return [language.locale for language in built], default


def site_pages(config_file: Path, lang: str) -> list[SitePage]:
    """The pages of language ``lang`` in nav order."""
    locales, default = languages(config_file)
    if lang not in locales:
        raise ValueError(f"language {lang!r} is not built by {config_file}; it builds {locales}")
    return [SitePage(source, lang, default) for source in nav_sources(config_file)]
