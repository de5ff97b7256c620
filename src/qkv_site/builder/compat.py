"""Every reach of the build into another package's internals, in one place.

Each entry names the package, the pinned version it was written for (pyproject.toml pins them all)
and what it uses. What the site's own scripts, styles and templates rely on of Material's markup is
listed in `MATERIAL_MARKUP`, each piece with the file of the site that uses it. Material's search
worker, whose minified code the build corrects in the built site (`qkv_site.search.material_worker`
applies `WORKER_CORRECTIONS`) and whose behaviour the search index relies on (`WORKER_READS`), is
pinned to its file name and checked here too: each piece of code must be there exactly once. The
templates the site copies with changes (`COPIED_TEMPLATES`) are pinned by the original's sha256. Material's
stylesheet, which `qkv_site.builder.material_styles` trims to the rules the site uses, is reached through the
functions here only (its file, its name's pattern, the one link of each page, `check_stylesheet`). `check`
runs when the plugin starts: after a dependency bump, the build stops at once with a message naming
the internal that moved, instead of failing deep inside a page.
"""

from __future__ import annotations

import hashlib
import re
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
MKDOCS_PAGE = Internal(
    "mkdocs", "1.6.1", "mkdocs.structure.pages", "Page",
    "a page's `render` replaced by one that reuses a kept conversion (qkv_site.builder.rendered_pages), setting what "
    "MkDocs' own sets (`PAGE_RENDER_ATTRIBUTES`, checked by `check_page_render`)",
)
INTERNALS = (MARKDOWN_EXEC_RUN, MARKDOWN_EXEC_SESSIONS, NBCLIENT_COALESCE, NUMPY_CPU_FEATURES, MKDOCS_PAGE)

# MkDocs 1.6.1: everything `Page.render` sets on the page (private names included), which a kept conversion sets again.
PAGE_RENDER_ATTRIBUTES = ("content", "toc", "_title_from_render", "present_anchor_ids", "links_to_anchors")
_ASSIGNED = re.compile(r"\bself\.(\w+)\s*=(?!=)")


def check_page_render() -> list[str]:
    """What MkDocs' `Page.render` sets that `PAGE_RENDER_ATTRIBUTES` does not name, or no longer sets."""
    import inspect

    assigned = set(_ASSIGNED.findall(inspect.getsource(MKDOCS_PAGE.resolve().render)))
    if assigned == set(PAGE_RENDER_ATTRIBUTES):
        return []
    return [f"mkdocs.structure.pages.Page.render sets {sorted(assigned)}, qkv_site.builder.rendered_pages keeps "
            f"{sorted(PAGE_RENDER_ATTRIBUTES)} (written for mkdocs {MKDOCS_PAGE.written_for}, installed {version('mkdocs')})"]



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


MATERIAL = "9.8.2"  # the version every entry below was written for (check_material holds the install to it)
_BUNDLE = "assets/javascripts/bundle.a5f9d56c.min.js"
_STYLES = "assets/stylesheets/main.57a0d79d.min.css"
_KEYS = "docs/assets/javascripts/header-keyboard.js"
_MATERIAL_PAGE = '<meta name="generator" content="mkdocs-'  # base.html: every page Material writes says so
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
    MaterialMarkup("base.html", '<script id="__config" type="application/json">', "src/qkv_site/search/index.py",
                   "Material's configuration, whose base an English page points at en/, where its search index is"),
    # Material's stylesheet, trimmed to the rules the site uses (qkv_site.builder.material_styles)
    MaterialMarkup("base.html", '<link rel="stylesheet" href="{{ \'' + _STYLES + '\' | url }}">',
                   "src/qkv_site/builder/material_styles.py", "every page links Material's stylesheet, which the trim replaces"),
    MaterialMarkup("base.html", _MATERIAL_PAGE, "src/qkv_site/builder/material_styles.py",
                   "the line that tells a page Material wrote, which must link the trimmed stylesheet"),
    # templates the site extends
    MaterialMarkup("base.html", "{% block scripts %}", "overrides/main.html", "search-on-demand.js before Material's bundle"),
    MaterialMarkup("404.html", '{% extends "main.html" %}', "overrides/404.html", "the 404 page in each language"),
    MaterialMarkup("base.html", "{% block htmltitle %}", "overrides/404.html", "the 404 page's title"),
    MaterialMarkup("base.html", "{% block extrahead %}{% endblock %}", "overrides/404.html",
                   "the script that sends a missing English address on to the English 404 page"),
    MaterialMarkup("base.html", "{% block content %}", "overrides/404.html", "the 404 page's words"),
)

@dataclass(frozen=True)
class CopiedTemplate:
    """A file of another package that a file of the site is a changed copy of. The original is pinned by its
    sha256: a new version of the package that changes it stops the build, naming the copy to make again."""

    package: str  # the distribution, as pip names it
    written_for: str
    module: str  # the package's module whose folder holds the file
    file: str  # in that folder
    sha256: str  # of the original the copy was made from
    copied_to: str  # the site's copy
    why: str

    def original(self) -> Path:
        return Path(str(import_module(self.module).__file__)).resolve().parent / self.file

    def holds(self) -> bool:
        path = self.original()
        return path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == self.sha256


COPIED_TEMPLATES = (
    CopiedTemplate("mkdocs-static-i18n", "1.3.1", "mkdocs_static_i18n", "custom_i18n_sitemap/sitemap.xml",
                   "538e71a0c68befdae40bb4e0451150b1ca424ef5b1c4f0e0e7d806640d17e5e7", "overrides/sitemap.xml",
                   "the sitemap of both languages, copied to list absolute addresses only"),
    CopiedTemplate("mkdocs-material", MATERIAL, "material", "templates/partials/alternate.html",
                   "572b1d4dae611aa5fd65107edec95e44331b6141abf86834ea4dc6c1ddd7241b", "overrides/partials/alternate.html",
                   "the language menu, copied with the 404 page's links to each home page"),
    CopiedTemplate("mkdocs-material", MATERIAL, "material", "templates/partials/source.html",
                   "6847616d67be4920d39c278c2799bf20222bbc02ee2a8393aca85e3eaa518752", "overrides/partials/source.html",
                   "the repository link, copied without the attribute that asks api.github.com"),
)


# Material's stylesheet (`_STYLES`, above), which `qkv_site.builder.material_styles` trims to the rules the site's pages
# and scripts can use. mkdocs-material 9.8.2 ships it as main.<8 hex digits>.min.css with a source map beside it and no
# sourceMappingURL comment in it; every page links it once, from base.html (`MATERIAL_MARKUP`). The trim is named
# the same way (its own sha256), its source map and Material's copy leave the site, and `link_stylesheet` points the
# pages at it. `check_stylesheet` holds all of this to the installed Material when the build starts.
STYLESHEET_FOLDER = "assets/stylesheets"
_STYLESHEET_NAME = re.compile(r"main\.[0-9a-f]{8}\.min\.css")
_STYLESHEET_LINK = re.compile(r'(<link rel="stylesheet" href="[^"]*?' + re.escape(STYLESHEET_FOLDER)
                              + r'/)(main\.[0-9a-f]{8}\.min\.css)(">)')


class StylesheetLinkMissing(RuntimeError):
    """A page Material wrote does not link its stylesheet exactly once where base.html puts the link."""


def material_stylesheet() -> Path:
    """Material's own stylesheet, in the installed package (the trim always starts from it)."""
    return _material_templates() / _STYLES


def _material_templates() -> Path:
    """The installed Material's templates and assets."""
    import material

    return Path(material.__file__).resolve().parent / "templates"


def stylesheet_name(digest: str) -> str:
    """The trimmed stylesheet's file name, content-hashed as Material names its own."""
    name = f"main.{digest[:8]}.min.css"
    assert _STYLESHEET_NAME.fullmatch(name), name
    return name


def stylesheets_in(folder: Path) -> list[Path]:
    """Material's stylesheet, its source map and any earlier trim in the built site's ``folder``: they go."""
    return sorted(path for path in folder.glob("main.*") if _STYLESHEET_NAME.fullmatch(path.name.removesuffix(".map")))


def link_stylesheet(html: str, name: str, where: str) -> str:
    """``html`` linking the stylesheet ``name`` instead of Material's (or an earlier trim); a page Material did not
    write (no generator line) is returned unchanged, one that it wrote must hold the link once."""
    if _MATERIAL_PAGE not in html:
        return html
    changed, count = _STYLESHEET_LINK.subn(lambda match: match.group(1) + name + match.group(3), html)
    if count != 1:
        raise StylesheetLinkMissing(f"{where} links Material's stylesheet {count} times, not once as base.html of "
                                    f"mkdocs-material {MATERIAL} does: update qkv_site.builder.compat")
    return changed


def check_stylesheet() -> list[str]:
    """What the trim relies on of Material's stylesheet that the installed Material no longer holds."""
    path = material_stylesheet()
    if not path.is_file():
        return [f"Material's stylesheet {_STYLES} (trimmed by qkv_site.builder.material_styles), written for mkdocs-material "
                f"{MATERIAL}, installed {version('mkdocs-material')}"]
    problems = []
    if not _STYLESHEET_NAME.fullmatch(path.name):
        problems.append(f"Material's stylesheet is named {path.name}, not main.<8 hex digits>.min.css")
    if "sourceMappingURL" in path.read_text(encoding="utf-8"):
        problems.append(f"Material's {_STYLES} names a source map, which the trim would leave pointing at the untrimmed file")
    base = _material_templates() / "base.html"
    links = _STYLESHEET_LINK.findall(base.read_text(encoding="utf-8").replace("{{ '", "").replace("' | url }}", ""))
    if len(links) != 1:
        problems.append(f"Material's base.html links {len(links)} stylesheets named main.*.min.css (one in {MATERIAL})")
    return problems


# qkv's own reach, into the OpenBLAS bundled with numpy (its thread count, by ctypes), is recorded in qkv itself,
# which imports nothing of the site: `qkv._threads.OPENBLAS_REACH` names the numpy it was written for, and
# tests/qkv/test_threads.py checks it. Listed here so that this file stays the one place to look for every reach.
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


# Material for MkDocs' search worker, as mkdocs-material 9.8.2 ships it (relative to the theme's folder and
# to the built site). The Python side of Material's search (its index: sections, jieba, the fields'
# boosts) is used through its options and its output, search/search_index.json.
MATERIAL_WRITTEN_FOR = "9.8.2"
MATERIAL_WORKER = Path("assets/javascripts/workers/search.a7633da7.min.js")


@dataclass(frozen=True)
class WorkerCorrection:
    """One piece of Material's minified search worker and what the built site's copy says instead."""

    wrong: str
    right: str
    why: str


WORKER_CORRECTIONS = (
    # Material cuts a Chinese query (``segment``) greedily into the longest words of the index, each searched as a prefix.
    WorkerCorrection(
        "for(let o=s+1;o<t.length;o++)t.slice(s,o)in e&&(n[s]=o-s)",
        "for(let o=s+1;o<=t.length;o++)t.slice(s,o)in e&&(n[s]=o-s)",
        "every substring of the query is looked up, up to and including its last character (缩放 was searched as 缩)",
    ),
    WorkerCorrection(
        "n[a]&&a<t.length-1&&(i[s++]=a)",
        "n[a]&&a<t.length&&(i[s++]=a)",
        "a word that starts at the query's last character is kept too",
    ),
    WorkerCorrection(
        'for(let a of s)this.pipeline.remove(o[a]),this.searchPipeline.remove(o[a]);this.ref("location");',
        'for(let a of s)this.pipeline.remove(o[a]),this.searchPipeline.remove(o[a]);s.includes("trimmer")&&this.pipeline'
        '.remove(lunr.Pipeline.registeredFunctions["lunr-multi-trimmer-"+e.lang.join("-")]);this.ref("location");',
        "an index whose pipeline has no trimmer has none at all: Material took out each language's own trimmer but "
        "left the one lunr.multiLanguage adds for the Chinese index's two languages, which cut n² to n and √dₖ to d "
        "in the index but not in a query, so n² was never found and a result highlighting it listed it as missing",
    ),
    WorkerCorrection(
        "for(let u=1;u<n[o];u++)n[o+u]>n[o]-u&&(r.add(t.slice(o,o+u)),i[s++]=o+u)",
        "for(let u=2;u<n[o];u++)n[o+u]>n[o]-u&&(r.add(t.slice(o,o+u)),i[s++]=o+u)",
        "no one-character piece is tried as another way to cut the query (一个数值例子 searched 一 and 个 too: "
        "as prefixes they match every word that begins with them)",
    ),
    WorkerCorrection(
        '[...fe(s,this.index.invertedIndex)].join("* ")',
        '[...fe(s,this.index.invertedIndex)].join(" ")',
        "the words a Chinese query is cut into are joined by a space, as words typed apart are (only the last is "
        "then a prefix): Material joined them with “* ” and then added a * to every word, so 为什么除以 searched "
        "为什么**, a word no result holds, and a result listed as missing (struck through) the very word it highlighted",
    ),
    WorkerCorrection(
        r'search(e){if(e=e.replace(new RegExp("\\p{sc=Han}+","gu")',
        r'search(e){if(e=e.replace(/(?<=\S)-(?=\S)/g," ").replace(/:(?=\s|$)/g," ").replace(new RegExp("\\p{sc=Han}+","gu")',
        "a hyphen inside a word and a colon before a space separate words, as they do in the index: lunr's query "
        "lexer cuts self-attention in two and Material then searched self-attention* twice, and “Hands-on: the” "
        "stopped with a query error (no field “on”)",
    ),
    WorkerCorrection(
        r".map(r=>/(^[+-]|[~^]\d+$)/.test(r)?r:`${r}*`)",
        r".map((r,i,a)=>/(^[+-]|[~^]\d+$)/.test(r)||i<a.length-1||!lunr.stopWordFilter(r.toLowerCase())?r:`${r}*`)",
        "only the last word of a query, the one the reader may still be typing, is searched as a prefix, and not "
        "when it is a stop word: multi* found multiply, sum* summary, and a* or the* every word beginning with them "
        "(a word given whole goes through the index's pipeline, whose stop-word filter drops it)",
    ),
    WorkerCorrection(
        "o.push(B(_({},a),{score:0,terms:{}}))",
        "o.push(B(_({},a),{score:0,terms:Object.fromEntries(o.flatMap(d=>Object.entries(d.terms).filter(([,m])=>m)))}))",
        "a page listed for its sections' sake links with the words its sections matched (?h=…), not with an "
        "empty ?h= that highlights nothing",
    ),
)

# What the search index relies on in the worker, unchanged: (the code, what it does).
WORKER_READS = (
    ("for(let o of r)this.add(o,{boost:o.boost})", "every index entry is added with its boost"),
    ("for(let[o,a]of Object.entries(e.fields))this.field(o,B(_({},a),{extractor:i(o)}))",
     "every field of the index's configuration is searched, with its boost"),
    ('t.charAt(i-1)!=="/"&&s++===0&&e(r,0,n,i+1)',
     "a self-closing tag (<wbr/>) in a result's text splits words without opening a block"),
)

# The segmenting function in the minified worker (its name is the minifier's): for the tests, which run it.
SEGMENT_FUNCTION = re.compile(
    r'function (\w+)\(t,e\)\{let r=new Set,n=new Uint16Array\(t\.length\);.*?return r\.has\(""\)\?new Set\(\[t\]\):r\}'
)


class MaterialChanged(RuntimeError):
    """The installed Material is not the one the search worker's corrections were written for."""


def material_worker() -> Path:
    """Material's own copy of the search worker (in the installed package)."""
    import material

    return Path(material.__file__).resolve().parent / "templates" / MATERIAL_WORKER


def worker_problems(source: str, where: str) -> list[str]:
    """What ``source``, a copy of Material's worker, lacks of what is corrected or read here."""
    problems = [f"{where} holds {source.count(correction.wrong)} copies of {correction.wrong!r} (mkdocs-material "
                f"{MATERIAL_WRITTEN_FOR} holds one), corrected so that {correction.why}"
                for correction in WORKER_CORRECTIONS if source.count(correction.wrong) != 1]
    problems += [f"{where} no longer holds {code!r}: the search relies on it ({what})"
                 for code, what in WORKER_READS if source.count(code) != 1]
    return problems


def check_material() -> None:
    """Stop when Material is not the pinned version or its worker lacks the code corrected or read here."""
    installed = version("mkdocs-material")
    if installed != MATERIAL_WRITTEN_FOR:
        raise MaterialChanged(f"mkdocs-material {installed} is installed; the search worker's corrections "
                              f"(qkv_site.builder.compat.WORKER_CORRECTIONS) are written for {MATERIAL_WRITTEN_FOR}")
    worker = material_worker()
    if not worker.is_file():
        raise MaterialChanged(f"mkdocs-material {MATERIAL_WRITTEN_FOR} has no search worker at {worker}")
    problems = worker_problems(worker.read_text(encoding="utf-8"), str(worker))
    if problems:
        raise MaterialChanged("; ".join(problems))


def check(internals: tuple[Internal, ...] = INTERNALS, markup: tuple[MaterialMarkup, ...] = MATERIAL_MARKUP,
          copies: tuple[CopiedTemplate, ...] = COPIED_TEMPLATES) -> None:
    """Raise `PluginError` naming every internal that is gone from the installed packages."""
    missing = [f"{piece.text!r} in Material's {piece.file} ({piece.why}; used by {piece.used_by}), written for mkdocs-material "
               f"{MATERIAL}, installed {version('mkdocs-material')}" for piece in markup if not piece.holds()]
    missing += [f"{copy.package}'s {copy.file} is not the file {copy.copied_to} was copied from ({copy.why}), written for "
                f"{copy.package} {copy.written_for}, installed {version(copy.package)}" for copy in copies if not copy.holds()]
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
    missing += check_stylesheet()
    missing += check_page_render()
    try:
        check_material()
    except MaterialChanged as error:
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
