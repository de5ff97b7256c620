"""Find the TeX in a page's HTML and put typeset formulas in its place.

Two passes, because the search index is made between them from the page's content:

1. ``mark_formulas``: every formula becomes ``<span class="arithmatex" data-formula="KEY">√dₖ</span>``
   (``div`` for a display formula): its plain text, which the search index and the table of
   contents' text take, and the key of its typeset form.
2. ``insert_formulas``: in the finished page, each marker gets the typeset SVG and MathML.

Each typeset formula, as cached, carries the outlines of its glyphs (MathJax's ``fontCache: "local"``),
so it renders wherever it is shown on its own. A page shows many formulas that share glyphs, so the
page carries each outline once: ``insert_formulas`` moves the outlines of all the page's formulas
into one hidden ``<svg>`` of definitions at the start of the page's ``<article>`` (what MathJax's
``fontCache: "global"`` does in a browser), and the formulas, in the article and in the table of
contents alike, point to them. The outlines are written on a grid of 1/200 em (MathJax's fonts are in
1/1000 em; 0.1 px at the size of the text), in steps of that grid drawn at ``scale(5)``, with relative
commands (`qkv_site.svg_path`); the formulas are written without what MathJax writes for its own
scripts in a browser (``data-c``, ``data-mml-node``, ``data-mjx-texclass``) and the XML namespaces an
HTML page does not need, their translations to MathJax's unit (1/1000 em), a glyph's as its ``x`` and
``y``: a page's formulas weigh about a quarter less. Then the groups that only move their content are
folded into it, every glyph kept exactly in place (`qkv_site.formulas.flatten`), and the TeX the cache
keeps with each formula's MathML is left out (``without_tex``).

The TeX is found where pymdownx.arithmatex put it (``\\(…\\)`` and ``\\[…\\]`` in ``.arithmatex``)
and, on notebook pages, in the text of the markdown cells (``$…$``, ``$$…$$``, ``\\(…\\)``, ``\\[…\\]``).
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable, Iterable

from qkv_site.formulas.cache import Formula
from qkv_site.formulas.flatten import flatten
from qkv_site.svg_path import in_steps, relative_path

# (tex, display) → the typeset formula; raises FormulaError for TeX the engine cannot read.
Typeset = Callable[[str, bool], Formula]
Keyed = Callable[[str, bool], tuple[str, Formula]]

_ARITHMATEX = re.compile(r'<(span|div) class="arithmatex">\s*(\\\(.*?\\\)|\\\[.*?\\\])\s*</\1>', re.DOTALL)
# Notebook markdown: the TeX in text, outside code, scripts and styles (which may hold "$").
_NOT_TEXT = re.compile(r"<(script|style|pre|code)\b.*?</\1>|<[^>]+>", re.DOTALL | re.IGNORECASE)
_NOTEBOOK_MATH = re.compile(r"\$\$(.+?)\$\$|\\\[(.+?)\\\]|\\\((.+?)\\\)|(?<![\\$])\$([^$\n]+?)\$", re.DOTALL)
_INLINE_TEX = re.compile(r"\\\((.+?)\\\)")
_MARKER = re.compile(r'<(span|div) class="arithmatex" data-formula="(\w+)">.*?</\1>', re.DOTALL)
# mkdocs-jupyter's template loads and configures MathJax 2 (with an empty URL here): not needed.
_NOTEBOOK_MATHJAX = re.compile(r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->", re.DOTALL)
_IDS = re.compile(r"MJX-\d+-")
_DEFS = re.compile(r"<defs>(.*?)</defs>", re.DOTALL)
_GLYPH = re.compile(r'<path id="MJX-\d+-([\w-]+)" d="([^"]*)"></path>')
_GLYPH_REF = re.compile(r'(xlink:href|href)="#MJX-\d+-([\w-]+)"')
_ARTICLE = re.compile(r"<article\b[^>]*>")
# The page's shared glyph outlines: hidden, and never read aloud or indexed.
GLYPHS_ID = "MJX-glyphs"
GLYPH_GRID = 5  # MathJax's font units (1/1000 em) to a grid of 1/200 em
# What MathJax writes for its scripts in a browser (none runs here); an error node keeps its mark.
_SCRIPT_ATTRIBUTES = re.compile(r' data-c="[^"]*"| data-mml-node="(?!merror")[^"]*"| data-mjx-texclass="[^"]*"')
# A translation in MathJax's units (1/1000 em, with a decimal): to the unit, 0.0005 em at most (0.01 px).
_TRANSLATE = re.compile(r'translate\((-?[\d.]+),(-?[\d.]+)\)')
# A glyph placed by a translation alone: the same as <use x= y=> (a use's x and y translate it).
_USE_TRANSLATE = re.compile(r'(<use [^>]*?) transform="translate\((-?\d+),(-?\d+)\)"')
_SVG_NAMESPACES = re.compile(r' xmlns(?::xlink)?="http://www\.w3\.org/(?:2000/svg|1999/xlink)"')
_BARE_GROUP = re.compile(r"<g>((?:(?!</?g[ >]).)*)</g>", re.DOTALL)  # a group left without attributes
_USE_END = re.compile(r"(<use [^>]*)></use>")
# The TeX the cache keeps with a formula's MathML (qkv_site.formulas.cache): not on the page.
_WITH_TEX = re.compile(r'<semantics><mrow>(.*?)</mrow><annotation encoding="application/x-tex">[^<]*</annotation></semantics>',
                       re.DOTALL)
# Punctuation that must stay on the line of the formula before it: a line may break between an
# inline SVG and a "。", so the two are wrapped together.
_CLOSING = "。，、；：？！）」』》〉】.,;:?!)"
_MARKER_AND_PUNCTUATION = re.compile(_MARKER.pattern + f"([{re.escape(_CLOSING)}]*)", re.DOTALL)


def _marker(key: str, formula: Formula, display: bool) -> str:
    tag = "div" if display else "span"
    return f'<{tag} class="arithmatex" data-formula="{key}">{html.escape(formula.text, quote=False)}</{tag}>'


def mark_formulas(page_html: str, keyed: Keyed, notebook: bool = False) -> str:
    """Replace every formula of a page's content by its marker.

    >>> fake = lambda tex, display: ("k1", Formula("<svg/>", "√dₖ"))
    >>> mark_formulas('<p>除以 <span class="arithmatex">\\\\(\\\\sqrt{d_k}\\\\)</span>。</p>', fake)
    '<p>除以 <span class="arithmatex" data-formula="k1">√dₖ</span>。</p>'
    """

    def arithmatex(match: re.Match[str]) -> str:
        display = match.group(1) == "div"
        key, formula = keyed(html.unescape(match.group(2)[2:-2]).strip(), display)
        return _marker(key, formula, display)

    page_html = _ARITHMATEX.sub(arithmatex, page_html)
    if not notebook:
        return page_html
    page_html = _NOTEBOOK_MATHJAX.sub("", page_html)

    def in_text(text: str) -> str:
        def one(match: re.Match[str]) -> str:
            display = match.group(1) is not None or match.group(2) is not None
            tex = next(group for group in match.groups() if group is not None)
            key, formula = keyed(html.unescape(tex).strip(), display)
            return _marker(key, formula, display)

        return _NOTEBOOK_MATH.sub(one, text)

    pieces, last = [], 0
    for match in _NOT_TEXT.finditer(page_html):
        pieces += [in_text(page_html[last:match.start()]), match.group(0)]
        last = match.end()
    pieces.append(in_text(page_html[last:]))
    # A display formula alone in a paragraph takes the paragraph's place (a div cannot sit in a p).
    return re.sub(r"<p>\s*(<div class=\"arithmatex\" data-formula=\"\w+\">.*?</div>)\s*</p>", r"\1", "".join(pieces))


def mark_inline_text(text: str, keyed: Keyed, notebook: bool = False) -> str:
    """The same for a line of escaped text such as a table-of-contents entry (``\\(…\\)``, and ``$…$`` in notebooks).

    >>> fake = lambda tex, display: ("k1", Formula("<svg/>", "√dₖ"))
    >>> mark_inline_text("第三步：缩放（除以 \\\\(\\\\sqrt{d_k}\\\\)）", fake)
    '第三步：缩放（除以 <span class="arithmatex" data-formula="k1">√dₖ</span>）'
    """
    pattern = re.compile(_INLINE_TEX.pattern + r"|(?<![\\$])\$([^$\n]+?)\$") if notebook else _INLINE_TEX

    def one(match: re.Match[str]) -> str:
        tex = next(group for group in match.groups() if group is not None)
        key, formula = keyed(html.unescape(tex).strip(), False)
        return _marker(key, formula, False)

    return pattern.sub(one, text)


def plain_inline_text(text: str, typeset: Typeset) -> str:
    """A line with ``\\(…\\)`` in it as plain text (for ``<title>``).

    >>> plain_inline_text("Why \\\\(\\\\sqrt{d_k}\\\\)?", lambda tex, display: Formula("<svg/>", "√dₖ"))
    'Why √dₖ?'
    """
    def plain(match: re.Match[str]) -> str:
        return html.escape(typeset(html.unescape(match.group(1)).strip(), False).text, quote=False)

    return _INLINE_TEX.sub(plain, text)


def _add_glyphs(glyphs: dict[str, str], outlines: Iterable[tuple[str, str]]) -> None:
    for glyph, outline in outlines:
        if glyphs.setdefault(glyph, outline) != outline:
            raise ValueError(f"two formulas draw glyph {glyph} differently: typeset by two MathJax versions?")


def share_glyphs(markup: str, glyphs: dict[str, str]) -> str:
    """A formula's markup without its glyph outlines, pointing to ``MJX-<glyph>`` instead; the outlines
    go into ``glyphs`` (glyph → path data). Definitions that are not all glyph outlines stay where they are.

    >>> glyphs = {}
    >>> share_glyphs('<svg><defs><path id="MJX-3-TEX-I-1D451" d="M1 2Z"></path></defs>'
    ...              '<use xlink:href="#MJX-3-TEX-I-1D451"></use></svg>', glyphs)
    '<svg><use xlink:href="#MJX-TEX-I-1D451"></use></svg>'
    >>> glyphs
    {'TEX-I-1D451': 'M1 2Z'}
    """
    defs = _DEFS.search(markup)
    if defs is None or _GLYPH.sub("", defs.group(1)).strip():
        return markup
    _add_glyphs(glyphs, _GLYPH.findall(defs.group(1)))
    markup = markup[: defs.start()] + markup[defs.end():]
    return _GLYPH_REF.sub(lambda match: f'{match.group(1)}="#MJX-{match.group(2)}"', markup)


def lean(markup: str) -> str:
    """A typeset formula without MathJax's own attributes, the namespaces HTML gives an SVG anyway and the
    groups left with no attribute (their children take their place); translations to MathJax's unit, a
    glyph's as its ``x`` and ``y``.

    >>> lean('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
    ...      '<g data-mml-node="mi"><use data-c="1D451" xlink:href="#MJX-TEX-I-1D451"></use></g>'
    ...      '<g transform="translate(1027.8,0)">'
    ...      '<use xlink:href="#MJX-TEX-N-32" transform="translate(500,-0.4)"></use></g></svg>')
    '<svg><use href="#MJX-TEX-I-1D451"/><g transform="translate(1028,0)"><use href="#MJX-TEX-N-32" x="500"/></g></svg>'
    """
    markup = _SVG_NAMESPACES.sub("", _SCRIPT_ATTRIBUTES.sub("", markup)).replace(" xlink:href=", " href=")
    markup = _TRANSLATE.sub(lambda m: f"translate({round(float(m[1])) + 0},{round(float(m[2])) + 0})", markup)

    def placed(m: re.Match[str]) -> str:
        x, y = (f' {name}="{value}"' if value != "0" else "" for name, value in (("x", m[2]), ("y", m[3])))
        return m[1] + x + y

    markup = _USE_TRANSLATE.sub(placed, markup)
    while True:
        unwrapped = _BARE_GROUP.sub(r"\1", markup)
        if unwrapped == markup:
            return _USE_END.sub(r"\1/>", markup)
        markup = unwrapped


def without_tex(markup: str) -> str:
    """A formula's MathML without the TeX it was typeset from (the cache's ``<annotation>``, and the
    ``<semantics>`` that holds it): a browser shows none of it (MathML draws a ``semantics``' first child
    only), screen readers read the MathML itself, copying a selection skips it and no script on the page
    reads it. The plain text of the formula is what search and titles use.

    >>> without_tex('<math><semantics><mrow><mi>x</mi></mrow>'
    ...             '<annotation encoding="application/x-tex">x</annotation></semantics></math>')
    '<math><mi>x</mi></math>'
    """
    return _WITH_TEX.sub(r"\1", markup, count=1)


def glyph_definitions(glyphs: dict[str, str]) -> str:
    """One hidden SVG holding every outline of ``glyphs`` (as ``MJX-<glyph>``), on the grid of 1/200 em: written
    in its steps and drawn at ``scale(5)`` (MathJax's units are 1/1000 em), a digit shorter a number.

    >>> glyph_definitions({"TEX-N-33": "M127 463Q100 463 85 480"})  # doctest: +NORMALIZE_WHITESPACE
    '<svg id="MJX-glyphs" aria-hidden="true" focusable="false" style="display: none;"><defs><path
     id="MJX-TEX-N-33" d="m25 93q-5 0-8 3" transform="scale(5)"></path></defs></svg>'
    """
    paths = "".join(f'<path id="MJX-{glyph}" d="{_on_grid(outline)}"'
                    f' transform="scale({GLYPH_GRID})"></path>' for glyph, outline in glyphs.items())
    return f'<svg id="{GLYPHS_ID}" aria-hidden="true" focusable="false" style="display: none;"><defs>{paths}</defs></svg>'


@functools.lru_cache(maxsize=4096)
def _on_grid(outline: str) -> str:
    """A glyph's outline on the grid, as `glyph_definitions` writes it (the same glyphs recur on every page)."""
    return relative_path(in_steps(outline, GLYPH_GRID))


@functools.lru_cache(maxsize=4096)
def _page_markup(typeset: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    outlines: dict[str, str] = {}
    return without_tex(flatten(lean(share_glyphs(typeset, outlines)))), tuple(outlines.items())


def page_markup(typeset: str, glyphs: dict[str, str]) -> str:
    """A typeset formula as a page carries it: its outlines shared (into ``glyphs``), MathJax's attributes
    and groups that only move their content gone (`qkv_site.formulas.flatten`), no TeX. (Made once per
    formula in a process: the same formulas recur on a page, in its tables of contents and in the other language.)"""
    markup, outlines = _page_markup(typeset)
    _add_glyphs(glyphs, outlines)
    return markup


def insert_formulas(page_html: str, typeset_by_key: Callable[[str], str]) -> str:
    """Put the typeset markup into every marker of a finished page, its glyph outlines once per page.

    The outlines of every formula of the page (see the module's docstring) go into one hidden SVG at
    the start of the page's ``<article>`` (at the end of the page when it has none). Other ids of a
    formula's SVG (``MJX-<n>-…``) get a number per occurrence, as a formula can appear more than once
    on a page (the heading and both tables of contents). An inline formula and the punctuation right
    after it are kept on one line.

    >>> typeset = ('<mjx-container><svg><defs><path id="MJX-7-TEX-I-1D451" d="M1 2Z"></path></defs>'
    ...            '<g stroke="currentColor" fill="currentColor" stroke-width="0" transform="scale(1,-1)"><g>'
    ...            '<use href="#MJX-7-TEX-I-1D451"/></g></g></svg></mjx-container>')
    >>> insert_formulas('<article><h2><span class="arithmatex" data-formula="k1">√dₖ</span></h2></article>',
    ...                 lambda key: typeset)  # doctest: +NORMALIZE_WHITESPACE
    '<article><svg id="MJX-glyphs" aria-hidden="true" focusable="false"
     style="display: none;"><defs><path id="MJX-TEX-I-1D451" d="m0 0z" transform="scale(5)"></path></defs></svg><h2><span
     class="arithmatex"><mjx-container><svg><g transform="scale(1,-1)"><use
     href="#MJX-TEX-I-1D451"/></g></svg></mjx-container></span></h2></article>'
    >>> insert_formulas('<p>除以 <span class="arithmatex" data-formula="k1">√dₖ</span>。</p>', lambda key: typeset)
    ... # doctest: +ELLIPSIS +NORMALIZE_WHITESPACE
    '<p>除以 <span class="formula-nowrap"><span class="arithmatex"><mjx-container>...</mjx-container></span>。</span></p><svg
     id="MJX-glyphs"...</svg>'
    """
    count = 0
    glyphs: dict[str, str] = {}

    def one(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        tag, punctuation = match.group(1), match.group(3)
        formula = _IDS.sub(f"MJX-{count}-", page_markup(typeset_by_key(match.group(2)), glyphs))
        markup = f'<{tag} class="arithmatex">{formula}</{tag}>'
        if punctuation and tag == "span":
            return f'<span class="formula-nowrap">{markup}{punctuation}</span>'
        return markup + punctuation

    page_html = _MARKER_AND_PUNCTUATION.sub(one, page_html)
    if not glyphs:
        return page_html
    definitions = glyph_definitions(glyphs)
    article = _ARTICLE.search(page_html)
    if article is not None:
        return page_html[: article.end()] + definitions + page_html[article.end():]
    body_end = page_html.rfind("</body>")
    return page_html[:body_end] + definitions + page_html[body_end:] if body_end >= 0 else page_html + definitions
