"""A notebook page's table of contents, read from the headings of the rendered page.

mkdocs-jupyter makes a notebook's contents with Python-Markdown's toc extension, which sees Markdown
headings (``## Title``) only. The notebooks write theirs in HTML (``<h2 id="step-1">…</h2>``), the one
way to give a heading of a Jupyter Markdown cell the same id in both languages, so their contents
came out empty: no contents beside the notebook, and nothing for Material's anchor tracking to write
into the address as the reader scrolls. `contents` reads them from the page mkdocs-jupyter rendered.
"""

from __future__ import annotations

import html
from typing import Any

from bs4 import BeautifulSoup
from mkdocs.structure.toc import TableOfContents, get_toc


def contents(page_html: str) -> TableOfContents:
    """The headings of ``page_html`` that have an id, nested by level, as MkDocs' table of contents.

    Each entry's title is the heading's text (TeX left as it is, for the formulas to typeset).

    >>> toc = contents('<h1 id="top">A <code>qkv</code> walk</h1><p>…</p><h2 id="one">Step $1$</h2>'
    ...                '<h3 id="one-a">Part</h3><h2 id="two">Step 2</h2><h2>No id</h2>')
    >>> print(toc, end="")
    A qkv walk - #top
        Step $1$ - #one
            Part - #one-a
        Step 2 - #two
    """
    tokens: list[dict[str, Any]] = []  # as MkDocs' own (its _TocToken): level, id, name, children
    open_levels: list[dict[str, Any]] = []  # the innermost open heading of each depth
    for heading in BeautifulSoup(page_html, "html.parser").find_all(["h1", "h2", "h3", "h4", "h5", "h6"]):
        if not heading.get("id"):
            continue
        for link in heading.select("a.anchor-link, a.headerlink"):
            link.decompose()
        level = int(heading.name[1])
        name = html.escape(heading.get_text().strip(), quote=False)
        token: dict[str, Any] = {"level": level, "id": heading["id"], "name": name, "children": []}
        while open_levels and open_levels[-1]["level"] >= level:
            open_levels.pop()
        (open_levels[-1]["children"] if open_levels else tokens).append(token)
        open_levels.append(token)
    return get_toc(tokens)  # type: ignore[arg-type]
