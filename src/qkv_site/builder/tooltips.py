"""Tooltips: wrap the glossary's terms in running text in <abbr title="…">, as a reader meets them.

Material shows an element's title as a tooltip on hover and on focus (the theme's content.tooltips).
The first time a page uses a term, that <abbr> is a tab stop too (tabindex="0"), so that a keyboard
reaches every term's tooltip; its later uses show it on hover only, so that the Tab key does not stop
at every "Key" of a page.
"""

from __future__ import annotations

import html
import re

from qkv_site.glossary import TERMS, Term, term_pattern, tooltip

# Where a tooltip would be wrong or in the way: headings, code, links and existing tooltips.
_SKIPPED = {"h1", "h2", "h3", "h4", "h5", "h6", "summary", "code", "pre", "a", "abbr", "script", "style", "svg", "textarea",
            "button", "kbd"}
# Formulas, the titles of admonitions (they read as headings), a notebook's hidden copy of each code
# cell (what its copy button copies) and its cells' outputs.
_SKIPPED_CLASSES = re.compile(r'class="[^"]*\b(?:arithmatex|admonition-title|clipboard-copy-txt|jp-OutputArea)\b')
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
_TOKEN = re.compile(r"<!--.*?-->|<[^>]+>", re.DOTALL)
_TAG = re.compile(r"<\s*(/?)\s*([A-Za-z][A-Za-z0-9-]*)([^>]*)>")


def _terms_regex(terms: tuple[Term, ...]) -> re.Pattern[str]:
    alternatives = []
    for index, term in enumerate(terms):
        flags = "" if term.exact_case else "i"
        pattern = term_pattern(term).pattern
        alternatives.append(f"(?P<t{index}>(?{flags}:{pattern}))" if flags else f"(?P<t{index}>{pattern})")
    return re.compile("|".join(alternatives))


_ALL_TERMS = _terms_regex(TERMS)
_TEX = re.compile(r"(\$\$.*?\$\$|\$[^$]+\$|\\\(.*?\\\)|\\\[.*?\\\])", re.DOTALL)


def _annotate(text: str, lang: str, focusable: set[int]) -> str:
    """`text` with its terms wrapped; a term's first use (its index not yet in `focusable`) is a tab stop."""

    def wrap(match: re.Match[str]) -> str:
        group = match.lastgroup
        assert group is not None  # every alternative of the pattern is a named group
        index = int(group[1:])
        title = html.escape(tooltip(TERMS[index], lang), quote=False).replace('"', "&quot;")
        stop = "" if index in focusable else ' tabindex="0"'
        focusable.add(index)
        return f'<abbr{stop} title="{title}">{match.group(0)}</abbr>'

    # TeX the page leaves for MathJax in plain text (notebook cells): $$…$$, $…$, \(…\), \[…\].
    pieces = _TEX.split(text)
    return "".join(piece if index % 2 else _ALL_TERMS.sub(wrap, piece) for index, piece in enumerate(pieces))


def add_tooltips(page_html: str, lang: str) -> str:
    """`page_html` with every glossary term of its running text given the tooltip of `lang`.

    Whole words only, plurals and lower case included (Query, Key and Value only capitalised);
    never inside headings, code, links, formulas or another tooltip. A term's first use on the page
    is a tab stop.

    >>> shown = add_tooltips("<h2>Key insight</h2><p>The Key of 猫, the key idea, self-attention, a Key.</p>", "en")
    >>> for line in shown.split("<abbr"):
    ...     print(line.rstrip())
    <h2>Key insight</h2><p>The
     tabindex="0" title="key — Each token's label, matched against queries: K = X·W_K">Key</abbr> of 猫, the key idea,
     tabindex="0" title="self-attention — Attention in which Q, K and V all come from the same sequence">self-attention</abbr>, a
     title="key — Each token's label, matched against queries: K = X·W_K">Key</abbr>.</p>
    >>> formula = '<span class="arithmatex">\\\\(\\\\text{softmax}\\\\)</span>'
    >>> add_tooltips(f"<p>{formula} <code>softmax</code></p>", "en").count("<abbr")
    0
    """
    out: list[str] = []
    focusable: set[int] = set()  # the terms whose first use has been made a tab stop
    stack: list[tuple[str, bool]] = []  # (tag, skipped)
    position = 0
    for token in _TOKEN.finditer(page_html):
        text = page_html[position : token.start()]
        out.append(_annotate(text, lang, focusable) if text and not (stack and stack[-1][1]) else text)
        out.append(token.group(0))
        position = token.end()
        tag = _TAG.match(token.group(0))
        if not tag:
            continue  # a comment, a doctype
        closing, name, rest = tag.group(1), tag.group(2).lower(), tag.group(3)
        if closing:
            while stack:
                if stack.pop()[0] == name:
                    break
        elif name not in _VOID and not rest.rstrip().endswith("/"):
            skipped = (stack and stack[-1][1]) or name in _SKIPPED or _SKIPPED_CLASSES.search(rest) is not None
            stack.append((name, bool(skipped)))
    tail = page_html[position:]
    out.append(_annotate(tail, lang, focusable) if tail and not (stack and stack[-1][1]) else tail)
    return "".join(out)
