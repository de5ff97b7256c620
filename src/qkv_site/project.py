"""The project's paths and languages, all from the MkDocs configuration a build runs with: the folder of
the config file (the repository root the figure code links are relative to), the docs folder, the
committed benchmark results and the packages' sources (the ``qkv-site`` plugin's ``results_dir`` and
``src_dir``, relative to the config file), the programs the pages show (pymdownx.snippets'
``base_path``), and the site's languages (the ``i18n`` plugin's, the default first): the one place the
build learns which languages there are. It carries the site map made from the nav and the languages MkDocs
loaded (`qkv_site.site_map.site_map_of_loaded`), so that what needs the pages' titles (the downloads)
reads no file for them.

The plugin makes one `Project` in ``on_config`` and hands it to what reads the project's files (page
values, figures, the build's inputs digest, the figure code links); tests and command-line tools load
one from a config file with `load_project`. A build of a config in another folder reads that folder's
files. The code the build runs, hashes and shows is found from the imported packages (`qkv`,
`qkv_site`); ``src_dir`` is only where that code is in the repository, for its links.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig

from qkv_site.site_map import SiteMap, site_map_of_loaded

PLUGIN = "qkv-site"
I18N = "i18n"  # mkdocs-static-i18n, whose ``languages`` list the site's languages
CACHE_DIR = ".cache"  # the build's caches, beside mkdocs.yml; deleting it is always safe
SNIPPETS = "pymdownx.snippets"  # its base_path holds the programs the pages show (docs_src/<page>/<name>.py)
RESULTS_DIR = "benchmarks/results"  # the plugin's default ``results_dir``
SRC_DIR = "src"  # the plugin's default ``src_dir``


@dataclass(frozen=True)
class Project:
    """Where a build's inputs are; every path is absolute."""

    config_file: Path  # mkdocs.yml
    docs_dir: Path  # the pages, the site's assets
    results_dir: Path  # the committed benchmark results pages and figures read
    src_dir: Path  # the packages' sources in the repository (a figure's code links to its file there)
    programs_dir: Path | None = None  # the programs the pages show; None for a site that shows none
    languages: tuple[str, ...] = ()  # the i18n plugin's locales, the default language first; () without it
    # The nav and languages MkDocs loaded; None for a configuration without a nav or a project made by hand.
    # Not part of what a Project is compared and hashed by (the caches keyed by a Project are keyed by its paths).
    site_map: SiteMap | None = field(default=None, compare=False)

    @property
    def default_language(self) -> str | None:
        """The language whose pages the i18n plugin puts at the site's root (None without languages)."""
        return self.languages[0] if self.languages else None

    @property
    def root(self) -> Path:
        """The folder of the config file: the repository root that repository links are relative to."""
        return self.config_file.parent

    @property
    def cache_dir(self) -> Path:
        """The build's caches (``.cache/`` beside the config file)."""
        return self.root / CACHE_DIR


def programs_dir(config: MkDocsConfig, root: Path) -> Path | None:
    """The folder of the programs the pages show: the one ``base_path`` of pymdownx.snippets (relative to
    ``root``, the config file's folder), or ``None`` when the configuration gives snippets no base_path."""
    base = (config.mdx_configs.get(SNIPPETS) or {}).get("base_path")
    if not base:
        return None
    folders = [base] if isinstance(base, str) else list(base)
    if len(folders) != 1:
        raise ValueError(f"{config.config_file_path}: {SNIPPETS} has base_path {folders}; the programs the pages show "
                         "are served from one folder")
    return (root / folders[0]).resolve()


def from_config(config: MkDocsConfig) -> Project:
    """The project of a loaded MkDocs configuration: its ``qkv-site`` plugin's ``results_dir`` and
    ``src_dir`` (relative to the config file), or their defaults when it has no such plugin."""
    plugin = config.plugins.get(PLUGIN)
    options = plugin.config if plugin is not None else {"results_dir": RESULTS_DIR, "src_dir": SRC_DIR}
    config_file = Path(str(config.config_file_path)).resolve()
    return Project(config_file=config_file, docs_dir=Path(str(config.docs_dir)).resolve(),
                   results_dir=(config_file.parent / options["results_dir"]).resolve(),
                   src_dir=(config_file.parent / options["src_dir"]).resolve(),
                   programs_dir=programs_dir(config, config_file.parent),
                   languages=site_languages(config), site_map=loaded_site_map(config))


def loaded_site_map(config: MkDocsConfig) -> SiteMap | None:
    """The site map of the nav and the ``i18n`` plugin's languages MkDocs loaded; None without a nav (MkDocs
    then makes one from the docs folder).

    >>> load_project("mkdocs.yml").site_map.titles["worked-example.md"]["en"]
    'Step by step: a complete example'
    """
    if not config.nav:
        return None
    plugin = config.plugins.get(I18N)
    return site_map_of_loaded(config.nav, plugin.config if plugin is not None else None, str(config.config_file_path))


def site_languages(config: MkDocsConfig) -> tuple[str, ...]:
    """The locales of the ``i18n`` plugin's ``languages``, the default one first; () without the plugin.

    >>> load_project("mkdocs.yml").languages
    ('zh', 'en')
    """
    plugin = config.plugins.get(I18N)
    if plugin is None:
        return ()
    languages = [(str(language.locale), bool(language.default)) for language in plugin.config.languages]
    defaults = [locale for locale, default in languages if default]
    if len(defaults) != 1:
        raise ValueError(f"the i18n plugin must name exactly one default language, not {defaults}")
    return tuple(sorted((locale for locale, _ in languages), key=lambda locale: locale != defaults[0]))


@cache
def load_project(config_file: str | Path) -> Project:
    """The project of the MkDocs config file ``config_file`` (for tests and command-line tools)."""
    from mkdocs.config import load_config

    return from_config(load_config(str(config_file)))
