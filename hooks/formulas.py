"""Typeset every formula while the site is built (qkv_site.formulas): pages carry SVG + MathML, no TeX.

on_page_content (last of all) puts a marker with the formula's plain text where each formula is,
so that the search index, made from the content next, reads "√dₖ", not TeX; on_post_page puts the
typeset formula into each marker of the finished page, table of contents included. A formula that
MathJax cannot typeset stops the build, naming the page and the TeX.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from qkv_site.formulas import FormulaCache, FormulaError, insert_formulas, mark_formulas, mark_inline_text, plain_inline_text

log = logging.getLogger("mkdocs.hooks.formulas")
CACHE: FormulaCache | None = None


def on_config(config, **kwargs):
    global CACHE
    if CACHE is None:  # one cache for the life of the process (mkdocs serve rebuilds reuse it)
        CACHE = FormulaCache(Path(config.config_file_path).parent / ".cache" / "formulas")
    CACHE.typeset = CACHE.reused = 0
    return config


def _mark_toc(items, notebook: bool) -> None:
    for item in items:
        item.title = mark_inline_text(item.title, CACHE.keyed, notebook)
        _mark_toc(item.children, notebook)


@event_priority(-100)  # after every other plugin has written the content
def on_page_content(html: str, page, **kwargs) -> str:
    notebook = page.file.src_uri.endswith(".ipynb")
    try:
        html = mark_formulas(html, CACHE.keyed, notebook)
        _mark_toc(page.toc, notebook)
        if page.title and "\\(" in page.title:  # a title taken from an h1 with a formula: text only
            page.title = plain_inline_text(page.title, CACHE.get)
    except FormulaError as error:
        raise PluginError(f"{page.file.src_uri}: {error}") from None
    return html


def on_post_page(output: str, page, **kwargs) -> str:
    def title(match: re.Match[str]) -> str:
        return match.group(1) + plain_inline_text(match.group(2), CACHE.get) + match.group(3)

    output = re.sub(r"(<title>)(.*?)(</title>)", title, output, count=1, flags=re.DOTALL)
    return insert_formulas(output, CACHE.markup)


def on_post_build(config, **kwargs) -> None:
    log.info(f"formulas: {CACHE.typeset} typeset by MathJax, {CACHE.reused} from the cache")


def on_build_error(error, **kwargs) -> None:
    if CACHE is not None:
        CACHE.close()


def on_shutdown(**kwargs) -> None:
    # Once, after every language has been built (mkdocs-static-i18n runs one build per language),
    # or when `mkdocs serve` stops: the one MathJax process of the build ends here.
    if CACHE is not None:
        CACHE.close()
