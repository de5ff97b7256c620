"""Every reach of the build into another package's internals, in one place.

Each entry names the package, the pinned version it was written for (pyproject.toml pins them all)
and what it uses. What the site's own scripts, styles and templates rely on of Material's markup is
listed in `MATERIAL_MARKUP`, each piece with the file of the site that uses it. Material's search
worker, which the build corrects in the built site, has its own check in
`qkv_site.builder.material_search` (the code it changes must be there exactly once), run from here.
`check` runs when the plugin starts: after a dependency bump, the build stops at once with a message
naming the internal that moved, instead of failing deep inside a page.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from importlib.metadata import version
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError


@dataclass(frozen=True)
class Internal:
    """One private attribute of another package that the build reads or replaces."""

    package: str  # the distribution, as pip names it
    written_for: str  # its version when the code that uses the internal was written
    module: str
    attribute: str
    why: str

    def resolve(self) -> Any:
        return getattr(import_module(self.module), self.attribute)


MARKDOWN_EXEC_RUN = Internal(
    "markdown-exec", "1.12.6", "markdown_exec._internal.formatters.python", "_run_python",
    "the function that runs a `python exec` block: wrapped to reuse outputs from the build cache",
)
MARKDOWN_EXEC_SESSIONS = Internal(
    "markdown-exec", "1.12.6", "markdown_exec._internal.formatters.python", "_sessions_globals",
    "the variables of every session: emptied for each page, so no page sees another page's",
)
NBCLIENT_COALESCE = Internal(
    "nbclient", "0.11.0", "nbclient", "NotebookClient",
    "its `coalesce_streams` trait default: one output stream per cell, so two builds write the same page",
)

NUMPY_CPU_FEATURES = Internal(
    "numpy", "2.4.6", "numpy._core._multiarray_umath", "__cpu_features__",
    "the SIMD extensions numpy dispatches to on this CPU (its exp, log and sums round by them): part of the caches' keys",
)
INTERNALS = (MARKDOWN_EXEC_RUN, MARKDOWN_EXEC_SESSIONS, NBCLIENT_COALESCE, NUMPY_CPU_FEATURES)



@dataclass(frozen=True)
class MaterialMarkup:
    """A piece of Material's templates, stylesheet or script that a file of the site relies on: the
    site's scripts and styles find Material's elements by its classes and ids, its templates extend or
    copy Material's. `check` makes sure the installed Material still holds each piece, word for word."""

    file: str  # in Material's templates folder, as mkdocs-material 9.8.2 names it
    text: str  # what that file holds
    used_by: str  # the site's file that relies on it
    why: str

    def holds(self) -> bool:
        import material

        path = Path(material.__file__).resolve().parent / "templates" / self.file
        return path.is_file() and self.text in path.read_text(encoding="utf-8")


MATERIAL = "9.8.2"  # the version every entry below was written for (material_search.check holds the install to it)
_BUNDLE = "assets/javascripts/bundle.a5f9d56c.min.js"
_STYLES = "assets/stylesheets/main.57a0d79d.min.css"
_KEYS = "docs/assets/javascripts/header-keyboard.js"
MATERIAL_MARKUP = (
    # the header and drawer by keyboard
    MaterialMarkup("partials/header.html", '<label class="md-header__button md-icon" for="__drawer">', _KEYS,
                   "the drawer's button: made a tab stop that Enter and Space press"),
    MaterialMarkup("base.html", '<input class="md-toggle" data-md-toggle="drawer" type="checkbox" id="__drawer"', _KEYS,
                   "the drawer's state, which the button's aria-expanded and the drawer's inert follow"),
    MaterialMarkup("base.html", '<div class="md-sidebar md-sidebar--primary"', _KEYS, "the drawer, inert while closed"),
    MaterialMarkup(_STYLES, "@media screen and (max-width:76.234375em){[dir=ltr] .md-sidebar--primary", _KEYS,
                   "the widths at which the primary sidebar is the drawer"),
    MaterialMarkup(_BUNDLE, 'function at(e,t){yr[e].checked!==t&&yr[e].click()}', _KEYS,
                   "Material opens and closes the drawer and the search by clicking their checkboxes: a change event each time"),
    MaterialMarkup("partials/palette.html", '<form class="md-header__option" data-md-component="palette">', _KEYS,
                   "the colour-scheme toggle, whose radios (input.md-option) Space switches as Enter does"),
    MaterialMarkup("partials/palette.html", '<input class="md-option"', _KEYS, "the colour-scheme toggle's radios"),
    MaterialMarkup("partials/search.html", '<div class="md-search__scrollwrap" tabindex="0" data-md-scrollfix>', _KEYS,
                   "the search results' scroll box, a tab stop only while the search is open and has results"),
    MaterialMarkup("partials/search.html", '<ol class="md-search-result__list" role="presentation"></ol>', _KEYS,
                   "the list of search results, watched for results"),
    MaterialMarkup("base.html", '<input class="md-toggle" data-md-toggle="search" type="checkbox" id="__search"', _KEYS,
                   "whether the search is open"),
    MaterialMarkup(_STYLES, "[data-md-toggle=search]:checked~.md-header .md-search__inner{", "docs/assets/stylesheets/extra.css",
                   "the search's checkbox comes before the header that holds the results' box, hidden while it is not checked"),
    # glossary tooltips by keyboard (qkv_site.builder.tooltips makes a term's first use a tab stop)
    MaterialMarkup(_BUNDLE, 'V("content.tooltips")&&fe(M("abbr[title]",e))', "src/qkv_site/builder/tooltips.py",
                   "content.tooltips shows an abbr's title as a tooltip"),
    MaterialMarkup(_BUNDLE, "function Ye(e){return Ra.pipe(m(t=>e.contains(t)),Y())}", "src/qkv_site/builder/tooltips.py",
                   "a tooltip shows while its element has the focus, not only under the pointer"),
    # code blocks: the copy button never covers the code
    MaterialMarkup(_BUNDLE, 'x("nav",{class:"md-code__nav"})', "docs/assets/stylesheets/extra.css",
                   "the bar of a code block's copy button, which the code starts below"),
    MaterialMarkup(_STYLES, ".md-code__nav{position:absolute;top:.25em;right:.25em;z-index:1;display:flex;gap:.2rem;"
                   "padding:.2rem;", "docs/assets/stylesheets/extra.css",
                   "where that bar is and its padding: the room the code leaves it"),
    MaterialMarkup(_STYLES, ".md-code__button{display:block;width:1.5em;height:1.5em;", "docs/assets/stylesheets/extra.css",
                   "the copy button's size, in the same room"),
    # tables and their scroll boxes
    MaterialMarkup(_BUNDLE, 'x("div",{class:"md-typeset__scrollwrap"}', "docs/assets/javascripts/scroll-boxes.js",
                   "the box Material wraps a table in, a tab stop while it scrolls"),
    # the language switch
    MaterialMarkup("base.html", '<link rel="alternate" href="{{ alt.link | url }}" hreflang=',
                   "docs/assets/javascripts/language-switch.js",
                   "the alternate links Material reads at start-up and fetches a sitemap next to"),
    MaterialMarkup("partials/alternate.html", 'class="md-select__link"', "overrides/partials/alternate.html",
                   "the language menu, copied with the 404 page's links to each home page"),
    MaterialMarkup("partials/source.html", 'class="md-source" data-md-component="source"', "overrides/partials/source.html",
                   "the repository link, copied without the attribute that asks api.github.com"),
    # the search, started on demand
    MaterialMarkup("base.html", '"search": "assets/javascripts/workers/search.a7633da7.min.js" | url',
                   "docs/assets/javascripts/search-on-demand.js", "the search worker, held back until the reader goes to search"),
    # templates the site extends
    MaterialMarkup("base.html", "{% block scripts %}", "overrides/main.html", "search-on-demand.js before Material's bundle"),
    MaterialMarkup("404.html", '{% extends "main.html" %}', "overrides/404.html", "the 404 page in each language"),
    MaterialMarkup("base.html", "{% block htmltitle %}", "overrides/404.html", "the 404 page's title"),
    MaterialMarkup("base.html", "{% block extrahead %}{% endblock %}", "overrides/404.html",
                   "the script that sends a missing English address on to the English 404 page"),
    MaterialMarkup("base.html", "{% block content %}", "overrides/404.html", "the 404 page's words"),
)

# qkv's own reach, into the OpenBLAS bundled with numpy (its thread count, by ctypes), is recorded in qkv itself,
# which imports nothing of the site: `qkv._threads.OPENBLAS_REACH` names the numpy it was written for, and
# tests/test_threads.py checks it. Listed here so that this file stays the one place to look for every reach.
QKV_REACHES = ("qkv._threads.OPENBLAS_REACH",)

# traitlets 5.16.1: each class keeps the initial values of its traits, copied when the class was made.
TRAITLETS_INITIAL_VALUES = "_static_immutable_initial_values"

# Private attributes of plugin instances, checked on the instance when the build starts.
# mkdocs-static-i18n 1.3.1: the documentation pages of each language it writes the sitemap from, the
# home-page links overrides/partials/alternate.html and overrides/404.html use for the 404 page, and
# whether the language being built is the default one (whose 404 page stays at the site's root).
I18N_FILES_PER_LANGUAGE = "i18n_files_per_language"
I18N_EXTRA_ALTERNATE = "extra_alternate"
I18N_DEFAULT_BUILD = "is_default_language_build"
JUPYTER_USED_CACHE_PATHS = "_used_cache_paths"  # mkdocs-jupyter 0.26.3: the cache entries a build used
JUPYTER_PUBLIC = ("should_include", "on_files")  # called directly, outside MkDocs' event order


def check(internals: tuple[Internal, ...] = INTERNALS, markup: tuple[MaterialMarkup, ...] = MATERIAL_MARKUP) -> None:
    """Raise `PluginError` naming every internal that is gone from the installed packages."""
    missing = [f"{piece.text!r} in Material's {piece.file} ({piece.why}; used by {piece.used_by}), written for mkdocs-material "
               f"{MATERIAL}, installed {version('mkdocs-material')}" for piece in markup if not piece.holds()]
    for internal in internals:
        try:
            internal.resolve()
        except (ImportError, AttributeError):
            missing.append(
                f"{internal.module}.{internal.attribute} ({internal.why}), written for {internal.package} "
                f"{internal.written_for}, installed {version(internal.package)}"
            )
    client = import_module("nbclient").NotebookClient
    if not hasattr(client, "coalesce_streams"):
        missing.append(f"nbclient.NotebookClient.coalesce_streams, written for nbclient 0.11.0, installed {version('nbclient')}")
    if not isinstance(client.__dict__.get(TRAITLETS_INITIAL_VALUES), dict):
        missing.append(f"traitlets' {TRAITLETS_INITIAL_VALUES} on NotebookClient, written for traitlets 5.16.1, "
                       f"installed {version('traitlets')}")
    from qkv_site.builder import material_search

    try:
        material_search.check()
    except material_search.MaterialChanged as error:
        missing.append(str(error))
    if missing:
        raise PluginError("the site build relies on internals that changed:\n  " + "\n  ".join(missing)
                          + "\nupdate src/qkv_site/builder/compat.py and the code that uses them")


def check_i18n(plugin: object) -> None:
    """What the build and the theme overrides use of the mkdocs-static-i18n plugin instance."""
    absent = [name for name in (I18N_FILES_PER_LANGUAGE, I18N_EXTRA_ALTERNATE, I18N_DEFAULT_BUILD, "current_language")
              if not hasattr(plugin, name)]
    if absent:
        raise PluginError(f"mkdocs-static-i18n {version('mkdocs-static-i18n')} has no {absent} (written for 1.3.1): "
                          "update src/qkv_site/builder/compat.py, site_files.py, overrides/partials/alternate.html "
                          "and overrides/404.html")


def check_jupyter(plugin: object) -> None:
    """The same check for what the build uses of the mkdocs-jupyter plugin instance (call it after
    mkdocs-jupyter's own ``on_pre_build``, which creates its record of used cache entries)."""
    absent = [name for name in (JUPYTER_USED_CACHE_PATHS, *JUPYTER_PUBLIC) if not hasattr(plugin, name)]
    if absent or "cache_dir" not in getattr(plugin, "config", {}):
        raise PluginError(f"mkdocs-jupyter {version('mkdocs-jupyter')} has no {absent or ['cache_dir option']} "
                          "(written for 0.26.3): update src/qkv_site/builder/compat.py and the code that uses them")
