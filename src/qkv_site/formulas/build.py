"""The formulas of the site's pages, for the build's plugin (`qkv_site.builder.plugin` wires the events):
pages carry SVG + MathML, no TeX.

`mark` (the last step of a page's content) puts a marker with the formula's plain text where each
formula is, so that the search index, made from the content next, reads "√dₖ", not TeX; `finish` puts
the typeset formula into each marker of the finished page, table of contents and title included. A
formula that MathJax cannot typeset stops the build, naming the page and the TeX.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

from qkv_site.formulas import FormulaCache, FormulaError, insert_formulas, mark_formulas, mark_inline_text, plain_inline_text

_TITLE = re.compile(r"(<title>)(.*?)(</title>)", re.DOTALL)


class PageFormulas:
    """One formula cache (and one MathJax process) for the life of the build process."""

    def __init__(self, cache: Path) -> None:
        self.cache = FormulaCache(cache / "formulas")

    def start_build(self) -> None:
        self.cache.typeset = self.cache.reused = 0

    def _mark_toc(self, items: Any, notebook: bool) -> None:
        for item in items:
            item.title = mark_inline_text(item.title, self.cache.keyed, notebook)
            self._mark_toc(item.children, notebook)

    def mark(self, html: str, page: Any) -> str:
        notebook = page.file.src_uri.endswith(".ipynb")
        try:
            html = mark_formulas(html, self.cache.keyed, notebook)
            self._mark_toc(page.toc, notebook)
            if page.title and "\\(" in page.title:  # a title taken from an h1 with a formula: text only
                page.title = plain_inline_text(page.title, self.cache.get)
        except FormulaError as error:
            raise PluginError(f"{page.file.src_uri}: {error}") from None
        return html

    def finish(self, output: str) -> str:
        def title(match: re.Match[str]) -> str:
            return match.group(1) + plain_inline_text(match.group(2), self.cache.get) + match.group(3)

        return insert_formulas(_TITLE.sub(title, output, count=1), self.cache.markup)

    def summary(self) -> str:
        return f"formulas: {self.cache.typeset} typeset by MathJax, {self.cache.reused} from the cache"

    def close(self) -> None:
        self.cache.close()
