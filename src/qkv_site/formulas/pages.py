"""Find the TeX in a page's HTML and put typeset formulas in its place.

Two passes, because the search index is made between them from the page's content:

1. ``mark_formulas``: every formula becomes ``<span class="arithmatex" data-formula="KEY">√dₖ</span>``
   (``div`` for a display formula): its plain text, which the search index and the table of
   contents' text take, and the key of its typeset form.
2. ``insert_formulas``: in the finished page, each marker gets the typeset SVG and MathML.

The TeX is found where pymdownx.arithmatex put it (``\\(…\\)`` and ``\\[…\\]`` in ``.arithmatex``)
and, on notebook pages, in the text of the markdown cells (``$…$``, ``$$…$$``, ``\\(…\\)``, ``\\[…\\]``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from qkv_site.formulas.cache import Formula

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
    return _INLINE_TEX.sub(lambda match: html.escape(typeset(html.unescape(match.group(1)).strip(), False).text, quote=False), text)


def insert_formulas(page_html: str, typeset_by_key: Callable[[str], str]) -> str:
    """Put the typeset markup into every marker of a finished page.

    Each formula's SVG names its glyphs ``MJX-<n>-…``; a formula can appear more than once on a page
    (the heading and both tables of contents), so every occurrence gets its own n. An inline formula
    and the punctuation right after it are kept on one line.

    >>> insert_formulas('<h2><span class="arithmatex" data-formula="k1">√dₖ</span></h2>',
    ...                 lambda key: '<mjx-container><svg><use href="#MJX-7-TEX-I-1D451"/></svg></mjx-container>')
    '<h2><span class="arithmatex"><mjx-container><svg><use href="#MJX-1-TEX-I-1D451"/></svg></mjx-container></span></h2>'
    >>> insert_formulas('<p>除以 <span class="arithmatex" data-formula="k1">√dₖ</span>。</p>', lambda key: '<svg/>')
    '<p>除以 <span class="formula-nowrap"><span class="arithmatex"><svg/></span>。</span></p>'
    """
    count = 0

    def one(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        tag, punctuation = match.group(1), match.group(3)
        markup = f'<{tag} class="arithmatex">{_IDS.sub(f"MJX-{count}-", typeset_by_key(match.group(2)))}</{tag}>'
        return f'<span class="formula-nowrap">{markup}{punctuation}</span>' if punctuation and tag == "span" else markup + punctuation

    return _MARKER_AND_PUNCTUATION.sub(one, page_html)
