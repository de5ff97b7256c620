"""Material's stylesheet with only the rules that can apply to this site.

Every page links Material's ``main.*.min.css`` (138 KB, 22.7 KB gzip), which styles all of Material: a dozen
admonition types, content tabs, the blog, cards, annotations, tags, versions… Once every page is written,
`trim_site` keeps of it the rules whose selectors can match an element of the site, writes them under a
content-hashed name (``main.<sha256[:8]>.min.css``, as Material names its own) and points every page at it.

A selector can match when every class and id it asks for is a name the site has: in a ``class`` or ``id``
attribute of a built page (or of the HTML the search index holds), or in the text of a script the site serves,
for Material's bundle and the site's own scripts make elements and set classes as they run (search results,
tooltips, the copy button's message, the code block's bar). A class a script builds from a prefix (Material's
`md-source__fact--${…}`) keeps every class with that prefix. Inside ``:is()`` and ``:where()`` one alternative is
enough; what ``:not()`` names is not asked for. Element, attribute and pseudo selectors are never the reason to drop
a rule; every declaration of a kept rule stays as Material wrote it (custom properties too). ``@media`` and
``@supports`` are filtered inside and go when empty, ``@keyframes`` stay when a kept rule names them, any other
at-rule stays. A selector list holding a vendor-prefixed pseudo selector (``::-moz-…``), which a browser that does
not know it drops whole, is kept or dropped whole, so that no rule starts to apply that did not before.

After trimming, `check_dropped` reads every page again with a real HTML parser (entities decoded, any quoting) and
stops the build if a dropped selector's missing name is there after all.

    >>> css = ('.a{color:red}.b .c,.a .d{margin:0}:root{--x:1}'
    ...        '@media print{.b{color:blue}.a{color:green}}@keyframes spin{to{top:0}}.a:is(.b,.e){animation:spin 1s}')
    >>> trimmed(css, {"a", "e"}, set()).css
    '.a{color:red}:root{--x:1}@media print{.a{color:green}}@keyframes spin{to{top:0}}.a:is(.b,.e){animation:spin 1s}'
    >>> [(drop.selector, drop.missing) for drop in trimmed(css, {"a", "e"}, set()).dropped][:2]
    [('.b .c', 'b'), ('.a .d', 'd')]
    >>> trimmed("#x,.y:not(.z),p::selection{top:0}#x,p::-moz-selection{top:0}@keyframes spin{}", {"y"}, set()).css
    '.y:not(.z),p::selection{top:0}#x,p::-moz-selection{top:0}'
    >>> trimmed(".md-tag--x,.md-tag{top:0}", set(), {"md-tag--"}).css
    '.md-tag--x{top:0}'
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from importlib.util import find_spec
from pathlib import Path

import tinycss2
from tinycss2.ast import AtRule, FunctionBlock, Node, QualifiedRule

from qkv_site.builder import compat
from qkv_site.builder.notebook_styles import split_at_commas
from qkv_site.cache_files import atomic_write, files_digest, sweep

_GROUPS = ("media", "supports")  # at-rules that hold rules: filtered inside
_ANY_OF = ("is", "where", "matches", "-webkit-any", "-moz-any")  # one alternative must be able to match
_ATTRIBUTE = re.compile(r"""\b(?:class|id)=(?:"([^"]*)"|'([^']*)'|\\"((?:[^"\\]|\\[^"])*)\\")""")
_TOKEN = re.compile(r"[\w-]+")
# a class a script builds at run time: `md-source__fact--${t}` or "language-"+name
_PREFIX = re.compile(r"""([A-Za-z_][\w-]*-)(?:\$\{|["']\s*\+)""")
_ANIMATION = re.compile(r"^(?:-webkit-)?animation(?:-name)?$")


@dataclass(frozen=True)
class Dropped:
    """A selector that went, and a class or id it asks for that the site has nowhere."""

    selector: str
    missing: str


@dataclass
class Trim:
    css: str
    dropped: list[Dropped] = field(default_factory=list)


def _missing(selector: list[Node], names: set[str], prefixes: set[str]) -> str | None:
    """A class or id ``selector`` asks for that the site does not have (None: it can match)."""

    def absent(name: str) -> bool:
        return name not in names and not any(name.startswith(prefix) for prefix in prefixes)

    for before, token in zip([None, *selector], selector, strict=False):
        if token.type == "hash" and absent(token.value):
            return f"#{token.value}"
        if (token.type == "ident" and before is not None and before.type == "literal" and before.value == "."
                and absent(token.value)):
            return str(token.value)
        if isinstance(token, FunctionBlock) and token.lower_name in _ANY_OF:
            reasons = [_missing(alternative, names, prefixes) for alternative in split_at_commas(token.arguments)]
            if all(reasons):
                return reasons[0]
    return None


def _vendor_pseudo(selector: list[Node]) -> bool:
    """Whether ``selector`` holds a vendor-prefixed pseudo-class or pseudo-element (``::-webkit-scrollbar``)."""
    for before, token in zip([None, *selector], selector, strict=False):
        colon = before is not None and before.type == "literal" and before.value == ":"
        if colon and ((token.type == "ident" and token.value.startswith("-"))
                      or (isinstance(token, FunctionBlock) and token.name.startswith("-"))):
            return True
    return False


@dataclass
class _Kept:
    text: str
    animations: set[str] = field(default_factory=set)  # the names its animations use
    keyframes: str | None = None  # the name of the @keyframes it is


def _animations(content: list[Node] | None) -> set[str]:
    used: set[str] = set()
    for node in tinycss2.parse_blocks_contents(content or [], skip_whitespace=True, skip_comments=True):
        if node.type == "declaration" and _ANIMATION.match(node.lower_name):
            used.update(token.value for token in node.value if token.type == "ident")
    return used


def _kept(nodes: list[Node], names: set[str], prefixes: set[str], dropped: list[Dropped]) -> list[_Kept]:
    kept: list[_Kept] = []
    for node in nodes:
        if isinstance(node, QualifiedRule):
            selectors = [selector for selector in split_at_commas(node.prelude)]
            reasons = [_missing(selector, names, prefixes) for selector in selectors]
            if any(_vendor_pseudo(selector) for selector in selectors) and not all(reasons):
                reasons = [None] * len(selectors)  # kept whole: a browser that drops the list drops it as before
            used = [tinycss2.serialize(selector) for selector, reason in zip(selectors, reasons, strict=True) if reason is None]
            dropped += [Dropped(tinycss2.serialize(selector).strip(), reason)
                        for selector, reason in zip(selectors, reasons, strict=True) if reason is not None]
            if used:
                kept.append(_Kept(f"{','.join(used)}{{{tinycss2.serialize(node.content)}}}", _animations(node.content)))
        elif isinstance(node, AtRule) and node.lower_at_keyword in _GROUPS and node.content is not None:
            inner = _kept(tinycss2.parse_rule_list(node.content), names, prefixes, dropped)
            if inner:
                kept.append(_Kept(f"@{node.at_keyword}{tinycss2.serialize(node.prelude)}{{{''.join(k.text for k in inner)}}}",
                                  set().union(*(k.animations for k in inner))))
        elif isinstance(node, AtRule) and node.lower_at_keyword.endswith("keyframes"):
            name = "".join(token.value for token in node.prelude if token.type in ("ident", "string"))
            kept.append(_Kept(tinycss2.serialize([node]), keyframes=name))
        elif isinstance(node, AtRule):
            kept.append(_Kept(tinycss2.serialize([node])))
    return kept


def trimmed(css: str, names: set[str], prefixes: set[str]) -> Trim:
    """``css`` with only the rules that can match an element whose classes and ids are among ``names`` (or
    start with one of ``prefixes``); the selectors that went, each with a name it asks for that is not there."""
    dropped: list[Dropped] = []
    kept = _kept(tinycss2.parse_stylesheet(css), names, prefixes, dropped)
    animations = set().union(*(rule.animations for rule in kept))
    return Trim("".join(rule.text for rule in kept if rule.keyframes is None or rule.keyframes in animations), dropped)


def page_names(html: str) -> set[str]:
    """The classes and ids in ``html``'s ``class`` and ``id`` attributes (also where HTML is a JSON string)."""
    return {name for match in _ATTRIBUTE.finditer(html) for value in match.groups() if value for name in value.split()}


def edition_names() -> set[str]:
    """The classes the PDF edition (`qkv_site.tools.pdf.combine`) gives the pages' elements it prints with the site's
    stylesheets: every word of its source (it prints an exercise's folded solution as ``div.admonition``)."""
    edition = find_spec("qkv_site.tools.pdf.combine")
    assert edition is not None and edition.origin is not None, "qkv_site.tools.pdf.combine is not installed"
    return set(_TOKEN.findall(Path(edition.origin).read_text(encoding="utf-8")))


def script_names(script: str) -> tuple[set[str], set[str]]:
    """Every word of a script (any of them may be a class it sets), and the class prefixes it builds names from."""
    return set(_TOKEN.findall(script)), set(_PREFIX.findall(script))


class _Names(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.names: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("class", "id") and value:
                self.names.update(value.split() if name == "class" else [value])

    handle_startendtag = handle_starttag


def parsed_names(html: str) -> set[str]:
    """The classes and ids of ``html``'s elements, read by Python's HTML parser."""
    parser = _Names()
    parser.feed(html)
    parser.close()
    return parser.names


TRIM_FILE = "trim.json"  # in a kept trim's folder: the trimmed stylesheet and what it dropped


def _kept_trim(cache: Path, source: str, names: set[str], prefixes: set[str]) -> Path:
    """The folder of the trim made from these inputs (the only one kept: another trim's folder goes)."""
    made_from = [f"{sorted(names)}", f"{sorted(prefixes)}", source]
    digest = files_digest([("material_styles.py", Path(__file__))], libraries=["tinycss2"], extra=made_from)
    folder = cache / digest[:16]
    sweep(cache, keep=folder)
    return folder


class UsedRuleDropped(RuntimeError):
    """The trim dropped a rule that a page's element can match."""


def check_dropped(dropped: list[Dropped], pages: dict[str, str], checked: Path | None = None) -> None:
    """Stop when the name that let a dropped selector go is a class or id of an element of one of ``pages``,
    read by Python's HTML parser (which `page_names` may have missed: an entity in the attribute, another quoting).

    With ``checked`` (a folder kept for one trim, see `trim_site`), a page found clean is noted there by the
    digest of its HTML, and a page with a noted digest is not read again."""
    wanted = {drop.missing.removeprefix("#"): drop for drop in dropped}
    problems = []
    for where, html in pages.items():
        note = None if checked is None else checked / hashlib.sha256(html.encode()).hexdigest()
        if note is not None and note.exists():
            continue
        found = [f"{wanted[name].selector!r}: {name!r} is a class or id in {where}"
                 for name in sorted(wanted.keys() & parsed_names(html))]
        problems += found
        if note is not None and not found:
            atomic_write(note, "")
    if problems:
        raise UsedRuleDropped("the trim of Material's stylesheet dropped rules the site uses:\n  " + "\n  ".join(problems[:20]))


@dataclass(frozen=True)
class SiteTrim:
    name: str  # the trimmed stylesheet's path in the site
    before: int  # bytes of Material's stylesheet
    after: int
    pages: int  # pages pointed at it


def trim_site(site: Path, cache: Path | None = None) -> SiteTrim:
    """Write Material's stylesheet trimmed to what the built ``site`` uses and point every page at it (Material's
    own copy, and an earlier trim's, go: a second call, once more pages are written, trims again from Material's).

    With ``cache`` (a folder), the trim is kept there under the digest of what it is made from (this module,
    tinycss2, Material's stylesheet, the site's names and prefixes), with the digests of the pages
    `check_dropped` found clean: a rebuild whose pages name the same classes reads it instead of parsing
    the stylesheet again, and reads again only the pages whose HTML changed."""
    source = compat.material_stylesheet().read_text(encoding="utf-8")
    pages = {str(path.relative_to(site)): path.read_text(encoding="utf-8") for path in sorted(site.rglob("*.html"))}
    names: set[str] = set()
    prefixes: set[str] = set()
    for html in pages.values():
        names |= page_names(html)
    for path in site.rglob("*.json"):
        names |= page_names(path.read_text(encoding="utf-8"))
    for path in site.rglob("*.js"):
        words, built = script_names(path.read_text(encoding="utf-8"))
        names |= words
        prefixes |= built
    names |= edition_names()
    kept = None if cache is None else _kept_trim(cache, source, names, prefixes)
    if kept is not None and (kept / TRIM_FILE).is_file():
        stored = json.loads((kept / TRIM_FILE).read_text(encoding="utf-8"))
        trim = Trim(stored["css"], [Dropped(*drop) for drop in stored["dropped"]])
    else:
        trim = trimmed(source, names, prefixes)
    check_dropped(trim.dropped, pages, None if kept is None else kept / "checked")
    if kept is not None and not (kept / TRIM_FILE).is_file():
        dropped = [[drop.selector, drop.missing] for drop in trim.dropped]
        atomic_write(kept / TRIM_FILE, json.dumps({"css": trim.css, "dropped": dropped}))
    folder = site / compat.STYLESHEET_FOLDER
    replaced = compat.stylesheets_in(folder)
    if not replaced:
        raise FileNotFoundError(f"{folder} holds no copy of Material's stylesheet to replace: is the theme Material?")
    name = compat.stylesheet_name(hashlib.sha256(trim.css.encode()).hexdigest())
    for old in replaced:
        old.unlink()
    (folder / name).write_text(trim.css, encoding="utf-8")
    linked = 0
    for relative, html in pages.items():
        changed = compat.link_stylesheet(html, name, relative)
        if changed != html:
            (site / relative).write_text(changed, encoding="utf-8")
            linked += 1
    return SiteTrim(f"{compat.STYLESHEET_FOLDER}/{name}", len(source.encode()), len(trim.css.encode()), linked)
